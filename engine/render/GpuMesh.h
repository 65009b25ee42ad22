// A mesh or point cloud uploaded to GL buffers: interleaved vertices, optional triangle
// indices, the vertex array describing them, and for triangles the provoking-vertex table the
// geometry pass's resolve uses. Created and used on the render thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/gl/Buffer.h"
#include "engine/gl/VertexArray.h"
#include "engine/io/MeshData.h"

namespace tandem::render {

/// One interleaved vertex as stored in the vertex buffer (36 bytes).
struct Vertex {
    glm::vec3 position; ///< world units
    glm::vec3 normal;   ///< unit length; zero when the source has none
    glm::u8vec4 color;  ///< RGBA8, normalized in the shader
    glm::vec2 texcoord; ///< zero when the source has none
};
static_assert(sizeof(Vertex) == 36, "Vertex layout is shared with the vertex array setup");

/// GPU copy of an io::MeshData.
class GpuMesh {
public:
    /// Uploads `mesh`. Expects a current context; throws GlError on failure.
    GpuMesh(const io::MeshData& mesh, std::string_view label);

    GpuMesh(GpuMesh&&) noexcept = default;
    GpuMesh& operator=(GpuMesh&&) noexcept = default;

    bool isPointCloud() const { return m_indexCount == 0; }
    bool hasColors() const { return m_hasColors; }
    bool hasNormals() const { return m_hasNormals; }
    std::uint32_t vertexCount() const { return m_vertexCount; }
    std::uint32_t indexCount() const { return m_indexCount; }
    const io::Bounds& bounds() const { return m_bounds; }
    const gl::VertexArray& vertexArray() const { return m_vertexArray; }
    const gl::Buffer& vertexBuffer() const { return m_vertices; }
    const gl::Buffer& indexBuffer() const { return m_indices; }
    /// Triangles by provoking (last) vertex, for the resolve pass: offsets (vertexCount + 1
    /// entries) into a list of triangle indices. Empty for point clouds.
    const gl::Buffer& provokingOffsets() const { return m_provokingOffsets; }
    const gl::Buffer& provokingTriangles() const { return m_provokingTriangles; }

private:
    gl::Buffer m_vertices{gl::NoCreate};
    gl::Buffer m_indices{gl::NoCreate};
    gl::Buffer m_provokingOffsets{gl::NoCreate};
    gl::Buffer m_provokingTriangles{gl::NoCreate};
    gl::VertexArray m_vertexArray{gl::NoCreate};
    std::uint32_t m_vertexCount = 0;
    std::uint32_t m_indexCount = 0;
    bool m_hasColors = false;
    bool m_hasNormals = false;
    io::Bounds m_bounds;
};

} // namespace tandem::render
