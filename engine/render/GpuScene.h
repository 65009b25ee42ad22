// A scene uploaded to GL buffers in the layout of render/SceneLayout.h: every object's vertices
// in one interleaved vertex buffer, the triangles of all meshes in one index buffer (indices
// global), the provoking-vertex table the geometry pass's resolve uses, and one record per
// object. Triangles draw in one call; each point cloud in one more. Beside the GL buffers, the
// scene's Gaussian splats (GpuSplats: host arrays, CUDA memory on first use). The CPU layout
// (what loaders and tools build) does not depend on GL. Created and used on the render thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/gl/Buffer.h"
#include "engine/gl/Texture.h"
#include "engine/gl/VertexArray.h"
#include "engine/interop/Registrations.h"
#include "engine/render/GpuSplats.h"
#include "engine/render/SceneLayout.h"

namespace tandem::render {

/// A scene in GL buffers (the layout of render/SceneLayout.h), with its object records and
/// names kept on the host.
class GpuScene {
public:
    /// Uploads `scene`, its vertices in chunks. Expects a current context; throws Error when it
    /// does not fit in the GPU's free memory (where the driver says), GlError on other failures.
    /// Objects without vertices are skipped.
    explicit GpuScene(const Scene& scene, std::string_view label = "scene");
    /// An empty scene whose buffers hold up to `capacity` (dynamic storage, allocated once),
    /// to be filled frame after frame with setContents() or by CUDA through its registrations:
    /// a streamed sequence's ping-ponged buffers. Throws as the other constructor.
    GpuScene(const SceneCounts& capacity, std::string_view label);

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
    /// The scene's Gaussian splats (empty when none).
    const GpuSplats& splats() const { return m_splats; }
    bool hasSplats() const { return !m_splats.empty(); }
    /// Replaces the Gaussians (a streamed frame's; setContents() leaves them alone).
    void setSplats(GpuSplats splats) { m_splats = std::move(splats); }
    /// GPU memory the scene's buffers and texture take, bytes.
    std::size_t gpuBytes() const
    {
        return m_gpuBytes + static_cast<std::size_t>(m_texture.width()) * m_texture.height() * 4;
    }
    /// A number no other scene of the process has: what caches of its data are keyed by.
    std::uint64_t serial() const { return m_serial; }
    const io::Bounds& bounds() const { return m_bounds; }
    /// What the buffers can hold (their sizes), in records.
    const SceneCounts& capacity() const { return m_capacity; }
    /// Replaces the contents with `view` (which must fit the capacity): the object records and
    /// the texture (glTextureSubImage2D, its storage made again when its size changes) through
    /// GL always, the bulk arrays too when `writeArrays` (glNamedBufferSubData; compact
    /// points expanded into vertices first, normals from their packed form), else the caller
    /// writes them itself (a CUDA copy through registrations()) or keeps them elsewhere (compact
    /// points in CUDA memory). Takes a new serial, so caches of the old contents go stale.
    /// Expects a scene made with a capacity.
    void setContents(const SceneView& view, bool writeArrays);

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
    /// The texture of ObjectHasTexture meshes (RGBA8, linear filtering, repeating); id 0 when
    /// the scene has none.
    const gl::Texture& texture() const { return m_texture; }
    /// The same texture's RGBA8 bytes (sRGB, rows top first) in host memory, for the mesh pass
    /// off GL (render::MeshPass); empty when the scene has none.
    const std::vector<std::uint8_t>& texels() const { return m_texels; }
    /// CUDA registrations of these buffers (for CUDA passes that read the vertices): a cache of
    /// the frame's handoff, filled while the scene itself stays as uploaded.
    interop::Registrations& registrations() const { return m_registrations; }

private:
    void makeLayout(const std::string& name, bool indexed);
    /// Uploads an RGBA8 texture (rows top to bottom), making its storage when the size changes.
    void setTexture(std::uint32_t width, std::uint32_t height, const std::uint8_t* rgba);

    gl::Buffer m_vertices{gl::NoCreate};
    gl::Buffer m_indices{gl::NoCreate};
    gl::Buffer m_provokingOffsets{gl::NoCreate};
    gl::Buffer m_provokingTriangles{gl::NoCreate};
    gl::Buffer m_objectBuffer{gl::NoCreate};
    gl::VertexArray m_vertexArray{gl::NoCreate};
    gl::Texture m_texture{gl::NoCreate};
    std::vector<std::uint8_t> m_texels;
    GpuSplats m_splats;
    /// After the buffers: unregistered before they are deleted.
    mutable interop::Registrations m_registrations;
    SceneCounts m_capacity;
    std::vector<Vertex> m_expanded; ///< compact points expanded for GL, reused
    std::uint32_t m_vertexCount = 0;
    std::uint32_t m_indexCount = 0;
    std::size_t m_gpuBytes = 0; ///< the buffers'

    std::uint64_t m_serial = 0;
    std::vector<GpuObject> m_objects;
    std::vector<std::string> m_names;
    io::Bounds m_bounds;
};

} // namespace tandem::render
