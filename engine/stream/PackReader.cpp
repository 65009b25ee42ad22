#include "engine/stream/PackReader.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "engine/core/Plural.h"
#include "engine/stream/Block.h"
#include "engine/stream/detail/PackCodec.h"
#include "engine/stream/detail/PackQuantization.h"

namespace tandem::stream {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t CompactPointBytes = sizeof(glm::vec3) + sizeof(render::PointAttributes);

/// A file open for reading, closed on destruction.
class ReadFile {
public:
    ReadFile() = default;
    explicit ReadFile(int fd) : m_fd(fd) {}
    ~ReadFile()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    ReadFile(ReadFile&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
    ReadFile& operator=(ReadFile&&) = delete;
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

/// Opens `path` for reading, a regular file only: opened without blocking (a FIFO with no
/// writer would block open() forever) and checked before anything is read. Fails naming it.
Result<ReadFile> openForReading(const fs::path& path, std::uint64_t& size)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return fail(fmt::format("{}: no such file", path.string()));
        return fail(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
    }
    ReadFile file(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return fail(fmt::format("{}: cannot stat: {}", path.string(), std::strerror(errno)));
    if (S_ISDIR(st.st_mode))
        return fail(fmt::format("{}: is a directory, not a file", path.string()));
    if (!S_ISREG(st.st_mode))
        return fail(fmt::format("{}: is not a regular file (a FIFO, a device or a socket): refused",
                                path.string()));
    // Reads block from here: a regular file's never wait for long.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
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
    if (packCrc32(bytesOf(zeroed)) != h.headerCrc)
        return fail(fmt::format("{}: the pack header is damaged (checksum mismatch)", file));
    if (h.headerBytes != sizeof(PackHeader) || h.entryBytes != sizeof(PackEntry))
        return fail(fmt::format("{}: the pack header states sizes this version does not use "
                                "(header {} bytes, index entry {} bytes)",
                                file, h.headerBytes, h.entryBytes));
    if (h.flags & ~KnownPackFlags)
        return fail(fmt::format("{}: the pack uses features this build does not know (flags "
                                "{:#x}); update tandem",
                                file, h.flags & ~KnownPackFlags));
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
        return fail(fmt::format("{}: the header's frame rate {:g} fps lies outside {:g}..{:g}",
                                file, h.fps, MinFps, MaxFps));
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
    if (packCrc32(index) != h.indexCrc)
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
    auto bounds = checkedBounds(h.boundsMin, h.boundsMax, h.largestVertices == 0,
                                file + ": the header's bounds");
    if (!bounds)
        return fail(bounds.error());
    info.bounds = bounds.value();
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
            const std::uint64_t expected =
                positions == PositionEncoding::F32
                    ? e.blockBytes
                    : detail::quantizedBytes(e.blockBytes, e.vertexCount);
            if (e.storedBytes != expected)
                return bad(fmt::format("{} stored bytes where an uncompressed frame has {}",
                                       e.storedBytes, expected));
        }
        if (e.nameOffset > namesBytes || e.nameBytes > namesBytes - e.nameOffset)
            return bad("its name lies outside the index");
        auto frameBounds =
            checkedBounds(e.boundsMin, e.boundsMax, e.vertexCount == 0,
                          fmt::format("{}: index entry of frame {}: bounds", file, i));
        if (!frameBounds)
            return fail(frameBounds.error());
        PackFrame& f = info.frames[i];
        f.offset = e.offset;
        f.storedBytes = e.storedBytes;
        f.blockBytes = e.blockBytes;
        f.vertexCount = e.vertexCount;
        f.indexCount = e.indexCount;
        f.bounds = frameBounds.value();
        f.codec = codec;
        f.positions = positions;
        f.crc = e.crc;
        f.name.assign(names + e.nameOffset, e.nameBytes);
        end = e.offset + e.storedBytes;
    }
    return info;
}

// Frames other than uncompressed f32 ones are read and decoded through per-thread buffers,
// kept for the thread's next frame.
thread_local std::vector<std::uint8_t> t_stored;
thread_local std::vector<std::uint8_t> t_plain;

/// "frame 3: decodes to 4096.0 MiB, more than could be allocated (damaged?)".
std::string tooLarge(const std::string& name, std::uint64_t bytes)
{
    return fmt::format("{}: decodes to {:.1f} MiB, more than could be allocated (damaged?)", name,
                       static_cast<double>(bytes) / (1024.0 * 1024.0));
}

/// Resizes a per-thread buffer; false when the memory cannot be had (a forged size).
bool tryResize(std::vector<std::uint8_t>& buffer, std::uint64_t bytes)
{
    try {
        buffer.resize(static_cast<std::size_t>(bytes));
        return true;
    } catch (const std::bad_alloc&) {
        return false;
    } catch (const std::length_error&) {
        return false;
    }
}

/// Reads frame `f` from `fd` into `out` (f.blockBytes long): checks its CRC-32, decompresses
/// and dequantizes, and checks the block's header against the entry. Fails naming `name`.
Result<bool> decodeFrame(int fd, const PackFrame& f, std::span<std::uint8_t> out,
                         const std::string& name)
{
    const bool direct = f.codec == Codec::None && f.positions == PositionEncoding::F32;
    std::uint8_t* target = out.data();
    if (!direct) {
        if (!tryResize(t_stored, f.storedBytes))
            return fail(tooLarge(name, f.storedBytes));
        target = t_stored.data();
    }
    // In chunks, each checksummed while it is still in the cache: the frame crosses memory
    // twice (page cache to staging) instead of three times (and a read of it again).
    constexpr std::size_t Chunk = std::size_t{1} << 20;
    std::uint32_t crc = 0;
    for (std::uint64_t done = 0; done < f.storedBytes;) {
        const std::size_t bytes =
            static_cast<std::size_t>(std::min<std::uint64_t>(Chunk, f.storedBytes - done));
        const long long got = readAt(fd, target + done, bytes, f.offset + done);
        if (got < 0)
            return fail(
                fmt::format("{}: read error: {}", name, std::strerror(static_cast<int>(-got))));
        if (static_cast<std::uint64_t>(got) != bytes)
            return fail(fmt::format("{}: truncated ({} of {} bytes; the file shrank?)", name,
                                    done + static_cast<std::uint64_t>(got), f.storedBytes));
        crc = packCrc32(crc, {target + done, bytes});
        done += bytes;
    }
    if (crc != f.crc)
        return fail(fmt::format("{}: checksum mismatch (damaged)", name));
    if (!direct) {
        const std::span<const std::uint8_t> stored(t_stored.data(), f.storedBytes);
        if (f.positions == PositionEncoding::F32) {
            if (auto ok = detail::decompress(stored, f.codec, out, name); !ok)
                return fail(ok.error());
        } else {
            std::span<const std::uint8_t> plain = stored;
            if (f.codec != Codec::None) {
                if (!tryResize(t_plain, detail::quantizedBytes(f.blockBytes, f.vertexCount)))
                    return fail(tooLarge(name, f.blockBytes));
                if (auto ok = detail::decompress(stored, f.codec, t_plain, name); !ok)
                    return fail(ok.error());
                plain = t_plain;
            }
            if (auto ok = detail::dequantize(plain, out, f, name); !ok)
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
    return true;
}

class PackSource final : public Source {
public:
    PackSource(PackInfo info, ReadFile file)
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
        if (m_info.flags & PackHasSplats)
            what += ", splats";
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
    std::optional<std::size_t> largestBlockBytes() const override
    {
        return static_cast<std::size_t>(m_info.largestBlockBytes);
    }
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
        if (auto ok = decodeFrame(m_file.fd(), f, out, name); !ok)
            return fail(ok.error());
        return std::span<const std::uint8_t>(out.data(), out.size());
    }

private:
    PackInfo m_info;
    ReadFile m_file;
    std::string m_fileName;
};

/// A pack opened and its header and index read and validated.
struct OpenedPack {
    ReadFile file;
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

/// The machine's physical memory, bytes (what no decoded frame can be larger than).
std::uint64_t physicalMemoryBytes()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageBytes = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageBytes <= 0)
        return std::numeric_limits<std::uint64_t>::max();
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageBytes);
}

} // namespace

