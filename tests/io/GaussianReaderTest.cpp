// Splat readers on files the tests write to the formats: the 3DGS PLY at every SH degree, in any
// property order, ascii and binary of both byte orders, with and without normals, placed by a
// header comment; the .splat; what is unusable dropped with one warning; broken files refused
// with their name and the problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/io/GaussianReader.h"
#include "tests/support/TempDir.h"

namespace tandem::io {
namespace {

/// A Gaussian as training stores it (before activations).
struct Stored {
    float x, y, z;
    float dc[3];
    std::vector<float> rest; ///< 3 × (shCoefficients(d) − 1), red's first
    float opacity;           ///< logit
    float scale[3];          ///< logs
    float rot[4];            ///< w x y z, not normalized
};

std::vector<Stored> someGaussians(int degree, int count)
{
    std::vector<Stored> out;
    const int rest = 3 * (shCoefficients(degree) - 1);
    for (int i = 0; i < count; ++i) {
        Stored g{};
        g.x = 0.5f * static_cast<float>(i) - 1.0f;
        g.y = 0.25f * static_cast<float>(i * i);
        g.z = -2.0f + 0.125f * static_cast<float>(i);
        for (int c = 0; c < 3; ++c)
            g.dc[c] = 0.1f * static_cast<float>(c + 1) - 0.05f * static_cast<float>(i);
        for (int k = 0; k < rest; ++k)
            g.rest.push_back(0.01f * static_cast<float>(k + 1) * (i % 2 ? -1.0f : 1.0f));
        g.opacity = -1.0f + 0.75f * static_cast<float>(i);
        for (int a = 0; a < 3; ++a)
            g.scale[a] = -3.0f + 0.5f * static_cast<float>(a + i);
        g.rot[0] = 2.0f;
        g.rot[1] = 0.5f * static_cast<float>(i);
        g.rot[2] = -1.0f;
        g.rot[3] = 0.25f;
        out.push_back(g);
    }
    return out;
}

enum class Body { Ascii, Little, Big };

struct PlyOptions {
    Body body = Body::Little;
    bool normals = true;
    bool shuffled = false;
    bool doubles = false; ///< positions as double
    std::string comments;
};

/// Writes `gaussians` as a 3DGS PLY with `options`.
std::vector<std::uint8_t> gaussianPly(const std::vector<Stored>& gaussians, int degree,
                                      const PlyOptions& options = {})
{
    struct Column {
        std::string name;
        bool isDouble;
        std::function<float(const Stored&)> value;
    };
    std::vector<Column> columns;
    const char* axes[] = {"x", "y", "z"};
    for (int a = 0; a < 3; ++a)
        columns.push_back({axes[a], options.doubles, [a](const Stored& g) {
                               return a == 0 ? g.x : a == 1 ? g.y : g.z;
                           }});
    if (options.normals)
        for (const char* n : {"nx", "ny", "nz"})
            columns.push_back({n, false, [](const Stored&) {
                                   return 0.0f;
                               }});
    for (int c = 0; c < 3; ++c)
        columns.push_back({fmt::format("f_dc_{}", c), false, [c](const Stored& g) {
                               return g.dc[c];
                           }});
    const int rest = 3 * (shCoefficients(degree) - 1);
    for (int k = 0; k < rest; ++k)
        columns.push_back({fmt::format("f_rest_{}", k), false, [k](const Stored& g) {
                               return g.rest[static_cast<std::size_t>(k)];
                           }});
    columns.push_back({"opacity", false, [](const Stored& g) {
                           return g.opacity;
                       }});
    for (int a = 0; a < 3; ++a)
        columns.push_back({fmt::format("scale_{}", a), false, [a](const Stored& g) {
                               return g.scale[a];
                           }});
    for (int a = 0; a < 4; ++a)
        columns.push_back({fmt::format("rot_{}", a), false, [a](const Stored& g) {
                               return g.rot[a];
                           }});
    if (options.shuffled)
        std::reverse(columns.begin(), columns.end());
    const char* format = options.body == Body::Ascii    ? "ascii"
                         : options.body == Body::Little ? "binary_little_endian"
                                                        : "binary_big_endian";
    std::string header = fmt::format("ply\nformat {} 1.0\n{}element vertex {}\n", format,
                                     options.comments, gaussians.size());
    for (const auto& column : columns)
        header +=
            fmt::format("property {} {}\n", column.isDouble ? "double" : "float", column.name);
    header += "end_header\n";
    std::vector<std::uint8_t> out(header.begin(), header.end());
    const auto put = [&](const void* data, std::size_t size) {
        const auto* bytes = static_cast<const std::uint8_t*>(data);
        const bool swap = options.body == Body::Big;
        for (std::size_t i = 0; i < size; ++i)
            out.push_back(bytes[swap ? size - 1 - i : i]);
    };
    for (const auto& g : gaussians) {
        std::string line;
        for (const auto& column : columns) {
            const float v = column.value(g);
            if (options.body == Body::Ascii)
                line += fmt::format("{}{:.9g}", line.empty() ? "" : " ", v);
            else if (column.isDouble) {
                const double d = v;
                put(&d, sizeof d);
            } else
                put(&v, sizeof v);
        }
        if (options.body == Body::Ascii)
            out.insert(out.end(), line.begin(), line.end()), out.push_back('\n');
    }
    return out;
}

double sigmoid(double x)
{
    return 1.0 / (1.0 + std::exp(-x));
}

/// Checks `read` holds `stored` with the activations applied, placed by scale `s` and
/// translation `t`.
void expectActivated(const GaussianData& read, const std::vector<Stored>& stored, int degree,
                     float s = 1.0f, glm::vec3 t = glm::vec3(0.0f))
{
    ASSERT_EQ(read.count(), stored.size());
    ASSERT_EQ(read.shDegree, degree);
    const int n = shCoefficients(degree);
    ASSERT_EQ(read.sh.size(), stored.size() * static_cast<std::size_t>(n) * 3);
    for (std::size_t i = 0; i < stored.size(); ++i) {
        const Stored& g = stored[i];
        EXPECT_FLOAT_EQ(read.positions[i].x, s * g.x + t.x);
        EXPECT_FLOAT_EQ(read.positions[i].y, s * g.y + t.y);
        EXPECT_FLOAT_EQ(read.positions[i].z, s * g.z + t.z);
        for (int a = 0; a < 3; ++a)
            EXPECT_FLOAT_EQ(read.scales[i][a],
                            static_cast<float>(s * std::exp(double{g.scale[a]})));
        EXPECT_FLOAT_EQ(read.opacities[i], static_cast<float>(sigmoid(g.opacity)));
        const double length = std::sqrt(double{g.rot[0]} * g.rot[0] + double{g.rot[1]} * g.rot[1] +
                                        double{g.rot[2]} * g.rot[2] + double{g.rot[3]} * g.rot[3]);
        EXPECT_FLOAT_EQ(read.rotations[i].w, static_cast<float>(g.rot[0] / length));
        EXPECT_FLOAT_EQ(read.rotations[i].x, static_cast<float>(g.rot[1] / length));
        EXPECT_FLOAT_EQ(read.rotations[i].y, static_cast<float>(g.rot[2] / length));
        EXPECT_FLOAT_EQ(read.rotations[i].z, static_cast<float>(g.rot[3] / length));
        for (int k = 0; k < n; ++k)
            for (int c = 0; c < 3; ++c) {
                const float want =
                    k == 0 ? g.dc[c] : g.rest[static_cast<std::size_t>(c * (n - 1) + k - 1)];
                EXPECT_EQ(
                    read.sh[(i * static_cast<std::size_t>(n) + static_cast<std::size_t>(k)) * 3 +
                            static_cast<std::size_t>(c)],
                    want)
                    << "Gaussian " << i << " coefficient " << k << " channel " << c;
            }
    }
}

TEST(Gaussians, PlyOfEverySHDegreeReadsWithActivationsApplied)
{
    for (int degree = 0; degree <= MaxShDegree; ++degree) {
        SCOPED_TRACE(fmt::format("degree {}", degree));
        const auto stored = someGaussians(degree, 4);
        const auto bytes = gaussianPly(stored, degree);
        EXPECT_TRUE(isGaussianPly(bytes));
        auto read = readGaussianPly(bytes, "scene.ply");
        ASSERT_TRUE(read) << read.error();
        EXPECT_TRUE(read.warnings().empty());
        expectActivated(read.value(), stored, degree);
    }
}

TEST(Gaussians, AnyOrderByteOrderOrTypeWithOrWithoutNormalsReadsTheSame)
{
    const auto stored = someGaussians(2, 5);
    for (Body body : {Body::Ascii, Body::Little, Body::Big})
        for (bool shuffled : {false, true}) {
            PlyOptions options;
            options.body = body;
            options.shuffled = shuffled;
            options.normals = !shuffled;
            options.doubles = body == Body::Big;
            SCOPED_TRACE(fmt::format("body {} shuffled {}", static_cast<int>(body), shuffled));
            auto read = readGaussianPly(gaussianPly(stored, 2, options), "scene.ply");
            ASSERT_TRUE(read) << read.error();
            expectActivated(read.value(), stored, 2);
        }
}

TEST(Gaussians, AHeaderCommentPlacesCentresAndScales)
{
    const auto stored = someGaussians(0, 3);
    PlyOptions options;
    options.comments = "comment scale 2\ncomment translation 1 -2 0.5\n";
    auto read = readGaussianPly(gaussianPly(stored, 0, options), "placed.ply");
    ASSERT_TRUE(read) << read.error();
    expectActivated(read.value(), stored, 0, 2.0f, glm::vec3(1.0f, -2.0f, 0.5f));
}

TEST(Gaussians, UnusableGaussiansAreDroppedWithOneWarning)
{
    auto stored = someGaussians(1, 6);
    stored[1].x = NAN;
    stored[2].rot[0] = stored[2].rot[1] = stored[2].rot[2] = stored[2].rot[3] = 0.0f;
    stored[3].scale[1] = 1000.0f; // exp overflows float
    stored[4].y = 1e12f;
    auto read = readGaussianPly(gaussianPly(stored, 1), "noisy.ply");
    ASSERT_TRUE(read) << read.error();
    ASSERT_EQ(read.warnings().size(), 1u);
    EXPECT_EQ(
        read.warnings()[0],
        "noisy.ply: dropped 4 of 6 Gaussians (1 with NaN or infinite values, 1 beyond ±1e+09, "
        "2 with a zero or overflowing scale or a zero rotation)");
    expectActivated(read.value(), {stored[0], stored[5]}, 1);
}

TEST(Gaussians, BrokenPlysAreRefusedNamingTheProblem)
{
    const auto stored = someGaussians(1, 3);
    const auto bytes = gaussianPly(stored, 1);
    const auto refuses = [](std::vector<std::uint8_t> file, const std::string& expected) {
        auto read = readGaussianPly(file, "bad.ply");
        ASSERT_FALSE(read) << "expected: " << expected;
        EXPECT_NE(read.error().find(expected), std::string::npos) << read.error();
        EXPECT_TRUE(read.error().starts_with("bad.ply: ")) << read.error();
    };
    refuses({bytes.begin(), bytes.end() - 7}, "truncated");
    refuses({}, "empty file");
    const auto renamed = [&](const std::string& from, const std::string& to) {
        std::string text(bytes.begin(), bytes.end());
        text.replace(text.find(from), from.size(), to);
        return std::vector<std::uint8_t>(text.begin(), text.end());
    };
    // A header line changed (from, to) and what the refusal must say.
    const struct {
        const char* from;
        const char* to;
        const char* expected;
    } edits[] = {
        {"float rot_3", "float rot_x", "not a 3DGS splat PLY: the 'vertex' element has no 'rot_3'"},
        {"float f_rest_4", "float f_rest_9",
         "9 f_rest_* properties but no 'f_rest_4' (a gap in the SH coefficients?)"},
        {"float f_rest_8", "float f_rest_0", "property 'f_rest_0' appears twice"},
        {"float f_rest_1", "float f_rest_01",
         "property 'f_rest_01' is not one of f_rest_0..f_rest_44 (SH degree 3 at most)"},
        {"float f_rest_2", "float f_rest_45",
         "property 'f_rest_45' is not one of f_rest_0..f_rest_44"},
        {"float nx", "list uchar int nx",
         "the 'vertex' element has a list property 'nx', which a 3DGS PLY does not"},
        {"float f_rest_8", "float extra", "8 f_rest_* properties: a 3DGS PLY has 0, 9, 24 or 45"},
    };
    for (const auto& edit : edits)
        refuses(
            renamed(fmt::format("property {}\n", edit.from), fmt::format("property {}\n", edit.to)),
            edit.expected);
    const std::string points =
        "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty "
        "float y\nproperty float z\nend_header\n0 0 0\n";
    const std::vector<std::uint8_t> cloud(points.begin(), points.end());
    EXPECT_FALSE(isGaussianPly(cloud));
    refuses(cloud, "the 'vertex' element has no 'f_dc_0' (a point cloud or mesh PLY?)");
}

/// A .splat record.
std::vector<std::uint8_t> splatRecord(const float position[3], const float scale[3],
                                      const std::uint8_t rgba[4], const std::uint8_t rot[4])
{
    std::vector<std::uint8_t> out(32);
    std::memcpy(out.data(), position, 12);
    std::memcpy(out.data() + 12, scale, 12);
    std::memcpy(out.data() + 24, rgba, 4);
    std::memcpy(out.data() + 28, rot, 4);
    return out;
}

TEST(Gaussians, SplatFilesGiveBackTheirColourOpacityAndRotation)
{
    static_assert(std::endian::native == std::endian::little, "the test writes .splat natively");
    const float p0[3] = {1.0f, -2.0f, 3.5f}, s0[3] = {0.01f, 0.02f, 0.5f};
    const std::uint8_t c0[4] = {255, 128, 0, 200}, r0[4] = {228, 178, 78, 28};
    const float p1[3] = {0.0f, 0.0f, 0.0f}, s1[3] = {1.0f, 1.0f, 1.0f};
    const std::uint8_t c1[4] = {10, 20, 30, 255}, r1[4] = {128, 128, 128, 128}; // zero rotation
    auto bytes = splatRecord(p0, s0, c0, r0);
    const auto second = splatRecord(p1, s1, c1, r1);
    bytes.insert(bytes.end(), second.begin(), second.end());
    bytes.insert(bytes.end(), bytes.begin(), bytes.begin() + 32); // the first again
    auto read = readSplat(bytes, "scene.splat");
    ASSERT_TRUE(read) << read.error();
    ASSERT_EQ(read.warnings().size(), 1u);
    EXPECT_NE(read.warnings()[0].find("dropped 1 of 3 Gaussians"), std::string::npos);
    const GaussianData& g = read.value();
    ASSERT_EQ(g.count(), 2u);
    EXPECT_EQ(g.shDegree, 0);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(g.positions[i], glm::vec3(1.0f, -2.0f, 3.5f));
        EXPECT_EQ(g.scales[i], glm::vec3(0.01f, 0.02f, 0.5f));
        EXPECT_FLOAT_EQ(g.opacities[i], 200.0f / 255.0f);
        // The reference's colour rule, 0.5 + C0 · dc, gives the stored colour back.
        for (int c = 0; c < 3; ++c)
            EXPECT_NEAR(0.5 + ShC0 * g.sh[i * 3 + static_cast<std::size_t>(c)], c0[c] / 255.0,
                        1e-6);
        // (100, 50, -50, -100) / 128, normalized: w first.
        const double length = std::sqrt(25000.0);
        EXPECT_FLOAT_EQ(g.rotations[i].w, static_cast<float>(100.0 / length));
        EXPECT_FLOAT_EQ(g.rotations[i].x, static_cast<float>(50.0 / length));
        EXPECT_FLOAT_EQ(g.rotations[i].y, static_cast<float>(-50.0 / length));
        EXPECT_FLOAT_EQ(g.rotations[i].z, static_cast<float>(-100.0 / length));
    }
    bytes.pop_back();
    auto cut = readSplat(bytes, "scene.splat");
    ASSERT_FALSE(cut);
    EXPECT_EQ(cut.error(),
              "scene.splat: not a .splat file: 95 bytes is not a whole number of 32-byte splats "
              "(truncated?)");
}

TEST(Gaussians, AFileIsKnownByWhatItHolds)
{
    test::TempDir dir;
    const auto stored = someGaussians(3, 2);
    const auto ply = gaussianPly(stored, 3);
    // A 3DGS PLY under another extension is still read as one.
    auto read = readGaussians(dir.write("scene.bin", std::string(ply.begin(), ply.end())));
    ASSERT_TRUE(read) << read.error();
    expectActivated(read.value(), stored, 3);
    const std::string points =
        "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty "
        "float y\nproperty float z\nend_header\n0 0 0\n";
    auto cloud = readGaussians(dir.write("cloud.ply", points));
    ASSERT_FALSE(cloud);
    EXPECT_NE(cloud.error().find("not a 3DGS splat PLY"), std::string::npos) << cloud.error();
    auto other = readGaussians(dir.write("notes.txt", "hello"));
    ASSERT_FALSE(other);
    EXPECT_NE(other.error().find("not a splat file (a 3DGS or compressed PLY, an SPZ or a .splat)"),
              std::string::npos)
        << other.error();
    auto missing = readGaussians(dir.path() / "missing.splat");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("missing.splat"), std::string::npos) << missing.error();
}

} // namespace
} // namespace tandem::io
