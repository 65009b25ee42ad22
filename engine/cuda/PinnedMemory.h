// Page-locked host memory (cudaHostAlloc, portable: every device copies from it by DMA at full
// PCIe speed), for staging what goes to the GPU. No CUDA types in the interface; in a build
// without CUDA nothing is page-locked (canPinMemory() is false). Any thread.
#pragma once

#include <cstddef>

namespace tandem::cuda {

/// Whether page-locked memory can be had: a build with CUDA and at least one device
/// (cudaGetDeviceCount). Clears CUDA's error state when there is none.
bool canPinMemory();

/// `bytes` of page-locked memory, or null when CUDA refuses (the reason logged, the error
/// cleared). Never throws.
void* allocatePinned(std::size_t bytes) noexcept;

/// Frees what allocatePinned() returned (null: nothing). A failure is logged; the driver
/// unloading at exit stays quiet. Never throws.
void freePinned(void* memory) noexcept;

} // namespace tandem::cuda
