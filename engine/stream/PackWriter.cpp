#include "engine/stream/PackWriter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "engine/core/File.h"
#include "engine/stream/Block.h"
#include "engine/stream/PackReader.h"
#include "engine/stream/detail/PackCodec.h"
#include "engine/stream/detail/PackQuantization.h"

namespace tandem::stream {

namespace fs = std::filesystem;

namespace {

std::uint64_t alignUp(std::uint64_t n, std::uint64_t to)
{
    return (n + to - 1) / to * to;
}

/// Zeros to pad with: the header's place, and the gaps up to the next aligned frame (no holes,
/// so the pack copies as it is).
constexpr std::uint8_t Zeros[PackAlign] = {};

} // namespace

PackWriter::PackWriter(AtomicFile file, const PackSettings& settings)
    : m_file(std::move(file)), m_settings(settings)
{}

PackWriter::~PackWriter() = default;

Result<std::unique_ptr<PackWriter>> PackWriter::create(const fs::path& path,
                                                       const PackSettings& settings)
{
    if (!isFrameRate(settings.fps))
        return fail(fmt::format("{}: frame rate {:g} lies outside {:g}..{:g} fps", path.string(),
                                settings.fps, MinFps, MaxFps));
    // Made as every other output's folder is; then what a killed run left there goes.
    const fs::path folder = path.parent_path();
    if (!folder.empty())
        if (auto ok = prepareOutputDirectory(folder); !ok)
            return fail(fmt::format("{}: {}", path.string(), ok.error()));
    removeStaleTemporaries(folder);
    auto file = AtomicFile::create(path, settings.overwrite ? Replace::Yes : Replace::No);
    if (!file)
        return fail(file.error());
    auto writer = std::unique_ptr<PackWriter>(new PackWriter(std::move(file.value()), settings));
    // The header's place, filled in by finish().
    if (auto ok = writer->m_file.writeAt(0, Zeros); !ok)
        return fail(ok.error());
    return writer;
}

void PackWriter::abandon()
{
    m_file.abandon();
}

Result<EncodedFrame> PackWriter::encode(std::vector<std::uint8_t> block, const std::string& name,
                                        const PackSettings& settings)
{
    auto view = viewBlock(block, name);
    if (!view)
        return fail(view.error());
    const bool hasSplats = !view.value().splats.empty();
    if (settings.splats == render::SplatEncoding::Packed && hasSplats &&
        view.value().splats.encoding == render::SplatEncoding::F32) {
        auto packed = packBlockSplats(block, name);
        if (!packed)
            return fail(packed.error());
        block = std::move(packed.value());
        view = viewBlock(block, name, true);
        if (!view)
            return fail(view.error());
    }
    BlockHeader h;
    std::memcpy(&h, block.data(), sizeof(h));
    block.resize(h.totalBytes);

    EncodedFrame encoded;
    PackFrame& f = encoded.frame;
    f.blockBytes = h.totalBytes;
    f.vertexCount = h.vertexCount;
    f.indexCount = h.indexCount;
    f.bounds = boundsFrom(h.boundsMin, h.boundsMax);
    f.hasSplats = hasSplats;
    f.name = name;
    encoded.counts = view.value().counts();

    std::vector<std::uint8_t> plain;
    // Compact points keep float positions: what the CUDA point pass reads as they are (u16
    // points would need a decode in the pass, which it does not have).
    if (settings.positions == PositionEncoding::U16 && h.vertexCount > 0 &&
        !(h.flags & BlockCompactPoints)) {
        auto q = detail::quantize(block, h, name);
        if (!q)
            return fail(q.error());
        plain = std::move(q.value());
        f.positions = PositionEncoding::U16;
    } else {
        plain = std::move(block);
    }
    if (settings.codec != Codec::None) {
        auto packed = detail::compress(plain, settings.codec, settings.zstdLevel, name);
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
    f.crc = packCrc32(encoded.stored);
    return encoded;
}

Result<bool> PackWriter::append(EncodedFrame frame)
{
    TANDEM_ASSERT(m_file.isOpen(), "stream::PackWriter::append(): finished or abandoned");
    if (m_frames.size() >= std::numeric_limits<std::uint32_t>::max())
        return fail(fmt::format("{}: too many frames", path().string()));
    PackFrame f = std::move(frame.frame);
    f.offset = m_end;
    if (auto ok = m_file.writeAt(f.offset, frame.stored); !ok)
        return ok;
    const std::uint64_t end = f.offset + frame.stored.size();
    m_end = alignUp(end, PackAlign);
    if (auto ok = m_file.writeAt(end, std::span(Zeros, m_end - end)); !ok)
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
    TANDEM_ASSERT(m_file.isOpen(), "stream::PackWriter::finish(): finished or abandoned");
    if (m_frames.empty())
        return fail(fmt::format("{}: no frames to write", path().string()));
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
        if (f.hasSplats)
            h.flags |= PackHasSplats;
        h.largestBlockBytes = std::max(h.largestBlockBytes, f.blockBytes);
        h.largestStoredBytes = std::max(h.largestStoredBytes, f.storedBytes);
    }
    if (index.size() - m_frames.size() * sizeof(PackEntry) >
        std::numeric_limits<std::uint32_t>::max())
        return fail(fmt::format("{}: the frames' names are too long", path().string()));
    storeBounds(bounds, h.boundsMin, h.boundsMax);
    h.indexOffset = m_end;
    h.indexBytes = index.size();
    h.fileBytes = h.indexOffset + h.indexBytes;
    h.indexCrc = packCrc32(index);
    h.headerCrc = packCrc32(bytesOf(h));
    if (auto ok = m_file.writeAt(h.indexOffset, index); !ok)
        return fail(ok.error());
    if (auto ok = m_file.writeAt(0, bytesOf(h)); !ok)
        return fail(ok.error());
    // Only a complete pack gets the destination's name (synced first, never replacing a file
    // that appeared meanwhile unless asked).
    if (auto ok = m_file.commit(); !ok)
        return fail(ok.error());
    return readPackInfo(path());
}

} // namespace tandem::stream
