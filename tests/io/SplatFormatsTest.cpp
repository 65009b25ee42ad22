// unit tier: PlayCanvas's compressed PLY and Niantic's SPZ (versions 2 and 3), written here from
// the formats' descriptions by encoders of the test's own, then read back: every Gaussian within
// its format's quantization of the original, SH of degrees 0 to 3, SPZ's RUB axes turned into the
// PLY's (each SH coefficient's sign found here by evaluating its basis at mirrored directions,
// not from the reader's list); files known by what they hold; truncated, corrupt and unsupported
// files refused with a reason; and the loss each format brings to a rendered frame (the host
// splat rasterizer on the original against the decoded), stated.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <glm/gtc/quaternion.hpp>
#include <gtest/gtest.h>
#include <libdeflate.h>

#include "engine/io/GaussianReader.h"
#include "engine/render/SplatRaster.h"
#include "engine/render/detail/HostTargets.h"
#include "tests/render/SplatScenes.h"
#include "tests/support/ImageCompare.h"
#include "tests/support/TempDir.h"

namespace tandem::io {
namespace {

using Bytes = std::vector<std::uint8_t>;

void putU32(Bytes& out, std::uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void putF32(Bytes& out, float v)
{
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    putU32(out, bits);
}

/// A dense random scene whose values the formats can hold (opacities inside (0, 1), SH within
/// ±4, scales inside SPZ's e^-10 .. e^6).
GaussianData scene(int count, int degree, unsigned seed)
{
    GaussianData g = test::randomScene(count, degree, seed);
    for (float& v : g.sh)
        v = std::clamp(v, -1.5f, 1.5f);
    for (float& o : g.opacities)
        o = std::clamp(o, 0.02f, 0.98f);
    return g;
}

// --- compressed PLY, written as splat-transform writes it ---------------------------------------

std::uint32_t pack111011(glm::dvec3 t)
{
    const auto q = [](double v, double steps) {
        return static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0, 1.0) * steps));
    };
    return (q(t.x, 2047) << 21) | (q(t.y, 1023) << 11) | q(t.z, 2047);
}

std::uint32_t packRotation(glm::quat q)
{
    const double c[4] = {q.w, q.x, q.y, q.z};
    int largest = 0;
    for (int i = 1; i < 4; ++i)
        if (std::abs(c[i]) > std::abs(c[largest]))
            largest = i;
    const double sign = c[largest] < 0 ? -1.0 : 1.0;
    std::uint32_t out = static_cast<std::uint32_t>(largest) << 30;
    int field = 0;
    for (int i = 0; i < 4; ++i) {
        if (i == largest)
            continue;
        const double v = c[i] * sign * std::sqrt(0.5) + 0.5;
        out |= static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0, 1.0) * 1023.0))
               << (20 - 10 * field);
        ++field;
    }
    return out;
}

