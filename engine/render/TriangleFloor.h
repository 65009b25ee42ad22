// A floor for rasterizing clip-space triangles in CUDA, for tandem-bench tensor-raster: one
// thread per triangle projects it, walks the pixel centres of its bounding box with float edge
// functions and keeps the nearest with one 64-bit atomicMin of (depth, triangle + 1) per covered
// pixel. No clipping (a triangle with a vertex behind the eye is skipped), no GL fill rules, no
// resolve: how fast CUDA could draw many small triangles, as the points benchmark's bare kernel
// is for points. CUDA builds only; no CUDA types here.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tandem::render {

/// Clears `keys` (width × height) to all ones and draws `triangles` triangles of `clip`
/// ([V, 4] floats) with `indices` ([T, 3] uint32) into them, on `stream` (a cudaStream_t). Does
/// not block. Throws CudaError.
void triangleFloorCuda(void* stream, const float* clip, const std::uint32_t* indices,
                       std::size_t triangles, int width, int height, std::uint64_t* keys);

} // namespace tandem::render
