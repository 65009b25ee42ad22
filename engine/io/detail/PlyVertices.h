// A PLY vertex element read the way readPly takes it: which properties feed which attribute, how
// one vertex's values become a position, normal, colour and texture coordinates, and a decoder
// that reads the element a chunk of vertices at a time without a dispatch per value (binary:
// strided loads, one loop per property; ascii: a tokenizer made for numbers). Internal to
// engine/io. Any thread.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/io/detail/PlyFormat.h"

namespace tandem::io::detail {

/// The properties of the vertex element readPly takes, by index (-1: absent).
struct VertexFields {
    int x = -1, y = -1, z = -1;
    int nx = -1, ny = -1, nz = -1;
    int r = -1, g = -1, b = -1, a = -1;
    int u = -1, v = -1;
    int packed = -1; ///< PCL's packed colour, when there is no red, green and blue

    bool hasNormals() const { return nx >= 0 && ny >= 0 && nz >= 0; }
    bool hasColors() const { return (r >= 0 && g >= 0 && b >= 0) || packed >= 0; }
    bool hasTexcoords() const { return u >= 0 && v >= 0; }
};

/// The fields of `element` (the vertex element of file `name`); fails when it lacks x, y or z. A
/// packed colour that is not 4 bytes is ignored with a warning added to `warnings`.
Result<VertexFields> vertexFields(const Element& element, const std::string& name,
                                  std::vector<std::string>& warnings);

/// Where the vertex arrays go: each null or as long as the vertices written.
struct VertexArrays {
    glm::vec3* positions = nullptr;
    glm::vec3* normals = nullptr;
    glm::u8vec4* colors = nullptr;
    glm::vec2* texcoords = nullptr;

    /// The same arrays from vertex `first` on.
    VertexArrays from(std::size_t first) const
    {
        return {positions + first, normals ? normals + first : nullptr,
                colors ? colors + first : nullptr, texcoords ? texcoords + first : nullptr};
    }
};

/// A colour value of `type` as a byte: floats are 0..1, 16-bit integers 0..65535.
inline std::uint8_t toColorByte(double value, Scalar type)
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

/// A file's normal made unit length; (0, 0, 1) when it has no length or a non-finite one.
inline glm::vec3 unitNormal(const glm::vec3& n)
{
    const float length = glm::length(n);
    return std::isfinite(length) && length > 0 ? n / length : glm::vec3(0, 0, 1);
}

/// unitNormal() of `n` normals split by axis, in place, bit for bit: the same length (glm's
/// (x*x + y*y) + z*z, then its root) and divisions, as selects, so the loop vectorizes where its
/// file is built without errno or trapping maths (PlyVertices.cpp: CMakeLists.txt).
inline void unitNormals(float* x, float* y, float* z, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i) {
        const float length = std::sqrt((x[i] * x[i] + y[i] * y[i]) + z[i] * z[i]);
        // Finite and above zero: NaN fails both comparisons.
        const bool unit = length > 0.0f && length <= std::numeric_limits<float>::max();
        x[i] = unit ? x[i] / length : 0.0f;
        y[i] = unit ? y[i] / length : 0.0f;
        z[i] = unit ? z[i] / length : 1.0f;
    }
}

