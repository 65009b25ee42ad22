#include "engine/io/detail/PlyFormat.h"

#include <limits>

namespace tandem::io::detail {

namespace {

constexpr std::string_view Utf8Bom = "\xEF\xBB\xBF";

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

} // namespace

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

namespace {

/// Whether an integer-valued number fits the integer type.
template <class T> bool fitsIn(double value)
{
    return value >= static_cast<double>(std::numeric_limits<T>::min()) &&
           value <= static_cast<double>(std::numeric_limits<T>::max());
}

} // namespace

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

namespace {

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

} // namespace

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

Result<bool> checkCounts(const Header& header, std::size_t bodyBytes, const std::string& name)
{
    const char* formatName = header.format == Format::Ascii ? "ascii" : "binary";
    std::uint64_t needed = 0;
    for (const auto& element : header.elements) {
        const std::uint64_t each = minimumElementBytes(element, header.format);
        bool fixedSize = header.format != Format::Ascii;
        for (const auto& property : element.properties)
            fixedSize = fixedSize && !property.isList;
        const std::uint64_t left = bodyBytes > needed ? bodyBytes - needed : 0;
        if (each > 0 && fixedSize && element.count > left / each &&
            element.count <= std::numeric_limits<std::uint64_t>::max() / each)
            return fail(fmt::format("{}: truncated: the header declares {} '{}' elements of "
                                    "{} bytes, and the binary body holds {} complete ({} "
                                    "bytes short)",
                                    name, element.count, element.name, each, left / each,
                                    element.count * each - left));
        if (each > 0 && element.count > (bodyBytes + 1) / each + 1)
            return fail(fmt::format(
                "{}: header claims {} '{}' elements, but the {} body of {} bytes can hold at "
                "most {}",
                name, element.count, element.name, formatName, bodyBytes, (bodyBytes + 1) / each));
        needed += element.count * each;
        if (needed > bodyBytes + 1)
            return fail(fmt::format("{}: truncated: the header describes at least {} bytes "
                                    "of {} data, the file holds {}",
                                    name, needed, formatName, bodyBytes));
    }
    return true;
}

Failure endedEarly(const BodyReader& reader, const std::string& name, const Element& element,
                   std::uint64_t e, const Property& property)
{
    if (!reader.malformedToken().empty())
        return fail(fmt::format("{}: '{}' {} of {}: property '{}' is malformed, {}", name,
                                element.name, e, element.count, property.name,
                                reader.malformedToken()));
    return fail(fmt::format("{}: truncated: '{}' element {} of {} ends early (at property '{}'); "
                            "{} complete",
                            name, element.name, e, element.count, property.name, e));
}

Result<std::uint64_t> readListCount(BodyReader& reader, Format format, const std::string& name,
                                    const Element& element, std::uint64_t e,
                                    const Property& property)
{
    double countValue = 0;
    if (!reader.read(property.countType, countValue))
        return endedEarly(reader, name, element, e, property);
    if (countValue < 0)
        return fail(fmt::format("{}: '{}' {}: list '{}' has negative size {}", name, element.name,
                                e, property.name, countValue));
    const auto count = static_cast<std::uint64_t>(countValue);
    const std::uint64_t each = format == Format::Ascii ? 2 : sizeOf(property.type);
    if (count * each > reader.remaining() + 1)
        return fail(fmt::format("{}: '{}' {}: list '{}' claims {} items, more than the file holds",
                                name, element.name, e, property.name, count));
    return count;
}

Result<Header> parseCheckedHeader(std::span<const std::uint8_t> bytes, const std::string& name)
{
    auto parsed = parseHeader(bytes, name);
    if (!parsed)
        return parsed;
    // Reject counts the file cannot hold before anything is allocated for them.
    if (auto fits = checkCounts(parsed.value(), bytes.size() - parsed.value().bodyOffset, name);
        !fits)
        return fail(fits.error());
    return parsed;
}

std::string trailingBytesWarning(const std::string& name, std::size_t bytes)
{
    return fmt::format("{}: {} bytes after the last element were ignored", name, bytes);
}

const Element* findElement(const Header& header, std::string_view name)
{
    const Element* found = nullptr;
    for (const auto& element : header.elements)
        if (element.name == name)
            found = &element;
    return found;
}

bool parseAsciiValue(std::string_view token, Scalar type, double& value, std::uint32_t& bits,
                     std::string& malformed)
{
    const auto refuse = [&](std::string_view why) {
        malformed = fmt::format("{} \"{}\"", why, token.substr(0, 40));
        return false;
    };
    if (isFloat(type)) {
        // from_chars rejects "nan"/"inf" spelled by some writers; accept them so the caller
        // can report a non-finite value rather than a malformed token.
        const std::string_view t =
            token.starts_with('-') || token.starts_with('+') ? token.substr(1) : token;
        if (t == "nan" || t == "NaN" || t == "inf" || t == "Inf" || t == "infinity") {
            value = t.starts_with('n') || t.starts_with('N') ? NAN : INFINITY;
            if (token.starts_with('-'))
                value = -value;
            // A packed colour spelled so has these bits, not the previous value's.
            bits = std::bit_cast<std::uint32_t>(static_cast<float>(value));
            return true;
        }
    }
    // from_chars takes no leading '+', which printf("%+f") writes.
    const std::string_view digits =
        token.size() > 1 && token[0] == '+' && token[1] != '-' ? token.substr(1) : token;
    const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range && p == digits.data() + digits.size())
        return refuse("a number out of range:");
    if (ec != std::errc() || p != digits.data() + digits.size())
        return refuse("not a number:");
    if (!isFloat(type) && value != std::floor(value))
        return refuse("not an integer:");
    // Binary integers are in range by construction; an ascii "1e300" for a uchar is not.
    if (!isFloat(type) && !fitsIn(type, value))
        return refuse(fmt::format("out of range for {}:", nameOf(type)));
    bits = isFloat(type) ? std::bit_cast<std::uint32_t>(static_cast<float>(value))
                         : static_cast<std::uint32_t>(static_cast<std::int64_t>(value));
    return true;
}

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

} // namespace tandem::io::detail
