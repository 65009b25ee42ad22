#include "engine/io/ObjReader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>
#include <tiny_obj_loader.h>

namespace tandem::io {

namespace {

std::string firstLine(const std::string& text)
{
    std::string line = text.substr(0, text.find('\n'));
    return line;
}

/// Checks one face corner, "v", "v/vt", "v//vn" or "v/vt/vn": each index an integer that
/// names an element written before it (1-based; negative counts back from the last). `counts`:
/// the v, vt and vn lines read so far.
Result<bool> checkCorner(const std::string& corner, const std::size_t (&counts)[3],
                         const std::string& where)
{
    static const char* const kinds[] = {"vertices", "texture coordinates", "normals"};
    std::size_t part = 0, start = 0;
    for (;;) {
        const std::size_t slash = corner.find('/', start);
        const std::string index =
            corner.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        if (part > 2)
            return fail(
                fmt::format("{}: face corner '{}' has more than three indices", where, corner));
        if (!index.empty() || part == 0) {
            long long value = 0;
            const std::size_t sign = index.starts_with('+') ? 1 : 0; // atoi's '+', as tinyobj
            const auto [p, ec] =
                std::from_chars(index.data() + sign, index.data() + index.size(), value);
            if (ec == std::errc::result_out_of_range)
                return fail(fmt::format("{}: face index '{}' is out of range", where, index));
            if (index.empty() || p != index.data() + index.size() || ec != std::errc())
                return fail(fmt::format("{}: face index '{}' is malformed (not an integer)", where,
                                        index.empty() ? corner : index));
            const auto count = static_cast<long long>(counts[part]);
            if (value == 0 || value > count || value < -count)
                return fail(fmt::format("{}: face index {} is out of range: {} {} written "
                                        "before it",
                                        where, value, count, kinds[part]));
        }
        if (slash == std::string::npos)
            return true;
        start = slash + 1;
        ++part;
    }
}

/// tinyobjloader reads "nan", "inf" and other non-numbers in v/vn/vt lines as 0, and face
/// indices that are not integers or name no vertex as something else, without a word; find
/// them first so the user hears which line is broken.
Result<bool> checkNumbers(const std::filesystem::path& path)
{
    std::ifstream file(path);
    std::string line;
    std::size_t counts[3] = {0, 0, 0}; // v, vt, vn lines so far
    for (std::size_t number = 1; std::getline(file, line); ++number) {
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || (line[first] != 'v' && line[first] != 'f'))
            continue;
        std::istringstream words(line.substr(first));
        std::string keyword, token;
        words >> keyword;
        if (keyword == "f") {
            const std::string where = fmt::format("{}:{}", path.string(), number);
            int corners = 0;
            while (words >> token && !token.starts_with('#')) {
                if (auto corner = checkCorner(token, counts, where); !corner)
                    return corner;
                ++corners;
            }
            if (corners < 3)
                return fail(fmt::format("{}: a face needs at least 3 corners, this one has {}",
                                        where, corners));
            continue;
        }
        if (keyword != "v" && keyword != "vn" && keyword != "vt")
            continue;
        ++counts[keyword == "v" ? 0 : keyword == "vt" ? 1 : 2];
        while (words >> token) {
            double value = 0;
            const char* begin = token.data();
            const char* end = begin + token.size();
            if (*begin == '+')
                ++begin;
            const auto [p, ec] = std::from_chars(begin, end, value);
            if (p != end || (ec != std::errc() && ec != std::errc::result_out_of_range))
                return fail(fmt::format("{}:{}: '{}' is malformed (not a number)", path.string(),
                                        number, token));
            if (ec == std::errc::result_out_of_range)
                return fail(
                    fmt::format("{}:{}: '{}' is out of range", path.string(), number, token));
            if (!std::isfinite(value))
                return fail(fmt::format("{}:{}: '{}' is a non-finite coordinate", path.string(),
                                        number, token));
        }
    }
    return true;
}

} // namespace

