#include "engine/io/detail/PlyVertices.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

namespace tandem::io::detail {

Result<VertexFields> vertexFields(const Element& element, const std::string& name,
                                  std::vector<std::string>& warnings)
{
    VertexFields f;
    f.x = indexOf(element, {"x"});
    f.y = indexOf(element, {"y"});
    f.z = indexOf(element, {"z"});
    if (f.x < 0 || f.y < 0 || f.z < 0)
        return fail(fmt::format("{}: 'vertex' element lacks x, y or z", name));
    f.nx = indexOf(element, {"nx", "normal_x"});
    f.ny = indexOf(element, {"ny", "normal_y"});
    f.nz = indexOf(element, {"nz", "normal_z"});
    f.r = indexOf(element, {"red", "r", "diffuse_red"});
    f.g = indexOf(element, {"green", "g", "diffuse_green"});
    f.b = indexOf(element, {"blue", "b", "diffuse_blue"});
    f.a = indexOf(element, {"alpha", "a", "diffuse_alpha"});
    f.u = indexOf(element, {"u", "s", "texture_u", "texture_s"});
    f.v = indexOf(element, {"v", "t", "texture_v", "texture_t"});
    if (f.r < 0 || f.g < 0 || f.b < 0) {
        // PCL's packed colour: the bytes 0x00RRGGBB of a 32-bit field (its top byte, an alpha
        // PCL often leaves 0, is not used).
        f.packed = indexOf(element, {"rgb", "rgba"});
        if (f.packed >= 0 && sizeOf(element.properties[f.packed].type) != 4) {
            warnings.push_back(fmt::format("{}: property '{}' ({}) ignored: a packed colour is a "
                                           "4-byte float, int or uint",
                                           name, element.properties[f.packed].name,
                                           nameOf(element.properties[f.packed].type)));
            f.packed = -1;
        }
    }
    return f;
}

bool VertexDecoder::supports(const Element& element)
{
    return !element.properties.empty() &&
           std::none_of(element.properties.begin(), element.properties.end(),
                        [](const Property& p) { return p.isList; });
}

VertexDecoder::VertexDecoder(const Header& header, const Element& element,
                             const VertexFields& fields, std::span<const std::uint8_t> body)
    : m_header(header), m_element(element), m_fields(fields), m_body(body),
      m_column(element.properties.size(), -1)
{
    const int taken[] = {fields.x, fields.y, fields.z, fields.nx, fields.ny, fields.nz,    fields.r,
                         fields.g, fields.b, fields.a, fields.u,  fields.v,  fields.packed};
    int columns = 0;
    for (int p : taken)
        if (p >= 0 && m_column[static_cast<std::size_t>(p)] < 0)
            m_column[static_cast<std::size_t>(p)] = columns++;
    m_values.resize(static_cast<std::size_t>(columns) * Chunk);
    if (fields.packed >= 0)
        m_packedBits.resize(Chunk);
    for (const Property& property : element.properties) {
        m_offsets.push_back(m_stride);
        m_stride += sizeOf(property.type);
    }
    const auto is = [&](int p, Scalar type) {
        return p < 0 || element.properties[static_cast<std::size_t>(p)].type == type;
    };
    const bool swap =
        (header.format == Format::BinaryBig) != (std::endian::native == std::endian::big);
    // A float's value is the same through double; a byte colour is itself (toColorByte()).
    m_direct = header.format != Format::Ascii && !swap && header.scale == 1.0 &&
               header.translation == glm::dvec3(0.0) && is(fields.x, Scalar::Float32) &&
               is(fields.y, Scalar::Float32) && is(fields.z, Scalar::Float32) &&
               (!fields.hasNormals() ||
                (is(fields.nx, Scalar::Float32) && is(fields.ny, Scalar::Float32) &&
                 is(fields.nz, Scalar::Float32))) &&
               fields.packed < 0 &&
               (fields.r < 0 || fields.g < 0 || fields.b < 0 ||
                (is(fields.r, Scalar::UInt8) && is(fields.g, Scalar::UInt8) &&
                 is(fields.b, Scalar::UInt8) && is(fields.a, Scalar::UInt8))) &&
               !fields.hasTexcoords();
}

bool VertexDecoder::decode(std::size_t count, const VertexArrays& out)
{
    for (std::size_t first = 0; first < count; first += Chunk)
        if (!decodeChunk(std::min(Chunk, count - first), out, first))
            return false;
    return true;
}

bool VertexDecoder::decodeChunk(std::size_t count, const VertexArrays& out, std::size_t first)
{
    const VertexArrays at = out.from(first);
    if (m_header.format == Format::Ascii) {
        if (!loadAscii(count))
            return false;
        storeValues(count, at);
        return true;
    }
    if (count > (m_body.size() - m_pos) / m_stride)
        return false;
    decodeBinary(m_body.data() + m_pos, count, at);
    m_pos += count * m_stride;
    return true;
}

void VertexDecoder::decodeFrom(const std::uint8_t* vertices, std::size_t count,
                               const VertexArrays& out)
{
    for (std::size_t first = 0; first < count; first += Chunk)
        decodeBinary(vertices + first * m_stride, std::min(Chunk, count - first), out.from(first));
}

void VertexDecoder::decodeBinary(const std::uint8_t* vertices, std::size_t count,
                                 const VertexArrays& out)
{
    if (m_direct) {
        storeDirect(vertices, count, out);
        return;
    }
    loadBinary(vertices, count);
    storeValues(count, out);
}

void VertexDecoder::storeValues(std::size_t count, const VertexArrays& out) const
{
    const double* values = m_values.data();
    const int* column = m_column.data();
    for (std::size_t i = 0; i < count; ++i) {
        const auto value = [&](int p) {
            return values[column[p] * Chunk + i];
        };
        storeVertex(m_fields, m_header, m_element.properties, value,
                    m_packedBits.empty() ? 0u : m_packedBits[i], out, i);
    }
}

namespace {

float loadFloat(const std::uint8_t* at)
{
    float value;
    std::memcpy(&value, at, sizeof value);
    return value;
}

} // namespace

void VertexDecoder::storeDirect(const std::uint8_t* vertices, std::size_t count,
                                const VertexArrays& out) const
{
    const std::size_t stride = m_stride;
    const auto offset = [&](int p) {
        return m_offsets[static_cast<std::size_t>(p)];
    };
    const std::size_t x = offset(m_fields.x), y = offset(m_fields.y), z = offset(m_fields.z);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint8_t* v = vertices + i * stride;
        out.positions[i] = glm::vec3(loadFloat(v + x), loadFloat(v + y), loadFloat(v + z));
    }
    if (out.normals) {
        // Split by axis first, so the lengths and divisions go a vector at a time (the
        // divisions, one at a time, were a fifth of a binary cloud's decode).
        const std::size_t nx = offset(m_fields.nx), ny = offset(m_fields.ny),
                          nz = offset(m_fields.nz);
        std::array<float, Chunk> ax, ay, az;
        for (std::size_t i = 0; i < count; ++i) {
            const std::uint8_t* v = vertices + i * stride;
            ax[i] = loadFloat(v + nx);
            ay[i] = loadFloat(v + ny);
            az[i] = loadFloat(v + nz);
        }
        unitNormals(ax.data(), ay.data(), az.data(), count);
        for (std::size_t i = 0; i < count; ++i)
            out.normals[i] = glm::vec3(ax[i], ay[i], az[i]);
    }
    if (out.colors) {
        const std::size_t r = offset(m_fields.r), g = offset(m_fields.g), b = offset(m_fields.b);
        const bool alpha = m_fields.a >= 0;
        const std::size_t a = alpha ? offset(m_fields.a) : 0;
        for (std::size_t i = 0; i < count; ++i) {
            const std::uint8_t* v = vertices + i * stride;
            out.colors[i] = glm::u8vec4(v[r], v[g], v[b], alpha ? v[a] : std::uint8_t{255});
        }
    }
}

