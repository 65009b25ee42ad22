#include "engine/stream/Pack.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <libdeflate.h>
#include <lz4.h>
#include <zstd.h>

#include "engine/core/Plural.h"
#include "engine/stream/Block.h"

namespace tandem::stream {

namespace fs = std::filesystem;

std::uint32_t packCrc32(std::span<const std::uint8_t> bytes)
{
    return libdeflate_crc32(0, bytes.data(), bytes.size());
}

const char* codecName(Codec codec)
{
    switch (codec) {
    case Codec::None:
        return "none";
    case Codec::Lz4:
        return "lz4";
    case Codec::Zstd:
        return "zstd";
    }
    return "unknown";
}

const char* positionEncodingName(PositionEncoding positions)
{
    return positions == PositionEncoding::U16 ? "u16" : "f32";
}

Result<Codec> parseCodec(const std::string& text)
{
    for (Codec c : {Codec::None, Codec::Lz4, Codec::Zstd})
        if (text == codecName(c))
            return c;
    return fail(fmt::format("unknown codec '{}' (none, lz4, zstd)", text));
}

Result<PositionEncoding> parsePositionEncoding(const std::string& text)
{
    for (PositionEncoding p : {PositionEncoding::F32, PositionEncoding::U16})
        if (text == positionEncodingName(p))
            return p;
    return fail(fmt::format("unknown position encoding '{}' (f32, u16)", text));
}

std::uint64_t PackInfo::storedBytes() const
{
    std::uint64_t total = 0;
    for (const PackFrame& f : frames)
        total += f.storedBytes;
    return total;
}

std::uint64_t PackInfo::blockBytes() const
{
    std::uint64_t total = 0;
    for (const PackFrame& f : frames)
        total += f.blockBytes;
    return total;
}

namespace {

constexpr std::uint32_t KnownFlags = PackHasCompressedFrames | PackHasQuantizedFrames;
constexpr std::size_t VertexBytes = sizeof(render::Vertex);
/// A compact point (position and packed attributes): the fewest bytes a vertex takes.
constexpr std::size_t CompactPointBytes = sizeof(glm::vec3) + sizeof(render::PointAttributes);
/// The quantization box before a U16 frame's positions: min[3], max[3].
constexpr std::size_t BoxBytes = 6 * sizeof(float);

std::uint64_t alignUp(std::uint64_t n, std::uint64_t to)
{
    return (n + to - 1) / to * to;
}

std::uint32_t crc32(const void* data, std::size_t bytes)
{
    return libdeflate_crc32(0, data, bytes);
}

/// The bytes of a U16 frame before compression, for a block of `blockBytes` with `vertices`
/// vertices: the block with its vertex records replaced by the box, the quantized positions
/// (padded to 4 bytes) and the other attributes as arrays (normals, colours, texcoords).
std::uint64_t quantizedBytes(std::uint64_t blockBytes, std::uint64_t vertices)
{
    return blockBytes - vertices * VertexBytes + BoxBytes + alignUp(vertices * 6, 4) +
           vertices * (12 + 4 + 8);
}

/// An open file descriptor, closed on destruction.
class FileHandle {
public:
    FileHandle() = default;
    explicit FileHandle(int fd) : m_fd(fd) {}
    ~FileHandle()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    FileHandle(FileHandle&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
    FileHandle& operator=(FileHandle&&) = delete;
    int fd() const { return m_fd; }

private:
    int m_fd = -1;
};

/// Reads `bytes` at `offset`; returns the bytes read (fewer at the end of the file) or -errno.
long long readAt(int fd, void* data, std::size_t bytes, std::uint64_t offset)
{
    auto* p = static_cast<std::uint8_t*>(data);
    std::size_t done = 0;
    while (done < bytes) {
        const ssize_t n = ::pread(fd, p + done, bytes - done, static_cast<off_t>(offset + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            break;
        done += static_cast<std::size_t>(n);
    }
    return static_cast<long long>(done);
}

/// Opens `path` for reading; fails naming it.
Result<FileHandle> openForReading(const fs::path& path, std::uint64_t& size)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return fail(fmt::format("{}: no such file", path.string()));
        return fail(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
    }
    FileHandle file(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return fail(fmt::format("{}: cannot stat: {}", path.string(), std::strerror(errno)));
    if (S_ISDIR(st.st_mode))
        return fail(fmt::format("{}: is a directory, not a file", path.string()));
    size = static_cast<std::uint64_t>(st.st_size);
    return file;
}

Result<PackInfo> readInfo(int fd, std::uint64_t fileSize, const fs::path& path)
{
    const std::string file = path.string();
    PackHeader h{};
    const long long got = readAt(fd, &h, sizeof(h), 0);
    if (got < 0)
        return fail(fmt::format("{}: read error: {}", file, std::strerror(static_cast<int>(-got))));
    if (got < 4 || h.magic != PackMagic)
        return fail(fmt::format("{}: not a tandem pack (no TDPK magic)", file));
    if (got < 8)
        return fail(
            fmt::format("{}: truncated: {} bytes, shorter than the pack header", file, fileSize));
    if (h.version > PackVersion)
        return fail(fmt::format("{}: pack format version {} is newer than this build reads "
                                "(version {}); update tandem, or re-pack with this build",
                                file, h.version, PackVersion));
    if (h.version != PackVersion)
        return fail(fmt::format("{}: unknown pack format version {} (this build reads version {})",
                                file, h.version, PackVersion));
    if (static_cast<std::size_t>(got) < sizeof(h))
        return fail(fmt::format("{}: truncated: {} bytes, shorter than the {}-byte pack header",
                                file, fileSize, sizeof(h)));
    PackHeader zeroed = h;
    zeroed.headerCrc = 0;
    if (crc32(&zeroed, sizeof(zeroed)) != h.headerCrc)
        return fail(fmt::format("{}: the pack header is damaged (checksum mismatch)", file));
    if (h.headerBytes != sizeof(PackHeader) || h.entryBytes != sizeof(PackEntry))
        return fail(fmt::format("{}: the pack header states sizes this version does not use "
                                "(header {} bytes, index entry {} bytes)",
                                file, h.headerBytes, h.entryBytes));
    if (h.flags & ~KnownFlags)
        return fail(fmt::format("{}: the pack uses features this build does not know (flags "
                                "{:#x}); update tandem",
                                file, h.flags & ~KnownFlags));
    if (fileSize < h.fileBytes)
        return fail(fmt::format("{}: truncated: {} bytes of the {} the header states (an "
                                "incomplete copy?)",
                                file, fileSize, h.fileBytes));
    if (fileSize > h.fileBytes)
        return fail(fmt::format("{}: {} bytes, more than the {} the header states", file, fileSize,
                                h.fileBytes));
    if (h.frameCount == 0)
        return fail(fmt::format("{}: the pack has no frames", file));
    if (!isFrameRate(h.fps))
        return fail(fmt::format("{}: bad frame rate {} in the header ({:g} to {:g} fps)", file,
                                h.fps, MinFps, MaxFps));
    const std::uint64_t entriesBytes = std::uint64_t{h.frameCount} * sizeof(PackEntry);
    if (h.indexOffset < PackAlign || h.indexOffset > h.fileBytes ||
        h.indexBytes > h.fileBytes - h.indexOffset || h.indexBytes < entriesBytes)
        return fail(fmt::format("{}: the index (at {}, {} bytes, {} frames) lies outside the "
                                "file of {} bytes",
                                file, h.indexOffset, h.indexBytes, h.frameCount, h.fileBytes));

    std::vector<std::uint8_t> index(h.indexBytes);
    const long long indexGot = readAt(fd, index.data(), index.size(), h.indexOffset);
    if (indexGot != static_cast<long long>(index.size()))
        return fail(fmt::format("{}: cannot read the index", file));
    if (crc32(index.data(), index.size()) != h.indexCrc)
        return fail(fmt::format("{}: the pack index is damaged (checksum mismatch)", file));

    PackInfo info;
    info.path = path;
    info.version = h.version;
    info.flags = h.flags;
    info.fps = h.fps;
    if (h.largestFlags & ~static_cast<std::uint32_t>(BlockCompactPoints))
        return fail(
            fmt::format("{}: unknown frame flags 0x{:x} in the pack header", file, h.largestFlags));
    info.largest = {h.largestObjects,
                    h.largestVertices,
                    h.largestIndices,
                    h.largestProvokingOffsets,
                    h.largestProvokingTriangles,
                    (h.largestFlags & BlockCompactPoints) != 0,
                    h.largestTextureWidth,
                    h.largestTextureHeight};
    if (h.largestTextureWidth > render::MaxTextureSize ||
        h.largestTextureHeight > render::MaxTextureSize)
        return fail(fmt::format("{}: the pack header states a {}x{} texture", file,
                                h.largestTextureWidth, h.largestTextureHeight));
    info.largestBlockBytes = h.largestBlockBytes;
    info.largestStoredBytes = h.largestStoredBytes;
    info.bounds = boundsFrom(h.boundsMin, h.boundsMax);
    info.indexOffset = h.indexOffset;
    info.indexBytes = h.indexBytes;
    info.fileBytes = h.fileBytes;
    info.frames.resize(h.frameCount);
    const std::uint64_t namesBytes = h.indexBytes - entriesBytes;
    const char* names = reinterpret_cast<const char*>(index.data() + entriesBytes);
    std::uint64_t end = PackAlign;
    for (std::uint32_t i = 0; i < h.frameCount; ++i) {
        PackEntry e;
        std::memcpy(&e, index.data() + std::size_t{i} * sizeof(PackEntry), sizeof(e));
        const auto bad = [&](const std::string& what) {
            return fail(fmt::format("{}: index entry of frame {} is damaged: {}", file, i, what));
        };
        if (e.offset % PackAlign != 0 || e.offset < end)
            return bad(
                fmt::format("offset {} is not aligned or not after the previous frame", e.offset));
        if (e.storedBytes > h.indexOffset || e.offset > h.indexOffset - e.storedBytes)
            return bad(fmt::format("{} bytes at {} run past the frames' end ({})", e.storedBytes,
                                   e.offset, h.indexOffset));
        if (e.codec > static_cast<std::uint8_t>(Codec::Zstd))
            return bad(fmt::format("unknown codec {}", e.codec));
        if (e.positions > static_cast<std::uint8_t>(PositionEncoding::U16))
            return bad(fmt::format("unknown position encoding {}", e.positions));
        if (e.blockBytes < sizeof(BlockHeader) || e.blockBytes > h.largestBlockBytes ||
            e.storedBytes > h.largestStoredBytes || e.vertexCount > h.largestVertices ||
            e.indexCount > h.largestIndices ||
            e.blockBytes < sizeof(BlockHeader) + std::uint64_t{e.vertexCount} * CompactPointBytes)
            return bad("sizes or counts larger than the header's largest frame");
        const auto codec = static_cast<Codec>(e.codec);
        const auto positions = static_cast<PositionEncoding>(e.positions);
        if (codec == Codec::None) {
            const std::uint64_t expected = positions == PositionEncoding::F32
                                               ? e.blockBytes
                                               : quantizedBytes(e.blockBytes, e.vertexCount);
            if (e.storedBytes != expected)
                return bad(fmt::format("{} stored bytes where an uncompressed frame has {}",
                                       e.storedBytes, expected));
        }
        if (e.nameOffset > namesBytes || e.nameBytes > namesBytes - e.nameOffset)
            return bad("its name lies outside the index");
        PackFrame& f = info.frames[i];
        f.offset = e.offset;
        f.storedBytes = e.storedBytes;
        f.blockBytes = e.blockBytes;
        f.vertexCount = e.vertexCount;
        f.indexCount = e.indexCount;
        f.bounds = boundsFrom(e.boundsMin, e.boundsMax);
        f.codec = codec;
        f.positions = positions;
        f.crc = e.crc;
        f.name.assign(names + e.nameOffset, e.nameBytes);
        end = e.offset + e.storedBytes;
    }
    return info;
}

// Compression contexts are reused per thread (loader and encoder threads live long).
struct ZstdContexts {
    ZSTD_CCtx* compress = nullptr;
    ZSTD_DCtx* decompress = nullptr;
    ~ZstdContexts()
    {
        ZSTD_freeCCtx(compress);
        ZSTD_freeDCtx(decompress);
    }
};
thread_local ZstdContexts t_zstd;

Result<std::vector<std::uint8_t>> compress(std::span<const std::uint8_t> in, Codec codec,
                                           int zstdLevel, const std::string& name)
{
    std::vector<std::uint8_t> out;
    if (codec == Codec::Lz4) {
        if (in.size() > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE))
            return fail(fmt::format("{}: {} bytes, more than lz4 compresses at once ({}); use "
                                    "zstd or none",
                                    name, in.size(), LZ4_MAX_INPUT_SIZE));
        out.resize(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(in.size()))));
        const int n = LZ4_compress_default(
            reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out.data()),
            static_cast<int>(in.size()), static_cast<int>(out.size()));
        if (n <= 0)
            return fail(fmt::format("{}: lz4 compression failed", name));
        out.resize(static_cast<std::size_t>(n));
        return out;
    }
    if (!t_zstd.compress)
        t_zstd.compress = ZSTD_createCCtx();
    out.resize(ZSTD_compressBound(in.size()));
    const std::size_t n =
        ZSTD_compressCCtx(t_zstd.compress, out.data(), out.size(), in.data(), in.size(), zstdLevel);
    if (ZSTD_isError(n))
        return fail(fmt::format("{}: zstd compression failed: {}", name, ZSTD_getErrorName(n)));
    out.resize(n);
    return out;
}

/// Decompresses `in` into exactly `out.size()` bytes; fails naming `name`.
Result<bool> decompress(std::span<const std::uint8_t> in, Codec codec, std::span<std::uint8_t> out,
                        const std::string& name)
{
    if (codec == Codec::Lz4) {
        if (in.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
            out.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
            return fail(fmt::format("{}: too large for lz4", name));
        const int n = LZ4_decompress_safe(
            reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out.data()),
            static_cast<int>(in.size()), static_cast<int>(out.size()));
        if (n < 0 || static_cast<std::size_t>(n) != out.size())
            return fail(fmt::format("{}: lz4 data does not decompress to the {} bytes the index "
                                    "states (damaged)",
                                    name, out.size()));
        return true;
    }
    if (!t_zstd.decompress)
        t_zstd.decompress = ZSTD_createDCtx();
    const std::size_t n =
        ZSTD_decompressDCtx(t_zstd.decompress, out.data(), out.size(), in.data(), in.size());
    if (ZSTD_isError(n) || n != out.size())
        return fail(fmt::format("{}: zstd data does not decompress to the {} bytes the index "
                                "states (damaged)",
                                name, out.size()));
    return true;
}

/// Writes `block`'s U16 form (see quantizedBytes()).
Result<std::vector<std::uint8_t>> quantize(std::span<const std::uint8_t> block,
                                           const BlockHeader& h, const std::string& name)
{
    const std::size_t n = h.vertexCount;
    const std::uint8_t* vertices = block.data() + h.verticesOffset;
    io::Bounds box;
    for (std::size_t i = 0; i < n; ++i) {
        render::Vertex v;
        std::memcpy(&v, vertices + i * VertexBytes, sizeof(v));
        if (!std::isfinite(v.position.x) || !std::isfinite(v.position.y) ||
            !std::isfinite(v.position.z))
            return fail(fmt::format("{}: vertex {} has a non-finite position", name, i));
        box.extend(v.position);
    }
    std::vector<std::uint8_t> out(quantizedBytes(block.size(), n));
    std::uint8_t* p = out.data();
    std::memcpy(p, block.data(), h.verticesOffset);
    p += h.verticesOffset;
    std::memcpy(p, &box.min, 12);
    std::memcpy(p + 12, &box.max, 12);
    p += BoxBytes;
    float step[3];
    for (int a = 0; a < 3; ++a)
        step[a] = (box.max[a] - box.min[a]) / 65535.0f;
    std::uint8_t* q = p;
    std::uint8_t* normals = q + alignUp(n * 6, 4);
    std::uint8_t* colors = normals + n * 12;
    std::uint8_t* texcoords = colors + n * 4;
    for (std::size_t i = 0; i < n; ++i) {
        render::Vertex v;
        std::memcpy(&v, vertices + i * VertexBytes, sizeof(v));
        std::uint16_t code[3];
        for (int a = 0; a < 3; ++a) {
            const double t = step[a] > 0.0f ? (static_cast<double>(v.position[a]) - box.min[a]) /
                                                  static_cast<double>(step[a])
                                            : 0.0;
            code[a] = static_cast<std::uint16_t>(std::clamp(std::lround(t), 0l, 65535l));
        }
        std::memcpy(q + i * 6, code, 6);
        std::memcpy(normals + i * 12, &v.normal, 12);
        std::memcpy(colors + i * 4, &v.color, 4);
        std::memcpy(texcoords + i * 8, &v.texcoord, 8);
    }
    const std::size_t after = h.verticesOffset + n * VertexBytes;
    std::memcpy(texcoords + n * 8, block.data() + after, block.size() - after);
    return out;
}

/// Decodes a U16 frame's bytes into the block `out` (entry.blockBytes long).
Result<bool> dequantize(std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                        const PackFrame& entry, const std::string& name)
{
    if (in.size() != quantizedBytes(out.size(), entry.vertexCount))
        return fail(fmt::format("{}: {} bytes of quantized data where {} belong (damaged)", name,
                                in.size(), quantizedBytes(out.size(), entry.vertexCount)));
    // The block header first: blockCounts() checks its section offsets against its counts.
    std::memcpy(out.data(), in.data(), sizeof(BlockHeader));
    auto counts = blockCounts(out, name);
    if (!counts)
        return fail(counts.error());
    BlockHeader h;
    std::memcpy(&h, out.data(), sizeof(h));
    if (h.totalBytes != out.size() || h.vertexCount != entry.vertexCount)
        return fail(
            fmt::format("{}: the frame block does not match its index entry (damaged)", name));
    const std::size_t n = h.vertexCount;
    const std::uint8_t* p = in.data();
    std::memcpy(out.data(), p, h.verticesOffset);
    p += h.verticesOffset;
    glm::vec3 boxMin, boxMax;
    std::memcpy(&boxMin, p, 12);
    std::memcpy(&boxMax, p + 12, 12);
    p += BoxBytes;
    // The same float step as quantize() used.
    double step[3];
    for (int a = 0; a < 3; ++a)
        step[a] = static_cast<double>((boxMax[a] - boxMin[a]) / 65535.0f);
    const std::uint8_t* q = p;
    const std::uint8_t* normals = q + alignUp(n * 6, 4);
    const std::uint8_t* colors = normals + n * 12;
    const std::uint8_t* texcoords = colors + n * 4;
    std::uint8_t* vertices = out.data() + h.verticesOffset;
    for (std::size_t i = 0; i < n; ++i) {
        render::Vertex v;
        std::uint16_t code[3];
        std::memcpy(code, q + i * 6, 6);
        for (int a = 0; a < 3; ++a)
            v.position[a] = static_cast<float>(boxMin[a] + code[a] * step[a]);
        std::memcpy(&v.normal, normals + i * 12, 12);
        std::memcpy(&v.color, colors + i * 4, 4);
        std::memcpy(&v.texcoord, texcoords + i * 8, 8);
        std::memcpy(vertices + i * VertexBytes, &v, sizeof(v));
    }
    const std::size_t after = h.verticesOffset + n * VertexBytes;
    std::memcpy(out.data() + after, texcoords + n * 8, out.size() - after);
    return true;
}

class PackSource final : public Source {
public:
    PackSource(PackInfo info, FileHandle file)
        : m_info(std::move(info)), m_file(std::move(file)),
          m_fileName(m_info.path.filename().string())
    {}

