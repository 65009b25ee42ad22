#include "engine/stream/Block.h"

#include <cmath>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace tandem::stream {

namespace {

std::size_t alignUp(std::size_t n)
{
    return (n + BlockAlign - 1) / BlockAlign * BlockAlign;
}

/// The header of a block of `counts`, offsets filled in.
BlockHeader headerFor(const render::SceneCounts& counts)
{
    BlockHeader h{};
    h.magic = BlockMagic;
    h.flags =
        (counts.compact ? BlockCompactPoints : 0u) | (counts.splats > 0 ? BlockHasSplats : 0u);
    h.objectCount = counts.objects;
    h.vertexCount = counts.vertices;
    h.indexCount = counts.indices;
    h.provokingOffsetCount = counts.provokingOffsets;
    h.provokingTriangleCount = counts.provokingTriangles;
    h.textureWidth = counts.textureWidth;
    h.textureHeight = counts.textureHeight;
    std::size_t at = alignUp(sizeof(BlockHeader));
    const auto section = [&](std::uint64_t& offset, std::size_t bytes) {
        offset = at;
        at = alignUp(at + bytes);
    };
    section(h.objectsOffset, std::size_t{counts.objects} * sizeof(render::GpuObject));
    const std::size_t n = counts.vertices;
    section(h.verticesOffset, counts.compact ? 0 : n * sizeof(render::Vertex));
    section(h.indicesOffset, std::size_t{counts.indices} * 4);
    section(h.provokingOffsetsOffset, std::size_t{counts.provokingOffsets} * 4);
    section(h.provokingTrianglesOffset, std::size_t{counts.provokingTriangles} * 4);
    section(h.positionsOffset, counts.compact ? n * sizeof(glm::vec3) : 0);
    section(h.attributesOffset, counts.compact ? n * sizeof(render::PointAttributes) : 0);
    section(h.texelsOffset, counts.textureBytes());
    h.totalBytes = at;
    return h;
}

/// The splat header of a block of `counts` whose other sections end at `end`.
BlockSplats splatsFor(const render::SceneCounts& counts, std::uint64_t end)
{
    BlockSplats s{};
    if (counts.splats == 0)
        return s;
    s.count = counts.splats;
    s.shDegree = counts.splatDegree;
    s.encoding = static_cast<std::uint8_t>(counts.splatEncoding);
    s.offset = end;
    s.bytes = counts.splatRegion().bytes;
    return s;
}

/// The block's bytes: its sections, then its splats.
std::uint64_t totalOf(const BlockHeader& h, const BlockSplats& s)
{
    return h.totalBytes + alignUp(s.bytes);
}

} // namespace

io::Bounds boundsFrom(const float min[3], const float max[3])
{
    io::Bounds b;
    b.min = {min[0], min[1], min[2]};
    b.max = {max[0], max[1], max[2]};
    return b;
}

void storeBounds(const io::Bounds& bounds, float min[3], float max[3])
{
    for (int i = 0; i < 3; ++i) {
        min[i] = bounds.min[i];
        max[i] = bounds.max[i];
    }
}

Result<io::Bounds> checkedBounds(const float min[3], const float max[3], bool mayBeEmpty,
                                 const std::string& what)
{
    const io::Bounds bounds = boundsFrom(min, max);
    if (mayBeEmpty && min[0] > max[0] && min[1] > max[1] && min[2] > max[2])
        return bounds;
    const auto text = [](const float v[3]) {
        return fmt::format("({:g}, {:g}, {:g})", v[0], v[1], v[2]);
    };
    for (const auto& [field, v] : {std::pair{"min", min}, std::pair{"max", max}})
        for (int i = 0; i < 3; ++i) {
            if (!std::isfinite(v[i]))
                return fail(fmt::format("{}: {} {} is not finite", what, field, text(v)));
            if (std::abs(v[i]) > MaxBoundsCoordinate)
                return fail(fmt::format("{}: {} {} lies beyond ±{:g}", what, field, text(v),
                                        MaxBoundsCoordinate));
        }
    for (int i = 0; i < 3; ++i)
        if (min[i] > max[i])
            return fail(fmt::format("{}: min {} is not below max {}{}", what, text(min), text(max),
                                    mayBeEmpty ? "" : " (empty bounds, and there are vertices)"));
    return bounds;
}

