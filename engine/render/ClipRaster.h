// Rasterizes clip-space triangles given as arrays (tensors, in the Python package): positions
// [B, V, 4] as they are, no camera, and triangles [T, 3] of 32-bit indices shared by the batch,
// into nvdiffrast's rasterize layout, [B, H, W, 4] floats of (u, v, z/w, triangle + 1) in one
// output buffer, row 0 at clip y = -1. Per batch item: a visibility draw of triangle ids (as
// cheap as the geometry pass's) and a compute resolve of perspective-correct barycentrics. Owns
// its GL buffers and their CUDA registrations; filling the inputs and reading the output is the
// caller's (frame::TensorRaster). Forward only. Render thread, the GL context current.
#pragma once
#include "engine/core/EnumTable.h"
#include "engine/gl/Buffer.h"
#include "engine/gl/Framebuffer.h"
#include "engine/gl/Program.h"
#include "engine/gl/Texture.h"
#include "engine/gl/VertexArray.h"
#include "engine/interop/Registrations.h"
#include "engine/render/ClipRasterShape.h"
#include <cstddef>

namespace tandem::render {

/// How the visibility draw names triangles. On an H200 (driver 580.159, 2026-12) the indexed
/// draw with gl_PrimitiveID took 3.75 ms for a 2.1 M-triangle grid at 1080p, pulling 4.89 ms
/// (tandem-bench tensor-raster): PrimitiveId is the default.
enum class TriangleIds {
    PrimitiveId, ///< indexed draw, gl_PrimitiveID in the fragment shader
    Pulled,      ///< non-indexed draw pulling vertices through the indices; id = gl_VertexID / 3;
                 ///< an index past the vertex count reads nothing
};

/// The ways' names (tandem.rasterize's triangle_ids, benchmarks).
inline constexpr EnumTable<TriangleIds, 2> TriangleIdChoices{
    "triangle ids",
    {{{TriangleIds::PrimitiveId, "primitive-id", "indexed draw, gl_PrimitiveID"},
      {TriangleIds::Pulled, "pulled", "vertices pulled through the indices"}}}};

class ClipRaster {
public:
    /// Compiles the programs. Throws GlError with file:line on shader errors.
    explicit ClipRaster(TriangleIds ids = TriangleIds::PrimitiveId);

    /// Makes the buffers and targets hold `shape`: buffers grow (never shrink), the targets take
    /// its size. A buffer reallocated loses its CUDA registration here. Expects the buffers not
    /// mapped by CUDA when they must grow.
    void reserve(const ClipRasterShape& shape);

    /// Draws `shape` (reserved, inputs filled): for each batch item, visibility then resolve into
    /// its slice of the output, in debug groups "raster.visibility" and "raster.resolve". Expects
    /// nothing mapped by CUDA. Does not block.
    void draw(const ClipRasterShape& shape);

    /// Positions, [B, V, 4] floats (std430 vec4 array).
    const gl::Buffer& positions() const { return m_positions; }
    /// Triangles, [T, 3] uint32.
    const gl::Buffer& triangles() const { return m_triangles; }
    /// The result, [B, H, W, 4] floats.
    const gl::Buffer& output() const { return m_output; }
    gl::Buffer& positions() { return m_positions; }
    gl::Buffer& triangles() { return m_triangles; }
    /// The CUDA registrations of the three buffers (made by the caller's handoff).
    interop::Registrations& registrations() { return m_registrations; }
    bool isMappedByCuda() const { return m_registrations.isMapped(); }
    TriangleIds triangleIds() const { return m_ids; }

private:
    TriangleIds m_ids;
    gl::Program m_visibility;
    gl::Program m_resolve;
    gl::VertexArray m_vertexArray;
    gl::Buffer m_positions{gl::NoCreate};
    gl::Buffer m_triangles{gl::NoCreate};
    gl::Buffer m_output{gl::NoCreate};
    gl::Texture m_visibilityTarget{gl::NoCreate};
    gl::Texture m_depth{gl::NoCreate};
    gl::Framebuffer m_framebuffer{gl::NoCreate};
    /// After the buffers: unregistered before they are deleted.
    interop::Registrations m_registrations;
};

} // namespace tandem::render