    std::string description() const override
    {
        std::string what;
        if (m_info.flags & PackHasCompressedFrames)
            what += ", compressed";
        if (m_info.flags & PackHasQuantizedFrames)
            what += ", u16 positions";
        return fmt::format("pack {} ({}{})", m_fileName,
                           counted(m_info.frameCount(), "frame", "frames"), what);
    }
    int frameCount() const override { return m_info.frameCount(); }
    double fps() const override { return m_info.fps; }
    std::string frameName(int index) const override
    {
        // The frame's original name too (its source file, say): what a user knows it by.
        const std::string& original = m_info.frames[static_cast<std::size_t>(index)].name;
        return original.empty() ? fmt::format("frame {} of {}", index, m_fileName)
                                : fmt::format("frame {} of {} ({})", index, m_fileName, original);
    }
    std::optional<render::SceneCounts> largestFrame() const override { return m_info.largest; }
    std::optional<io::Bounds> bounds() const override { return m_info.bounds; }

    Result<std::span<const std::uint8_t>> load(int index, const BlockSink& sink) const override
    {
        if (index < 0 || index >= frameCount())
            return fail(
                fmt::format("{}: no frame {} (the pack has {})", m_fileName, index, frameCount()));
        const PackFrame& f = m_info.frames[static_cast<std::size_t>(index)];
        const std::string name = frameName(index);
        std::span<std::uint8_t> out = sink(f.blockBytes);
        if (out.size() < f.blockBytes)
            return fail(fmt::format("{}: the frame ({:.1f} MiB) does not fit in the streaming "
                                    "memory budget (--cache-mb)",
                                    name, static_cast<double>(f.blockBytes) / (1024.0 * 1024.0)));
        out = out.first(f.blockBytes);
        const bool direct = f.codec == Codec::None && f.positions == PositionEncoding::F32;
        // Other frames go through per-thread buffers, kept for the thread's next frame.
        thread_local std::vector<std::uint8_t> t_stored;
        thread_local std::vector<std::uint8_t> t_plain;
        std::uint8_t* target = out.data();
        if (!direct) {
            t_stored.resize(f.storedBytes);
            target = t_stored.data();
        }
        // In chunks, each checksummed while it is still in the cache: the frame crosses memory
        // twice (page cache to staging) instead of three times (and a read of it again).
        constexpr std::size_t Chunk = std::size_t{1} << 20;
        std::uint32_t crc = 0;
        for (std::uint64_t done = 0; done < f.storedBytes;) {
            const std::size_t bytes =
                static_cast<std::size_t>(std::min<std::uint64_t>(Chunk, f.storedBytes - done));
            const long long got = readAt(m_file.fd(), target + done, bytes, f.offset + done);
            if (got < 0)
                return fail(
                    fmt::format("{}: read error: {}", name, std::strerror(static_cast<int>(-got))));
            if (static_cast<std::uint64_t>(got) != bytes)
                return fail(fmt::format("{}: truncated ({} of {} bytes; the file shrank?)", name,
                                        done + static_cast<std::uint64_t>(got), f.storedBytes));
            crc = libdeflate_crc32(crc, target + done, bytes);
            done += bytes;
        }
        if (crc != f.crc)
            return fail(fmt::format("{}: checksum mismatch (damaged)", name));
        if (!direct) {
            const std::span<const std::uint8_t> stored(t_stored.data(), f.storedBytes);
            if (f.positions == PositionEncoding::F32) {
                if (auto ok = decompress(stored, f.codec, out, name); !ok)
                    return fail(ok.error());
            } else {
                std::span<const std::uint8_t> plain = stored;
                if (f.codec != Codec::None) {
                    t_plain.resize(quantizedBytes(f.blockBytes, f.vertexCount));
                    if (auto ok = decompress(stored, f.codec, t_plain, name); !ok)
                        return fail(ok.error());
                    plain = t_plain;
                }
                if (auto ok = dequantize(plain, out, f, name); !ok)
                    return fail(ok.error());
            }
        }
        // The checksum matched, so this only catches a writer's bug or a forged file.
        auto counts = blockCounts(out, name);
        if (!counts)
            return fail(counts.error());
        if (counts.value().vertices != f.vertexCount || counts.value().indices != f.indexCount ||
            blockBytes(counts.value()) != f.blockBytes)
            return fail(fmt::format("{}: the frame block does not match its index entry", name));
        return std::span<const std::uint8_t>(out.data(), out.size());
    }

private:
    PackInfo m_info;
    FileHandle m_file;
    std::string m_fileName;
};

} // namespace

