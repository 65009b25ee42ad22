// A scene uploaded to GL buffers: every object's vertices in one interleaved vertex buffer,
// the triangles of all meshes in one index buffer (indices global), the provoking-vertex table
// the geometry pass's resolve uses, and one record per object (its vertex range, first
// primitive id, whether it is points, has colours, has normals). Triangles draw in one call;
// each point cloud in one more. Created and used on the render thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/Result.h"
#include "engine/gl/Buffer.h"
#include "engine/gl/VertexArray.h"
#include "engine/interop/Registrations.h"
#include "engine/render/Scene.h"

namespace tandem::render {

/// One interleaved vertex as stored in the vertex buffer (36 bytes); shaders read it as
/// PackedVertex (Resolve.comp.glsl), checked field by field by a gl-tier test.
struct Vertex {
    glm::vec3 position; ///< world units
    glm::vec3 normal;   ///< unit length; zero when the source has none
    glm::u8vec4 color;  ///< RGBA8, normalized in the shader
    glm::vec2 texcoord; ///< zero when the source has none
};
static_assert(sizeof(Vertex) == 36, "Vertex layout is shared with the shaders");

/// What an object record's flags say.
enum ObjectFlag : std::uint32_t {
    ObjectIsPoints = 1u,   ///< drawn as points (it has no triangles)
    ObjectHasColors = 2u,  ///< vertex colours are meaningful
    ObjectHasNormals = 4u, ///< vertex normals are meaningful
};

/// std430 layout of one record of the Objects buffer (Resolve.comp.glsl's uvec4 objects[]).
struct GpuObject {
    std::uint32_t firstVertex; ///< into the vertex buffer
    std::uint32_t vertexCount;
    std::uint32_t firstPrimitive; ///< its first id - 1: triangles of all meshes come first (in
                                  ///< object order), then the points of all clouds
    std::uint32_t flags;          ///< ObjectFlag bits
};
static_assert(sizeof(GpuObject) == 16, "GpuObject mirrors a uvec4");

/// The GPU memory uploading `scene` takes, bytes.
std::size_t gpuBytesOf(const Scene& scene);
/// gpuBytesOf(scene), or a failure naming the scene, what it needs and `freeBytes` when it does
/// not fit (0 free: unknown, anything fits).
Result<std::size_t> checkGpuMemory(const Scene& scene, std::size_t freeBytes);

class GpuScene {
public:
    /// Uploads `scene`, its vertices in chunks. Expects a current context; throws Error when it
    /// does not fit in the GPU's free memory (where the driver says), GlError on other failures.
    /// Objects without vertices are skipped.
    explicit GpuScene(const Scene& scene, std::string_view label = "scene");

    GpuScene(GpuScene&&) noexcept = default;
    /// Not assignable: the registrations must go before the buffers they name.
    GpuScene& operator=(GpuScene&&) = delete;

    std::uint32_t vertexCount() const { return m_vertexCount; }
    /// Indices of all triangles (3 per triangle).
    std::uint32_t indexCount() const { return m_indexCount; }
    std::uint32_t triangleCount() const { return m_indexCount / 3; }
    bool hasPoints() const;
    /// Vertices of point objects.
    std::uint32_t pointCount() const;
    /// GPU memory the scene's buffers take, bytes.
    std::size_t gpuBytes() const { return m_gpuBytes; }
    /// A number no other scene of the process has: what caches of its data are keyed by.
    std::uint64_t serial() const { return m_serial; }
    const io::Bounds& bounds() const { return m_bounds; }
    /// The object records, as uploaded.
    const std::vector<GpuObject>& objects() const { return m_objects; }
    const std::vector<std::string>& names() const { return m_names; }

    const gl::VertexArray& vertexArray() const { return m_vertexArray; }
    const gl::Buffer& vertexBuffer() const { return m_vertices; }
    const gl::Buffer& indexBuffer() const { return m_indices; }
    /// Triangles by provoking (last) vertex, for the resolve pass: offsets (one past the last
    /// mesh vertex + 1 entries; points have none) into a list of triangle indices.
    const gl::Buffer& provokingOffsets() const { return m_provokingOffsets; }
    const gl::Buffer& provokingTriangles() const { return m_provokingTriangles; }
    const gl::Buffer& objectBuffer() const { return m_objectBuffer; }
    /// CUDA registrations of these buffers (for CUDA passes that read the vertices): a cache of
    /// the frame's handoff, filled while the scene itself stays as uploaded.
    interop::Registrations& registrations() const { return m_registrations; }

private:
    gl::Buffer m_vertices{gl::NoCreate};
    gl::Buffer m_indices{gl::NoCreate};
    gl::Buffer m_provokingOffsets{gl::NoCreate};
    gl::Buffer m_provokingTriangles{gl::NoCreate};
    gl::Buffer m_objectBuffer{gl::NoCreate};
    gl::VertexArray m_vertexArray{gl::NoCreate};
    /// After the buffers: unregistered before they are deleted.
    mutable interop::Registrations m_registrations;
    std::uint32_t m_vertexCount = 0;
    std::uint32_t m_indexCount = 0;
    std::size_t m_gpuBytes = 0;
    std::uint64_t m_serial = 0;
    std::vector<GpuObject> m_objects;
    std::vector<std::string> m_names;
    io::Bounds m_bounds;
};

} // namespace tandem::render
