#include "engine/io/ObjReader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <random>
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

/// A hash of a whole corner, for the vertices a position has beyond its first: all its bits
/// mixed with a seed drawn once a process, so no file can choose indices that all land in one
/// bucket (libstdc++'s hash of an integer is the integer).
struct CornerHash {
    std::uint64_t seed = 0;
    static std::uint64_t mix(std::uint64_t x) // splitmix64's finaliser
    {
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        return x ^ (x >> 31);
    }
    std::size_t operator()(const Corner& c) const
    {
        return static_cast<std::size_t>(
            mix(mix(c.v ^ seed) ^ ((std::uint64_t{c.vt} << 32) | c.vn)));
    }
};

/// The seed of this process's CornerHash.
std::uint64_t cornerSeed()
{
    static const std::uint64_t seed = [] {
        std::random_device device;
        return (std::uint64_t{device()} << 32) ^ device();
    }();
    return seed;
}

/// What ear clipping may spend (corner and containment tests) a face corner the file has, and
/// once a file: a polygon of hundreds of corners is cut into ears, while a hostile file of
/// polygons built to cost the most stays within a bounded cost a byte (the rest is fanned).
constexpr std::size_t ClipTestsPerCorner = 64;
constexpr std::size_t ClipTestsPerFile = std::size_t{1} << 20;

/// Corners, texture coordinates and normals a file may have, so each has a 32-bit index and
/// Corner::NoIndex stays free.
constexpr std::size_t MaxElements = Corner::NoIndex - 1;

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
        if (text.starts_with("\xEF\xBB\xBF"))
            text.remove_prefix(3); // a UTF-8 byte-order mark, as editors on Windows write
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
        for (; words.next(token) && !token.starts_with('#'); ++column) {
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
        const std::size_t had = isVertex                             ? m_positions.size()
                                : std::string_view(what) == "normal" ? m_normals.size()
                                                                     : m_texcoords.size();
        if (had >= MaxElements)
            return fail(fmt::format("{}: more than {} {}s, more than tandem indexes", where(),
                                    MaxElements, what));
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
        if (m_corners.size() + 3 * (m_polygon.size() - 2) >= MaxElements)
            return fail(fmt::format("{}: more than {} face corners, more than tandem indexes",
                                    where(), MaxElements));
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
            const fs::path path = (m_folder / fs::path(file)).lexically_normal();
            if (!m_libraries.insert(path).second)
                continue; // read already
            auto read = readMtl(path);
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
    std::set<fs::path> m_libraries;              ///< the material libraries read
    std::size_t m_clipBudget = ClipTestsPerFile; ///< what ear clipping may spend yet
    std::vector<std::string> m_warnings;
};

