// The one owner of CUDA device memory: a move-only block from cudaMalloc, freed with cudaFree.
// No CUDA types in the interface, so any file may hold one (CUDA passes' .cpp halves, stream's
// upload); DeviceBuffer.h types it. A build without CUDA has a stub whose allocation throws.
// The destructor never throws: a failure is logged, the driver unloading at exit stays quiet.
// Any thread with the device current.
#pragma once

#include <cstddef>
#include <string>

namespace tandem::cuda {

class DeviceMemory {
public:
    /// Owns nothing.
    DeviceMemory() noexcept = default;
    /// `bytes` of device memory (cudaMalloc), uninitialised; none for 0. `what` names it in the
    /// failure ("packed point attributes"). Throws CudaError naming the size and `what` (Error
    /// in a build without CUDA).
    explicit DeviceMemory(std::size_t bytes, const std::string& what = "device memory");
    ~DeviceMemory() { reset(); }
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;
    /// Moves are destructive: the moved-from object owns nothing.
    DeviceMemory(DeviceMemory&& other) noexcept;
    DeviceMemory& operator=(DeviceMemory&& other) noexcept;

    void* data() const noexcept { return m_data; }
    std::size_t bytes() const noexcept { return m_bytes; }
    /// Frees the memory now (cudaFree waits for work still using it); a failure is logged.
    void reset() noexcept;

private:
    void* m_data = nullptr;
    std::size_t m_bytes = 0;
};

} // namespace tandem::cuda
