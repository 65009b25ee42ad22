// Niantic's SPZ (nianticlabs/spz, versions 2 and 3): one gzip stream holding a 16-byte header
// (uint32 magic 0x5053474e, version, point count; uint8 SH degree, fractional bits, flags,
// reserved; little endian) and then, each for every point before the next: positions (3 × 24-bit
// signed fixed point, `fractional bits` of fraction), alphas (the opacity × 255), colours (the
// DC coefficient as f_dc × 0.15 × 255 + 127.5), scales ((log scale + 10) × 16), rotations
// (version 2: x y z as q × 127.5 + 127.5 with w ≥ 0 recovered; version 3: four bytes, the index
// of the largest of (x, y, z, w) in the top two bits and the others in order in 10 bits each, a
// sign bit and 9 bits of |q| √2 × 511), and SH (per point, per coefficient, red green blue, as
// q × 128 + 128). Files are stored in RUB axes (x right, y up, z back); the 3DGS PLY's are RDF
// (COLMAP's: y down, z forward), and a splat file reads into the frame its PLY would have:
// positions, rotations and the SH terms odd in y or z change sign.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <libdeflate.h>

#include "engine/io/GaussianReader.h"
#include "engine/io/detail/GaussianBuild.h"

namespace tandem::io {

namespace {

using namespace detail;

constexpr std::uint32_t SpzMagic = 0x5053474eu;
constexpr std::size_t SpzHeaderBytes = 16;
/// deflate's largest ratio of output to input (258 bytes from a 2-bit code, roughly).
constexpr std::uint64_t DeflateMaxRatio = 1032;
/// SH coefficients (past the DC one, 0-based f_rest order) whose basis changes sign when y and z
/// do: y, z; xy, xz; y(3x² − y²), y(4z² − x² − y²), z(2z² − 3x² − 3y²), z(x² − y²).
constexpr std::array<int, 8> FlippedRest = {0, 1, 3, 6, 8, 10, 11, 13};

std::uint32_t u32At(const std::uint8_t* at)
{
    return static_cast<std::uint32_t>(at[0]) | (static_cast<std::uint32_t>(at[1]) << 8) |
           (static_cast<std::uint32_t>(at[2]) << 16) | (static_cast<std::uint32_t>(at[3]) << 24);
}

/// The gzip stream inflated, or why not. Its trailer's size (mod 2^32) sizes the output, tried
/// at each multiple of 2^32 that deflate's ratio allows.
Result<std::vector<std::uint8_t>> gunzip(std::span<const std::uint8_t> bytes,
                                         const std::string& name)
{
    if (bytes.size() < 2 || bytes[0] != 0x1f || bytes[1] != 0x8b)
        return fail(fmt::format("{}: not an SPZ file: not a gzip stream", name));
    if (bytes.size() < 18)
        return fail(fmt::format("{}: the gzip stream is cut short ({} bytes)", name, bytes.size()));
    const std::uint64_t most = bytes.size() * DeflateMaxRatio + 65536;
    const std::uint64_t stated = u32At(bytes.data() + bytes.size() - 4);
    struct Decompressor {
        libdeflate_decompressor* d = libdeflate_alloc_decompressor();
        ~Decompressor() { libdeflate_free_decompressor(d); }
    } decompressor;
    if (!decompressor.d)
        return fail(fmt::format("{}: could not allocate a gzip decompressor", name));
    for (std::uint64_t size = stated; size <= most; size += std::uint64_t{1} << 32) {
        std::vector<std::uint8_t> out(static_cast<std::size_t>(size));
        std::size_t read = 0, written = 0;
        const libdeflate_result r = libdeflate_gzip_decompress_ex(
            decompressor.d, bytes.data(), bytes.size(), out.data(), out.size(), &read, &written);
        if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
            continue;
        if (r != LIBDEFLATE_SUCCESS)
            return fail(fmt::format("{}: the gzip stream is corrupt or truncated", name));
        out.resize(written);
        return out;
    }
    return fail(fmt::format("{}: the gzip stream is corrupt (its stated size does not fit)", name));
}

} // namespace

bool isSpz(std::span<const std::uint8_t> bytes)
{
    return bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

Result<GaussianData> readSpz(std::span<const std::uint8_t> bytes, const std::string& name)
{
    if (bytes.size() >= 4 && u32At(bytes.data()) == SpzMagic)
        return fail(fmt::format("{}: an SPZ file of version 4 or later (zstd streams); versions 2 "
                                "and 3 are read",
                                name));
    auto inflated = gunzip(bytes, name);
    if (!inflated)
        return fail(inflated.error());
    const std::vector<std::uint8_t>& data = inflated.value();
    if (data.size() < SpzHeaderBytes)
        return fail(fmt::format("{}: the SPZ header is cut short ({} bytes)", name, data.size()));
    if (u32At(data.data()) != SpzMagic)
        return fail(fmt::format("{}: not an SPZ file: a gzip stream without the SPZ magic", name));
    const std::uint32_t version = u32At(data.data() + 4);
    const std::uint64_t count = u32At(data.data() + 8);
    const int degree = data[12];
    const int fractional = data[13];
    const std::uint8_t flags = data[14];
    if (version != 2 && version != 3)
        return fail(fmt::format("{}: SPZ version {}; versions 2 and 3 are read", name, version));
    if (degree > MaxShDegree)
        return fail(fmt::format("{}: SH degree {}; at most {}", name, degree, MaxShDegree));
    if (fractional > 24)
        return fail(fmt::format("{}: {} fractional bits in a 24-bit position", name, fractional));
    const int coefficients = shCoefficients(degree);
    const std::uint64_t rotationBytes = version == 3 ? 4 : 3;
    const std::uint64_t perPoint =
        9 + 1 + 3 + 3 + rotationBytes + 3 * static_cast<std::uint64_t>(coefficients - 1);
    const std::uint64_t body = data.size() - SpzHeaderBytes;
    if (count > body / perPoint)
        return fail(fmt::format("{}: {} points need {} bytes; the stream holds {} (truncated?)",
                                name, count, count * perPoint, body));
    const std::uint8_t* positions = data.data() + SpzHeaderBytes;
    const std::uint8_t* alphas = positions + count * 9;
    const std::uint8_t* colours = alphas + count;
    const std::uint8_t* scales = colours + count * 3;
    const std::uint8_t* rotations = scales + count * 3;
    const std::uint8_t* sh = rotations + count * rotationBytes;

    GaussianData out;
    out.shDegree = degree;
    reserve(out, count);
    Dropped dropped;
    dropped.before = count;
    const double unit = std::ldexp(1.0, -fractional);
    std::vector<double> values(static_cast<std::size_t>(coefficients) * 3);
    for (std::uint64_t i = 0; i < count; ++i) {
        double p[3];
        for (int k = 0; k < 3; ++k) {
            const std::uint8_t* at = positions + i * 9 + k * 3;
            std::int32_t v = static_cast<std::int32_t>(at[0] | (at[1] << 8) | (at[2] << 16));
            if (v & 0x800000)
                v -= 0x1000000; // sign-extend 24 bits
            p[k] = v * unit;
        }
        double s[3];
        for (int k = 0; k < 3; ++k)
            s[k] = scales[i * 3 + k] / 16.0 - 10.0;
        // (x, y, z, w) as stored.
        double q[4];
        if (version == 2) {
            double sum = 0.0;
            for (int k = 0; k < 3; ++k) {
                q[k] = rotations[i * 3 + k] / 127.5 - 1.0;
                sum += q[k] * q[k];
            }
            q[3] = std::sqrt(std::max(0.0, 1.0 - sum));
        } else {
            const std::uint32_t v = u32At(rotations + i * 4);
            const int largest = static_cast<int>(v >> 30);
            double sum = 0.0;
            int field = 0;
            for (int k = 0; k < 4; ++k) {
                if (k == largest)
                    continue;
                const std::uint32_t bits = (v >> (20 - 10 * field)) & 0x3ffu;
                const double magnitude =
                    static_cast<double>(bits & 0x1ffu) / 511.0 / std::sqrt(2.0);
                q[k] = (bits & 0x200u) ? -magnitude : magnitude;
                sum += q[k] * q[k];
                ++field;
            }
            q[largest] = std::sqrt(std::max(0.0, 1.0 - sum));
        }
        for (int c = 0; c < 3; ++c) {
            values[static_cast<std::size_t>(c)] = (colours[i * 3 + c] / 255.0 - 0.5) / 0.15;
            for (int k = 1; k < coefficients; ++k) {
                const std::uint8_t byte =
                    sh[(i * static_cast<std::uint64_t>(coefficients - 1) + (k - 1)) * 3 + c];
                values[static_cast<std::size_t>(k * 3 + c)] = (byte - 128.0) / 128.0;
            }
        }
        // RUB to the PLY's RDF: y and z change sign.
        for (const int r : FlippedRest)
            if (r + 1 < coefficients)
                for (int c = 0; c < 3; ++c)
                    values[static_cast<std::size_t>((r + 1) * 3 + c)] *= -1.0;
        append(out, dropped, glm::dvec3(p[0], -p[1], -p[2]), glm::dvec3(s[0], s[1], s[2]),
               alphas[i] / 255.0, glm::dvec4(q[3], q[0], -q[1], -q[2]), values.data(), true, false);
    }
    Result<GaussianData> result(std::move(out));
    const std::uint64_t used = SpzHeaderBytes + count * perPoint;
    if (data.size() > used && !(flags & 0x2))
        result.addWarning(
            fmt::format("{}: {} bytes after the SH were ignored", name, data.size() - used));
    if (dropped.total() > 0)
        result.addWarning(droppedGaussians(name, dropped));
    return result;
}

} // namespace tandem::io
