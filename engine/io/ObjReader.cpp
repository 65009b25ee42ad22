#include "engine/io/ObjReader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "engine/core/File.h"
#include "engine/io/MtlReader.h"

namespace tandem::io {

namespace {

namespace fs = std::filesystem;

/// A face corner as the file names it: 0-based indices of its vertex, texture coordinate and
/// normal (NoIndex: none written).
struct Corner {
    static constexpr std::uint32_t NoIndex = std::numeric_limits<std::uint32_t>::max();
    std::uint32_t v = 0;
    std::uint32_t vt = NoIndex;
    std::uint32_t vn = NoIndex;
    bool operator==(const Corner&) const = default;
};

/// A hash of a whole corner, for the vertices a position has beyond its first.
struct CornerHash {
    std::size_t operator()(const Corner& c) const
    {
        const std::uint64_t textureAndNormal = (std::uint64_t{c.vt} << 32) | c.vn;
        return std::hash<std::uint64_t>()(textureAndNormal * 0x9e3779b97f4a7c15ull ^ c.v);
    }
};

/// Polygons with more corners than this are cut into a fan rather than by ear clipping (whose
/// cost grows with the square of the corners or worse): a hostile file of large faces costs
/// a bounded amount a byte.
constexpr std::size_t MaxEarClippedCorners = 64;

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

/// The OBJ being read: what its lines declared so far, in the order they did.
class ObjParser {
public:
    ObjParser(std::string name, fs::path folder)
        : m_name(std::move(name)), m_folder(std::move(folder))
    {}

    /// Reads all of `text`; fails naming the line that is broken.
    Result<bool> parse(std::string_view text)
    {
        for (m_line = 1; !text.empty(); ++m_line) {
            // Lines end at "\n", "\r\n" or a lone "\r" (classic Mac OS files).
            std::size_t end = 0;
            while (end < text.size() && text[end] != '\n' && text[end] != '\r')
                ++end;
            const std::string_view line = text.substr(0, end);
            if (end + 1 < text.size() && text[end] == '\r' && text[end + 1] == '\n')
                ++end;
            text.remove_prefix(std::min(end + 1, text.size()));
            Words words(line);
            std::string_view keyword;
            if (!words.next(keyword) || keyword.starts_with('#'))
                continue;
            Result<bool> read = true;
            if (keyword == "v")
                read = vertex(words);
            else if (keyword == "vt")
                read = texcoord(words);
            else if (keyword == "vn")
                read = normal(words);
            else if (keyword == "f")
                read = face(words);
            else if (keyword == "mtllib")
                libraries(words);
            else if (keyword == "usemtl")
                useMaterial(words);
            // o, g, s, l, p, vp and the rest name nothing tandem draws.
            if (!read)
                return read;
        }
        return true;
    }

    /// The mesh the file describes; fails when it has no vertex.
    Result<MeshData> mesh() &&;

private:
    std::string where() const { return fmt::format("{}:{}", m_name, m_line); }

    /// The numbers of a v, vt or vn line into `out` (the first `N`; the rest are checked and
    /// left out), at least `needed` of them. A position (v's first three) that cannot be drawn
    /// marks the vertex unusable; anything else beyond double or non-finite is an error, as is a
    /// word that is no number.
    template <std::size_t N> Result<std::size_t> numbers(Words& words, double (&out)[N],
                                                         std::size_t needed, const char* what)
    {
        const bool isVertex = std::string_view(what) == "vertex";
        std::string_view token;
        std::size_t column = 0;
        for (; words.next(token); ++column) {
            double value = 0;
            const char* begin = token.data();
            const char* stop = begin + token.size();
            if (*begin == '+')
                ++begin;
            const auto [p, ec] = std::from_chars(begin, stop, value);
            if (p != stop || (ec != std::errc() && ec != std::errc::result_out_of_range))
                return fail(fmt::format("{}: '{}' is malformed (not a number)", where(), token));
            if (ec == std::errc::result_out_of_range)
                return fail(fmt::format("{}: '{}' is out of range", where(), token));
            const bool position = isVertex && column < 3;
            if (!position && !std::isfinite(value))
                return fail(fmt::format("{}: '{}' is a non-finite {}", where(), token,
                                        isVertex ? "colour" : "coordinate"));
            if (column < N)
                out[column] = value;
        }
        if (column < needed)
            return fail(fmt::format("{}: a {} needs {} number{}, this one has {}", where(), what,
                                    needed, needed == 1 ? "" : "s", column));
        return column;
    }