/// `g` as a compressed PLY; `colourBounds`: the newer 18-property chunks; `shuffled`: the
/// chunk's properties in another order (readers go by name).
Bytes compressedPly(const GaussianData& g, bool colourBounds, bool shuffled = false)
{
    const std::size_t n = g.count();
    const std::size_t chunks = (n + 255) / 256;
    const int coefficients = shCoefficients(g.shDegree);
    std::vector<std::string> names = {"min_x",       "min_y",       "min_z",       "max_x",
                                      "max_y",       "max_z",       "min_scale_x", "min_scale_y",
                                      "min_scale_z", "max_scale_x", "max_scale_y", "max_scale_z"};
    if (colourBounds)
        names.insert(names.end(), {"min_r", "min_g", "min_b", "max_r", "max_g", "max_b"});
    std::vector<std::string> order = names;
    if (shuffled)
        std::reverse(order.begin(), order.end());
    std::string header = fmt::format("ply\nformat binary_little_endian 1.0\n"
                                     "comment written by the test\nelement chunk {}\n",
                                     chunks);
    for (const std::string& name : order)
        header += "property float " + name + "\n";
    header += fmt::format("element vertex {}\nproperty uint packed_position\nproperty uint "
                          "packed_rotation\nproperty uint packed_scale\nproperty uint "
                          "packed_color\n",
                          n);
    if (g.shDegree > 0) {
        header += fmt::format("element sh {}\n", n);
        for (int k = 0; k < 3 * (coefficients - 1); ++k)
            header += fmt::format("property uchar f_rest_{}\n", k);
    }
    header += "end_header\n";
    Bytes out(header.begin(), header.end());
    const auto colour = [&](std::size_t i, int c) {
        return 0.5 + ShC0 * g.sh[i * static_cast<std::size_t>(coefficients) * 3 + c];
    };
    std::vector<std::array<double, 18>> bounds(chunks);
    for (std::size_t c = 0; c < chunks; ++c) {
        std::array<double, 18>& b = bounds[c];
        for (int k = 0; k < 3; ++k) {
            b[k] = b[6 + k] = b[12 + k] = 1e30;
            b[3 + k] = b[9 + k] = b[15 + k] = -1e30;
        }
        for (std::size_t i = c * 256; i < std::min(n, c * 256 + 256); ++i)
            for (int k = 0; k < 3; ++k) {
                const double values[3] = {g.positions[i][k], std::log(g.scales[i][k]),
                                          colour(i, k)};
                for (int a = 0; a < 3; ++a) {
                    b[a * 6 + k] = std::min(b[a * 6 + k], values[a]);
                    b[a * 6 + 3 + k] = std::max(b[a * 6 + 3 + k], values[a]);
                }
            }
        for (const std::string& name : order) {
            const std::size_t at = static_cast<std::size_t>(
                std::find(names.begin(), names.end(), name) - names.begin());
            putF32(out, static_cast<float>(b[at]));
        }
    }
    const auto unit = [](double v, double lo, double hi) {
        return hi > lo ? (v - lo) / (hi - lo) : 0.0;
    };
    for (std::size_t i = 0; i < n; ++i) {
        const std::array<double, 18>& b = bounds[i / 256];
        glm::dvec3 p, s;
        for (int k = 0; k < 3; ++k) {
            p[k] = unit(g.positions[i][k], b[k], b[3 + k]);
            s[k] = unit(std::log(g.scales[i][k]), b[6 + k], b[9 + k]);
        }
        std::uint32_t rgba = 0;
        for (int k = 0; k < 3; ++k) {
            const double v = colourBounds ? unit(colour(i, k), b[12 + k], b[15 + k])
                                          : std::clamp(colour(i, k), 0.0, 1.0);
            rgba |= static_cast<std::uint32_t>(std::lround(v * 255.0)) << (24 - 8 * k);
        }
        rgba |= static_cast<std::uint32_t>(std::lround(g.opacities[i] * 255.0));
        putU32(out, pack111011(p));
        putU32(out, packRotation(g.rotations[i]));
        putU32(out, pack111011(s));
        putU32(out, rgba);
    }
    for (std::size_t i = 0; g.shDegree > 0 && i < n; ++i)
        for (int c = 0; c < 3; ++c)
            for (int k = 1; k < coefficients; ++k) {
                const double f = g.sh[(i * coefficients + k) * 3 + c];
                out.push_back(static_cast<std::uint8_t>(
                    std::clamp(std::trunc((f / 8.0 + 0.5) * 256.0), 0.0, 255.0)));
            }
    return out;
}

// --- SPZ
// -------------------------------------------------------------------------------------------

/// The sign SH coefficient k's basis function takes when y and z change sign (RDF to RUB), found
/// by evaluating it (render::splats::shColor with one coefficient set) at a direction and its
/// mirror.
double mirroredSign(int k)
{
    float sh[48] = {};
    sh[k * 3] = 1.0f;
    const float d[3] = {0.48f, 0.6f, 0.64f};
    const float mirrored[3] = {d[0], -d[1], -d[2]};
    float a[3], b[3];
    render::splats::shColor(sh, 3, d, a);
    render::splats::shColor(sh, 3, mirrored, b);
    return (b[0] - 0.5f) * (a[0] - 0.5f) < 0.0f ? -1.0 : 1.0;
}

Bytes gzip(const Bytes& raw)
{
    libdeflate_compressor* c = libdeflate_alloc_compressor(6);
    Bytes out(libdeflate_gzip_compress_bound(c, raw.size()));
    out.resize(libdeflate_gzip_compress(c, raw.data(), raw.size(), out.data(), out.size()));
    libdeflate_free_compressor(c);
    return out;
}