void ObjParser::triangulate()
{
    const std::size_t n = m_polygon.size();
    m_clipBudget += ClipTestsPerCorner * n;
    if (n == 3) {
        triangle(0, 1, 2);
        return;
    }
    const auto position = [&](std::size_t k) {
        return glm::dvec3(m_positions[m_polygon[k].v]);
    };
    // The polygon's normal (Newell's): its corners turn about it.
    glm::dvec3 normal(0);
    for (std::size_t k = 0; k < n; ++k) {
        const glm::dvec3 a = position(k), b = position((k + 1) % n);
        normal += glm::dvec3((a.y - b.y) * (a.z + b.z), (a.z - b.z) * (a.x + b.x),
                             (a.x - b.x) * (a.y + b.y));
    }
    if (n == 4) {
        // Along the shorter diagonal, unless that cuts outside the quad (a concave one): then
        // along the other.
        const auto facing = [&](std::size_t a, std::size_t b, std::size_t c) {
            return glm::dot(glm::cross(position(b) - position(a), position(c) - position(a)),
                            normal) > 0;
        };
        const glm::dvec3 d02 = position(2) - position(0), d13 = position(3) - position(1);
        const bool cut02 = facing(0, 1, 2) && facing(0, 2, 3);
        const bool cut13 = facing(0, 1, 3) && facing(1, 2, 3);
        const bool shorter02 = glm::dot(d02, d02) < glm::dot(d13, d13);
        if (cut02 == cut13 ? shorter02 : cut02) {
            triangle(0, 1, 2);
            triangle(0, 2, 3);
        } else {
            triangle(0, 1, 3);
            triangle(1, 2, 3);
        }
        return;
    }
    // Ears cut in the plane the polygon mostly lies in: the axis its normal points along most
    // dropped, the other two taken in cyclic order so that the normal's winding turns
    // counter-clockwise there when that component is positive.
    const glm::dvec3 size = glm::abs(normal);
    const int drop = size.x >= size.y && size.x >= size.z ? 0 : size.y >= size.z ? 1 : 2;
    const int u = (drop + 1) % 3, w = (drop + 2) % 3;
    const double sign = normal[drop] < 0 ? -1.0 : 1.0;
    std::vector<glm::dvec2> flat(n);
    for (std::size_t k = 0; k < n; ++k) {
        const glm::dvec3 p = position(k);
        flat[k] = {p[u], p[w]};
    }
    const auto turn = [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) {
        const glm::dvec2 pa = flat[a], pb = flat[b], pc = flat[c];
        return sign * ((pb.x - pa.x) * (pc.y - pa.y) - (pb.y - pa.y) * (pc.x - pa.x));
    };
    // The corners left, as a ring; which are reflex (only those can lie inside an ear).
    enum : std::uint8_t { Convex, Reflex, Cut };
    std::vector<std::uint32_t> next(n), prev(n);
    std::vector<std::uint8_t> state(n);
    std::vector<std::uint32_t> reflex;
    for (std::uint32_t k = 0; k < n; ++k) {
        next[k] = static_cast<std::uint32_t>((k + 1) % n);
        prev[k] = static_cast<std::uint32_t>((k + n - 1) % n);
    }
    const auto classify = [&](std::uint32_t k) {
        state[k] = turn(prev[k], k, next[k]) > 0 ? Convex : Reflex;
    };
    for (std::uint32_t k = 0; k < n; ++k) {
        classify(k);
        if (state[k] == Reflex)
            reflex.push_back(k);
    }
    std::size_t left = n, sinceCut = 0;
    std::uint32_t k = 0;
    while (left > 3 && sinceCut < left && m_clipBudget > 0) {
        --m_clipBudget;
        const std::uint32_t a = prev[k], c = next[k];
        bool ear = state[k] == Convex;
        for (std::size_t r = 0; ear && r < reflex.size() && m_clipBudget > 0;) {
            const std::uint32_t q = reflex[r];
            if (state[q] != Reflex) { // cut, or convex now: no longer a candidate
                reflex[r] = reflex.back();
                reflex.pop_back();
                continue;
            }
            ++r;
            --m_clipBudget;
            // A corner at the place of one of the ear's (a hole's bridge) is no obstacle.
            if (q == a || q == c || flat[q] == flat[a] || flat[q] == flat[k] || flat[q] == flat[c])
                continue;
            ear = !(turn(a, k, q) >= 0 && turn(k, c, q) >= 0 && turn(c, a, q) >= 0);
        }
        if (!ear || m_clipBudget == 0) {
            k = next[k];
            ++sinceCut;
            continue;
        }
        triangle(a, k, c);
        state[k] = Cut;
        next[a] = c;
        prev[c] = a;
        --left;
        classify(a);
        classify(c);
        k = c;
        sinceCut = 0;
    }
    // What is left (a self-crossing or degenerate rest, or the budget spent) as a fan.
    for (std::uint32_t b = next[k]; next[b] != k; b = next[b])
        triangle(k, b, next[b]);
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
        std::unordered_map<Corner, std::uint32_t, CornerHash> others(0, CornerHash{cornerSeed()});
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
