// Device discovery in builds without CUDA: there is never a device, and the reason says why;
// copies throw.
#include "engine/cuda/Device.h"

#include "engine/core/Error.h"
#include "engine/cuda/Copy.h"

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

void copyAsync(void*, const void*, std::size_t, void*)
{
    throw Error("cuda::copyAsync(): this build has no CUDA");
}

void copy(void*, const void*, std::size_t)
{
    throw Error("cuda::copy(): this build has no CUDA");
}

int currentDevice()
{
    throw Error("cuda::currentDevice(): this build has no CUDA");
}

void setCurrentDevice(int)
{
    throw Error("cuda::setCurrentDevice(): this build has no CUDA");
}

StreamEvent::~StreamEvent() = default;

void StreamEvent::record(void*)
{
    throw Error("cuda::StreamEvent::record(): this build has no CUDA");
}

void streamWait(void*, void* event)
{
    if (event)
        throw Error("cuda::streamWait(): this build has no CUDA");
}

} // namespace tandem::cuda