namespace {

template <class T> T loadSwapped(const std::uint8_t* at, bool swap)
{
    std::uint8_t raw[sizeof(T)];
    std::memcpy(raw, at, sizeof(T));
    if (swap)
        std::reverse(raw, raw + sizeof(T));
    T value;
    std::memcpy(&value, raw, sizeof(T));
    return value;
}

/// Property values of type T at `from`, `stride` bytes apart, as doubles.
template <class T> void loadColumn(const std::uint8_t* from, std::size_t stride, std::size_t count,
                                   bool swap, double* to)
{
    if (swap) {
        for (std::size_t i = 0; i < count; ++i)
            to[i] = static_cast<double>(loadSwapped<T>(from + i * stride, true));
        return;
    }
    for (std::size_t i = 0; i < count; ++i) {
        T value;
        std::memcpy(&value, from + i * stride, sizeof(T));
        to[i] = static_cast<double>(value);
    }
}

} // namespace

void VertexDecoder::loadBinary(const std::uint8_t* base, std::size_t count)
{
    const bool swap =
        (m_header.format == Format::BinaryBig) != (std::endian::native == std::endian::big);
    for (std::size_t p = 0; p < m_column.size(); ++p) {
        if (m_column[p] < 0)
            continue;
        const std::uint8_t* from = base + m_offsets[p];
        double* to = m_values.data() + static_cast<std::size_t>(m_column[p]) * Chunk;
        switch (m_element.properties[p].type) {
        case Scalar::Int8:
            loadColumn<std::int8_t>(from, m_stride, count, swap, to);
            break;
        case Scalar::UInt8:
            loadColumn<std::uint8_t>(from, m_stride, count, swap, to);
            break;
        case Scalar::Int16:
            loadColumn<std::int16_t>(from, m_stride, count, swap, to);
            break;
        case Scalar::UInt16:
            loadColumn<std::uint16_t>(from, m_stride, count, swap, to);
            break;
        case Scalar::Int32:
            loadColumn<std::int32_t>(from, m_stride, count, swap, to);
            break;
        case Scalar::UInt32:
            loadColumn<std::uint32_t>(from, m_stride, count, swap, to);
            break;
        case Scalar::Float32:
            loadColumn<float>(from, m_stride, count, swap, to);
            break;
        case Scalar::Float64:
            loadColumn<double>(from, m_stride, count, swap, to);
            break;
        }
    }
    // A packed colour's bits as stored (sizeOf() is 4: vertexFields() checked it).
    if (m_fields.packed >= 0) {
        const std::uint8_t* from = base + m_offsets[static_cast<std::size_t>(m_fields.packed)];
        for (std::size_t i = 0; i < count; ++i)
            m_packedBits[i] = loadSwapped<std::uint32_t>(from + i * m_stride, swap);
    }
}

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

