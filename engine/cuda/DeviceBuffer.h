// Move-only owner of device memory holding `count` elements of T: a typed DeviceMemory. No
// CUDA include, so .cpp files of any module may hold one; a build without CUDA throws when it
// allocates.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "engine/cuda/DeviceMemory.h"

namespace tandem::cuda {

template <class T> class DeviceBuffer {
public:
    DeviceBuffer() noexcept = default;
    /// Allocates `count` elements, uninitialised. Throws CudaError on failure, naming `what`.
    explicit DeviceBuffer(std::size_t count, const std::string& what = "device buffer")
        : m_memory(count * sizeof(T), what), m_count(count)
    {}
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : m_memory(std::move(other.m_memory)), m_count(std::exchange(other.m_count, 0))
    {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept
    {
        if (this != &other) {
            m_memory = std::move(other.m_memory);
            m_count = std::exchange(other.m_count, 0);
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* data() const noexcept { return static_cast<T*>(m_memory.data()); }
    std::size_t size() const noexcept { return m_count; }
    std::size_t bytes() const noexcept { return m_count * sizeof(T); }

    /// Grows to at least `count` elements (contents lost when it reallocates; the old memory is
    /// freed first, so the peak is the new size alone).
    void reserve(std::size_t count, const std::string& what = "device buffer")
    {
        if (count <= m_count)
            return;
        reset();
        *this = DeviceBuffer(count, what);
    }
    /// Frees the memory; a failure is logged, never thrown.
    void reset() noexcept
    {
        m_memory.reset();
        m_count = 0;
    }

private:
    DeviceMemory m_memory;
    std::size_t m_count = 0;
};

} // namespace tandem::cuda
