// PlayCanvas's compressed PLY (SuperSplat, splat-transform): binary little endian; an element
// `chunk` of float bounds per 256 splats (position, log scale, and in newer files colour: 12 or
// 18 properties), an element `vertex` of four uint32 (packed_position and packed_scale 11/10/11
// bits x y z from the top, lerped within the chunk's bounds; packed_rotation: the index of the
// largest component of (w, x, y, z) in the top two bits, the other three in 10 bits each, in
// order, as (v / 1023 − 0.5) √2; packed_color: r g b a bytes from the top, rgb the DC colour
// 0.5 + C0 f_dc (lerped within the chunk's colour bounds in newer files), a the opacity), and
// an optional element `sh` of uchar f_rest_0..N−1 (N = 9, 24 or 45, channel by channel), each
// (n − 0.5) × 8 with n = (byte + 0.5) / 256 (0 and 1 for bytes 0 and 255), as splat-transform
// reads what it writes.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/io/GaussianReader.h"
#include "engine/io/detail/GaussianBuild.h"
#include "engine/io/detail/PlyFormat.h"

namespace tandem::io {

namespace {

using namespace detail;

constexpr std::size_t ChunkSplats = 256;
constexpr std::array<std::string_view, 4> Packed = {"packed_position", "packed_rotation",
                                                    "packed_scale", "packed_color"};
constexpr std::array<std::string_view, 18> ChunkFloats = {
    "min_x",       "min_y",       "min_z",       "max_x",       "max_y",       "max_z",
    "min_scale_x", "min_scale_y", "min_scale_z", "max_scale_x", "max_scale_y", "max_scale_z",
    "min_r",       "min_g",       "min_b",       "max_r",       "max_g",       "max_b"};

/// Where each property of an element starts in its record, and the record's size.
struct Record {
    std::vector<std::size_t> offsets;
    std::size_t bytes = 0;
};

Record recordOf(const Element& element)
{
    Record r;
    for (const Property& p : element.properties) {
        r.offsets.push_back(r.bytes);
        r.bytes += sizeOf(p.type);
    }
    return r;
}

/// A little-endian scalar of `type` at `at`, as double.
double scalarAt(const std::uint8_t* at, Scalar type)
{
    std::uint8_t raw[8];
    std::memcpy(raw, at, sizeOf(type));
    if constexpr (std::endian::native == std::endian::big)
        std::reverse(raw, raw + sizeOf(type));
    const auto load = [&]<class T>(T) {
        T v;
        std::memcpy(&v, raw, sizeof v);
        return static_cast<double>(v);
    };
    switch (type) {
    case Scalar::Int8:
        return load(std::int8_t{});
    case Scalar::UInt8:
        return load(std::uint8_t{});
    case Scalar::Int16:
        return load(std::int16_t{});
    case Scalar::UInt16:
        return load(std::uint16_t{});
    case Scalar::Int32:
        return load(std::int32_t{});
    case Scalar::UInt32:
        return load(std::uint32_t{});
    case Scalar::Float32:
        return load(float{});
    case Scalar::Float64:
        break;
    }
    return load(double{});
}

std::uint32_t wordAt(const std::uint8_t* at)
{
    std::uint32_t v;
    std::memcpy(&v, at, sizeof v);
    if constexpr (std::endian::native == std::endian::big)
        v = __builtin_bswap32(v);
    return v;
}

/// 11/10/11 bits (x from the top) as three values in [0, 1].
glm::dvec3 unpack111011(std::uint32_t v)
{
    return {static_cast<double>(v >> 21) / 2047.0, static_cast<double>((v >> 11) & 0x3ffu) / 1023.0,
            static_cast<double>(v & 0x7ffu) / 2047.0};
}

/// The rotation as (w, x, y, z): the largest component's index in the top two bits, the others
/// in 10 bits each.
glm::dvec4 unpackRotation(std::uint32_t v)
{
    const int largest = static_cast<int>(v >> 30);
    double q[4];
    double sum = 0.0;
    int field = 0;
    for (int i = 0; i < 4; ++i) {
        if (i == largest)
            continue;
        const std::uint32_t bits = (v >> (20 - 10 * field)) & 0x3ffu;
        q[i] = (static_cast<double>(bits) / 1023.0 - 0.5) * std::sqrt(2.0);
        sum += q[i] * q[i];
        ++field;
    }
    q[largest] = std::sqrt(std::max(0.0, 1.0 - sum));
    return {q[0], q[1], q[2], q[3]};
}

double shFromByte(std::uint8_t b)
{
    const double n = b == 0 ? 0.0 : b == 255 ? 1.0 : (b + 0.5) / 256.0;
    return (n - 0.5) * 8.0;
}

} // namespace

bool isCompressedPly(std::span<const std::uint8_t> bytes)
{
    auto header = parseHeader(bytes, "");
    if (!header)
        return false;
    const Element* vertex = findElement(header.value(), "vertex");
    return vertex && findElement(header.value(), "chunk") && indexOf(*vertex, {Packed[0]}) >= 0 &&
           indexOf(*vertex, {Packed[1]}) >= 0;
}

Result<GaussianData> readCompressedPly(std::span<const std::uint8_t> bytes, const std::string& name)
{
    auto parsed = parseCheckedHeader(bytes, name);
    if (!parsed)
        return fail(parsed.error());
    const Header& header = parsed.value();
    if (header.format != Format::BinaryLittle)
        return fail(
            fmt::format("{}: a compressed PLY is binary little endian; this one is not", name));
    const Element* chunk = findElement(header, "chunk");
    const Element* vertex = findElement(header, "vertex");
    const Element* sh = findElement(header, "sh");
    if (!chunk || !vertex)
        return fail(fmt::format("{}: not a compressed PLY: no '{}' element", name,
                                chunk ? "vertex" : "chunk"));
    for (const Element& e : header.elements)
        for (const Property& p : e.properties)
            if (p.isList)
                return fail(fmt::format("{}: a compressed PLY has no lists; element '{}' has '{}'",
                                        name, e.name, p.name));
    // The chunk's bounds by name: 12 of them, or 18 with colour.
    std::array<int, ChunkFloats.size()> bound{};
    bound.fill(-1);
    for (std::size_t i = 0; i < ChunkFloats.size(); ++i)
        bound[i] = indexOf(*chunk, {ChunkFloats[i]});
    for (std::size_t i = 0; i < 12; ++i)
        if (bound[i] < 0)
            return fail(fmt::format("{}: the 'chunk' element has no '{}'", name, ChunkFloats[i]));
    bool colourBounds = true;
    for (std::size_t i = 12; i < ChunkFloats.size(); ++i)
        colourBounds = colourBounds && bound[i] >= 0;
    std::array<int, Packed.size()> packed{};
    for (std::size_t i = 0; i < Packed.size(); ++i) {
        packed[i] = indexOf(*vertex, {Packed[i]});
        if (packed[i] < 0)
            return fail(fmt::format("{}: the 'vertex' element has no '{}'", name, Packed[i]));
        const Scalar type = vertex->properties[static_cast<std::size_t>(packed[i])].type;
        if (type != Scalar::UInt32 && type != Scalar::Int32)
            return fail(
                fmt::format("{}: '{}' is {}, not a 32-bit integer", name, Packed[i], nameOf(type)));
    }
    const std::uint64_t count = vertex->count;
    if (chunk->count < (count + ChunkSplats - 1) / ChunkSplats)
        return fail(fmt::format("{}: {} splats need {} chunks of 256; the file has {}", name, count,
                                (count + ChunkSplats - 1) / ChunkSplats, chunk->count));
    // SH: f_rest_0..N-1 in uchar, N for degree 1, 2 or 3.
    std::vector<int> rest;
    int degree = 0;
    if (sh) {
        if (sh->count != count)
            return fail(fmt::format("{}: the 'sh' element has {} entries for {} splats", name,
                                    sh->count, count));
        for (std::size_t k = 0;; ++k) {
            const int at = indexOf(*sh, {fmt::format("f_rest_{}", k)});
            if (at < 0)
                break;
            if (sh->properties[static_cast<std::size_t>(at)].type != Scalar::UInt8)
                return fail(
                    fmt::format("{}: 'f_rest_{}' of the 'sh' element is not a uchar", name, k));
            rest.push_back(at);
        }
        for (int d = 1; d <= MaxShDegree; ++d)
            if (rest.size() == static_cast<std::size_t>(3 * (shCoefficients(d) - 1)))
                degree = d;
        if (degree == 0)
            return fail(fmt::format("{}: the 'sh' element has {} f_rest values; 9, 24 or 45 make "
                                    "SH degree 1, 2 or 3",
                                    name, rest.size()));
    }

    // Each element's records, where they begin in the body.
    std::vector<const std::uint8_t*> starts;
    const std::uint8_t* at = bytes.data() + header.bodyOffset;
    const std::uint8_t* end = bytes.data() + bytes.size();
    std::vector<Record> records;
    for (const Element& e : header.elements) {
        records.push_back(recordOf(e));
        starts.push_back(at);
        const std::uint64_t size = e.count * records.back().bytes;
        if (size > static_cast<std::uint64_t>(end - at))
            return fail(
                fmt::format("{}: the body ends inside element '{}' (truncated?)", name, e.name));
        at += size;
    }
    const auto indexIn = [&](const Element* e) {
        return static_cast<std::size_t>(e - header.elements.data());
    };
    const Record& chunkRecord = records[indexIn(chunk)];
    const Record& vertexRecord = records[indexIn(vertex)];

    GaussianData out;
    out.shDegree = degree;
    const int coefficients = shCoefficients(degree);
    reserve(out, count);
    Dropped dropped;
    dropped.before = count;
    std::vector<double> values(static_cast<std::size_t>(coefficients) * 3);
    std::array<double, ChunkFloats.size()> b{};
    std::uint64_t loadedChunk = ~std::uint64_t{0};
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t c = i / ChunkSplats;
        if (c != loadedChunk) {
            const std::uint8_t* record = starts[indexIn(chunk)] + c * chunkRecord.bytes;
            for (std::size_t k = 0; k < ChunkFloats.size(); ++k)
                if (bound[k] >= 0) {
                    const auto p = static_cast<std::size_t>(bound[k]);
                    b[k] = scalarAt(record + chunkRecord.offsets[p], chunk->properties[p].type);
                }
            loadedChunk = c;
        }
        const std::uint8_t* record = starts[indexIn(vertex)] + i * vertexRecord.bytes;
        const auto word = [&](std::size_t k) {
            return wordAt(record + vertexRecord.offsets[static_cast<std::size_t>(packed[k])]);
        };
        const auto lerp = [&](std::size_t lo, double t) {
            return b[lo] * (1.0 - t) + b[lo + 3] * t;
        };
        const glm::dvec3 p = unpack111011(word(0));
        const glm::dvec3 position(lerp(0, p.x), lerp(1, p.y), lerp(2, p.z));
        const glm::dvec3 s = unpack111011(word(2));
        const glm::dvec3 logScale(lerp(6, s.x), lerp(7, s.y), lerp(8, s.z));
        const std::uint32_t colour = word(3);
        for (int ch = 0; ch < 3; ++ch) {
            double v = static_cast<double>((colour >> (24 - 8 * ch)) & 0xffu) / 255.0;
            if (colourBounds)
                v = lerp(12 + static_cast<std::size_t>(ch), v);
            values[static_cast<std::size_t>(ch)] = (v - 0.5) / ShC0;
        }
        if (sh) {
            const Record& shRecord = records[indexIn(sh)];
            const std::uint8_t* shAt = starts[indexIn(sh)] + i * shRecord.bytes;
            for (int ch = 0; ch < 3; ++ch)
                for (int k = 1; k < coefficients; ++k) {
                    const auto property = static_cast<std::size_t>(
                        rest[static_cast<std::size_t>(ch * (coefficients - 1) + k - 1)]);
                    values[static_cast<std::size_t>(k * 3 + ch)] =
                        shFromByte(shAt[shRecord.offsets[property]]);
                }
        }
        append(out, dropped, position, logScale, static_cast<double>(colour & 0xffu) / 255.0,
               unpackRotation(word(1)), values.data(), true, false);
    }
    Result<GaussianData> result(std::move(out));
    for (const std::string& warning : header.warnings)
        result.addWarning(warning);
    if (dropped.total() > 0)
        result.addWarning(droppedGaussians(name, dropped));
    if (at != end)
        result.addWarning(trailingBytesWarning(name, end - at));
    return result;
}

} // namespace tandem::io