std::size_t blockBytes(const render::SceneCounts& counts)
{
    const BlockHeader h = headerFor(counts);
    return totalOf(h, splatsFor(counts, h.totalBytes));
}

std::size_t writeBlock(const render::Scene& scene, std::span<std::uint8_t> out,
                       render::SplatEncoding encoding)
{
    render::SceneCounts counts = render::sceneCounts(scene);
    counts.splatEncoding = encoding;
    BlockHeader h = headerFor(counts);
    const BlockSplats splats = splatsFor(counts, h.totalBytes);
    h.totalBytes = totalOf(h, splats);
    TANDEM_ASSERT(out.size() >= h.totalBytes, "stream::writeBlock(): the block does not fit");
    const io::Bounds bounds = scene.bounds();
    storeBounds(bounds, h.boundsMin, h.boundsMax);
    std::memset(out.data(), 0, h.totalBytes);
    std::memcpy(out.data(), &h, sizeof(h));
    if (splats.count > 0) {
        std::memcpy(out.data() + sizeof(h), &splats, sizeof(splats));
        render::layOutSplats(scene, encoding, out.subspan(splats.offset, splats.bytes));
    }
    std::uint8_t* base = out.data();
    const auto at = [&](std::uint64_t offset) {
        return base + offset;
    };
    const std::size_t n = counts.vertices;
    render::SceneArrays arrays{
        {reinterpret_cast<render::GpuObject*>(at(h.objectsOffset)), counts.objects},
        {reinterpret_cast<render::Vertex*>(at(h.verticesOffset)), counts.compact ? 0 : n},
        {reinterpret_cast<glm::vec3*>(at(h.positionsOffset)), counts.compact ? n : 0},
        {reinterpret_cast<render::PointAttributes*>(at(h.attributesOffset)),
         counts.compact ? n : 0},
        {reinterpret_cast<std::uint32_t*>(at(h.indicesOffset)), counts.indices},
        {reinterpret_cast<std::uint32_t*>(at(h.provokingOffsetsOffset)), counts.provokingOffsets},
        {reinterpret_cast<std::uint32_t*>(at(h.provokingTrianglesOffset)),
         counts.provokingTriangles},
        {at(h.texelsOffset), counts.textureBytes()}};
    render::layOutScene(scene, arrays);
    return h.totalBytes;
}

render::SceneCounts pointBlockCounts(std::uint32_t points)
{
    render::SceneCounts counts;
    counts.objects = 1;
    counts.vertices = points;
    counts.compact = true;
    return counts;
}

PointBlock beginPointBlock(std::uint32_t points, std::uint32_t objectFlags,
                           std::span<std::uint8_t> out)
{
    const BlockHeader h = headerFor(pointBlockCounts(points));
    TANDEM_ASSERT(out.size() >= h.totalBytes, "stream::beginPointBlock(): the block does not fit");
    const std::size_t positionsEnd = h.positionsOffset + std::size_t{points} * sizeof(glm::vec3);
    const std::size_t attributesEnd =
        h.attributesOffset + std::size_t{points} * sizeof(render::PointAttributes);
    // Zero what the points do not cover, as writeBlock() leaves it.
    std::memset(out.data(), 0, h.positionsOffset);
    std::memset(out.data() + positionsEnd, 0, h.attributesOffset - positionsEnd);
    std::memset(out.data() + attributesEnd, 0, h.totalBytes - attributesEnd);
    std::memcpy(out.data(), &h, sizeof(h));
    const render::GpuObject record{0, points, 0, objectFlags};
    std::memcpy(out.data() + h.objectsOffset, &record, sizeof(record));
    return {{reinterpret_cast<glm::vec3*>(out.data() + h.positionsOffset), points},
            {reinterpret_cast<render::PointAttributes*>(out.data() + h.attributesOffset), points},
            h.totalBytes};
}