/// Stores vertex `i` into `out` from `value(p)`, its value of property p, and `packedBits`, the
/// 32 bits of its packed colour: the position placed in the world as `header`'s comments say (a
/// finite value beyond float kept as ±FLT_MAX, so it is dropped as far rather than non-finite),
/// the normal made unit length ((0, 0, 1) when it has none), the colour as bytes.
template <class Value> inline void storeVertex(const VertexFields& f, const Header& header,
                                               const std::vector<Property>& properties,
                                               const Value& value, std::uint32_t packedBits,
                                               const VertexArrays& out, std::size_t i)
{
    glm::dvec3 world(value(f.x), value(f.y), value(f.z));
    // Only when a comment asks: the identity would still turn -0 into +0.
    if (header.scale != 1.0 || header.translation != glm::dvec3(0.0))
        world = header.scale * world + header.translation;
    glm::vec3 position(world);
    for (int k = 0; k < 3; ++k)
        if (std::isfinite(world[k]) && !std::isfinite(position[k]))
            position[k] = std::copysign(std::numeric_limits<float>::max(), world[k]);
    out.positions[i] = position;
    if (out.normals)
        out.normals[i] = unitNormal(glm::vec3(value(f.nx), value(f.ny), value(f.nz)));
    if (out.colors) {
        if (f.packed >= 0)
            out.colors[i] = glm::u8vec4((packedBits >> 16) & 0xff, (packedBits >> 8) & 0xff,
                                        packedBits & 0xff, 255);
        else
            out.colors[i] = glm::u8vec4(toColorByte(value(f.r), properties[f.r].type),
                                        toColorByte(value(f.g), properties[f.g].type),
                                        toColorByte(value(f.b), properties[f.b].type),
                                        f.a >= 0 ? toColorByte(value(f.a), properties[f.a].type)
                                                 : std::uint8_t{255});
    }
    if (out.texcoords)
        out.texcoords[i] = glm::vec2(value(f.u), value(f.v));
}

/// Reads a vertex element whose properties are all scalars (no lists), a chunk of vertices at a
/// time, into VertexArrays, with storeVertex(): the same vertices the value-by-value reader
/// (BodyReader) gives. Binary bodies are read as strided loads, one loop per property taken
/// (the others are not touched); ascii ones token by token, each checked as BodyReader checks
/// it. The decoder stops at the first value it cannot read (the body ends, a malformed token):
/// the caller then reads the file value by value, which names the problem.
class VertexDecoder {
public:
    /// Vertices decoded at once.
    static constexpr std::size_t Chunk = 1024;

    /// Whether `element` can be decoded so (it has properties, none of them a list).
    static bool supports(const Element& element);

    /// Expects supports(element) and `body` to start at the element's first vertex. `header`
    /// gives the format and the placement; `fields` what to take.
    VertexDecoder(const Header& header, const Element& element, const VertexFields& fields,
                  std::span<const std::uint8_t> body);

    /// Decodes the next `count` vertices into out[0, count); false when they could not all be
    /// read (see the class comment).
    bool decode(std::size_t count, const VertexArrays& out);

    /// Decodes `count` vertices of a binary body from `vertices` (their bytes, wherever they were
    /// read to) into out[0, count), as decode() decodes them from the body; the body's place is
    /// not moved.
    void decodeFrom(const std::uint8_t* vertices, std::size_t count, const VertexArrays& out);

    /// Bytes of the body read so far (an ascii body: up to the end of the last token read).
    std::size_t consumed() const { return m_pos; }

private:
    bool decodeChunk(std::size_t count, const VertexArrays& out, std::size_t first);
    void decodeBinary(const std::uint8_t* vertices, std::size_t count, const VertexArrays& out);
    /// Stores the vertices of the values loaded (loadBinary(), loadAscii()).
    void storeValues(std::size_t count, const VertexArrays& out) const;
    /// The common binary layout (native byte order, float positions and normals, byte colours,
    /// no placement, no texture coordinates): values stored straight from the body.
    void storeDirect(const std::uint8_t* vertices, std::size_t count,
                     const VertexArrays& out) const;
    void loadBinary(const std::uint8_t* vertices, std::size_t count);
    bool loadAscii(std::size_t count);

    const Header& m_header;
    const Element& m_element;
    VertexFields m_fields;
    std::span<const std::uint8_t> m_body;
    std::size_t m_pos = 0;
    std::size_t m_stride = 0;                ///< binary: bytes a vertex
    std::vector<std::size_t> m_offsets;      ///< binary: each property's offset in a vertex
    std::vector<int> m_column;               ///< each property's column, or -1 (not taken)
    std::vector<double> m_values;            ///< column c of vertex i at c * Chunk + i
    std::vector<std::uint32_t> m_packedBits; ///< the packed colour's bits of each vertex
    bool m_direct = false;                   ///< storeDirect() takes the element
};

} // namespace tandem::io::detail
