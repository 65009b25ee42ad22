// The .tdpk pack: a volumetric sequence in one file made for streaming. A fixed header (the
// largest frame's counts, so a reader allocates once), frames each at a 4096-byte aligned offset
// (an uncompressed f32 frame is exactly its frame block, read straight into staging memory), and
// an index at the end (per frame: offset, sizes, counts, bounds, codec, CRC-32, name). Writing,
// reading the index, verifying checksums, and a Source over a pack. No GL; any thread.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/core/Result.h"
#include "engine/stream/Source.h"

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

/// How a frame's vertex positions are stored.
enum class PositionEncoding : std::uint8_t {
    F32 = 0, ///< the block as it is: render::Vertex records with float positions
    /// 16-bit unsigned normalized positions in the box of the frame's vertex positions, the
    /// other vertex attributes as arrays; decoded into a normal block. Error per axis at most
    /// half a quantization step, extent / 65535 / 2 (plus the float rounding of the result).
    U16 = 1,
};

/// What a pack's header flags say (bits). A reader refuses bits it does not know.
enum PackFlag : std::uint32_t {
    PackHasCompressedFrames = 1u, ///< some frame's codec is not None
    PackHasQuantizedFrames = 2u,  ///< some frame's positions are U16
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

/// The CRC-32 the format stores (libdeflate_crc32 from 0) of `bytes`.
std::uint32_t packCrc32(std::span<const std::uint8_t> bytes);

/// "none", "lz4", "zstd".
const char* codecName(Codec codec);
/// "f32", "u16".
const char* positionEncodingName(PositionEncoding positions);
/// Parses codecName()'s words; fails naming the choices.
Result<Codec> parseCodec(const std::string& text);
/// Parses positionEncodingName()'s words; fails naming the choices.
Result<PositionEncoding> parsePositionEncoding(const std::string& text);

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
    std::string name; ///< the frame's original name (its source file, say)
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

/// How PackWriter stores frames.
struct PackSettings {
    Codec codec = Codec::None;
    PositionEncoding positions = PositionEncoding::F32;
    double fps = 30.0;      ///< the sequence clock written into the header
    int zstdLevel = 3;      ///< 1 (fast) .. 19 (small)
    bool overwrite = false; ///< replace an existing file
};

/// A frame encoded for a pack: what PackWriter::encode() makes (on any thread) and append()
/// writes (in order).
struct EncodedFrame {
    std::vector<std::uint8_t> stored;
    PackFrame frame; ///< offset not yet known
    render::SceneCounts counts;
};

/// Writes a pack: frames appended in order into a temporary file beside the destination,
/// renamed into place by finish(); destroyed unfinished, it removes the temporary file, so a
/// failure never leaves a partial pack. One thread at a time (encode() is free of that).
class PackWriter {
public:
    /// Starts writing `path`. Fails naming the file when it exists and !settings.overwrite, or
    /// when its folder is missing or not writable.
    static Result<std::unique_ptr<PackWriter>> create(const std::filesystem::path& path,
                                                      const PackSettings& settings);
    ~PackWriter();
    PackWriter(const PackWriter&) = delete;
    PackWriter& operator=(const PackWriter&) = delete;

    /// Checks `block` (a frame block, stream/Block.h) and encodes it as `settings` say; a frame
    /// that compression does not shrink is stored uncompressed. Fails naming `name` when the
    /// block is malformed or a position is not finite. Thread-safe; CPU only.
    static Result<EncodedFrame> encode(std::vector<std::uint8_t> block, const std::string& name,
                                       const PackSettings& settings);

    /// Writes `frame` as the next frame. Fails naming the file on a write error.
    Result<bool> append(EncodedFrame frame);
    /// encode() then append().
    Result<bool> add(std::span<const std::uint8_t> block, const std::string& name);

    /// Writes the index and header, syncs and renames the file into place. Fails when no frame
    /// was appended, on a write error, or when the destination appeared meanwhile (and
    /// !overwrite). Blocks on the disk (fsync).
    Result<PackInfo> finish();

    const std::filesystem::path& path() const { return m_path; }
    int frameCount() const { return static_cast<int>(m_frames.size()); }

private:
    PackWriter(std::filesystem::path path, std::filesystem::path temporary, int fd,
               const PackSettings& settings);
    Result<bool> writeAt(std::uint64_t offset, const void* data, std::size_t bytes);

    std::filesystem::path m_path;
    std::filesystem::path m_temporary;
    int m_fd = -1;
    PackSettings m_settings;
    std::uint64_t m_end = PackAlign; ///< where the next frame goes
    std::vector<PackFrame> m_frames;
    render::SceneCounts m_largest;
    bool m_finished = false;
};

/// Reads and validates a pack's header and index: magic, version (a pack of another version
/// fails saying which version it has and which this build reads), flags, checksums, sizes
/// within the file, frames in order and aligned. Fails naming the file and the problem.
Result<PackInfo> readPackInfo(const std::filesystem::path& path);

/// Called with (frames checked, frame count) as verifyPack() goes.
using PackProgress = std::function<void(int done, int total)>;

/// Checks every frame's CRC-32 and returns the indices of the damaged frames (empty: all
/// good). Fails as readPackInfo() does, or naming the file on a read error. Blocks on the disk.
Result<std::vector<int>> verifyPack(const std::filesystem::path& path,
                                    const PackProgress& progress = {});

/// Whether `path` is a file starting with the pack magic.
bool isPackFile(const std::filesystem::path& path);

/// A Source over a pack (its header and index read and validated now). load() preads the
/// frame (from several loader threads at once; straight into the sink's memory when it is
/// stored as an uncompressed f32 block), checks its CRC-32 (a mismatch fails with "frame 12 of
/// seq.tdpk: checksum mismatch (damaged)"), decompresses and dequantizes. Keeps the file open.
Result<std::unique_ptr<Source>> openPack(const std::filesystem::path& path);

} // namespace tandem::stream
