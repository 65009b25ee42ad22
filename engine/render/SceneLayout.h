// A scene laid out as the GPU holds it, in host memory: every object's vertices interleaved (or,
// for point clouds only, compact points: positions and packed attributes), the triangles of all
// meshes with global indices, the provoking-vertex table the geometry pass's resolve uses, and
// one record per object. What loader threads, the pack format and tools build and check; the GL
// buffers it fills are render/GpuScene's. No GL, any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/core/Result.h"
#include "engine/render/PointSplat.h"
#include "engine/render/Scene.h"
#include "engine/render/SplatPacking.h"

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
    /// Gaussian splats (all splat objects merged), their SH degree and how they are stored.
    std::uint32_t splats = 0;
    std::uint8_t splatDegree = 0;
    SplatEncoding splatEncoding = SplatEncoding::F32;

    /// Bytes of all arrays, the texture and the splats together.
    std::size_t bytes() const;
    std::size_t textureBytes() const { return std::size_t{textureWidth} * textureHeight * 4; }
    /// The splats' region (splatRegion() with SplatAlign).
    SplatRegion splatRegion() const;
    /// Each count the larger of the two (compact if both are; the splats' degree the higher,
    /// packed if both are).
    static SceneCounts max(const SceneCounts& a, const SceneCounts& b);
    /// Whether the arrays fit buffers of `capacity` (the texture is sized as it comes; splats
    /// are not in the GL buffers).
    bool fitsIn(const SceneCounts& capacity) const;
};

/// A scene's Gaussian splats as a region of arrays (SplatPacking.h) in memory someone else owns.
struct SplatView {
    std::span<const std::uint8_t> region; ///< splatRegion(count, degree, encoding).bytes
    std::uint32_t count = 0;
    int shDegree = 0;
    SplatEncoding encoding = SplatEncoding::F32;

    bool empty() const { return count == 0; }
    SplatRegion layout() const { return splatRegion(count, shDegree, encoding, SplatAlign); }
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
    SplatView splats; ///< the scene's Gaussians (empty when none)
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

/// Lays the splat objects of `scene` out, merged in order (SH padded with zeros to the highest
/// degree among them), as a region of `encoding` into `out` (counts.splatRegion().bytes,
/// counts from sceneCounts() with that encoding); padding is zeroed.
void layOutSplats(const Scene& scene, SplatEncoding encoding, std::span<std::uint8_t> out);

/// Repacks an F32 splat region `from` as a Packed one into `out` (sized by splatRegion() of
/// the same count and degree, Packed).
void packSplatRegion(const SplatView& from, std::span<std::uint8_t> out);

/// The arrays a splat region holds, in the rasterizer's float layout: F32 copied, Packed
/// unpacked (unpackSplat(), the same bits the CUDA pass unpacks).
void unpackSplatRegion(const SplatView& view, std::vector<float>& positions,
                       std::vector<float>& scales, std::vector<float>& rotations,
                       std::vector<float>& opacities, std::vector<float>& sh);

/// Checks that `view` is internally consistent (object ranges inside the vertices, triangle
/// indices below the vertex count, the provoking table in range) before it goes to the GPU,
/// where a bad index reads out of bounds. `name` goes into the message.
Result<bool> validateScene(const SceneView& view, const std::string& name);

/// The GPU memory uploading `scene` takes, bytes.
std::size_t gpuBytesOf(const Scene& scene);
/// gpuBytesOf(scene), or a failure naming the scene, what it needs and `freeBytes` when it does
/// not fit (0 free: unknown, anything fits).
Result<std::size_t> checkGpuMemory(const Scene& scene, std::size_t freeBytes);

/// The vertex of `mesh` at `i` as the vertex buffer holds it (white, zero normal and texture
/// coordinates where the mesh has none).
Vertex vertexOf(const io::MeshData& mesh, std::size_t i);

/// One past the last vertex of a mesh (not a point cloud) in the layout: the provoking table's
/// extent (it has one more entry).
std::size_t meshVertexEnd(const Scene& scene);

/// Throws Error when `vertices` and `indices` cannot be indexed with 32 bits.
void checkIndexable(std::size_t vertices, std::size_t indices);

/// Counting sort of triangles by their last vertex (GL_LAST_VERTEX_CONVENTION), over the
/// vertices up to the last mesh's: `offsets` has meshVertexEnd + 1 entries, `byVertex` one per
/// triangle.
void buildProvokingTable(std::span<const std::uint32_t> indices, std::span<std::uint32_t> offsets,
                         std::span<std::uint32_t> byVertex);

/// Calls `object(record, sceneObject)` for each object of `scene` with vertices, in order, with
/// its record as the layout has it: triangles are numbered first (in object order, as they lie
/// in the index buffer), then points.
template <class F> void forEachRecord(const Scene& scene, F&& object)
{
    const std::size_t triangles = scene.triangleCount();
    std::uint32_t nextPoint = static_cast<std::uint32_t>(triangles);
    std::uint32_t nextTriangle = 0, firstVertex = 0;
    const bool textured = !scene.texture.pixels.empty();
    for (const auto& o : scene.objects) {
        const io::MeshData& mesh = o.mesh;
        if (mesh.positions.empty())
            continue;
        GpuObject record{};
        record.firstVertex = firstVertex;
        record.vertexCount = static_cast<std::uint32_t>(mesh.positions.size());
        const bool points = mesh.isPointCloud();
        record.flags = (points ? ObjectIsPoints : 0u) |
                       (!mesh.colors.empty() ? ObjectHasColors : 0u) |
                       (!mesh.normals.empty() ? ObjectHasNormals : 0u) |
                       (textured && !points && !mesh.texcoords.empty() ? ObjectHasTexture : 0u);
        if (points) {
            record.firstPrimitive = nextPoint;
            nextPoint += record.vertexCount;
        } else {
            record.firstPrimitive = nextTriangle;
            nextTriangle += static_cast<std::uint32_t>(mesh.triangleCount());
        }
        firstVertex += record.vertexCount;
        object(record, o);
    }
}

/// "3.62 GiB", "12.4 MiB": GPU memory in messages.
std::string formatGpuBytes(std::size_t bytes);

} // namespace tandem::render
