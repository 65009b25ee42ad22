// Device discovery in builds without CUDA: there is never a device, and the reason says why.
#include "engine/cuda/Device.h"

namespace tandem::cuda {

std::size_t freeMemory()
{
    return 0;
}

bool isBuiltWithCuda()
{
    return false;
}

Result<std::vector<DeviceInfo>> listDevices()
{
    return fail("this build has no CUDA (configured without a CUDA toolkit)");
}

Result<DeviceInfo> selectDevice(int)
{
    return fail(listDevices().error());
}

std::string versionString()
{
    return "not built with CUDA";
}

} // namespace tandem::cuda