/// The number at `from` when it is a plain one ending at whitespace or `end`: an integer of at
/// most 15 digits for an integer `type` (exact in a double), a decimal one read by from_chars
/// for a float type. Sets `to` past it. False otherwise (a sign '+', "nan", "1.0" for an
/// integer, a malformed or out-of-range token): parseAsciiValue() on the whole token decides
/// those, so both give the same value, or the same failure.
bool parsePlainNumber(const char* from, const char* end, Scalar type, double& value,
                      const char*& to)
{
    const bool negative = *from == '-';
    const char* p = from + (negative ? 1 : 0);
    if (p == end || !(isDigit(*p) || (*p == '.' && isFloat(type))))
        return false;
    if (isFloat(type)) {
        const auto [stop, ec] = std::from_chars(from, end, value);
        if (ec != std::errc() || (stop != end && !isAsciiSpace(*stop)))
            return false;
        to = stop;
        return true;
    }
    std::int64_t n = 0;
    const char* first = p;
    while (p != end && isDigit(*p) && p - first < 15)
        n = n * 10 + (*p++ - '0');
    if (p != end && !isAsciiSpace(*p))
        return false;
    value = negative ? -static_cast<double>(n) : static_cast<double>(n);
    if (!fitsIn(type, value))
        return false;
    to = p;
    return true;
}

} // namespace

bool VertexDecoder::loadAscii(std::size_t count)
{
    const char* data = reinterpret_cast<const char*>(m_body.data());
    const char* const end = data + m_body.size();
    const std::size_t properties = m_element.properties.size();
    const char* at = data + m_pos;
    std::string malformed;
    for (std::size_t i = 0; i < count; ++i)
        for (std::size_t p = 0; p < properties; ++p) {
            while (at != end && isAsciiSpace(*at))
                ++at;
            if (at == end)
                return false;
            const Scalar type = m_element.properties[p].type;
            double value = 0;
            std::uint32_t bits = 0;
            const char* next = at;
            if (parsePlainNumber(at, end, type, value, next)) {
                if (static_cast<int>(p) == m_fields.packed)
                    bits = isFloat(type)
                               ? std::bit_cast<std::uint32_t>(static_cast<float>(value))
                               : static_cast<std::uint32_t>(static_cast<std::int64_t>(value));
            } else {
                while (next != end && !isAsciiSpace(*next))
                    ++next;
                if (!parseAsciiValue({at, static_cast<std::size_t>(next - at)}, type, value, bits,
                                     malformed))
                    return false;
            }
            at = next;
            const int column = m_column[p];
            if (column >= 0)
                m_values[static_cast<std::size_t>(column) * Chunk + i] = value;
            if (static_cast<int>(p) == m_fields.packed)
                m_packedBits[i] = bits;
        }
    m_pos = static_cast<std::size_t>(at - data);
    return true;
}

} // namespace tandem::io::detail
