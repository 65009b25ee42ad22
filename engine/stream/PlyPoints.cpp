#include "engine/stream/PlyPoints.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "engine/io/GaussianTransform.h"
#include "engine/io/PlyPointReader.h"
#include "engine/io/PlyReader.h"
#include "engine/render/SceneLayout.h"
#include "engine/stream/Block.h"

namespace tandem::stream {

namespace {

/// Points decoded at once: their arrays stay in the cache between decoding and packing.
constexpr std::size_t Chunk = 4096;

/// A chunk's normals split by axis, so the packing loop reads whole vectors of each.
struct Axes {
    std::array<float, Chunk> x, y, z;
};

/// Packs `n` points' normals and colours (either may be null) as render::layOutScene() packs a
/// vertex (render::vertexOf()'s defaults: no normal, white). The loop has no branch and this
/// file is built without trapping maths (CMakeLists.txt), so it vectorizes: random normals cost
/// no mispredicted branches (the branchy loop took 30 ms a million points, this one 7).
template <bool Normals, bool Colors>
void packChunkOf(const glm::vec3* normals, const glm::u8vec4* colors, std::uint32_t flags,
                 Axes& axes, render::PointAttributes* out, std::size_t n)
{
    if constexpr (Normals)
        for (std::size_t i = 0; i < n; ++i) {
            axes.x[i] = normals[i].x;
            axes.y[i] = normals[i].y;
            axes.z[i] = normals[i].z;
        }
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t color = 0xffffffffu;
        if constexpr (Colors)
            std::memcpy(&color, &colors[i], sizeof(color));
        out[i] = Normals ? render::packAttributes(axes.x[i], axes.y[i], axes.z[i], color, flags)
                         : render::packAttributes(0.0f, 0.0f, 0.0f, color, flags);
    }
}

void packChunk(const glm::vec3* normals, const glm::u8vec4* colors, std::uint32_t flags, Axes& axes,
               render::PointAttributes* out, std::size_t n)
{
    if (normals && colors)
        packChunkOf<true, true>(normals, colors, flags, axes, out, n);
    else if (normals)
        packChunkOf<true, false>(normals, colors, flags, axes, out, n);
    else if (colors)
        packChunkOf<false, true>(normals, colors, flags, axes, out, n);
    else
        packChunkOf<false, false>(normals, colors, flags, axes, out, n);
}

/// The block of `reader`'s cloud (loadPlyPoints()), `step` points at a time read by
/// read(first, positions, normals, colors), which returns read()'s answer.
template <class Read> std::optional<Result<std::span<const std::uint8_t>>>
decodeBlock(const std::unique_ptr<io::PlyPointReader>& reader, const std::string& name,
            const glm::dmat3& turn, const BlockSink& sink, std::size_t step, const Read& read)
{
    // Beyond 32-bit counts render::sceneCounts() refuses the frame, on io::loadMesh's path.
    if (!reader || reader->pointCount() > std::numeric_limits<std::uint32_t>::max() - 1)
        return std::nullopt;
    const auto count = static_cast<std::uint32_t>(reader->pointCount());
    const std::uint32_t flags = render::ObjectIsPoints |
                                (reader->hasColors() ? render::ObjectHasColors : 0u) |
                                (reader->hasNormals() ? render::ObjectHasNormals : 0u);
    auto memory = blockMemory(sink, blockBytes(pointBlockCounts(count)), name);
    if (!memory)
        return Result<std::span<const std::uint8_t>>(fail(memory.error()));
    const PointBlock block = beginPointBlock(count, flags, memory.value());
    const bool turned = turn != glm::dmat3(1.0);
    std::vector<glm::vec3> normals(reader->hasNormals() ? Chunk : 0);
    std::vector<glm::u8vec4> colors(reader->hasColors() ? Chunk : 0);
    const auto axes = std::make_unique<Axes>();
    io::Bounds bounds;
    std::size_t kept = 0; // points kept so far: those not usable are dropped, as readPly() does
    for (std::size_t first = 0; first < count; first += step) {
        const std::size_t n = std::min<std::size_t>(step, count - first);
        // Positions go straight into the block, after those kept; normals and colours are packed
        // from the chunk.
        auto got = read(first, block.positions.subspan(kept, n),
                        std::span(normals).first(normals.empty() ? 0 : n),
                        std::span(colors).first(colors.empty() ? 0 : n));
        if (!got)
            return std::nullopt;
        const std::size_t m = *got;
        const std::span<glm::vec3> positions = block.positions.subspan(kept, m);
        if (turned) {
            io::turnPoints(positions, turn);
            io::turnPoints(std::span(normals).first(normals.empty() ? 0 : m), turn);
        }
        packChunk(normals.empty() ? nullptr : normals.data(),
                  colors.empty() ? nullptr : colors.data(), flags, *axes,
                  block.attributes.data() + kept, m);
        for (const glm::vec3& position : positions)
            bounds.extend(position);
        kept += m;
    }
    // A frame all of whose points were dropped is io::loadMesh's to name (an empty frame).
    if (kept == 0)
        return std::nullopt;
    const std::size_t bytesOfBlock =
        kept < count ? shrinkPointBlock(memory.value(), count, static_cast<std::uint32_t>(kept))
                     : block.bytes;
    // As render::Scene::bounds() merges its one object's.
    io::Bounds merged;
    merged.extend(bounds.min);
    merged.extend(bounds.max);
    setBlockBounds(memory.value(), merged);
    Result<std::span<const std::uint8_t>> result(
        std::span<const std::uint8_t>(memory.value().data(), bytesOfBlock));
    for (const std::string& warning : reader->warnings())
        result.addWarning(warning);
    return result;
}

/// A binary body's piece read at once: the system copies into a buffer the cache holds.
constexpr std::size_t PieceBytes = std::size_t{128} << 10;

} // namespace