std::size_t shrinkPointBlock(std::span<std::uint8_t> block, std::uint32_t points,
                             std::uint32_t kept)
{
    TANDEM_ASSERT(kept <= points, "stream::shrinkPointBlock(): more points kept than begun");
    const BlockHeader was = headerFor(pointBlockCounts(points));
    const BlockHeader h = headerFor(pointBlockCounts(kept));
    TANDEM_ASSERT(block.size() >= was.totalBytes && h.objectsOffset == was.objectsOffset &&
                      h.positionsOffset == was.positionsOffset &&
                      h.attributesOffset <= was.attributesOffset,
                  "stream::shrinkPointBlock(): not a block beginPointBlock() began");
    std::memmove(block.data() + h.attributesOffset, block.data() + was.attributesOffset,
                 std::size_t{kept} * sizeof(render::PointAttributes));
    const std::size_t positionsEnd = h.positionsOffset + std::size_t{kept} * sizeof(glm::vec3);
    const std::size_t attributesEnd =
        h.attributesOffset + std::size_t{kept} * sizeof(render::PointAttributes);
    std::memset(block.data() + positionsEnd, 0, h.attributesOffset - positionsEnd);
    std::memset(block.data() + attributesEnd, 0, h.totalBytes - attributesEnd);
    render::GpuObject record;
    std::memcpy(&record, block.data() + h.objectsOffset, sizeof(record));
    record.vertexCount = kept;
    std::memcpy(block.data(), &h, sizeof(h));
    std::memcpy(block.data() + h.objectsOffset, &record, sizeof(record));
    return h.totalBytes;
}

void setBlockBounds(std::span<std::uint8_t> block, const io::Bounds& bounds)
{
    TANDEM_ASSERT(block.size() >= sizeof(BlockHeader), "stream::setBlockBounds(): no header");
    BlockHeader h;
    std::memcpy(&h, block.data(), sizeof(h));
    storeBounds(bounds, h.boundsMin, h.boundsMax);
    std::memcpy(block.data(), &h, sizeof(h));
}

namespace {

/// A block's headers, as read.
struct Headers {
    BlockHeader h;
    BlockSplats splats;
};

render::SceneCounts countsOf(const Headers& headers)
{
    const BlockHeader& h = headers.h;
    return {h.objectCount,
            h.vertexCount,
            h.indexCount,
            h.provokingOffsetCount,
            h.provokingTriangleCount,
            (h.flags & BlockCompactPoints) != 0,
            h.textureWidth,
            h.textureHeight,
            headers.splats.count,
            headers.splats.shDegree,
            static_cast<render::SplatEncoding>(headers.splats.encoding)};
}

Result<Headers> readHeader(std::span<const std::uint8_t> block, const std::string& name)
{
    if (block.size() < sizeof(BlockHeader) + sizeof(BlockSplats))
        return fail(fmt::format("{}: a frame block of {} bytes is shorter than its header", name,
                                block.size()));
    Headers headers{};
    BlockHeader& h = headers.h;
    std::memcpy(&h, block.data(), sizeof(h));
    if (h.magic != BlockMagic)
        return fail(fmt::format("{}: not a frame block (bad magic)", name));
    if (h.flags & ~static_cast<std::uint32_t>(BlockCompactPoints | BlockHasSplats))
        return fail(fmt::format("{}: unknown frame block flags 0x{:x}", name, h.flags));
    if (h.flags & BlockHasSplats) {
        BlockSplats& s = headers.splats;
        std::memcpy(&s, block.data() + sizeof(h), sizeof(s));
        if (s.count == 0 || s.shDegree > io::MaxShDegree ||
            s.encoding > static_cast<std::uint8_t>(render::SplatEncoding::Packed) ||
            s.reserved != 0)
            return fail(fmt::format("{}: a frame block's splats: {} Gaussians of SH degree {}, "
                                    "encoding {}",
                                    name, s.count, s.shDegree, s.encoding));
    }
    if (h.textureWidth > render::MaxTextureSize || h.textureHeight > render::MaxTextureSize ||
        (h.textureWidth == 0) != (h.textureHeight == 0))
        return fail(fmt::format("{}: a frame texture of {}x{} texels", name, h.textureWidth,
                                h.textureHeight));
    const render::SceneCounts counts = countsOf(headers);
    BlockHeader expected = headerFor(counts);
    const BlockSplats splats = splatsFor(counts, expected.totalBytes);
    expected.totalBytes = totalOf(expected, splats);
    if (std::memcmp(&expected.objectsOffset, &h.objectsOffset, 9 * sizeof(std::uint64_t)) != 0 ||
        std::memcmp(&splats, &headers.splats, sizeof(splats)) != 0)
        return fail(
            fmt::format("{}: the frame block's section offsets do not match its counts", name));
    if (h.totalBytes > block.size())
        return fail(fmt::format("{}: the frame block needs {} bytes but has {}", name, h.totalBytes,
                                block.size()));
    if (auto bounds =
            checkedBounds(h.boundsMin, h.boundsMax, h.vertexCount == 0 && headers.splats.count == 0,
                          name + ": the frame block's bounds");
        !bounds)
        return fail(bounds.error());
    return headers;
}

} // namespace