Result<PackInfo> readPackInfo(const fs::path& path)
{
    auto pack = openAndRead(path);
    if (!pack)
        return fail(pack.error());
    return std::move(pack.value().info);
}

Result<std::vector<PackDamage>> verifyPack(const fs::path& path, const PackProgress& progress,
                                           std::uint64_t frameBudgetBytes)
{
    if (frameBudgetBytes == 0)
        frameBudgetBytes = physicalMemoryBytes();
    auto pack = openAndRead(path);
    if (!pack)
        return fail(pack.error());
    const PackInfo& info = pack.value().info;
    std::vector<PackDamage> damaged;
    std::vector<std::uint8_t> block;
    const int total = info.frameCount();
    for (int i = 0; i < total; ++i) {
        const PackFrame& f = info.frames[static_cast<std::size_t>(i)];
        const std::string name =
            f.name.empty() ? fmt::format("frame {}", i) : fmt::format("frame {} ({})", i, f.name);
        // The sizes in the index are checked against the header's, not against memory: a
        // forged one may ask for more than the machine has, so it is checked here first.
        Result<bool> decoded =
            f.blockBytes > frameBudgetBytes
                ? fail(fmt::format("{}: decodes to {:.1f} MiB, more than the {:.1f} MiB a frame "
                                   "may take here (damaged?)",
                                   name, static_cast<double>(f.blockBytes) / (1024.0 * 1024.0),
                                   static_cast<double>(frameBudgetBytes) / (1024.0 * 1024.0)))
            : tryResize(block, f.blockBytes) ? decodeFrame(pack.value().file.fd(), f, block, name)
                                             : fail(tooLarge(name, f.blockBytes));
        if (decoded) {
            // What a player checks before the frame goes to the GPU.
            auto view = viewBlock(block, name);
            if (!view)
                decoded = fail(view.error());
        }
        if (!decoded)
            damaged.push_back({i, decoded.error()});
        if (progress)
            progress(i + 1, total);
    }
    return damaged;
}

bool isPackFile(const fs::path& path)
{
    std::uint64_t size = 0;
    auto file = openForReading(path, size);
    if (!file)
        return false;
    std::uint32_t magic = 0;
    return readAt(file.value().fd(), &magic, sizeof(magic), 0) == sizeof(magic) &&
           magic == PackMagic;
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