// --- writing ---

PackWriter::PackWriter(fs::path path, fs::path temporary, int fd, const PackSettings& settings)
    : m_path(std::move(path)), m_temporary(std::move(temporary)), m_fd(fd), m_settings(settings)
{}

PackWriter::~PackWriter()
{
    if (m_fd >= 0)
        ::close(m_fd);
    if (!m_finished)
        ::unlink(m_temporary.c_str());
}

Result<std::unique_ptr<PackWriter>> PackWriter::create(const fs::path& path,
                                                       const PackSettings& settings)
{
    std::error_code ec;
    if (fs::is_directory(path, ec))
        return fail(fmt::format("{}: is a directory", path.string()));
    if (!settings.overwrite && fs::exists(path, ec))
        return fail(
            fmt::format("{}: already exists (pass --overwrite to replace it)", path.string()));
    if (!isFrameRate(settings.fps))
        return fail(fmt::format("{}: bad frame rate {} ({:g} to {:g} fps)", path.string(),
                                settings.fps, MinFps, MaxFps));
    const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    if (!fs::is_directory(folder, ec))
        return fail(fmt::format("{}: folder {} does not exist", path.string(), folder.string()));
    // A hidden name in the same folder, so the final rename stays on one file system.
    static std::atomic<unsigned> serial{0};
    for (int attempt = 0; attempt < 100; ++attempt) {
        const fs::path temporary =
            folder / fmt::format(".{}.{}-{}.partial", path.filename().string(),
                                 static_cast<long>(::getpid()), serial++);
        const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0)
            return fail(fmt::format("{}: cannot write in {}: {}", path.string(), folder.string(),
                                    std::strerror(errno)));
        auto writer = std::unique_ptr<PackWriter>(new PackWriter(path, temporary, fd, settings));
        // The header's place, filled in by finish().
        static const std::uint8_t zeros[PackAlign] = {};
        if (auto ok = writer->writeAt(0, zeros, PackAlign); !ok)
            return fail(ok.error());
        return writer;
    }
    return fail(
        fmt::format("{}: cannot create a temporary file in {}", path.string(), folder.string()));
}

