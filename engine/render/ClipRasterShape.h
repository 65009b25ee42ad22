// The sizes of one rasterize call on arrays (render::ClipRaster in GL, render::TriangleRaster in
// CUDA): positions [B, V, 4] floats, triangles [T, 3] uint32, output [B, H, W, 4] floats. Plain
// data, no GL, no CUDA.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tandem::render {

/// The sizes of one rasterize call.
struct ClipRasterShape {
    std::size_t batch = 1;     ///< B: position sets drawn with the same triangles
    std::size_t vertices = 0;  ///< V: positions per batch item
    std::size_t triangles = 0; ///< T
    int width = 0;             ///< W, pixels
    int height = 0;            ///< H, pixels

    std::size_t positionBytes() const { return batch * vertices * 4 * sizeof(float); }
    std::size_t triangleBytes() const { return triangles * 3 * sizeof(std::uint32_t); }
    std::size_t outputBytes() const
    {
        return batch * static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4 *
               sizeof(float);
    }
};

} // namespace tandem::render
