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
#include "engine/io/detail/PlyVertices.h"

namespace tandem::io {

using namespace detail;

Result<MeshData> readPly(std::span<const std::uint8_t> bytes, const std::string& name,
                         PlyDecoding decoding)
{
    auto parsed = parseCheckedHeader(bytes, name);
    if (!parsed)
        return fail(parsed.error());
    const Header& header = parsed.value();
    BodyReader reader(bytes.subspan(header.bodyOffset), header.format);

    const Element* vertexElement = findElement(header, "vertex");
    if (!vertexElement)
        return fail(fmt::format("{}: no 'vertex' element", name));

    MeshData mesh;
    VertexFields fields;
    std::vector<std::string> warnings;
    std::uint64_t skippedFaces = 0;
    std::vector<double> values;
    for (const auto& element : header.elements) {
        const bool isVertex = &element == vertexElement;
        const bool isFace = element.name == "face";
        int faceList = -1;
        VertexArrays arrays;
        if (isVertex) {
            auto found = vertexFields(element, name, warnings);
            if (!found)
                return fail(found.error());
            fields = found.value();
            const auto count = static_cast<std::size_t>(element.count);
            mesh.positions.resize(count);
            if (fields.hasNormals())
                mesh.normals.resize(count);
            if (fields.hasColors())
                mesh.colors.resize(count);
            if (fields.hasTexcoords())
                mesh.texcoords.resize(count);
            arrays = {mesh.positions.data(), fields.hasNormals() ? mesh.normals.data() : nullptr,
                      fields.hasColors() ? mesh.colors.data() : nullptr,
                      fields.hasTexcoords() ? mesh.texcoords.data() : nullptr};
            if (decoding == PlyDecoding::Fast && VertexDecoder::supports(element)) {
                VertexDecoder decoder(header, element, fields,
                                      bytes.subspan(header.bodyOffset + reader.position()));
                // A value it cannot read: the value-by-value reader names the problem.
                if (!decoder.decode(count, arrays))
                    return readPly(bytes, name, PlyDecoding::ValueByValue);
                reader.skip(decoder.consumed());
                continue;
            }
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
                    if (static_cast<int>(p) == fields.packed)
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
            storeVertex(
                fields, header, element.properties,
                [&](int p) { return values[static_cast<std::size_t>(p)]; }, packedBits, arrays,
                static_cast<std::size_t>(e));
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
        result.addWarning(trailingBytesWarning(name, reader.remaining()));
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
    return readPly(path, bytes.value());
}

Result<MeshData> readPly(const std::filesystem::path& path, std::span<const std::uint8_t> bytes)
{
    auto mesh = readPly(bytes, path.string(), PlyDecoding::Fast);
    // The texture a header names is relative to the file.
    if (mesh && !mesh.value().textureFile.empty())
        mesh.value().textureFile = path.parent_path() / mesh.value().textureFile;
    return mesh;
}

Result<std::uint64_t> plyVertexCount(const std::filesystem::path& path)
{
    auto bytes = readFileStart(path, PlyHeaderBytes);
    if (!bytes)
        return fail(bytes.error());
    return plyVertexCount(bytes.value(), path.string());
}

Result<std::uint64_t> plyVertexCount(std::span<const std::uint8_t> start, const std::string& name)
{
    // parseHeader() reads nothing past the end_header line.
    auto header = parseHeader(start, name);
    if (!header)
        return fail(header.error());
    for (const Element& element : header.value().elements)
        if (element.name == "vertex")
            return element.count;
    return std::uint64_t{0};
}

} // namespace tandem::io
