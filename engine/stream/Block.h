// A streamed frame as one contiguous block of bytes laid out for direct upload: a fixed header,
// then GpuScene's arrays (object records, interleaved vertices, triangle indices, the
// provoking-vertex table; for a frame of point clouds only, compact points instead of vertices:
// positions and packed attributes, what the CUDA point pass reads; then the frame's texture, if
// any, RGBA8 rows top first; then the frame's Gaussian splats, if any, as one region of arrays
// (render/SplatPacking.h: the rasterizer's floats or packed records) described by a second header
// right after the first), each section aligned. Loaders
// write blocks into staging memory, the pack format stores them as they are, and the upload copies
// the sections straight into the GPU buffers. No GL, any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/core/Result.h"
#include "engine/render/SceneLayout.h"

namespace tandem::stream {

/// Every section of a block starts at a multiple of this many bytes (from the block's start).
inline constexpr std::size_t BlockAlign = 256;
/// "TDFB", little endian.
inline constexpr std::uint32_t BlockMagic = 0x42464454u;

/// What a block's header flags say (bits).
enum BlockFlag : std::uint32_t {
    /// The vertices are compact points (positions and render::PointAttributes), not
    /// render::Vertex records.
    BlockCompactPoints = 1u,
    /// A BlockSplats header follows the BlockHeader, and a splat region the other sections.
    BlockHasSplats = 2u,
};

/// The block's first bytes. Offsets are from the start of the block.
struct BlockHeader {
    std::uint32_t magic;                    ///< BlockMagic
    std::uint32_t flags;                    ///< BlockFlag bits
    std::uint32_t objectCount;              ///< render::GpuObject records
    std::uint32_t vertexCount;              ///< vertices: render::Vertex records (36 bytes), or
                                            ///< compact points (12 + 8 bytes)
    std::uint32_t indexCount;               ///< uint32 triangle indices
    std::uint32_t provokingOffsetCount;     ///< uint32
    std::uint32_t provokingTriangleCount;   ///< uint32
    std::uint32_t textureWidth;             ///< RGBA8 texels; 0 when no texture
    std::uint32_t textureHeight;            ///< 0 when no texture
    std::uint32_t reserved;                 ///< 0
    float boundsMin[3];                     ///< world units
    float boundsMax[3];                     ///< world units; min > max: empty
    std::uint64_t objectsOffset;            ///< bytes
    std::uint64_t verticesOffset;           ///< bytes
    std::uint64_t indicesOffset;            ///< bytes
    std::uint64_t provokingOffsetsOffset;   ///< bytes
    std::uint64_t provokingTrianglesOffset; ///< bytes
    std::uint64_t positionsOffset;          ///< bytes: 3 floats a compact point
    std::uint64_t attributesOffset;         ///< bytes: render::PointAttributes a compact point
    std::uint64_t texelsOffset;             ///< bytes: the texture, 4 a texel
    std::uint64_t totalBytes;               ///< the whole block
};
static_assert(sizeof(BlockHeader) == 136, "BlockHeader is part of the pack format");

/// The frame's Gaussian splats (BlockHasSplats): right after the BlockHeader.
struct BlockSplats {
    std::uint32_t count;   ///< Gaussians
    std::uint8_t shDegree; ///< 0..3
    std::uint8_t encoding; ///< render::SplatEncoding
    std::uint16_t reserved;
    std::uint64_t offset; ///< the region, bytes from the start of the block
    std::uint64_t bytes;  ///< render::splatRegion(count, shDegree, encoding, SplatAlign).bytes
};
static_assert(sizeof(BlockSplats) == 24, "BlockSplats is part of the pack format");

/// Bounds as the block header, the pack header and its index store them (min[3], max[3]).
io::Bounds boundsFrom(const float min[3], const float max[3]);
void storeBounds(const io::Bounds& bounds, float min[3], float max[3]);

/// The largest coordinate magnitude stored bounds may have: the loaders' io::MaxCoordinate.
/// Beyond it a float coordinate is no geometry a renderer draws beside anything else (the
/// loaders drop such positions): bounds reaching it (±3e38, say) stretch the camera's fit until
/// every point falls in no pixel.
inline constexpr float MaxBoundsCoordinate = io::MaxCoordinate;

/// Stored bounds, checked: six finite coordinates within ±MaxBoundsCoordinate, each min at
/// most its max; or empty (every min above its max, as an empty io::Bounds is stored) when
/// `mayBeEmpty` (nothing has vertices). Fails naming `what` ("seq.tdpk: the header's bounds"),
/// the field and its value.
Result<io::Bounds> checkedBounds(const float min[3], const float max[3], bool mayBeEmpty,
                                 const std::string& what);

/// The bytes a block of `counts` takes.
std::size_t blockBytes(const render::SceneCounts& counts);

/// Lays `scene` out as a block into `out`, which must be at least blockBytes() of
/// render::sceneCounts(scene) with `splats` for its splat encoding long; returns the bytes
/// written. `splats`: how its Gaussians are stored (Packed: render::packSplat()'s error).
std::size_t writeBlock(const render::Scene& scene, std::span<std::uint8_t> out,
                       render::SplatEncoding splats = render::SplatEncoding::F32);

/// The sections of a block holding one point cloud as compact points, left for a loader to
/// fill point by point (beginPointBlock()).
struct PointBlock {
    std::span<glm::vec3> positions;
    std::span<render::PointAttributes> attributes;
    std::size_t bytes = 0; ///< the whole block
};

/// The counts of a block holding one point cloud of `points` points as compact points.
render::SceneCounts pointBlockCounts(std::uint32_t points);

/// Writes into `out` (at least blockBytes(pointBlockCounts(points)) long) the header, the object
/// record (`objectFlags`: render::ObjectFlag bits, ObjectIsPoints among them) and the padding of
/// a block holding one point cloud, and gives its positions and attributes to fill. Once they
/// and the bounds (setBlockBounds()) are, the block is what writeBlock() writes for a scene of
/// that one point cloud.
PointBlock beginPointBlock(std::uint32_t points, std::uint32_t objectFlags,
                           std::span<std::uint8_t> out);

/// Makes `block`, begun by beginPointBlock() for `points` points, the block of its first `kept`
/// (fewer: a loader dropped the others): the attributes move down to where a block of `kept`
/// points holds them, the header and object record count `kept`, and what the points do not
/// cover is zeroed. Returns the bytes of the block now. Set the bounds after.
std::size_t shrinkPointBlock(std::span<std::uint8_t> block, std::uint32_t points,
                             std::uint32_t kept);

/// Stores `bounds` in the header of `block`.
void setBlockBounds(std::span<std::uint8_t> block, const io::Bounds& bounds);

/// `block` (checked) with its F32 splats packed (render::packSplatRegion), as a new block; the
/// same bytes when it has no F32 splats. Fails as viewBlock() does.
Result<std::vector<std::uint8_t>> packBlockSplats(std::span<const std::uint8_t> block,
                                                  const std::string& name);

/// The counts a block's header states (no checks beyond its size and magic).
Result<render::SceneCounts> blockCounts(std::span<const std::uint8_t> block,
                                        const std::string& name);

/// The scene a block holds, pointing into `block`. Checks the header (magic, offsets, sizes
/// inside the block, its bounds with checkedBounds()) and, unless `trusted` (a block whose
/// checksum just matched), the contents with render::validateScene. `name` (the frame) goes
/// into messages.
Result<render::SceneView> viewBlock(std::span<const std::uint8_t> block, const std::string& name,
                                    bool trusted = false);

} // namespace tandem::stream
