// A 2D CUDA array with a surface object for kernels to read and write (surf2Dread/surf2Dwrite):
// a G-buffer-like target in CUDA memory for code that draws without GL (benchmarks and tests of
// CUDA passes). Move-only; the destructor never throws. No CUDA types in the interface. CUDA
// builds only.
#pragma once

#include <cstdint>

namespace tandem::cuda {

class SurfaceArray {
public:
    /// The texel formats the G-buffer's targets use.
    enum class Format { Rgba8, Rgba16, R32F, R32UI };

    /// `width`×`height` texels of `format`, uninitialised. Throws CudaError.
    SurfaceArray(int width, int height, Format format);
    ~SurfaceArray();
    SurfaceArray(const SurfaceArray&) = delete;
    SurfaceArray& operator=(const SurfaceArray&) = delete;

    /// Copies rows of texels, tightly packed, from the host in; blocks. Throws CudaError.
    void upload(const void* data);
    /// Copies them out to the host; blocks. Throws CudaError.
    void download(void* data) const;

    /// The cudaSurfaceObject_t.
    std::uint64_t surface() const { return m_surface; }
    int bytesPerTexel() const { return m_bytes; }

private:
    int m_width, m_height, m_bytes;
    void* m_array = nullptr; ///< cudaArray_t
    std::uint64_t m_surface = 0;
};

} // namespace tandem::cuda
