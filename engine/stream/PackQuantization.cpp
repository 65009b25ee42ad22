#include "engine/stream/detail/PackQuantization.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace tandem::stream::detail {

namespace {

constexpr std::size_t VertexBytes = sizeof(render::Vertex);
/// The quantization box before a U16 frame's positions: min[3], max[3].
constexpr std::size_t BoxBytes = 6 * sizeof(float);

std::uint64_t alignUp(std::uint64_t n, std::uint64_t to)
{
    return (n + to - 1) / to * to;
}

} // namespace

std::uint64_t quantizedBytes(std::uint64_t blockBytes, std::uint64_t vertices)
{
    return blockBytes - vertices * VertexBytes + BoxBytes + alignUp(vertices * 6, 4) +
           vertices * (12 + 4 + 8);
}

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

} // namespace tandem::stream::detail
