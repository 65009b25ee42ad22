#include "engine/cuda/PinnedMemory.h"

#include <cuda_runtime_api.h>

#include "engine/core/Log.h"
#include "engine/cuda/CudaCheck.h"

namespace tandem::cuda {

bool canPinMemory()
{
    int devices = 0;
    const cudaError_t status = cudaGetDeviceCount(&devices);
    // No device is an answer here (the caller says so), not an error to log.
    clearError("cudaGetDeviceCount", status);
    return status == cudaSuccess && devices > 0;
}

void* allocatePinned(std::size_t bytes) noexcept
{
    void* memory = nullptr;
    const cudaError_t status = cudaHostAlloc(&memory, bytes, cudaHostAllocPortable);
    if (status == cudaSuccess)
        return memory;
    logFailure(status, "cudaHostAlloc");
    return nullptr;
}

void freePinned(void* memory) noexcept
{
    if (memory)
        logFailure(cudaFreeHost(memory), "cudaFreeHost");
}

} // namespace tandem::cuda
