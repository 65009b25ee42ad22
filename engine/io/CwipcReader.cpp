#include "engine/io/CwipcReader.h"

#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "engine/core/File.h"

namespace tandem::io {

namespace {

constexpr std::size_t HeaderBytes = 32;
constexpr std::size_t PointBytes = 16;

template <class T> T loadLittle(const std::uint8_t* at)
{
    std::uint8_t raw[sizeof(T)];
    for (std::size_t i = 0; i < sizeof(T); ++i)
        raw[std::endian::native == std::endian::little ? i : sizeof(T) - 1 - i] = at[i];
    T value;
    std::memcpy(&value, raw, sizeof(T));
    return value;
}

} // namespace

bool isCwipcDump(std::span<const std::uint8_t> bytes)
{
    return bytes.size() >= 4 && std::memcmp(bytes.data(), "cpcd", 4) == 0;
}

Result<MeshData> readCwipcDump(std::span<const std::uint8_t> bytes, const std::string& name)
{
    if (!isCwipcDump(bytes))
        return fail(fmt::format("{}: not a CWIPC dump (it does not start with \"cpcd\")", name));
    if (bytes.size() < HeaderBytes)
        return fail(
            fmt::format("{}: truncated: a CWIPC dump's header is {} bytes, the file holds {}", name,
                        HeaderBytes, bytes.size()));
    const auto version = loadLittle<std::uint32_t>(bytes.data() + 4);
    if (version != CwipcDumpVersion)
        return fail(fmt::format("{}: CWIPC dump version 0x{:08x}; this reader takes 0x{:08x}", name,
                                version, CwipcDumpVersion));
    const auto pointBytes = loadLittle<std::uint64_t>(bytes.data() + 24);
    const std::size_t body = bytes.size() - HeaderBytes;
    if (pointBytes % PointBytes != 0)
        return fail(fmt::format("{}: the header's {} bytes of points are not whole {}-byte points",
                                name, pointBytes, PointBytes));
    if (pointBytes > body)
        return fail(fmt::format("{}: truncated: the header gives {} points ({} bytes), the file "
                                "holds {} complete",
                                name, pointBytes / PointBytes, pointBytes, body / PointBytes));
    if (pointBytes < body)
        return fail(fmt::format("{}: {} bytes after the {} points the header gives", name,
                                body - pointBytes, pointBytes / PointBytes));
    const auto count = static_cast<std::size_t>(pointBytes / PointBytes);
    if (count == 0)
        return fail(fmt::format("{}: no points", name));
    MeshData mesh;
    mesh.positions.resize(count);
    mesh.colors.resize(count);
    const std::uint8_t* point = bytes.data() + HeaderBytes;
    for (std::size_t i = 0; i < count; ++i, point += PointBytes) {
        mesh.positions[i] = glm::vec3(loadLittle<float>(point), loadLittle<float>(point + 4),
                                      loadLittle<float>(point + 8));
        mesh.colors[i] = glm::u8vec4(point[12], point[13], point[14], 255);
    }
    const DroppedVertices dropped = dropUnusableVertices(mesh);
    Result<MeshData> result(std::move(mesh));
    if (dropped.any())
        result.addWarning(droppedWarning(name, dropped));
    return result;
}

Result<MeshData> readCwipcDump(const std::filesystem::path& path)
{
    auto bytes = readFile(path);
    if (!bytes)
        return fail(bytes.error());
    return readCwipcDump(bytes.value(), path.string());
}

} // namespace tandem::io
