// The .tdpk pack's format: a fixed header (the largest frame's counts, so a reader allocates
// once), frames each at a 4096-byte aligned offset (an uncompressed f32 frame is exactly its
// frame block, read straight into staging memory), and an index at the end (per frame: offset,
// sizes, counts, bounds, codec, CRC-32, name). The structs as the file holds them, the
// constants, the checksum and the names of codecs and position encodings; reading and writing
// are PackReader.h's and PackWriter.h's. No GL; any thread.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "engine/core/EnumTable.h"
#include "engine/io/MeshData.h"
#include "engine/render/SceneLayout.h"

namespace tandem::stream {

static_assert(std::endian::native == std::endian::little, "the pack format is little endian");

/// "TDPK", little endian.
inline constexpr std::uint32_t PackMagic = 0x4B504454u;
/// The format version this build writes and reads. A change that older readers cannot skip
/// bumps it; readers refuse any other version.
inline constexpr std::uint32_t PackVersion = 2;
/// Every stored frame starts at a multiple of this many bytes (direct reads into staging memory).
inline constexpr std::uint64_t PackAlign = 4096;

/// How a frame's bytes are compressed in the file.
enum class Codec : std::uint8_t {
    None = 0, ///< the bytes as they are
    Lz4 = 1,  ///< LZ4 block format (LZ4_compress_fast)
    Zstd = 2, ///< a zstd frame
};

/// --codec's values (tandem-pack), and how --info and messages name a frame's codec.
inline constexpr EnumTable<Codec, 3> Codecs{
    "codec",
    {{{Codec::None, "none", "stored as they are: an f32 frame is read in place"},
      {Codec::Lz4, "lz4", "LZ4, fast to decode"},
      {Codec::Zstd, "zstd", "zstd, smaller"}}}};

/// How a frame's vertex positions are stored.
enum class PositionEncoding : std::uint8_t {
    F32 = 0, ///< the block as it is: render::Vertex records with float positions
    /// 16-bit unsigned normalized positions in the box of the frame's vertex positions, the
    /// other vertex attributes as arrays; decoded into a normal block. Error per axis at most
    /// half a quantization step, extent / 65535 / 2 (plus the float rounding of the result).
    U16 = 1,
};

/// --positions' values (tandem-pack), and how --info names a frame's encoding.
inline constexpr EnumTable<PositionEncoding, 2> PositionEncodings{
    "position encoding",
    {{{PositionEncoding::F32, "f32", "exact"},
      {PositionEncoding::U16, "u16",
       "16-bit in the frame's bounds, error at most extent/65535/2 (mesh frames)"}}}};

/// What a pack's header flags say (bits). A reader refuses bits it does not know.
enum PackFlag : std::uint32_t {
    PackHasCompressedFrames = 1u, ///< some frame's codec is not None
    PackHasQuantizedFrames = 2u,  ///< some frame's positions are U16
    /// Some frame has Gaussian splats (a block section older readers do not know).
    PackHasSplats = 4u,
};

/// The first bytes of a pack (the rest of its first PackAlign bytes is zero).
struct PackHeader {
    std::uint32_t magic;       ///< PackMagic
    std::uint32_t version;     ///< PackVersion
    std::uint32_t headerBytes; ///< sizeof(PackHeader)
    std::uint32_t flags;       ///< PackFlag bits
    std::uint32_t frameCount;
    std::uint32_t entryBytes;                ///< sizeof(PackEntry)
    double fps;                              ///< frames per second of the sequence clock
    std::uint32_t largestObjects;            ///< each the largest over the frames
    std::uint32_t largestVertices;           ///< render::Vertex records
    std::uint32_t largestIndices;            ///< uint32 triangle indices
    std::uint32_t largestProvokingOffsets;   ///< uint32
    std::uint32_t largestProvokingTriangles; ///< uint32
    std::uint32_t largestFlags;              ///< BlockCompactPoints: every frame is compact
    std::uint32_t largestTextureWidth;       ///< texels (0: no frame has a texture)
    std::uint32_t largestTextureHeight;      ///< texels
    std::uint64_t largestBlockBytes;         ///< the largest frame block, bytes
    std::uint64_t largestStoredBytes;        ///< the largest stored frame, bytes
    float boundsMin[3];                      ///< the sequence's bounds, world units
    float boundsMax[3];                      ///< world units
    std::uint64_t indexOffset;               ///< the index: frameCount PackEntry, then names
    std::uint64_t indexBytes;                ///< bytes
    std::uint64_t fileBytes;                 ///< the whole file
    std::uint32_t indexCrc;                  ///< CRC-32 of the index
    std::uint32_t headerCrc;                 ///< CRC-32 of this header with this field 0
};
static_assert(sizeof(PackHeader) == 136, "PackHeader is part of the pack format");

/// One frame's record in the index.
struct PackEntry {
    std::uint64_t offset;      ///< bytes from the start of the file; a multiple of PackAlign
    std::uint64_t storedBytes; ///< bytes in the file
    std::uint64_t blockBytes;  ///< the decoded frame block, bytes
    std::uint32_t vertexCount; ///< as in the block
    std::uint32_t indexCount;  ///< as in the block
    float boundsMin[3];        ///< the frame's bounds (its block's), world units
    float boundsMax[3];        ///< world units
    std::uint8_t codec;        ///< Codec
    std::uint8_t positions;    ///< PositionEncoding
    std::uint16_t reserved;    ///< 0
    std::uint32_t crc;         ///< CRC-32 (libdeflate_crc32) of the stored bytes
    std::uint32_t nameOffset;  ///< into the names after the entries, bytes
    std::uint32_t nameBytes;   ///< UTF-8, no terminator
};
static_assert(sizeof(PackEntry) == 72, "PackEntry is part of the pack format");

/// Header flags this build knows.
inline constexpr std::uint32_t KnownPackFlags =
    PackHasCompressedFrames | PackHasQuantizedFrames | PackHasSplats;

/// --splats' values (tandem-pack): how a frame's Gaussians are stored.
inline constexpr EnumTable<render::SplatEncoding, 2> SplatEncodings{
    "splat encoding",
    {{{render::SplatEncoding::F32, "f32",
       "the rasterizer's floats, exact (236 bytes a Gaussian at SH 3)"},
      {render::SplatEncoding::Packed, "packed",
       "32 bytes a Gaussian and 8-bit SH (80 at SH 3), unpacked on the GPU "
       "(render/SplatPacking.h states the error)"}}}};

/// The CRC-32 the format stores (libdeflate_crc32 from 0) of `bytes`.
std::uint32_t packCrc32(std::span<const std::uint8_t> bytes);
/// packCrc32() continued over `bytes` from `crc` (a frame checksummed in chunks).
std::uint32_t packCrc32(std::uint32_t crc, std::span<const std::uint8_t> bytes);

/// One frame of a pack as its index describes it.
struct PackFrame {
    std::uint64_t offset = 0;
    std::uint64_t storedBytes = 0;
    std::uint64_t blockBytes = 0;
    std::uint32_t vertexCount = 0;
    std::uint32_t indexCount = 0;
    io::Bounds bounds;
    Codec codec = Codec::None;
    PositionEncoding positions = PositionEncoding::F32;
    std::uint32_t crc = 0;
    bool hasSplats = false; ///< its block has Gaussians (known from the block, not the index)
    std::string name;       ///< the frame's original name (its source file, say)
};

/// A pack's header and index, validated.
struct PackInfo {
    std::filesystem::path path;
    std::uint32_t version = PackVersion;
    std::uint32_t flags = 0; ///< PackFlag bits
    double fps = 30.0;
    render::SceneCounts largest;
    std::uint64_t largestBlockBytes = 0;
    std::uint64_t largestStoredBytes = 0;
    io::Bounds bounds;
    std::uint64_t indexOffset = 0;
    std::uint64_t indexBytes = 0;
    std::uint64_t fileBytes = 0;
    std::vector<PackFrame> frames;

    int frameCount() const { return static_cast<int>(frames.size()); }
    /// Stored bytes of all frames.
    std::uint64_t storedBytes() const;
    /// Decoded block bytes of all frames.
    std::uint64_t blockBytes() const;
};

/// A header or index struct's bytes as the file holds them (the reader's and the writer's).
template <class T> std::span<const std::uint8_t> bytesOf(const T& value)
{
    return {reinterpret_cast<const std::uint8_t*>(&value), sizeof(value)};
}

} // namespace tandem::stream
