// The PLY format's parts that every PLY reader shares (io::readPly's meshes and points,
// io::readGaussians' splats): the header parsed into elements and properties, a bounds-checked
// reader of body values (ascii, binary little and big endian), and the checks a count must pass
// before anything is allocated for it. Internal to engine/io. Any thread.
#pragma once

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <glm/glm.hpp>

#include "engine/core/Result.h"

namespace tandem::io::detail {

enum class Scalar { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

std::size_t sizeOf(Scalar type);
bool isFloat(Scalar type);
std::string_view nameOf(Scalar type);
/// Whether an integer-valued number fits the integer type.
bool fitsIn(Scalar type, double value);

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

/// Parses the header of the PLY file in `bytes` (a UTF-8 byte-order mark before "ply" skipped;
/// comments that place the points in the world and a TextureFile comment kept; free text
/// skipped with a warning). Fails naming `name` and the header line.
Result<Header> parseHeader(std::span<const std::uint8_t> bytes, const std::string& name);

/// Whitespace between ascii values, as std::isspace has it in the "C" locale.
inline bool isAsciiSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// One ascii token as a value of `type`, with the 32 bits a packed colour would hold in `bits`
/// (a float's bits, an integer's value). False when the token is no such value; `malformed`
/// then says why ("not a number: \"1.0.0\"", "a number out of range: …", "not an integer: …",
/// "out of range for uchar: …"). "nan" and "inf" spellings are accepted for float types, so the
/// caller can report a non-finite value rather than a malformed token.
bool parseAsciiValue(std::string_view token, Scalar type, double& value, std::uint32_t& bits,
                     std::string& malformed);

/// Reads values from the body, ascii or binary, with bounds checks.
class BodyReader {
public:
    BodyReader(std::span<const std::uint8_t> body, Format format) : m_body(body), m_format(format)
    {}

    std::size_t remaining() const { return m_body.size() - m_pos; }
    /// Bytes of the body read so far.
    std::size_t position() const { return m_pos; }
    /// Passes over `bytes` more (read by someone else); expects remaining() ≥ bytes.
    void skip(std::size_t bytes) { m_pos += std::min(bytes, remaining()); }

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
        while (m_pos < m_body.size() && isAsciiSpace(data[m_pos]))
            ++m_pos;
        if (m_pos >= m_body.size())
            return false;
        std::size_t end = m_pos;
        while (end < m_body.size() && !isAsciiSpace(data[end]))
            ++end;
        const std::string_view token(data + m_pos, end - m_pos);
        m_pos = end;
        return parseAsciiValue(token, type, value, m_bits, m_malformed);
    }

    std::span<const std::uint8_t> m_body;
    Format m_format;
    std::size_t m_pos = 0;
    std::string m_malformed;
    std::uint32_t m_bits = 0;
};

/// Fewest bytes one element can take in the body, to reject counts the file cannot hold.
std::uint64_t minimumElementBytes(const Element& element, Format format);

/// Fails naming `name` when the elements' counts cannot fit in a body of `bodyBytes` (a count
/// the file cannot hold is refused before anything is allocated for it).
Result<bool> checkCounts(const Header& header, std::size_t bodyBytes, const std::string& name);

/// Why element `e` of `element` could not be read at `property`: the token there was malformed
/// (ascii), or the body ended early. Names `name`.
Failure endedEarly(const BodyReader& reader, const std::string& name, const Element& element,
                   std::uint64_t e, const Property& property);

/// Reads the item count of list `property` of element `e`, checked against what the rest of the
/// body can hold; fails naming `name`, the element and the list.
Result<std::uint64_t> readListCount(BodyReader& reader, Format format, const std::string& name,
                                    const Element& element, std::uint64_t e,
                                    const Property& property);

/// parseHeader(), then checkCounts() against the body that follows the header: a header whose
/// counts the file can hold.
Result<Header> parseCheckedHeader(std::span<const std::uint8_t> bytes, const std::string& name);

/// The warning for `bytes` left in a binary body after its last element.
std::string trailingBytesWarning(const std::string& name, std::size_t bytes);

/// The last element named `name` (as readers of both kinds take it), or null.
const Element* findElement(const Header& header, std::string_view name);

/// The index of the first scalar property of `element` named one of `names`, or -1.
int indexOf(const Element& element, std::initializer_list<std::string_view> names);

} // namespace tandem::io::detail
