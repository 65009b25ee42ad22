// Clip-space triangles rasterized by CUDA kernels instead of GL (tandem.rasterize on CUDA
// tensors): the same inputs and output as render::ClipRaster (ClipRasterShape's layouts), the
// same rules (render/TriangleRasterMath.h), and no GL at all, so no handoff. Per batch item:
// small triangles are drawn by one thread each, walking their few pixels; larger ones and the
// clipped ones are split into 16×16-pixel tiles, one thread a pixel; each covered pixel keeps
// the nearest (depth, triangle) key with one 64-bit atomicMin; a resolve turns keys into
// nvdiffrast's values. On an H200 the 2.1 M-triangle grid of tandem-bench tensor-raster takes a
// fraction of the GL draw's time. The host twin computes the same bits on one CPU thread (for
// tests). No CUDA types here.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/render/ClipRasterShape.h"

namespace tandem::render {

/// The host twin: rasterizes host arrays in ClipRasterShape's layouts into `output`, with the
/// same functions as the kernels. Triangles with an index past the vertex count are not drawn.
/// `keys` (B × H × W), if not null, receives the visibility keys.
void rasterizeTrianglesHost(const float* positions, const std::uint32_t* triangles, float* output,
                            const ClipRasterShape& shape, std::uint64_t* keys = nullptr);

class TriangleRaster {
public:
    /// Nothing is allocated until the first call. Without CUDA in the build, calls throw.
    TriangleRaster();
    ~TriangleRaster();
    TriangleRaster(const TriangleRaster&) = delete;
    TriangleRaster& operator=(const TriangleRaster&) = delete;

    /// CUDA device memory of the current device in ClipRasterShape's layouts, every kernel
    /// ordered on `stream` (a cudaStream_t; null is the legacy default stream), after the
    /// previous call's kernels when that was on another stream (they share scratch memory, made
    /// on the device of the first call: one object a device). Does not block,
    /// except that growing its scratch memory (visibility keys, tile counts) allocates. Triangles
    /// with an index past the vertex count are not drawn. Throws CudaError.
    void rasterize(const float* positions, const std::uint32_t* triangles, float* output,
                   const ClipRasterShape& shape, void* stream);

    /// The first half of rasterize() for one position set: the visibility keys of `positions`
    /// ([V] clip-space float4) and `triangles` ([T] uint3), both device memory, ordered on
    /// `stream` as rasterize() is; returns them (width × height keys on the device, rows from
    /// the bottom, triangles::EmptyKey where none is drawn), valid until the next call. A call
    /// on another stream waits for this call's kernels but not for those reading the keys: read
    /// them on `stream`, and draw the next item there too. Throws CudaError.
    const std::uint64_t* drawKeys(const float* positions, const std::uint32_t* triangles,
                                  std::size_t vertices, std::size_t triangleCount, int width,
                                  int height, void* stream);

    /// The visibility keys of the last batch item drawn (H × W on the device): for tests.
    const std::uint64_t* keys() const;

private:
    /// Orders `stream` after the previous call and grows the scratch memory; returns the
    /// prefix sum's temporary bytes.
    std::size_t prepare(std::size_t pixels, std::size_t triangleCount, void* stream);
    /// One item's keys into the scratch keys.
    void drawItem(const float* positions, const std::uint32_t* triangles, std::size_t vertices,
                  std::size_t triangleCount, int width, int height, std::size_t scanBytes,
                  void* stream);

    struct Scratch;
    std::unique_ptr<Scratch> m_scratch;
};

} // namespace tandem::render