Result<render::SceneCounts> blockCounts(std::span<const std::uint8_t> block,
                                        const std::string& name)
{
    auto headers = readHeader(block, name);
    if (!headers)
        return fail(headers.error());
    return countsOf(headers.value());
}

Result<render::SceneView> viewBlock(std::span<const std::uint8_t> block, const std::string& name,
                                    bool trusted)
{
    auto headers = readHeader(block, name);
    if (!headers)
        return fail(headers.error());
    const BlockHeader& h = headers.value().h;
    const BlockSplats& splats = headers.value().splats;
    const std::uint8_t* base = block.data();
    render::SceneView view;
    view.objects = {reinterpret_cast<const render::GpuObject*>(base + h.objectsOffset),
                    h.objectCount};
    const bool compact = (h.flags & BlockCompactPoints) != 0;
    view.vertices = {reinterpret_cast<const render::Vertex*>(base + h.verticesOffset),
                     compact ? 0 : h.vertexCount};
    view.positions = {reinterpret_cast<const glm::vec3*>(base + h.positionsOffset),
                      compact ? h.vertexCount : 0};
    view.attributes = {reinterpret_cast<const render::PointAttributes*>(base + h.attributesOffset),
                       compact ? h.vertexCount : 0};
    view.indices = {reinterpret_cast<const std::uint32_t*>(base + h.indicesOffset), h.indexCount};
    view.provokingOffsets = {
        reinterpret_cast<const std::uint32_t*>(base + h.provokingOffsetsOffset),
        h.provokingOffsetCount};
    view.provokingTriangles = {
        reinterpret_cast<const std::uint32_t*>(base + h.provokingTrianglesOffset),
        h.provokingTriangleCount};
    view.texels = {base + h.texelsOffset, countsOf(headers.value()).textureBytes()};
    if (splats.count > 0)
        view.splats = {{base + splats.offset, splats.bytes},
                       splats.count,
                       splats.shDegree,
                       static_cast<render::SplatEncoding>(splats.encoding)};
    view.textureWidth = h.textureWidth;
    view.textureHeight = h.textureHeight;
    view.bounds = boundsFrom(h.boundsMin, h.boundsMax);
    if (!trusted) {
        auto valid = render::validateScene(view, name);
        if (!valid)
            return fail(valid.error());
    }
    // Splats need no check for memory's sake: every Gaussian reads its own records, and the
    // projection culls what is not finite.
    return view;
}

Result<std::vector<std::uint8_t>> packBlockSplats(std::span<const std::uint8_t> block,
                                                  const std::string& name)
{
    auto view = viewBlock(block, name);
    if (!view)
        return fail(view.error());
    const render::SplatView& from = view.value().splats;
    if (from.empty() || from.encoding != render::SplatEncoding::F32)
        return std::vector<std::uint8_t>(block.begin(), block.end());
    // The other sections stay where they are; the region shrinks in place.
    BlockHeader h;
    BlockSplats s;
    std::memcpy(&h, block.data(), sizeof(h));
    std::memcpy(&s, block.data() + sizeof(h), sizeof(s));
    s.encoding = static_cast<std::uint8_t>(render::SplatEncoding::Packed);
    s.bytes =
        render::splatRegion(s.count, s.shDegree, render::SplatEncoding::Packed, render::SplatAlign)
            .bytes;
    h.totalBytes = s.offset + alignUp(s.bytes);
    std::vector<std::uint8_t> out(h.totalBytes);
    std::memcpy(out.data(), block.data(), s.offset);
    std::memcpy(out.data(), &h, sizeof(h));
    std::memcpy(out.data() + sizeof(h), &s, sizeof(s));
    render::packSplatRegion(from, std::span(out).subspan(s.offset, s.bytes));
    return out;
}

} // namespace tandem::stream
