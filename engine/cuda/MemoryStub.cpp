// Device and pinned memory in builds without CUDA: device memory cannot be had (allocation
// throws), nothing is page-locked.
#include <fmt/format.h>

#include "engine/core/Error.h"
#include "engine/cuda/DeviceMemory.h"
#include "engine/cuda/PinnedMemory.h"

namespace tandem::cuda {

DeviceMemory::DeviceMemory(std::size_t bytes, const std::string& what)
{
    if (bytes > 0)
        throw Error(fmt::format("{} bytes of {}: this build has no CUDA", bytes, what),
                    "cuda::DeviceMemory");
}

DeviceMemory::DeviceMemory(DeviceMemory&&) noexcept {}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&&) noexcept
{
    return *this;
}

void DeviceMemory::reset() noexcept {}

bool canPinMemory()
{
    return false;
}

void* allocatePinned(std::size_t) noexcept
{
    return nullptr;
}

void freePinned(void*) noexcept {}

} // namespace tandem::cuda
