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

namespace tandem::io {

namespace {

constexpr std::string_view Utf8Bom = "\xEF\xBB\xBF";

enum class Scalar { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

std::optional<Scalar> scalarFromName(std::string_view name)
{
    if (name == "char" || name == "int8")
        return Scalar::Int8;
    if (name == "uchar" || name == "uint8")
        return Scalar::UInt8;
    if (name == "short" || name == "int16")
        return Scalar::Int16;
    if (name == "ushort" || name == "uint16")
        return Scalar::UInt16;
    if (name == "int" || name == "int32")
        return Scalar::Int32;
    if (name == "uint" || name == "uint32")
        return Scalar::UInt32;
    if (name == "float" || name == "float32")
        return Scalar::Float32;
    if (name == "double" || name == "float64")
        return Scalar::Float64;
    return std::nullopt;
}

std::size_t sizeOf(Scalar type)
{
    switch (type) {
    case Scalar::Int8:
    case Scalar::UInt8:
        return 1;
    case Scalar::Int16:
    case Scalar::UInt16:
        return 2;
    case Scalar::Int32:
    case Scalar::UInt32:
    case Scalar::Float32:
        return 4;
    case Scalar::Float64:
        return 8;
    }
    return 1;
}

bool isFloat(Scalar type)
{
    return type == Scalar::Float32 || type == Scalar::Float64;
}

std::string_view nameOf(Scalar type)
{
    constexpr std::string_view names[] = {"char", "uchar", "short", "ushort",
                                          "int",  "uint",  "float", "double"};
    return names[static_cast<int>(type)];
}

/// Whether an integer-valued number fits the integer type.
template <class T> bool fitsIn(double value)
{
    return value >= static_cast<double>(std::numeric_limits<T>::min()) &&
           value <= static_cast<double>(std::numeric_limits<T>::max());
}

bool fitsIn(Scalar type, double value)
{
    switch (type) {
    case Scalar::Int8:
        return fitsIn<std::int8_t>(value);
    case Scalar::UInt8:
        return fitsIn<std::uint8_t>(value);
    case Scalar::Int16:
        return fitsIn<std::int16_t>(value);
    case Scalar::UInt16:
        return fitsIn<std::uint16_t>(value);
    case Scalar::Int32:
        return fitsIn<std::int32_t>(value);
    case Scalar::UInt32:
        return fitsIn<std::uint32_t>(value);
    case Scalar::Float32:
    case Scalar::Float64:
        return true;
    }
    return false;
}

struct Property {
    std::string name;
    Scalar type = Scalar::Float32;
    bool isList = false;
    Scalar countType = Scalar::UInt8;
};

struct Element {
    std::string name;
    std::uint64_t count = 0;
    std::vector<Property> properties;
};

enum class Format { Ascii, BinaryLittle, BinaryBig };

struct Header {
    Format format = Format::Ascii;
    std::vector<Element> elements;
    std::size_t bodyOffset = 0;
    /// From "comment" lines: world = scale * position + translation.
    double scale = 1.0;
    glm::dvec3 translation{0.0};
    /// From a "comment TextureFile name.png" line (MeshLab's), as written; empty when none.
    std::string textureFile;
    std::vector<std::string> warnings;
};

/// Splits a header line into whitespace-separated words.
std::vector<std::string_view> words(std::string_view line)
{
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        std::size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t')
            ++j;
        if (j > i)
            out.push_back(line.substr(i, j - i));
        i = j;
    }
    return out;
}

/// A finite number spelled exactly by `word`.
std::optional<double> finiteNumber(std::string_view word)
{
    if (word.starts_with('+'))
        word.remove_prefix(1);
    double value = 0;
    const auto [p, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (ec != std::errc() || p != word.data() + word.size() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

/// Reads a scale or translation comment ("comment frame_to_world_scale 0.18", "comment
/// translation 1 2 3") into `header`. A malformed one is a warning and changes nothing: the file
/// still loads, only not placed where its writer meant.
void readTransformComment(const std::vector<std::string_view>& w, Header& header,
                          const std::string& name, int lineNumber)
{
    if (w.size() < 2)
        return;
    if (w[1] == "TextureFile" && w.size() >= 3) {
        // The name may hold spaces: the rest of the line.
        header.textureFile = std::string(w[2].data(), w.back().data() + w.back().size());
        return;
    }
    const bool isScale = w[1] == "frame_to_world_scale" || w[1] == "scale";
    const bool isTranslation =
        w[1] == "frame_to_world_translation" || w[1] == "translation" || w[1] == "offset";
    if (!isScale && !isTranslation)
        return;
    auto warn = [&](std::string_view what) {
        std::string line;
        for (std::string_view word : w)
            line += (line.empty() ? "" : " ") + std::string(word);
        header.warnings.push_back(
            fmt::format("{}: header line {}: {}, ignored: \"{}\"", name, lineNumber, what, line));
    };
    if (isScale) {
        const auto scale = w.size() == 3 ? finiteNumber(w[2]) : std::nullopt;
        if (!scale)
            return warn("a scale comment takes one number");
        if (!(*scale > 0.0))
            return warn("a scale must be positive");
        header.scale = *scale;
        return;
    }
    std::optional<double> t[3];
    for (int i = 0; i < 3 && w.size() == 5; ++i)
        t[i] = finiteNumber(w[2 + i]);
    if (!t[0] || !t[1] || !t[2])
        return warn("a translation comment takes three numbers");
    header.translation = glm::dvec3(*t[0], *t[1], *t[2]);
}

Result<Header> parseHeader(std::span<const std::uint8_t> bytes, const std::string& name)
{
    std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (text.empty())
        return fail(fmt::format("{}: empty file", name));
    // A UTF-8 byte-order mark, as Windows editors save text: skipped.
    const std::size_t bom = text.starts_with(Utf8Bom) ? Utf8Bom.size() : 0;
    text.remove_prefix(bom);
    if (!text.starts_with("ply\n") && !text.starts_with("ply\r\n"))
        return fail(fmt::format("{}: not a PLY file (does not start with \"ply\")", name));
    // A header is text; bound the search so a binary blob is rejected quickly.
    constexpr std::size_t maxHeader = 1 << 20;
    Header header;
    bool formatSeen = false;
    std::size_t pos = text.find('\n') + 1;
    int lineNumber = 1;
    int skippedLines = 0;
    for (;;) {
        if (pos >= text.size() || pos > maxHeader)
            return fail(fmt::format("{}: header has no end_header line", name));
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            return fail(fmt::format("{}: header has no end_header line", name));
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNumber;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        const auto w = words(line);
        if (w.empty())
            continue;
        auto bad = [&](std::string_view what) {
            return fail(
                fmt::format("{}: header line {}: {}: \"{}\"", name, lineNumber, what, line));
        };
        if (w[0] == "comment") {
            readTransformComment(w, header, name, lineNumber);
            continue;
        }
        if (w[0] == "obj_info")
            continue;
        if (w[0] == "end_header")
            break;
        if (w[0] == "format") {
            if (w.size() < 3)
                return bad("malformed format line");
            if (w[1] == "ascii")
                header.format = Format::Ascii;
            else if (w[1] == "binary_little_endian")
                header.format = Format::BinaryLittle;
            else if (w[1] == "binary_big_endian")
                header.format = Format::BinaryBig;
            else
                return bad("unknown format");
            if (w[2] != "1.0" && w[2] != "1")
                return bad("unsupported format version");
            formatSeen = true;
        } else if (w[0] == "element") {
            if (w.size() != 3)
                return bad("malformed element line");
            Element element;
            element.name = std::string(w[1]);
            if (w[2].starts_with('-'))
                return bad("negative element count");
            const auto [p, ec] =
                std::from_chars(w[2].data(), w[2].data() + w[2].size(), element.count);
            if (ec != std::errc() || p != w[2].data() + w[2].size())
                return bad("element count is not a number");
            header.elements.push_back(std::move(element));
        } else if (w[0] == "property") {
            if (header.elements.empty())
                return bad("property before any element");
            Property property;
            if (w.size() == 5 && w[1] == "list") {
                const auto countType = scalarFromName(w[2]);
                const auto itemType = scalarFromName(w[3]);
                if (!countType || !itemType)
                    return bad("unknown property type");
                if (isFloat(*countType))
                    return bad("list count type must be an integer type");
                property.isList = true;
                property.countType = *countType;
                property.type = *itemType;
                property.name = std::string(w[4]);
            } else if (w.size() == 3) {
                const auto type = scalarFromName(w[1]);
                if (!type)
                    return bad("unknown property type");
                property.type = *type;
                property.name = std::string(w[2]);
            } else {
                return bad("malformed property line");
            }
            header.elements.back().properties.push_back(std::move(property));
        } else {
            // Old exporters wrote free text without the comment keyword; like assimp and
            // MeshLab, skip such a line and say so (the first few; then how many).
            if (++skippedLines <= 3)
                header.warnings.push_back(
                    fmt::format("{}: header line {}: \"{}\" skipped (not a PLY keyword; a "
                                "comment without \"comment\"?)",
                                name, lineNumber, line.substr(0, 80)));
        }
    }
    if (!formatSeen)
        return fail(fmt::format("{}: header has no format line", name));
    if (skippedLines > 3)
        header.warnings.push_back(
            fmt::format("{}: {} more header lines skipped", name, skippedLines - 3));
    header.bodyOffset = bom + pos;
    return header;
}

/// Reads values from the body, ascii or binary, with bounds checks.
class BodyReader {
public:
    BodyReader(std::span<const std::uint8_t> body, Format format) : m_body(body), m_format(format)
    {}

    std::size_t remaining() const { return m_body.size() - m_pos; }

    /// Reads one value as double; false at the end of the data or on a malformed token.
    bool read(Scalar type, double& value)
    {
        if (m_format == Format::Ascii)
            return readAscii(type, value);
        const std::size_t size = sizeOf(type);
        if (remaining() < size)
            return false;
        std::uint8_t raw[8];
        std::memcpy(raw, m_body.data() + m_pos, size);
        m_pos += size;
        const bool swap =
            (m_format == Format::BinaryBig) != (std::endian::native == std::endian::big);
        if (swap)
            std::reverse(raw, raw + size);
        if (size == 4)
            m_bits = load<std::uint32_t>(raw);
        switch (type) {
        case Scalar::Int8:
            value = static_cast<std::int8_t>(raw[0]);
            break;
        case Scalar::UInt8:
            value = raw[0];
            break;
        case Scalar::Int16:
            value = load<std::int16_t>(raw);
            break;
        case Scalar::UInt16:
            value = load<std::uint16_t>(raw);
            break;
        case Scalar::Int32:
            value = load<std::int32_t>(raw);
            break;
        case Scalar::UInt32:
            value = load<std::uint32_t>(raw);
            break;
        case Scalar::Float32:
            value = load<float>(raw);
            break;
        case Scalar::Float64:
            value = load<double>(raw);
            break;
        }
        return true;
    }

    /// Why the last read failed, when it was not the end of the data: the token was not a
    /// number ("malformed \"1.0.0\""), or out of range. Empty otherwise.
    const std::string& malformedToken() const { return m_malformed; }

    /// The 32 bits of the last 4-byte value read, as stored (a float's bits, not its value):
    /// what a packed colour ("property float rgb") holds.
    std::uint32_t bits() const { return m_bits; }

private:
    template <class T> static T load(const std::uint8_t* raw)
    {
        T value;
        std::memcpy(&value, raw, sizeof value);
        return value;
    }

    bool readAscii(Scalar type, double& value)
    {
        const char* data = reinterpret_cast<const char*>(m_body.data());
        while (m_pos < m_body.size() && std::isspace(static_cast<unsigned char>(data[m_pos])))
            ++m_pos;
        if (m_pos >= m_body.size())
            return false;
        std::size_t end = m_pos;
        while (end < m_body.size() && !std::isspace(static_cast<unsigned char>(data[end])))
            ++end;
        std::string_view token(data + m_pos, end - m_pos);
        m_pos = end;
        const auto malformed = [&](std::string_view why) {
            m_malformed = fmt::format("{} \"{}\"", why, token.substr(0, 40));
            return false;
        };
        if (isFloat(type)) {
            // from_chars rejects "nan"/"inf" spelled by some writers; accept them so the caller
            // can report a non-finite value rather than a malformed token.
            const std::string_view t =
                token.starts_with('-') || token.starts_with('+') ? token.substr(1) : token;
            if (t == "nan" || t == "NaN" || t == "inf" || t == "Inf" || t == "infinity") {
                value = t.starts_with('n') || t.starts_with('N') ? NAN : INFINITY;
                return true;
            }
        }
        // from_chars takes no leading '+', which printf("%+f") writes.
        const std::string_view digits =
            token.size() > 1 && token[0] == '+' && token[1] != '-' ? token.substr(1) : token;
        const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
        if (ec == std::errc::result_out_of_range && p == digits.data() + digits.size())
            return malformed("a number out of range:");
        if (ec != std::errc() || p != digits.data() + digits.size())
            return malformed("not a number:");
        if (!isFloat(type) && value != std::floor(value))
            return malformed("not an integer:");
        // Binary integers are in range by construction; an ascii "1e300" for a uchar is not.
        if (!isFloat(type) && !fitsIn(type, value))
            return malformed(fmt::format("out of range for {}:", nameOf(type)));
        m_bits = isFloat(type) ? std::bit_cast<std::uint32_t>(static_cast<float>(value))
                               : static_cast<std::uint32_t>(static_cast<std::int64_t>(value));
        return true;
    }

    std::span<const std::uint8_t> m_body;
    Format m_format;
    std::size_t m_pos = 0;
    std::string m_malformed;
    std::uint32_t m_bits = 0;
};

/// Fewest bytes one element can take in the body, to reject counts the file cannot hold.
std::uint64_t minimumElementBytes(const Element& element, Format format)
{
    std::uint64_t bytes = 0;
    for (const auto& property : element.properties) {
        if (format == Format::Ascii)
            bytes += 2; // one digit and one separator
        else
            bytes += sizeOf(property.isList ? property.countType : property.type);
    }
    return bytes;
}

int indexOf(const Element& element, std::initializer_list<std::string_view> names)
{
    for (std::string_view name : names)
        for (std::size_t i = 0; i < element.properties.size(); ++i)
            if (!element.properties[i].isList && element.properties[i].name == name)
                return static_cast<int>(i);
    return -1;
}

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
    auto parsed = parseHeader(bytes, name);
    if (!parsed)
        return fail(parsed.error());
    const Header& header = parsed.value();

    BodyReader reader(bytes.subspan(header.bodyOffset), header.format);
    const char* formatName = header.format == Format::Ascii ? "ascii" : "binary";

    // Reject counts the file cannot hold before allocating anything.
    {
        std::uint64_t needed = 0;
        for (const auto& element : header.elements) {
            const std::uint64_t each = minimumElementBytes(element, header.format);
            bool fixedSize = header.format != Format::Ascii;
            for (const auto& property : element.properties)
                fixedSize = fixedSize && !property.isList;
            const std::uint64_t left =
                reader.remaining() > needed ? reader.remaining() - needed : 0;
            if (each > 0 && fixedSize && element.count > left / each &&
                element.count <= std::numeric_limits<std::uint64_t>::max() / each)
                return fail(fmt::format("{}: truncated: the header declares {} '{}' elements of "
                                        "{} bytes, and the binary body holds {} complete ({} "
                                        "bytes short)",
                                        name, element.count, element.name, each, left / each,
                                        element.count * each - left));
            if (each > 0 && element.count > (reader.remaining() + 1) / each + 1)
                return fail(fmt::format(
                    "{}: header claims {} '{}' elements, but the {} body of {} bytes can hold at "
                    "most {}",
                    name, element.count, element.name, formatName, reader.remaining(),
                    (reader.remaining() + 1) / each));
            needed += element.count * each;
            if (needed > reader.remaining() + 1)
                return fail(fmt::format("{}: truncated: the header describes at least {} bytes "
                                        "of {} data, the file holds {}",
                                        name, needed, formatName, reader.remaining()));
        }
    }

    const Element* vertexElement = nullptr;
    for (const auto& element : header.elements)
        if (element.name == "vertex")
            vertexElement = &element;
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
                auto truncated = [&] {
                    if (!reader.malformedToken().empty())
                        return fail(fmt::format("{}: '{}' {} of {}: property '{}' is malformed, {}",
                                                name, element.name, e, element.count, property.name,
                                                reader.malformedToken()));
                    return fail(fmt::format("{}: truncated: '{}' element {} of {} ends early (at "
                                            "property '{}'); {} complete",
                                            name, element.name, e, element.count, property.name,
                                            e));
                };
                if (!property.isList) {
                    if (!reader.read(property.type, values[p]))
                        return truncated();
                    if (static_cast<int>(p) == packed)
                        packedBits = reader.bits();
                    continue;
                }
                double countValue = 0;
                if (!reader.read(property.countType, countValue))
                    return truncated();
                if (countValue < 0)
                    return fail(fmt::format("{}: '{}' {}: list '{}' has negative size {}", name,
                                            element.name, e, property.name, countValue));
                const auto count = static_cast<std::uint64_t>(countValue);
                const std::uint64_t each =
                    header.format == Format::Ascii ? 2 : sizeOf(property.type);
                if (count * each > reader.remaining() + 1)
                    return fail(fmt::format("{}: '{}' {}: list '{}' claims {} items, more than "
                                            "the file holds",
                                            name, element.name, e, property.name, count));
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