Result<bool> PackWriter::writeAt(std::uint64_t offset, const void* data, std::size_t bytes)
{
    const auto* p = static_cast<const std::uint8_t*>(data);
    std::size_t done = 0;
    while (done < bytes) {
        const ssize_t n = ::pwrite(m_fd, p + done, bytes - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail(fmt::format("{}: cannot write: {}", m_path.string(),
                                    n < 0 ? std::strerror(errno) : "no progress"));
        done += static_cast<std::size_t>(n);
    }
    return true;
}

Result<EncodedFrame> PackWriter::encode(std::vector<std::uint8_t> block, const std::string& name,
                                        const PackSettings& settings)
{
    auto view = viewBlock(block, name);
    if (!view)
        return fail(view.error());
    BlockHeader h;
    std::memcpy(&h, block.data(), sizeof(h));
    block.resize(h.totalBytes);

    EncodedFrame encoded;
    PackFrame& f = encoded.frame;
    f.blockBytes = h.totalBytes;
    f.vertexCount = h.vertexCount;
    f.indexCount = h.indexCount;
    f.bounds = boundsFrom(h.boundsMin, h.boundsMax);
    f.name = name;
    encoded.counts = view.value().counts();

    std::vector<std::uint8_t> plain;
    // Compact points keep float positions: what the CUDA point pass reads as they are (u16
    // points would need a decode in the pass, which it does not have).
    if (settings.positions == PositionEncoding::U16 && h.vertexCount > 0 &&
        !(h.flags & BlockCompactPoints)) {
        auto q = quantize(block, h, name);
        if (!q)
            return fail(q.error());
        plain = std::move(q.value());
        f.positions = PositionEncoding::U16;
    } else {
        plain = std::move(block);
    }
    if (settings.codec != Codec::None) {
        auto packed = compress(plain, settings.codec, settings.zstdLevel, name);
        if (!packed)
            return fail(packed.error());
        // Incompressible data stays as it is (and an f32 frame stays readable in place).
        if (packed.value().size() < plain.size()) {
            plain = std::move(packed.value());
            f.codec = settings.codec;
        }
    }
    encoded.stored = std::move(plain);
    f.storedBytes = encoded.stored.size();
    f.crc = crc32(encoded.stored.data(), encoded.stored.size());
    return encoded;
}

Result<bool> PackWriter::append(EncodedFrame frame)
{
    TANDEM_ASSERT(!m_finished, "stream::PackWriter::append(): already finished");
    if (m_frames.size() >= std::numeric_limits<std::uint32_t>::max())
        return fail(fmt::format("{}: too many frames", m_path.string()));
    PackFrame f = std::move(frame.frame);
    f.offset = m_end;
    if (auto ok = writeAt(f.offset, frame.stored.data(), frame.stored.size()); !ok)
        return ok;
    const std::uint64_t end = f.offset + frame.stored.size();
    m_end = alignUp(end, PackAlign);
    // Explicit zeros up to the next frame: no holes, so the pack copies as it is.
    static const std::uint8_t zeros[PackAlign] = {};
    if (auto ok = writeAt(end, zeros, m_end - end); !ok)
        return ok;
    m_largest = m_frames.empty() ? frame.counts : render::SceneCounts::max(m_largest, frame.counts);
    m_frames.push_back(std::move(f));
    return true;
}

Result<bool> PackWriter::add(std::span<const std::uint8_t> block, const std::string& name)
{
    auto encoded = encode(std::vector<std::uint8_t>(block.begin(), block.end()), name, m_settings);
    if (!encoded)
        return fail(encoded.error());
    return append(std::move(encoded.value()));
}

Result<PackInfo> PackWriter::finish()
{
    TANDEM_ASSERT(!m_finished, "stream::PackWriter::finish(): already finished");
    if (m_frames.empty())
        return fail(fmt::format("{}: no frames to write", m_path.string()));
    PackHeader h{};
    h.magic = PackMagic;
    h.version = PackVersion;
    h.headerBytes = sizeof(PackHeader);
    h.frameCount = static_cast<std::uint32_t>(m_frames.size());
    h.entryBytes = sizeof(PackEntry);
    h.fps = m_settings.fps;
    h.largestObjects = m_largest.objects;
    h.largestVertices = m_largest.vertices;
    h.largestIndices = m_largest.indices;
    h.largestProvokingOffsets = m_largest.provokingOffsets;
    h.largestProvokingTriangles = m_largest.provokingTriangles;
    h.largestFlags = m_largest.compact ? BlockCompactPoints : 0u;
    h.largestTextureWidth = m_largest.textureWidth;
    h.largestTextureHeight = m_largest.textureHeight;

    std::vector<std::uint8_t> index(m_frames.size() * sizeof(PackEntry));
    io::Bounds bounds;
    for (std::size_t i = 0; i < m_frames.size(); ++i) {
        const PackFrame& f = m_frames[i];
        PackEntry e{};
        e.offset = f.offset;
        e.storedBytes = f.storedBytes;
        e.blockBytes = f.blockBytes;
        e.vertexCount = f.vertexCount;
        e.indexCount = f.indexCount;
        storeBounds(f.bounds, e.boundsMin, e.boundsMax);
        e.codec = static_cast<std::uint8_t>(f.codec);
        e.positions = static_cast<std::uint8_t>(f.positions);
        e.crc = f.crc;
        const std::size_t namesSoFar = index.size() - m_frames.size() * sizeof(PackEntry);
        e.nameOffset = static_cast<std::uint32_t>(namesSoFar);
        e.nameBytes = static_cast<std::uint32_t>(f.name.size());
        std::memcpy(index.data() + i * sizeof(PackEntry), &e, sizeof(e));
        index.insert(index.end(), f.name.begin(), f.name.end());
        if (!f.bounds.isEmpty()) {
            bounds.extend(f.bounds.min);
            bounds.extend(f.bounds.max);
        }
        if (f.codec != Codec::None)
            h.flags |= PackHasCompressedFrames;
        if (f.positions == PositionEncoding::U16)
            h.flags |= PackHasQuantizedFrames;
        h.largestBlockBytes = std::max(h.largestBlockBytes, f.blockBytes);
        h.largestStoredBytes = std::max(h.largestStoredBytes, f.storedBytes);
    }
    if (index.size() - m_frames.size() * sizeof(PackEntry) >
        std::numeric_limits<std::uint32_t>::max())
        return fail(fmt::format("{}: the frames' names are too long", m_path.string()));
    storeBounds(bounds, h.boundsMin, h.boundsMax);
    h.indexOffset = m_end;
    h.indexBytes = index.size();
    h.fileBytes = h.indexOffset + h.indexBytes;
    h.indexCrc = crc32(index.data(), index.size());
    h.headerCrc = crc32(&h, sizeof(h));
    if (auto ok = writeAt(h.indexOffset, index.data(), index.size()); !ok)
        return fail(ok.error());
    if (auto ok = writeAt(0, &h, sizeof(h)); !ok)
        return fail(ok.error());
    // Only a complete pack gets the destination's name.
    if (::fsync(m_fd) != 0)
        return fail(fmt::format("{}: cannot write: {}", m_path.string(), std::strerror(errno)));
    const int fd = std::exchange(m_fd, -1);
    if (::close(fd) != 0)
        return fail(fmt::format("{}: cannot write: {}", m_path.string(), std::strerror(errno)));
    int renamed = -1;
    if (m_settings.overwrite) {
        renamed = ::rename(m_temporary.c_str(), m_path.c_str());
    } else {
        renamed =
            ::renameat2(AT_FDCWD, m_temporary.c_str(), AT_FDCWD, m_path.c_str(), RENAME_NOREPLACE);
        // File systems without RENAME_NOREPLACE: check, then rename.
        if (renamed != 0 && (errno == EINVAL || errno == ENOSYS)) {
            std::error_code ec;
            if (fs::exists(m_path, ec))
                errno = EEXIST;
            else
                renamed = ::rename(m_temporary.c_str(), m_path.c_str());
        }
    }
    if (renamed != 0) {
        if (errno == EEXIST)
            return fail(fmt::format("{}: already exists (pass --overwrite to replace it)",
                                    m_path.string()));
        return fail(fmt::format("{}: cannot rename the finished pack into place: {}",
                                m_path.string(), std::strerror(errno)));
    }
    m_finished = true;
    return readPackInfo(m_path);
}

// --- reading ---

namespace {

/// A pack opened and its header and index read and validated.
struct OpenedPack {
    FileHandle file;
    PackInfo info;
};

Result<OpenedPack> openAndRead(const fs::path& path)
{
    std::uint64_t size = 0;
    auto file = openForReading(path, size);
    if (!file)
        return fail(file.error());
    auto info = readInfo(file.value().fd(), size, path);
    if (!info)
        return fail(info.error());
    return OpenedPack{std::move(file.value()), std::move(info.value())};
}

} // namespace

Result<PackInfo> readPackInfo(const fs::path& path)
{
    auto pack = openAndRead(path);
    if (!pack)
        return fail(pack.error());
    return std::move(pack.value().info);
}

Result<std::vector<int>> verifyPack(const fs::path& path, const PackProgress& progress)
{
    auto pack = openAndRead(path);
    if (!pack)
        return fail(pack.error());
    const PackInfo& info = pack.value().info;
    std::vector<int> damaged;
    std::vector<std::uint8_t> bytes;
    const int total = info.frameCount();
    for (int i = 0; i < total; ++i) {
        const PackFrame& f = info.frames[static_cast<std::size_t>(i)];
        bytes.resize(f.storedBytes);
        const long long got = readAt(pack.value().file.fd(), bytes.data(), bytes.size(), f.offset);
        if (got < 0)
            return fail(fmt::format("{}: read error in frame {}: {}", path.string(), i,
                                    std::strerror(static_cast<int>(-got))));
        if (static_cast<std::uint64_t>(got) != f.storedBytes ||
            crc32(bytes.data(), bytes.size()) != f.crc)
            damaged.push_back(i);
        if (progress)
            progress(i + 1, total);
    }
    return damaged;
}

bool isPackFile(const fs::path& path)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return false;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    FileHandle file(fd);
    std::uint32_t magic = 0;
    return readAt(fd, &magic, sizeof(magic), 0) == sizeof(magic) && magic == PackMagic;
}

Result<std::unique_ptr<Source>> openPack(const fs::path& path)
{
    auto pack = openAndRead(path);
    if (!pack)
        return fail(pack.error());
    return std::unique_ptr<Source>(
        std::make_unique<PackSource>(std::move(pack.value().info), std::move(pack.value().file)));
}

} // namespace tandem::stream