/// `g` (in the PLY's axes) as SPZ of `version` (2 or 3), stored in RUB, before gzip.
Bytes spzRaw(const GaussianData& g, std::uint32_t version, int fractional = 12)
{
    const std::size_t n = g.count();
    const int coefficients = shCoefficients(g.shDegree);
    Bytes out;
    putU32(out, 0x5053474eu);
    putU32(out, version);
    putU32(out, static_cast<std::uint32_t>(n));
    out.insert(out.end(), {static_cast<std::uint8_t>(g.shDegree),
                           static_cast<std::uint8_t>(fractional), 0, 0});
    const auto byte = [](double v) {
        return static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L));
    };
    for (std::size_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            const double v = (k == 0 ? 1.0 : -1.0) * g.positions[i][k];
            const auto fixed = static_cast<std::int32_t>(std::lround(v * (1 << fractional)));
            for (int b = 0; b < 3; ++b)
                out.push_back(static_cast<std::uint8_t>((fixed >> (8 * b)) & 0xff));
        }
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(byte(g.opacities[i] * 255.0));
    for (std::size_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c)
            out.push_back(byte(g.sh[i * coefficients * 3 + c] * 0.15 * 255.0 + 127.5));
    for (std::size_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k)
            out.push_back(byte((std::log(g.scales[i][k]) + 10.0) * 16.0));
    for (std::size_t i = 0; i < n; ++i) {
        const glm::quat& r = g.rotations[i];
        double q[4] = {r.x, -r.y, -r.z, r.w}; // x, y, z, w in RUB
        if (version == 2) {
            const double sign = q[3] < 0 ? -1.0 : 1.0;
            for (int k = 0; k < 3; ++k)
                out.push_back(byte(q[k] * sign * 127.5 + 127.5));
            continue;
        }
        int largest = 0;
        for (int k = 1; k < 4; ++k)
            if (std::abs(q[k]) > std::abs(q[largest]))
                largest = k;
        const double sign = q[largest] < 0 ? -1.0 : 1.0;
        std::uint32_t v = static_cast<std::uint32_t>(largest) << 30;
        int field = 0;
        for (int k = 0; k < 4; ++k) {
            if (k == largest)
                continue;
            const double c = q[k] * sign;
            const auto magnitude = static_cast<std::uint32_t>(
                std::lround(std::min(std::abs(c) * std::sqrt(2.0), 1.0) * 511.0));
            v |= ((c < 0 ? 0x200u : 0u) | magnitude) << (20 - 10 * field);
            ++field;
        }
        putU32(out, v);
    }
    for (std::size_t i = 0; i < n; ++i)
        for (int k = 1; k < coefficients; ++k)
            for (int c = 0; c < 3; ++c) {
                const double f = g.sh[(i * coefficients + k) * 3 + c] * mirroredSign(k);
                out.push_back(byte(f * 128.0 + 128.0));
            }
    return out;
}

/// Every Gaussian of `got` within `tolerance` of `want`'s (rotations by their angle).
struct Tolerance {
    double position, logScale, opacity, dc, sh, rotation;
    /// The rotation's x, y, z within `rotation` each (its sign making w ≥ 0), not its angle: a
    /// format that stores them and derives w, coarse where w is small.
    bool xyzOnly = false;
};
void expectClose(const GaussianData& want, const GaussianData& got, const Tolerance& t,
                 const std::string& what)
{
    ASSERT_EQ(got.count(), want.count()) << what;
    ASSERT_EQ(got.shDegree, want.shDegree) << what;
    const int coefficients = shCoefficients(want.shDegree);
    double worst[6] = {};
    for (std::size_t i = 0; i < want.count(); ++i) {
        for (int k = 0; k < 3; ++k) {
            worst[0] =
                std::max(worst[0], double(std::abs(got.positions[i][k] - want.positions[i][k])));
            worst[1] = std::max(worst[1], std::abs(std::log(double(got.scales[i][k])) -
                                                   std::log(double(want.scales[i][k]))));
        }
        worst[2] = std::max(worst[2], double(std::abs(got.opacities[i] - want.opacities[i])));
        if (t.xyzOnly) {
            const glm::quat a = want.rotations[i].w < 0 ? -want.rotations[i] : want.rotations[i];
            const glm::quat b = got.rotations[i].w < 0 ? -got.rotations[i] : got.rotations[i];
            for (int k = 0; k < 3; ++k)
                worst[5] = std::max(worst[5], double(std::abs(a[k] - b[k])));
        } else {
            const double dot = std::abs(glm::dot(got.rotations[i], want.rotations[i]));
            worst[5] = std::max(worst[5], 2.0 * std::acos(std::min(dot, 1.0)));
        }
        for (int k = 0; k < coefficients; ++k)
            for (int c = 0; c < 3; ++c) {
                const std::size_t at = (i * coefficients + k) * 3 + c;
                worst[k == 0 ? 3 : 4] =
                    std::max(worst[k == 0 ? 3 : 4], double(std::abs(got.sh[at] - want.sh[at])));
            }
    }
    EXPECT_LE(worst[0], t.position) << what << ": position";
    EXPECT_LE(worst[1], t.logScale) << what << ": log scale";
    EXPECT_LE(worst[2], t.opacity) << what << ": opacity";
    EXPECT_LE(worst[3], t.dc) << what << ": DC coefficient";
    EXPECT_LE(worst[4], t.sh) << what << ": SH coefficient";
    EXPECT_LE(worst[5], t.rotation) << what << ": rotation angle";
}

