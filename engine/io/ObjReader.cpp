#include "engine/io/ObjReader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <istream>
#include <map>
#include <sstream>
#include <streambuf>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>
#include <tiny_obj_loader.h>

#include "engine/core/File.h"
#include "engine/io/MtlReader.h"

namespace tandem::io {

namespace {

namespace fs = std::filesystem;

/// Bytes in memory as a stream (tinyobjloader reads from one), without a copy.
class MemoryBuffer : public std::streambuf {
public:
    MemoryBuffer(const char* data, std::size_t size)
    {
        char* begin = const_cast<char*>(data); // read only: no put area
        setg(begin, begin, begin + size);
    }
};

/// Hands tinyobjloader the material libraries an OBJ names (mtllib), read with io::readMtl:
/// regular files only, texture paths resolved against each library's folder. A library that
/// cannot be read is a warning naming it.
class MaterialLibraries final : public tinyobj::MaterialReader {
public:
    MaterialLibraries(fs::path folder, std::string objName)
        : m_folder(std::move(folder)), m_objName(std::move(objName))
    {}

    bool operator()(const std::string& library, std::vector<tinyobj::material_t>* materials,
                    std::map<std::string, int>* names, std::string*, std::string*) override
    {
        const fs::path file = m_folder / fs::path(library);
        auto read = readMtl(file);
        if (!read) {
            m_warnings.push_back(fmt::format("{}: its material library {} cannot be read ({}); "
                                             "drawn without its materials",
                                             m_objName, library, read.error()));
            return false;
        }
        for (const std::string& warning : read.warnings())
            m_warnings.push_back(warning);
        for (const Material& material : read.value()) {
            if (names->contains(material.name))
                continue; // an earlier library's counts, as for a name defined twice in one
            tinyobj::material_t t;
            t.name = material.name;
            t.diffuse_texname = material.diffuseTexture.string();
            names->emplace(material.name, static_cast<int>(materials->size()));
            materials->push_back(std::move(t));
        }
        return true;
    }

