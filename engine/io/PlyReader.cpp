#include "engine/io/PlyReader.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "engine/core/File.h"
#include "engine/io/detail/PlyFormat.h"

namespace tandem::io {

namespace {

using namespace detail;

std::uint8_t toColorByte(double value, Scalar type)
{
    double v = value;
    if (isFloat(type))
        v = value * 255.0;
    else if (type == Scalar::UInt16 || type == Scalar::Int16)
        v = value / 257.0;
    if (!(v >= 0.0))
        return 0;
    return static_cast<std::uint8_t>(std::min(255.0, std::round(v)));
}

} // namespace

Result<MeshData> readPly(std::span<const std::uint8_t> bytes, const std::string& name)
{
    auto parsed = parseCheckedHeader(bytes, name);
    if (!parsed)
        return fail(parsed.error());
    const Header& header = parsed.value();
    BodyReader reader(bytes.subspan(header.bodyOffset), header.format);

    const Element* vertexElement = findElement(header, "vertex");
    if (!vertexElement)
        return fail(fmt::format("{}: no 'vertex' element", name));

    const bool placed = header.scale != 1.0 || header.translation != glm::dvec3(0.0);
    MeshData mesh;
    std::vector<std::string> warnings;
    std::uint64_t skippedFaces = 0;
    std::vector<double> values;
    for (const auto& element : header.elements) {
        const bool isVertex = &element == vertexElement;
        const bool isFace = element.name == "face";
        int x = -1, y = -1, z = -1, nx = -1, ny = -1, nz = -1, r = -1, g = -1, b = -1, a = -1,
            u = -1, v = -1, packed = -1, faceList = -1;
        if (isVertex) {
            x = indexOf(element, {"x"});
            y = indexOf(element, {"y"});
            z = indexOf(element, {"z"});
            if (x < 0 || y < 0 || z < 0)
                return fail(fmt::format("{}: 'vertex' element lacks x, y or z", name));
            nx = indexOf(element, {"nx", "normal_x"});
            ny = indexOf(element, {"ny", "normal_y"});
            nz = indexOf(element, {"nz", "normal_z"});
            r = indexOf(element, {"red", "r", "diffuse_red"});
            g = indexOf(element, {"green", "g", "diffuse_green"});
            b = indexOf(element, {"blue", "b", "diffuse_blue"});
            a = indexOf(element, {"alpha", "a", "diffuse_alpha"});
            u = indexOf(element, {"u", "s", "texture_u", "texture_s"});
            v = indexOf(element, {"v", "t", "texture_v", "texture_t"});
            if (r < 0 || g < 0 || b < 0) {
                // PCL's packed colour: the bytes 0x00RRGGBB of a 32-bit field (its top byte,
                // an alpha PCL often leaves 0, is not used).
                packed = indexOf(element, {"rgb", "rgba"});
                if (packed >= 0 && sizeOf(element.properties[packed].type) != 4) {
                    warnings.push_back(fmt::format("{}: property '{}' ({}) ignored: a packed "
                                                   "colour is a 4-byte float, int or uint",
                                                   name, element.properties[packed].name,
                                                   nameOf(element.properties[packed].type)));
                    packed = -1;
                }
            }
            const auto count = static_cast<std::size_t>(element.count);
            mesh.positions.resize(count);
            if (nx >= 0 && ny >= 0 && nz >= 0)
                mesh.normals.resize(count);
            if ((r >= 0 && g >= 0 && b >= 0) || packed >= 0)
                mesh.colors.resize(count);
            if (u >= 0 && v >= 0)
                mesh.texcoords.resize(count);
        }
        if (isFace) {
            for (std::size_t i = 0; i < element.properties.size(); ++i)
                if (element.properties[i].isList &&
                    (element.properties[i].name == "vertex_indices" ||
                     element.properties[i].name == "vertex_index"))
                    faceList = static_cast<int>(i);
        }
        // An element without properties has no bytes to read, whatever its count says.
        if (element.properties.empty())
            continue;
        values.resize(element.properties.size());
        std::uint32_t packedBits = 0;
        std::vector<std::uint32_t> polygon;
        for (std::uint64_t e = 0; e < element.count; ++e) {
            for (std::size_t p = 0; p < element.properties.size(); ++p) {
                const Property& property = element.properties[p];
                const auto truncated = [&] {
                    return endedEarly(reader, name, element, e, property);
                };
                if (!property.isList) {
                    if (!reader.read(property.type, values[p]))
                        return truncated();
                    if (static_cast<int>(p) == packed)
                        packedBits = reader.bits();
                    continue;
                }
                const auto listCount =
                    readListCount(reader, header.format, name, element, e, property);
                if (!listCount)
                    return fail(listCount.error());
                const std::uint64_t count = listCount.value();
                const bool keep = static_cast<int>(p) == faceList;
                if (keep)
                    polygon.clear();
                for (std::uint64_t i = 0; i < count; ++i) {
                    double item = 0;
                    if (!reader.read(property.type, item))
                        return truncated();
                    if (!keep)
                        continue;
                    if (!(item >= 0 && item < static_cast<double>(vertexElement->count)))
                        return fail(fmt::format("{}: face {}: vertex index {} out of range (the "
                                                "file has {} vertices)",
                                                name, e, item, vertexElement->count));
                    polygon.push_back(static_cast<std::uint32_t>(item));
                }
                if (keep) {
                    if (polygon.size() < 3) {
                        ++skippedFaces;
                        continue;
                    }
                    for (std::size_t k = 1; k + 1 < polygon.size(); ++k) {
                        mesh.indices.push_back(polygon[0]);
                        mesh.indices.push_back(polygon[k]);
                        mesh.indices.push_back(polygon[k + 1]);
                    }
                }
            }
            if (!isVertex)
                continue;
            const auto i = static_cast<std::size_t>(e);
            glm::dvec3 world(values[x], values[y], values[z]);
            // Only when a comment asks: the identity would still turn -0 into +0.
            if (placed)
                world = header.scale * world + header.translation;
            // Non-finite and far positions are dropped once the faces are read too; a finite
            // value beyond float is far, not infinite.
            glm::vec3 position(world);
            for (int k = 0; k < 3; ++k)
                if (std::isfinite(world[k]) && !std::isfinite(position[k]))
                    position[k] = std::copysign(std::numeric_limits<float>::max(), world[k]);
            mesh.positions[i] = position;
            if (!mesh.normals.empty()) {
                glm::vec3 n(values[nx], values[ny], values[nz]);
                const float length = glm::length(n);
                mesh.normals[i] =
                    std::isfinite(length) && length > 0 ? n / length : glm::vec3(0, 0, 1);
            }
            if (packed >= 0) {
                mesh.colors[i] = glm::u8vec4((packedBits >> 16) & 0xff, (packedBits >> 8) & 0xff,
                                             packedBits & 0xff, 255);
            } else if (!mesh.colors.empty()) {
                const auto& props = element.properties;
                mesh.colors[i] = glm::u8vec4(toColorByte(values[r], props[r].type),
                                             toColorByte(values[g], props[g].type),
                                             toColorByte(values[b], props[b].type),
                                             a >= 0 ? toColorByte(values[a], props[a].type) : 255);
            }
            if (!mesh.texcoords.empty())
                mesh.texcoords[i] = glm::vec2(values[u], values[v]);
        }
    }
    if (mesh.positions.empty())
        return fail(fmt::format("{}: no vertices", name));
    if (skippedFaces > 0 && mesh.indices.empty())
        return fail(
            fmt::format("{}: none of its {} faces has 3 or more vertices", name, skippedFaces));
    // Depth sensors and PCL write NaN for invalid points: the rest of the frame is still good.
    const DroppedVertices dropped = dropUnusableVertices(mesh);
    mesh.textureFile = header.textureFile;
    Result<MeshData> result(std::move(mesh));
    for (const std::string& warning : header.warnings)
        result.addWarning(warning);
    for (std::string& warning : warnings)
        result.addWarning(std::move(warning));
    if (dropped.any())
        result.addWarning(droppedWarning(name, dropped));
    if (header.format != Format::Ascii && reader.remaining() > 0)
        result.addWarning(fmt::format("{}: {} bytes after the last element were ignored", name,
                                      reader.remaining()));
    if (skippedFaces > 0)
        result.addWarning(
            fmt::format("{}: skipped {} faces with fewer than 3 vertices", name, skippedFaces));
    return result;
}

Result<MeshData> readPly(const std::filesystem::path& path)
{
    auto bytes = readFile(path);
    if (!bytes)
        return fail(bytes.error());
    auto mesh = readPly(bytes.value(), path.string());
    // The texture a header names is relative to the file.
    if (mesh && !mesh.value().textureFile.empty())
        mesh.value().textureFile = path.parent_path() / mesh.value().textureFile;
    return mesh;
}

Result<std::uint64_t> plyVertexCount(const std::filesystem::path& path)
{
    // The header's bound (parseHeader's) and a little more, so its end_header line is read.
    constexpr std::size_t headerBytes = (1 << 20) + 64;
    auto bytes = readFileStart(path, headerBytes);
    if (!bytes)
        return fail(bytes.error());
    auto header = parseHeader(bytes.value(), path.string());
    if (!header)
        return fail(header.error());
    for (const Element& element : header.value().elements)
        if (element.name == "vertex")
            return element.count;
    return std::uint64_t{0};
}

} // namespace tandem::io