double extentOf(const GaussianData& g)
{
    const Bounds b = g.bounds();
    const glm::vec3 size = b.max - b.min;
    return std::max({size.x, size.y, size.z});
}

TEST(SplatFormats, CompressedPlyHoldsEachGaussianWithinItsQuantization)
{
    for (const int degree : {0, 1, 2, 3})
        for (const bool colourBounds : {true, false}) {
            const GaussianData g = scene(600, degree, 40u + static_cast<unsigned>(degree));
            auto read = readCompressedPly(compressedPly(g, colourBounds, degree == 2), "c.ply");
            ASSERT_TRUE(read) << read.error();
            EXPECT_TRUE(read.warnings().empty());
            // A chunk's extent over 1023 steps (y), half a step; colours over 255 steps of the
            // chunk's range, or of [0, 1] in older files; SH in steps of 8/256.
            const double step = extentOf(g) / 1023.0;
            Tolerance t{0.5 * step + 1e-6,       0.5 * 16.0 / 1023.0 + 1e-6, 0.5 / 255 + 1e-6,
                        0.5 / 255 / ShC0 + 1e-6, 0.5 * 8.0 / 256 + 1e-6,     0.0035};
            expectClose(g, read.value(), t,
                        fmt::format("degree {}, {} chunks", degree,
                                    colourBounds ? "18-property" : "12-property"));
        }
}

TEST(SplatFormats, SpzHoldsEachGaussianInThePlysAxes)
{
    for (const std::uint32_t version : {2u, 3u})
        for (const int degree : {0, 1, 3}) {
            const GaussianData g =
                scene(500, degree, 70u + version + static_cast<unsigned>(degree));
            auto read = readSpz(gzip(spzRaw(g, version)), "g.spz");
            ASSERT_TRUE(read) << read.error();
            EXPECT_TRUE(read.warnings().empty());
            // Positions to 1/4096, log scales to 1/16, opacity and colour to a byte, SH to
            // 1/128, rotations to a byte (version 2, whose w is recovered: coarse where w is
            // small) or 9 bits (version 3) a component.
            Tolerance t{0.5 / 4096 + 1e-6, 0.5 / 16 + 1e-6,
                        0.5 / 255 + 1e-6,  0.5 / 255 / 0.15 + 1e-6,
                        0.5 / 128 + 1e-6,  version == 2 ? 0.5 / 127.5 + 0.004 : 0.006,
                        version == 2};
            expectClose(g, read.value(), t, fmt::format("version {}, degree {}", version, degree));
        }
}

TEST(SplatFormats, FilesAreKnownByWhatTheyHold)
{
    test::TempDir dir;
    const GaussianData g = scene(300, 1, 5u);
    const auto write = [&](const std::string& name, const Bytes& bytes) {
        const auto path = dir.path() / name;
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()),
                   static_cast<std::streamsize>(bytes.size()));
        return path;
    };
    auto compressed = readGaussians(write("scene.ply", compressedPly(g, true)));
    ASSERT_TRUE(compressed) << compressed.error();
    EXPECT_EQ(compressed.value().count(), 300u);
    auto spz = readGaussians(write("scene.bin", gzip(spzRaw(g, 3))));
    ASSERT_TRUE(spz) << spz.error();
    EXPECT_EQ(spz.value().count(), 300u);
    EXPECT_TRUE(isCompressedPly(compressedPly(g, true)));
    EXPECT_FALSE(isGaussianPly(compressedPly(g, true)));
}

