// A scene uploaded to GL buffers: every object's vertices in one interleaved vertex buffer,
// the triangles of all meshes in one index buffer (indices global), the provoking-vertex table
// the geometry pass's resolve uses, and one record per object (its vertex range, first
// primitive id, whether it is points, has colours, has normals). Triangles draw in one call;
// each point cloud in one more. Created and used on the render thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/Result.h"
#include "engine/gl/Buffer.h"
#include "engine/gl/Texture.h"
#include "engine/gl/VertexArray.h"
#include "engine/interop/Registrations.h"
#include "engine/render/PointSplat.h"
#include "engine/render/Scene.h"

namespace tandem::render {

/// The largest texture side a scene may have (what OpenGL 4.5 guarantees).
inline constexpr std::uint32_t MaxTextureSize = 16384;

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
    ObjectHasTexture = 8u, ///< a mesh coloured by the scene's texture at its texture coordinates
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

/// How many records each of a scene's GPU arrays holds (GpuScene's layout).
struct SceneCounts {
    std::uint32_t objects = 0;
    std::uint32_t vertices = 0;           ///< vertices of all objects
    std::uint32_t indices = 0;            ///< 3 per triangle
    std::uint32_t provokingOffsets = 0;   ///< one past the last mesh vertex + 1, or 0
    std::uint32_t provokingTriangles = 0; ///< one per triangle
    /// The vertices are compact points (a scene of point clouds only): a position (3 floats)
    /// and packed attributes (8 bytes) each, 20 bytes instead of a 36-byte render::Vertex;
    /// what the CUDA point pass reads, so streaming uploads 45 % fewer bytes.
    bool compact = false;
    /// The scene's texture (RGBA8), 0×0 when none.
    std::uint32_t textureWidth = 0;
    std::uint32_t textureHeight = 0;

    /// Bytes of all arrays and the texture together.
    std::size_t bytes() const;
    std::size_t textureBytes() const { return std::size_t{textureWidth} * textureHeight * 4; }
    /// Each count the larger of the two (compact if both are).
    static SceneCounts max(const SceneCounts& a, const SceneCounts& b);
    /// Whether the arrays fit buffers of `capacity` (the texture is sized as it comes).
    bool fitsIn(const SceneCounts& capacity) const;
};

/// A scene laid out as GpuScene's buffers hold it, in memory someone else owns (a streamed
/// frame in staging memory, say): object records, interleaved vertices, global triangle
/// indices and the provoking-vertex table.
struct SceneView {
    std::span<const GpuObject> objects;
    std::span<const Vertex> vertices; ///< empty when compact
    /// Compact points: a position and packed attributes per vertex (else empty).
    std::span<const glm::vec3> positions;
    std::span<const PointAttributes> attributes;
    std::span<const std::uint32_t> indices;
    std::span<const std::uint32_t> provokingOffsets;
    std::span<const std::uint32_t> provokingTriangles;
    /// The texture: RGBA8, rows top to bottom (empty when none).
    std::span<const std::uint8_t> texels;
    std::uint32_t textureWidth = 0;
    std::uint32_t textureHeight = 0;
    io::Bounds bounds;

    SceneCounts counts() const;
    bool isCompact() const { return !positions.empty(); }
};

/// The counts `scene` lays out to (objects without vertices are skipped); compact when it has
/// only point clouds.
SceneCounts sceneCounts(const Scene& scene);

/// Writable arrays of a scene's layout, each exactly as long as sceneCounts() says.
struct SceneArrays {
    std::span<GpuObject> objects;
    std::span<Vertex> vertices;
    std::span<glm::vec3> positions;
    std::span<PointAttributes> attributes;
    std::span<std::uint32_t> indices;
    std::span<std::uint32_t> provokingOffsets;
    std::span<std::uint32_t> provokingTriangles;
    std::span<std::uint8_t> texels; ///< the texture's RGBA8 bytes
};

/// Lays `scene` out into `out` (sized by sceneCounts(scene)): what GpuScene uploads. Any
/// thread; no GL.
void layOutScene(const Scene& scene, const SceneArrays& out);

/// Checks that `view` is internally consistent (object ranges inside the vertices, triangle
/// indices below the vertex count, the provoking table in range) before it goes to the GPU,
/// where a bad index reads out of bounds. `name` goes into the message.
Result<bool> validateScene(const SceneView& view, const std::string& name);

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