    Result<bool> vertex(Words& words)
    {
        double values[6] = {0, 0, 0, 1, 1, 1}; // colours default to white
        auto count = numbers(words, values, 3, "vertex");
        if (!count)
            return fail(count.error());
        const glm::vec3 p(static_cast<float>(values[0]), static_cast<float>(values[1]),
                          static_cast<float>(values[2]));
        if (!isUsablePosition(p)) {
            const bool finite =
                std::isfinite(values[0]) && std::isfinite(values[1]) && std::isfinite(values[2]);
            m_unusable.push_back(m_positions.size());
            m_nonFinite += !finite;
        }
        m_positions.push_back(p);
        // "v x y z r g b": a colour only with all three (x y z w is a weight, not drawn).
        if (count.value() >= 6 && !m_hasColors) {
            m_hasColors = true;
            m_colors.resize(m_positions.size() - 1, glm::u8vec4(255));
        }
        if (m_hasColors) {
            const auto byte = [](double c) {
                return static_cast<std::uint8_t>(
                    std::round(std::clamp(static_cast<float>(c), 0.0f, 1.0f) * 255.0f));
            };
            m_colors.push_back(count.value() >= 6 ? glm::u8vec4(byte(values[3]), byte(values[4]),
                                                                byte(values[5]), 255)
                                                  : glm::u8vec4(255));
        }
        return true;
    }

    Result<bool> texcoord(Words& words)
    {
        double values[2] = {0, 0}; // v is optional
        if (auto count = numbers(words, values, 1, "texture coordinate"); !count)
            return fail(count.error());
        m_texcoords.emplace_back(static_cast<float>(values[0]), static_cast<float>(values[1]));
        return true;
    }

    Result<bool> normal(Words& words)
    {
        double values[3] = {0, 0, 0};
        if (auto count = numbers(words, values, 3, "normal"); !count)
            return fail(count.error());
        const glm::vec3 n(static_cast<float>(values[0]), static_cast<float>(values[1]),
                          static_cast<float>(values[2]));
        const float length = glm::length(n);
        m_normals.push_back(std::isfinite(length) && length > 0 ? n / length : glm::vec3(0, 0, 1));
        return true;
    }

