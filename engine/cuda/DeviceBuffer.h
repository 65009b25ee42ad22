// Move-only owner of device memory holding `count` elements of T (cudaMalloc/cudaFree).
// Include only where CUDA headers are allowed.
#pragma once

#include <cstddef>
#include <utility>

#include <cuda_runtime_api.h>

#include "engine/cuda/CudaCheck.h"

namespace tandem::cuda {

template <class T> class DeviceBuffer {
public:
    DeviceBuffer() noexcept = default;
    /// Allocates `count` elements, uninitialised. Throws CudaError on failure.
    explicit DeviceBuffer(std::size_t count) : m_count(count)
    {
        if (count > 0)
            TANDEM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&m_data), count * sizeof(T)));
    }
    ~DeviceBuffer() { reset(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : m_data(std::exchange(other.m_data, nullptr)), m_count(std::exchange(other.m_count, 0))
    {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept
    {
        if (this != &other) {
            reset();
            m_data = std::exchange(other.m_data, nullptr);
            m_count = std::exchange(other.m_count, 0);
        }
        return *this;
    }

    T* data() const noexcept { return m_data; }
    std::size_t size() const noexcept { return m_count; }
    std::size_t bytes() const noexcept { return m_count * sizeof(T); }

    /// Grows to at least `count` elements (contents lost when it reallocates).
    void reserve(std::size_t count)
    {
        if (count > m_count)
            *this = DeviceBuffer(count);
    }

private:
    void reset() noexcept
    {
        if (m_data) {
            const cudaError_t result = cudaFree(m_data);
            // Errors at shutdown (the driver unloading) are harmless; others are logged.
            clearError("cudaFree(DeviceBuffer)",
                       result == cudaErrorCudartUnloading ? result : cudaSuccess);
        }
        m_data = nullptr;
        m_count = 0;
    }

    T* m_data = nullptr;
    std::size_t m_count = 0;
};

} // namespace tandem::cuda