Result<MeshData> readObj(const std::filesystem::path& path)
{
    const std::string name = path.string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return fail(fmt::format("{}: no such file", name));
    if (std::filesystem::is_directory(path, ec))
        return fail(fmt::format("{}: is a directory, not a file", name));

    if (auto numbers = checkNumbers(path); !numbers)
        return fail(numbers.error());

    tinyobj::ObjReaderConfig config;
    config.triangulate = true;
    config.vertex_color = true;
    tinyobj::ObjReader reader;
    if (!reader.ParseFromFile(name, config))
        return fail(fmt::format("{}: {}", name, firstLine(reader.Error())));

    std::vector<std::string> warnings;
    {
        std::istringstream lines(reader.Warning());
        std::string line;
        while (std::getline(lines, line))
            if (!line.empty())
                warnings.push_back(fmt::format("{}: {}", name, line));
    }

    const tinyobj::attrib_t& attrib = reader.GetAttrib();
    const std::size_t vertexCount = attrib.vertices.size() / 3;
    const std::size_t normalCount = attrib.normals.size() / 3;
    const std::size_t texcoordCount = attrib.texcoords.size() / 2;
    if (vertexCount == 0)
        return fail(fmt::format("{}: no vertices", name));
    for (std::size_t i = 0; i < attrib.vertices.size(); ++i)
        if (!std::isfinite(attrib.vertices[i]))
            return fail(fmt::format("{}: vertex {} has a non-finite coordinate", name, i / 3));

    // tinyobjloader fills absent colours with white; any other value means the file has them.
    bool hasColors = false;
    for (std::size_t i = 0; i < attrib.colors.size(); ++i) {
        if (std::isnan(attrib.colors[i]))
            return fail(fmt::format("{}: vertex {} has a non-numeric colour", name, i / 3));
        hasColors = hasColors || attrib.colors[i] != 1.0f;
    }
    auto colorOf = [&](std::size_t v) {
        auto byte = [](float c) {
            return static_cast<std::uint8_t>(std::round(std::clamp(c, 0.0f, 1.0f) * 255.0f));
        };
        return glm::u8vec4(byte(attrib.colors[3 * v]), byte(attrib.colors[3 * v + 1]),
                           byte(attrib.colors[3 * v + 2]), 255);
    };
    auto positionOf = [&](std::size_t v) {
        return glm::vec3(attrib.vertices[3 * v], attrib.vertices[3 * v + 1],
                         attrib.vertices[3 * v + 2]);
    };

    MeshData mesh;
    std::size_t faceIndexCount = 0;
    for (const auto& shape : reader.GetShapes())
        faceIndexCount += shape.mesh.indices.size();

    if (faceIndexCount == 0) {
        mesh.positions.resize(vertexCount);
        for (std::size_t v = 0; v < vertexCount; ++v)
            mesh.positions[v] = positionOf(v);
        if (hasColors && attrib.colors.size() >= 3 * vertexCount) {
            mesh.colors.resize(vertexCount);
            for (std::size_t v = 0; v < vertexCount; ++v)
                mesh.colors[v] = colorOf(v);
        }
    } else {
        bool allNormals = normalCount > 0;
        bool allTexcoords = texcoordCount > 0;
        for (const auto& shape : reader.GetShapes())
            for (const auto& index : shape.mesh.indices) {
                allNormals = allNormals && index.normal_index >= 0;
                allTexcoords = allTexcoords && index.texcoord_index >= 0;
            }
        // One output vertex per distinct (position, normal, texcoord) triple.
        std::unordered_map<std::uint64_t, std::uint32_t> remap;
        remap.reserve(faceIndexCount);
        mesh.indices.reserve(faceIndexCount);
        std::size_t face = 0;
        for (const auto& shape : reader.GetShapes()) {
            for (std::size_t k = 0; k < shape.mesh.indices.size(); ++k) {
                const tinyobj::index_t& index = shape.mesh.indices[k];
                face = k / 3;
                if (index.vertex_index < 0 ||
                    static_cast<std::size_t>(index.vertex_index) >= vertexCount)
                    return fail(fmt::format("{}: face {} of '{}': vertex index {} out of range "
                                            "(the file has {} vertices)",
                                            name, face, shape.name, index.vertex_index + 1,
                                            vertexCount));
                if (allNormals && static_cast<std::size_t>(index.normal_index) >= normalCount)
                    return fail(fmt::format("{}: face {} of '{}': normal index {} out of range",
                                            name, face, shape.name, index.normal_index + 1));
                if (allTexcoords && static_cast<std::size_t>(index.texcoord_index) >= texcoordCount)
                    return fail(fmt::format("{}: face {} of '{}': texture coordinate index {} out "
                                            "of range",
                                            name, face, shape.name, index.texcoord_index + 1));
                const std::uint64_t key =
                    (static_cast<std::uint64_t>(index.vertex_index) << 40) ^
                    (static_cast<std::uint64_t>(allNormals ? index.normal_index + 1 : 0) << 20) ^
                    static_cast<std::uint64_t>(allTexcoords ? index.texcoord_index + 1 : 0);
                auto [it, inserted] =
                    remap.try_emplace(key, static_cast<std::uint32_t>(mesh.positions.size()));
                if (inserted) {
                    const auto v = static_cast<std::size_t>(index.vertex_index);
                    mesh.positions.push_back(positionOf(v));
                    if (hasColors)
                        mesh.colors.push_back(colorOf(v));
                    if (allNormals) {
                        const auto n = static_cast<std::size_t>(index.normal_index);
                        glm::vec3 normal(attrib.normals[3 * n], attrib.normals[3 * n + 1],
                                         attrib.normals[3 * n + 2]);
                        const float length = glm::length(normal);
                        mesh.normals.push_back(std::isfinite(length) && length > 0
                                                   ? normal / length
                                                   : glm::vec3(0, 0, 1));
                    }
                    if (allTexcoords) {
                        const auto t = static_cast<std::size_t>(index.texcoord_index);
                        mesh.texcoords.emplace_back(attrib.texcoords[2 * t],
                                                    attrib.texcoords[2 * t + 1]);
                    }
                }
                mesh.indices.push_back(it->second);
            }
        }
        if (mesh.indices.size() % 3 != 0)
            return fail(fmt::format("{}: faces did not triangulate into whole triangles", name));
    }

    Result<MeshData> result(std::move(mesh));
    for (auto& warning : warnings)
        result.addWarning(std::move(warning));
    return result;
}

} // namespace tandem::io