std::optional<Result<std::span<const std::uint8_t>>>
loadPlyPoints(std::span<const std::uint8_t> bytes, const std::string& name, const glm::dmat3& turn,
              const BlockSink& sink, const std::function<bool(std::size_t)>& arrive)
{
    const auto reader = io::PlyPointReader::open(bytes, name);
    return decodeBlock(reader, name, turn, sink, Chunk,
                       [&](std::size_t first, std::span<glm::vec3> positions,
                           std::span<glm::vec3> normals, std::span<glm::u8vec4> colors) {
                           if (arrive && !arrive(reader->bytesThrough(first + positions.size())))
                               return std::optional<std::size_t>();
                           return reader->read(positions, normals, colors);
                       });
}

std::optional<Result<std::span<const std::uint8_t>>> loadPlyPoints(FileReader& file,
                                                                   const std::string& name,
                                                                   const glm::dmat3& turn,
                                                                   const BlockSink& sink)
{
    const auto reader = io::PlyPointReader::openBinary(file.start(), file.size(), name);
    if (!reader) {
        // An ascii body (or one the reader does not take): from the file read whole, a piece
        // ahead of the decoder.
        auto whole = file.whole();
        if (!whole)
            return Result<std::span<const std::uint8_t>>(fail(whole.error()));
        constexpr std::size_t Ahead = std::size_t{512} << 10;
        // The header in first, where the bytes read so far do not hold it (a shorter file is
        // read whole; one that shrank fails in the decoder's reads).
        file.readTo(std::max(Ahead, io::PlyHeaderBytes));
        return loadPlyPoints(whole.value(), name, turn, sink, [&file](std::size_t end) {
            return file.readTo((end + Ahead - 1) / Ahead * Ahead);
        });
    }
    // A binary body a piece at a time into this thread's one small buffer, decoded from there.
    thread_local std::vector<std::uint8_t> piece;
    const std::size_t stride = reader->bytesThrough(1) - reader->bytesThrough(0);
    const std::size_t step = std::clamp<std::size_t>(PieceBytes / stride, 1, Chunk);
    return decodeBlock(reader, name, turn, sink, step,
                       [&](std::size_t first, std::span<glm::vec3> positions,
                           std::span<glm::vec3> normals, std::span<glm::u8vec4> colors) {
                           const std::size_t offset = reader->bytesThrough(first);
                           const std::size_t bytes = positions.size() * stride;
                           std::span<const std::uint8_t> vertices;
                           if (offset + bytes <= file.start().size()) {
                               vertices = file.start().subspan(offset, bytes);
                           } else {
                               if (piece.size() < bytes)
                                   piece.resize(bytes);
                               if (!file.readAt(offset, std::span(piece).first(bytes)))
                                   return std::optional<std::size_t>();
                               vertices = std::span(piece).first(bytes);
                           }
                           return reader->readFrom(vertices, positions, normals, colors);
                       });
}

} // namespace tandem::stream
