#include "engine/cuda/DeviceMemory.h"

#include <utility>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "engine/cuda/CudaCheck.h"

namespace tandem::cuda {

DeviceMemory::DeviceMemory(std::size_t bytes, const std::string& what) : m_bytes(bytes)
{
    if (bytes == 0)
        return;
    const cudaError_t result = cudaMalloc(&m_data, bytes);
    if (result != cudaSuccess) {
        m_data = nullptr;
        m_bytes = 0;
        check(result, fmt::format("cudaMalloc ({:.1f} MiB of {})",
                                  static_cast<double>(bytes) / (1024.0 * 1024.0), what)
                          .c_str());
    }
}

DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)), m_bytes(std::exchange(other.m_bytes, 0))
{}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept
{
    if (this != &other) {
        reset();
        m_data = std::exchange(other.m_data, nullptr);
        m_bytes = std::exchange(other.m_bytes, 0);
    }
    return *this;
}

void DeviceMemory::reset() noexcept
{
    if (m_data)
        logFailure(cudaFree(m_data), "cudaFree(DeviceMemory)");
    m_data = nullptr;
    m_bytes = 0;
}

} // namespace tandem::cuda