    /// What reading the libraries had to say.
    std::vector<std::string>& warnings() { return m_warnings; }

private:
    fs::path m_folder;
    std::string m_objName;
    std::vector<std::string> m_warnings;
};

/// The texture image (map_Kd) of the materials the faces use (usemtl), when they all use the
/// same one; else empty: no face has a textured material, or they use several textures or
/// textured and untextured materials. A scene draws one texture for all its textured meshes, so
/// the faces of other materials would be drawn in its colours: the mesh is drawn without a
/// texture then, and a warning says why.
fs::path textureOfFaces(const std::vector<tinyobj::shape_t>& shapes,
                        const std::vector<tinyobj::material_t>& materials, const std::string& name,
                        std::vector<std::string>& warnings)
{
    std::map<std::string, std::size_t> faces; // texture ("": none) → faces using it
    for (const auto& shape : shapes)
        for (const int id : shape.mesh.material_ids)
            ++faces[id >= 0 && static_cast<std::size_t>(id) < materials.size()
                        ? materials[static_cast<std::size_t>(id)].diffuse_texname
                        : std::string()];
    if (faces.empty() || (faces.size() == 1 && faces.begin()->first.empty()))
        return {};
    if (faces.size() == 1)
        return faces.begin()->first;
    std::string uses;
    for (const auto& [texture, count] : faces)
        uses += fmt::format("{}{} ({} face{})", uses.empty() ? "" : ", ",
                            texture.empty() ? "no texture" : fs::path(texture).filename().string(),
                            count, count == 1 ? "" : "s");
    warnings.push_back(fmt::format("{}: drawn without a texture: its materials give its faces {}, "
                                   "and one texture a mesh is drawn (the others' faces would show "
                                   "its colours)",
                                   name, uses));
    return {};
}

std::string firstLine(const std::string& text)
{
    std::string line = text.substr(0, text.find('\n'));
    return line;
}

/// Checks one face corner, "v", "v/vt", "v//vn" or "v/vt/vn": each index an integer that
/// names an element written before it (1-based; negative counts back from the last). `counts`:
/// the v, vt and vn lines read so far; `where()` gives the place for a message.
template <class Where> Result<bool> checkCorner(std::string_view corner,
                                                const std::size_t (&counts)[3], const Where& where)
{
    static const char* const kinds[] = {"vertices", "texture coordinates", "normals"};
    std::size_t part = 0, start = 0;
    for (;;) {
        const std::size_t slash = corner.find('/', start);
        const std::string_view index = corner.substr(
            start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
        if (part > 2)
            return fail(
                fmt::format("{}: face corner '{}' has more than three indices", where(), corner));
        if (!index.empty() || part == 0) {
            long long value = 0;
            const std::size_t sign = index.starts_with('+') ? 1 : 0; // atoi's '+', as tinyobj
            const auto [p, ec] =
                std::from_chars(index.data() + sign, index.data() + index.size(), value);
            if (ec == std::errc::result_out_of_range)
                return fail(fmt::format("{}: face index '{}' is out of range", where(), index));
            if (index.empty() || p != index.data() + index.size() || ec != std::errc())
                return fail(fmt::format("{}: face index '{}' is malformed (not an integer)",
                                        where(), index.empty() ? corner : index));
            const auto count = static_cast<long long>(counts[part]);
            if (value == 0 || value > count || value < -count)
                return fail(fmt::format("{}: face index {} is out of range: {} {} written "
                                        "before it",
                                        where(), value, count, kinds[part]));
        }
        if (slash == std::string_view::npos)
            return true;
        start = slash + 1;
        ++part;
    }
}

/// The words of a line as `>>` reads them from a stream: split at white space (space, tab,
/// vertical tab, form feed, carriage return), without copying.
class Words {
public:
    explicit Words(std::string_view line) : m_rest(line) {}
    /// The next word into `word`; false when there is none.
    bool next(std::string_view& word)
    {
        const auto space = [](char c) {
            return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
        };
        std::size_t start = 0;
        while (start < m_rest.size() && space(m_rest[start]))
            ++start;
        if (start == m_rest.size())
            return false;
        std::size_t end = start;
        while (end < m_rest.size() && !space(m_rest[end]))
            ++end;
        word = m_rest.substr(start, end - start);
        m_rest.remove_prefix(end);
        return true;
    }

private:
    std::string_view m_rest;
};

/// tinyobjloader reads "nan", "inf" and other non-numbers in v/vn/vt lines as 0, and face
/// indices that are not integers or name no vertex as something else, without a word; find
/// them first so the user hears which line is broken. Returns the (0-based) vertices whose
/// position is not usable, each with whether a coordinate is NaN or infinite (else one is beyond
/// ±MaxCoordinate): they are dropped, as the PLY reader drops them (a number beyond double is
/// an error, as there).
Result<std::map<std::size_t, bool>> checkNumbers(std::string_view text, const std::string& name)
{
    std::map<std::size_t, bool> unusable;
    std::size_t counts[3] = {0, 0, 0}; // v, vt, vn lines so far
    for (std::size_t number = 1; !text.empty(); ++number) {
        const std::size_t end = std::min(text.find('\n'), text.size());
        const std::string_view line = text.substr(0, end);
        text.remove_prefix(std::min(end + 1, text.size()));
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || (line[first] != 'v' && line[first] != 'f'))
            continue;
        Words words(line.substr(first));
        std::string_view keyword, token;
        words.next(keyword);
        if (keyword == "f") {
            const auto where = [&] {
                return fmt::format("{}:{}", name, number);
            };
            int corners = 0;
            while (words.next(token) && !token.starts_with('#')) {
                if (auto corner = checkCorner(token, counts, where); !corner)
                    return fail(corner.error());
                ++corners;
            }
            if (corners < 3)
                return fail(fmt::format("{}: a face needs at least 3 corners, this one has {}",
                                        where(), corners));
            continue;
        }
        if (keyword != "v" && keyword != "vn" && keyword != "vt")
            continue;
        const bool isVertex = keyword == "v";
        const std::size_t index = counts[isVertex ? 0 : keyword == "vt" ? 1 : 2]++;
        for (int column = 0; words.next(token); ++column) {
            double value = 0;
            const char* begin = token.data();
            const char* stop = begin + token.size();
            if (*begin == '+')
                ++begin;
            const auto [p, ec] = std::from_chars(begin, stop, value);
            if (p != stop || (ec != std::errc() && ec != std::errc::result_out_of_range))
                return fail(
                    fmt::format("{}:{}: '{}' is malformed (not a number)", name, number, token));
            // A vertex's position (its first three numbers) that cannot be drawn drops the
            // vertex; anything else so broken is an error.
            const bool far = ec == std::errc() && !(std::abs(value) <= MaxCoordinate);
            if (isVertex && column < 3 && far) {
                unusable[index] = unusable[index] || !std::isfinite(value);
                continue;
            }
            if (ec == std::errc::result_out_of_range)
                return fail(fmt::format("{}:{}: '{}' is out of range", name, number, token));
            if (!std::isfinite(value))
                return fail(fmt::format("{}:{}: '{}' is a non-finite {}", name, number, token,
                                        isVertex ? "colour" : "coordinate"));
        }
    }
    return unusable;
}

} // namespace

Result<MeshData> readObj(const std::filesystem::path& path)
{
    const std::string name = path.string();
    auto bytes = readFile(path);
    if (!bytes)
        return fail(bytes.error());
    const std::string_view text(reinterpret_cast<const char*>(bytes.value().data()),
                                bytes.value().size());
    auto numbers = checkNumbers(text, name);
    if (!numbers)
        return fail(numbers.error());

    tinyobj::attrib_t attrib;
    std::vector<tinyobj::shape_t> shapes;
    std::vector<tinyobj::material_t> materials;
    std::string warning, error;
    MemoryBuffer buffer(text.data(), text.size());
    std::istream stream(&buffer);
    MaterialLibraries libraries(path.parent_path(), name);
    if (!tinyobj::LoadObj(&attrib, &shapes, &materials, &warning, &error, &stream, &libraries, true,
                          true))
        return fail(fmt::format("{}: {}", name, firstLine(error)));

    std::vector<std::string> warnings = std::move(libraries.warnings());
    {
        std::istringstream lines(warning);
        std::string line;
        while (std::getline(lines, line))
            // MaterialLibraries named the library that failed.
            if (!line.empty() && !line.starts_with("Failed to load material file"))
                warnings.push_back(fmt::format("{}: {}", name, line));
    }

    const std::size_t vertexCount = attrib.vertices.size() / 3;
    const std::size_t normalCount = attrib.normals.size() / 3;
    const std::size_t texcoordCount = attrib.texcoords.size() / 2;
    if (vertexCount == 0)
        return fail(fmt::format("{}: no vertices", name));
    // What tinyobjloader read as 0 where the file has "nan" is no vertex to draw either; and
    // what it read as NaN where the file has a number ("0e999") neither.
    std::map<std::size_t, bool> unusable = std::move(numbers.value());
    for (std::size_t v = 0; v < vertexCount; ++v) {
        const glm::vec3 p(attrib.vertices[3 * v], attrib.vertices[3 * v + 1],
                          attrib.vertices[3 * v + 2]);
        if (!isUsablePosition(p) && !unusable.contains(v))
            unusable[v] = !(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z));
    }
    std::size_t nonFinite = 0;
    for (auto& [v, isNonFinite] : unusable) {
        if (v < vertexCount)
            attrib.vertices[3 * v] = NAN;
        nonFinite += isNonFinite;
    }

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
    for (const auto& shape : shapes)
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
        for (const auto& shape : shapes)
            for (const auto& index : shape.mesh.indices) {
                allNormals = allNormals && index.normal_index >= 0;
                allTexcoords = allTexcoords && index.texcoord_index >= 0;
            }
        // One output vertex per distinct (position, normal, texcoord) triple.
        std::unordered_map<std::uint64_t, std::uint32_t> remap;
        remap.reserve(faceIndexCount);
        mesh.indices.reserve(faceIndexCount);
        std::size_t face = 0;
        for (const auto& shape : shapes) {
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
        if (allTexcoords)
            mesh.textureFile = textureOfFaces(shapes, materials, name, warnings);
    }

    DroppedVertices dropped = dropUnusableVertices(mesh);
    if (!unusable.empty()) {
        // Counted as the file has them: one v line a vertex.
        dropped.vertices = unusable.size();
        dropped.nonFinite = nonFinite;
        dropped.before = vertexCount;
        warnings.push_back(droppedWarning(name, dropped));
    }
    Result<MeshData> result(std::move(mesh));
    for (auto& w : warnings)
        result.addWarning(std::move(w));
    return result;
}

} // namespace tandem::io