    /// One face corner, "v", "v/vt", "v//vn" or "v/vt/vn": each index an integer that names an
    /// element written before it (1-based; negative counts back from the last).
    Result<Corner> corner(std::string_view text) const
    {
        static const char* const kinds[] = {"vertices", "texture coordinates", "normals"};
        const std::size_t counts[3] = {m_positions.size(), m_texcoords.size(), m_normals.size()};
        std::uint32_t indices[3] = {Corner::NoIndex, Corner::NoIndex, Corner::NoIndex};
        std::size_t part = 0, start = 0;
        for (;;) {
            const std::size_t slash = text.find('/', start);
            const std::string_view index = text.substr(
                start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
            if (part > 2)
                return fail(
                    fmt::format("{}: face corner '{}' has more than three indices", where(), text));
            if (!index.empty() || part == 0) {
                long long value = 0;
                const std::size_t sign = index.starts_with('+') ? 1 : 0;
                const auto [p, ec] =
                    std::from_chars(index.data() + sign, index.data() + index.size(), value);
                if (ec == std::errc::result_out_of_range)
                    return fail(fmt::format("{}: face index '{}' is out of range", where(), index));
                if (index.empty() || p != index.data() + index.size() || ec != std::errc())
                    return fail(fmt::format("{}: face index '{}' is malformed (not an integer)",
                                            where(), index.empty() ? text : index));
                const auto count = static_cast<long long>(counts[part]);
                if (value == 0 || value > count || value < -count)
                    return fail(fmt::format("{}: face index {} is out of range: {} {} written "
                                            "before it",
                                            where(), value, count, kinds[part]));
                indices[part] = static_cast<std::uint32_t>(value > 0 ? value - 1 : count + value);
            }
            if (slash == std::string_view::npos)
                return Corner{indices[0], indices[1], indices[2]};
            start = slash + 1;
            ++part;
        }
    }

    Result<bool> face(Words& words)
    {
        m_polygon.clear();
        std::string_view token;
        while (words.next(token) && !token.starts_with('#')) {
            auto c = corner(token);
            if (!c)
                return fail(c.error());
            m_polygon.push_back(c.value());
        }
        if (m_polygon.size() < 3)
            return fail(fmt::format("{}: a face needs at least 3 corners, this one has {}", where(),
                                    m_polygon.size()));
        const std::size_t before = m_corners.size();
        triangulate();
        m_trianglesOfMaterial[m_material] += (m_corners.size() - before) / 3;
        return true;
    }

    void triangle(std::size_t a, std::size_t b, std::size_t c)
    {
        m_corners.insert(m_corners.end(), {m_polygon[a], m_polygon[b], m_polygon[c]});
    }

    /// m_polygon as triangles: a triangle as it is; a quad cut along its shorter diagonal; a
    /// larger polygon by ear clipping in the plane it mostly lies in (a fan past
    /// MaxEarClippedCorners, or where clipping finds no ear: a self-crossing polygon).
    void triangulate();

    /// Loads the material libraries a mtllib line names (resolved against the OBJ's folder);
    /// one that cannot be read is a warning naming it. A material's first definition counts.
    void libraries(Words& words)
    {
        std::string_view library;
        while (words.next(library)) {
            const std::string file(library);
            auto read = readMtl(m_folder / fs::path(file));
            if (!read) {
                m_warnings.push_back(fmt::format("{}: its material library {} cannot be read "
                                                 "({}); drawn without its materials",
                                                 m_name, file, read.error()));
                m_failedLibrary = true;
                continue;
            }
            for (const std::string& warning : read.warnings())
                m_warnings.push_back(warning);
            for (const Material& material : read.value())
                m_materials.try_emplace(material.name, material.diffuseTexture);
        }
    }

    /// usemtl: the faces after it use that material's texture (none for a name no library
    /// defines: a warning, once a name, unless a library could not be read, which said so).
    void useMaterial(Words& words)
    {
        std::string_view name;
        words.next(name);
        const auto found = m_materials.find(std::string(name));
        if (found != m_materials.end()) {
            m_material = found->second;
            return;
        }
        m_material.clear();
        if (!m_failedLibrary && m_unknownMaterials.emplace(std::string(name)).second)
            m_warnings.push_back(fmt::format("{}: material '{}' is in none of its material "
                                             "libraries; its faces are drawn without it",
                                             where(), name));
    }

    /// The texture of the materials the faces use; see textureOfFaces in mesh().
    fs::path textureOfFaces();

    std::string m_name;
    fs::path m_folder;
    std::size_t m_line = 0;
    std::vector<glm::vec3> m_positions;
    bool m_hasColors = false;          ///< whether a v line had a colour
    std::vector<glm::u8vec4> m_colors; ///< a vertex's (white where its line has none)
    std::vector<glm::vec2> m_texcoords;
    std::vector<glm::vec3> m_normals;            ///< unit length (a zero or broken one: +z)
    std::vector<Corner> m_corners;               ///< three a triangle
    std::vector<Corner> m_polygon;               ///< the face being read
    std::vector<std::size_t> m_unusable;         ///< vertices whose position cannot be drawn
    std::size_t m_nonFinite = 0;                 ///< of those, the ones with a NaN or infinity
    std::map<std::string, fs::path> m_materials; ///< name → its texture ("": none)
    std::set<std::string, std::less<>> m_unknownMaterials; ///< named by usemtl, defined nowhere
    fs::path m_material;                                   ///< the texture faces use now
    std::map<fs::path, std::size_t> m_trianglesOfMaterial; ///< texture → triangles using it
    bool m_failedLibrary = false;
    std::vector<std::string> m_warnings;
};

void ObjParser::triangulate()
{
    const std::size_t n = m_polygon.size();
    const auto position = [&](std::size_t k) {
        return m_positions[m_polygon[k].v];
    };
    if (n == 3) {
        triangle(0, 1, 2);
        return;
    }
    if (n == 4) {
        const glm::vec3 d02 = position(2) - position(0);
        const glm::vec3 d13 = position(3) - position(1);
        if (glm::dot(d02, d02) < glm::dot(d13, d13)) {
            triangle(0, 1, 2);
            triangle(0, 2, 3);
        } else {
            triangle(0, 1, 3);
            triangle(1, 2, 3);
        }
        return;
    }
    const auto fan = [&](const std::vector<std::size_t>& left) {
        for (std::size_t k = 1; k + 1 < left.size(); ++k)
            triangle(left[0], left[k], left[k + 1]);
    };
    std::vector<std::size_t> left(n);
    for (std::size_t k = 0; k < n; ++k)
        left[k] = k;
    if (n > MaxEarClippedCorners) {
        fan(left);
        return;
    }
    // The plane: drop the axis the polygon's (Newell) normal points along most.
    glm::dvec3 normal(0);
    for (std::size_t k = 0; k < n; ++k) {
        const glm::dvec3 a = position(k), b = position((k + 1) % n);
        normal += glm::dvec3((a.y - b.y) * (a.z + b.z), (a.z - b.z) * (a.x + b.x),
                             (a.x - b.x) * (a.y + b.y));
    }
    const glm::dvec3 size = glm::abs(normal);
    const int drop = size.x >= size.y && size.x >= size.z ? 0 : size.y >= size.z ? 1 : 2;
    const int u = drop == 0 ? 1 : 0, w = drop == 2 ? 1 : 2;
    // Its winding in that plane makes a convex corner's turn positive.
    const double sign = normal[drop] < 0 ? -1.0 : 1.0;
    const auto flat = [&](std::size_t k) {
        const glm::vec3 p = position(k);
        return glm::dvec2(p[u], p[w]);
    };
    const auto turn = [](glm::dvec2 a, glm::dvec2 b, glm::dvec2 c) {
        return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
    };
    // Each ear search from where the last ear was cut; a budget of containment tests keeps a
    // hostile polygon from costing the cube of its corners (the rest is fanned then).
    std::size_t budget = 4 * n * n, i = 0;
    while (left.size() > 3) {
        const std::size_t m = left.size();
        bool clipped = false;
        for (std::size_t tries = 0; tries < m && !clipped && budget > 0; ++tries) {
            i %= m;
            const std::size_t ia = left[(i + m - 1) % m], ib = left[i], ic = left[(i + 1) % m];
            const glm::dvec2 a = flat(ia), b = flat(ib), c = flat(ic);
            bool ear = sign * turn(a, b, c) > 0; // a reflex or flat corner is none
            for (std::size_t j = 0; j < m && ear && budget > 0; ++j, --budget) {
                const std::size_t k = left[j];
                if (k == ia || k == ib || k == ic)
                    continue;
                const glm::dvec2 p = flat(k);
                ear = !(sign * turn(a, b, p) >= 0 && sign * turn(b, c, p) >= 0 &&
                        sign * turn(c, a, p) >= 0);
            }
            if (ear && budget > 0) {
                triangle(ia, ib, ic);
                left.erase(left.begin() + static_cast<std::ptrdiff_t>(i));
                clipped = true;
            } else {
                ++i;
            }
        }
        if (!clipped)
            break; // no ear (a self-crossing or degenerate polygon) or no budget left: fanned
    }
    fan(left);
}

/// The texture image (map_Kd) of the materials the faces use (usemtl), when they all use the
/// same one; else empty: no face has a textured material, or they use several textures or
/// textured and untextured materials. A scene draws one texture for all its textured meshes, so
/// the faces of other materials would be drawn in its colours: the mesh is drawn without a
/// texture then, and a warning says why.
fs::path ObjParser::textureOfFaces()
{
    const auto& faces = m_trianglesOfMaterial;
    if (faces.empty() || (faces.size() == 1 && faces.begin()->first.empty()))
        return {};
    if (faces.size() == 1)
        return faces.begin()->first;
    std::string uses;
    for (const auto& [texture, count] : faces)
        uses += fmt::format("{}{} ({} face{})", uses.empty() ? "" : ", ",
                            texture.empty() ? "no texture" : texture.filename().string(), count,
                            count == 1 ? "" : "s");
    m_warnings.push_back(fmt::format("{}: drawn without a texture: its materials give its faces "
                                     "{}, and one texture a mesh is drawn (the others' faces "
                                     "would show its colours)",
                                     m_name, uses));
    return {};
}

Result<MeshData> ObjParser::mesh() &&
{
    const std::size_t vertexCount = m_positions.size();
    if (vertexCount == 0)
        return fail(fmt::format("{}: no vertices", m_name));
    for (const std::size_t v : m_unusable)
        m_positions[v].x = NAN; // dropped below, with the faces using it
    const bool hasColors = m_hasColors;

    MeshData mesh;
    if (m_corners.empty()) {
        mesh.positions = std::move(m_positions);
        mesh.colors = std::move(m_colors);
    } else {
        // Normals and texture coordinates when every corner has one.
        bool allNormals = !m_normals.empty(), allTexcoords = !m_texcoords.empty();
        for (const Corner& c : m_corners) {
            allNormals = allNormals && c.vn != Corner::NoIndex;
            allTexcoords = allTexcoords && c.vt != Corner::NoIndex;
        }
        // One output vertex a distinct (position, texture coordinate, normal) a corner uses, in
        // the order corners first use them: the first of a position's in `first`, others by
        // their whole key.
        std::vector<std::uint32_t> first(vertexCount, Corner::NoIndex);
        std::unordered_map<Corner, std::uint32_t, CornerHash> others;
        std::vector<Corner> made; // what each output vertex is
        const auto keyOf = [&](const Corner& c) {
            return Corner{c.v, allTexcoords ? c.vt : Corner::NoIndex,
                          allNormals ? c.vn : Corner::NoIndex};
        };
        mesh.indices.reserve(m_corners.size());
        for (const Corner& corner : m_corners) {
            const Corner key = keyOf(corner);
            std::uint32_t& slot = first[key.v];
            std::uint32_t out = slot;
            if (out == Corner::NoIndex) {
                out = slot = static_cast<std::uint32_t>(made.size());
                made.push_back(key);
            } else if (made[out].vt != key.vt || made[out].vn != key.vn) {
                auto [it, inserted] =
                    others.try_emplace(key, static_cast<std::uint32_t>(made.size()));
                if (inserted)
                    made.push_back(key);
                out = it->second;
            }
            mesh.indices.push_back(out);
        }
        // Each attribute of the vertices made, from the element the corner names.
        const auto gather = [&](auto& out, const auto& from, std::uint32_t Corner::*index) {
            out.resize(made.size());
            for (std::size_t i = 0; i < made.size(); ++i)
                out[i] = from[made[i].*index];
        };
        gather(mesh.positions, m_positions, &Corner::v);
        if (hasColors)
            gather(mesh.colors, m_colors, &Corner::v);
        if (allNormals)
            gather(mesh.normals, m_normals, &Corner::vn);
        if (allTexcoords) {
            gather(mesh.texcoords, m_texcoords, &Corner::vt);
            mesh.textureFile = textureOfFaces();
        }
    }

    DroppedVertices dropped = dropUnusableVertices(mesh);
    if (!m_unusable.empty()) {
        // Counted as the file has them: one v line a vertex.
        dropped.vertices = m_unusable.size();
        dropped.nonFinite = m_nonFinite;
        dropped.before = vertexCount;
        m_warnings.push_back(droppedWarning(m_name, dropped));
    }
    Result<MeshData> result(std::move(mesh));
    for (auto& w : m_warnings)
        result.addWarning(std::move(w));
    return result;
}

} // namespace

Result<MeshData> readObj(const std::filesystem::path& path)
{
    auto bytes = readFile(path);
    if (!bytes)
        return fail(bytes.error());
    const std::string_view text(reinterpret_cast<const char*>(bytes.value().data()),
                                bytes.value().size());
    ObjParser parser(path.string(), path.parent_path());
    if (auto parsed = parser.parse(text); !parsed)
        return fail(parsed.error());
    return std::move(parser).mesh();
}

} // namespace tandem::io
