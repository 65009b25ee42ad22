#include "engine/cuda/Device.h"

#include <fmt/format.h>

#include "engine/core/Log.h"
#include "engine/cuda/CudaCheck.h"

namespace tandem::cuda {

namespace {

std::string whyUnavailable(cudaError_t code)
{
    switch (code) {
    case cudaErrorNoDevice:
        return "no CUDA-capable GPU found (cudaErrorNoDevice)";
    case cudaErrorInsufficientDriver:
        return "no CUDA driver, or one older than this build's runtime "
               "(cudaErrorInsufficientDriver)";
    default:
        return fmt::format("CUDA unavailable: {} ({})", cudaGetErrorString(code),
                           cudaGetErrorName(code));
    }
}

DeviceInfo describe(int index, const cudaDeviceProp& props)
{
    DeviceInfo info;
    info.index = index;
    info.name = props.name;
    info.computeMajor = props.major;
    info.computeMinor = props.minor;
    info.multiprocessors = props.multiProcessorCount;
    info.memoryBytes = props.totalGlobalMem;
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, index) == cudaSuccess)
        info.pciBusId = bus;
    return info;
}

} // namespace

bool isBuiltWithCuda()
{
    return true;
}

Result<std::vector<DeviceInfo>> listDevices()
{
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        clearError("cudaGetDeviceCount", status);
        return fail(whyUnavailable(status));
    }
    if (count == 0)
        return fail(whyUnavailable(cudaErrorNoDevice));
    std::vector<DeviceInfo> devices;
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp props{};
        const cudaError_t result = cudaGetDeviceProperties(&props, i);
        if (result == cudaSuccess)
            devices.push_back(describe(i, props));
        else
            log::warning("CUDA device {}: cudaGetDeviceProperties failed: {}", i,
                         cudaGetErrorString(result));
        clearError("cudaGetDeviceProperties", result);
    }
    return devices;
}

Result<DeviceInfo> selectDevice(int index)
{
    auto devices = listDevices();
    if (!devices)
        return fail(devices.error());
    const int chosen = index < 0 ? 0 : index;
    if (chosen >= static_cast<int>(devices.value().size()))
        return fail(fmt::format("CUDA device {} asked for, but there are only {}", chosen,
                                devices.value().size()));
    const cudaError_t status = cudaSetDevice(chosen);
    if (status == cudaSuccess)
        // Creates the primary context now, so a broken device fails here, not mid-frame.
        if (const cudaError_t free = cudaFree(nullptr); free != cudaSuccess) {
            clearError("cudaFree(nullptr)", free);
            return fail(
                fmt::format("CUDA device {} cannot be used: {}", chosen, cudaGetErrorString(free)));
        }
    if (status != cudaSuccess) {
        clearError("cudaSetDevice", status);
        return fail(
            fmt::format("CUDA device {} cannot be used: {}", chosen, cudaGetErrorString(status)));
    }
    return devices.value()[static_cast<std::size_t>(chosen)];
}

std::size_t freeMemory()
{
    std::size_t free = 0, total = 0;
    if (const cudaError_t status = cudaMemGetInfo(&free, &total); status != cudaSuccess) {
        clearError("cudaMemGetInfo", status);
        return 0;
    }
    return free;
}

std::string versionString()
{
    int driver = 0, runtime = 0;
    const cudaError_t driverStatus = cudaDriverGetVersion(&driver);
    const cudaError_t runtimeStatus = cudaRuntimeGetVersion(&runtime);
    // Without a driver both answer (driver 0) and leave "insufficient driver" behind: an answer
    // here, not an error. Anything else pending is logged.
    clearError("cudaDriverGetVersion/cudaRuntimeGetVersion",
               driver == 0                   ? cudaErrorInsufficientDriver
               : driverStatus != cudaSuccess ? driverStatus
                                             : runtimeStatus);
    if (driver == 0)
        return fmt::format("no CUDA driver, runtime {}.{}", runtime / 1000, (runtime % 1000) / 10);
    return fmt::format("driver {}.{}, runtime {}.{}", driver / 1000, (driver % 1000) / 10,
                       runtime / 1000, (runtime % 1000) / 10);
}

} // namespace tandem::cuda