TEST(SplatFormats, BrokenFilesAreRefusedWithAReason)
{
    const GaussianData g = scene(300, 3, 9u);
    const Bytes ply = compressedPly(g, true);
    const auto refuses = [](const Result<GaussianData>& r, const std::string& reason,
                            const std::string& what) {
        ASSERT_FALSE(r) << what;
        EXPECT_NE(r.error().find(reason), std::string::npos) << what << ": " << r.error();
    };
    refuses(readCompressedPly(Bytes(ply.begin(), ply.end() - 100), "c.ply"), "truncated",
            "a compressed PLY cut short");
    std::string text(ply.begin(), ply.end());
    {
        std::string ascii = text;
        ascii.replace(ascii.find("binary_little_endian"), 20, "binary_big_endian");
        refuses(readCompressedPly(Bytes(ascii.begin(), ascii.end()), "c.ply"), "little endian",
                "big endian");
    }
    {
        std::string noColour = text;
        noColour.replace(noColour.find("packed_color"), 12, "packed_other");
        refuses(readCompressedPly(Bytes(noColour.begin(), noColour.end()), "c.ply"), "packed_color",
                "no colour");
    }
    {
        std::string fewChunks = text;
        fewChunks.replace(fewChunks.find("element chunk 2"), 15, "element chunk 1");
        refuses(readCompressedPly(Bytes(fewChunks.begin(), fewChunks.end()), "c.ply"), "chunks",
                "too few chunks");
    }
    const Bytes raw = spzRaw(g, 3);
    const Bytes spz = gzip(raw);
    refuses(readSpz(Bytes(spz.begin(), spz.begin() + static_cast<std::ptrdiff_t>(spz.size() / 2)),
                    "g.spz"),
            "corrupt", "an SPZ cut in half");
    Bytes flipped = spz;
    flipped[flipped.size() / 2] ^= 0x5a;
    refuses(readSpz(flipped, "g.spz"), "corrupt", "a corrupt deflate stream");
    refuses(readSpz(gzip(Bytes(raw.begin(), raw.end() - 50)), "g.spz"), "truncated",
            "too few points for the count");
    Bytes v1 = raw;
    v1[4] = 1;
    refuses(readSpz(gzip(v1), "g.spz"), "version 1", "version 1");
    Bytes v4 = {'N', 'G', 'S', 'P', 4, 0, 0, 0};
    refuses(readSpz(v4, "g.spz"), "version 4", "version 4");
    Bytes magic = raw;
    magic[0] = 'X';
    refuses(readSpz(gzip(magic), "g.spz"), "magic", "no magic");
    Bytes degree = raw;
    degree[12] = 4;
    refuses(readSpz(gzip(degree), "g.spz"), "SH degree", "degree 4");
    refuses(readSpz(Bytes{1, 2, 3}, "g.spz"), "gzip", "not gzip");
}

/// The host rasterizer's RGBA8 frame of `g` (96 × 64, the test camera).
std::vector<std::uint8_t> frameOf(const GaussianData& g)
{
    const render::SplatArrays arrays = render::splatArrays(g);
    render::SplatLook look;
    look.storedDegree = g.shDegree;
    render::detail::HostTargets targets;
    render::renderSplatsHost(
        arrays.scene(), render::makeSplatFrame(test::frontCamera(), 96, 64, false, look, false),
        targets);
    return targets.color;
}

TEST(SplatFormats, TheLossEachFormatBringsToAFrame)
{
    const GaussianData g = scene(3000, 3, 123u);
    const auto original = frameOf(g);
    auto compressed = readCompressedPly(compressedPly(g, true), "c.ply");
    auto spz2 = readSpz(gzip(spzRaw(g, 2)), "g.spz");
    auto spz3 = readSpz(gzip(spzRaw(g, 3)), "g.spz");
    ASSERT_TRUE(compressed && spz2 && spz3);
    const double c = test::psnrRgb8(original, frameOf(compressed.value()));
    const double s2 = test::psnrRgb8(original, frameOf(spz2.value()));
    const double s3 = test::psnrRgb8(original, frameOf(spz3.value()));
    std::printf("[ PSNR against the original, 3000 Gaussians of SH 3: compressed PLY %.1f dB, "
                "SPZ v2 %.1f dB, SPZ v3 %.1f dB ]\n",
                c, s2, s3);
    // Measured 48.3, 49.3 and 50.5 dB (the inputs and the rasterizer are deterministic).
    EXPECT_GE(c, 47.0);
    EXPECT_GE(s2, 48.0);
    EXPECT_GT(s3, s2) << "version 3's rotations are finer";
}

} // namespace
} // namespace tandem::io
