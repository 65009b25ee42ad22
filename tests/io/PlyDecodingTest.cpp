// The fast PLY readers against the value-by-value one: every committed PLY file, and generated
// files of every layout (formats, scalar types, attributes, placement comments, counts across
// chunk boundaries, values that are dropped, malformed or cut short) read the same, bit for bit,
// with the same warnings or the same failure; a point cloud's block is the one FolderSource wrote
// from readPly's cloud. Where the fast paths are taken is checked too, so agreement is not
// reached by always falling back.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/core/File.h"
#include "engine/io/PlyPointReader.h"
#include "engine/io/PlyReader.h"
#include "tests/fuzz/PlyAgreement.h"

namespace tandem::io {
namespace {

namespace fs = std::filesystem;

enum class Kind { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };
constexpr const char* KindNames[] = {"char", "uchar", "short", "ushort",
                                     "int",  "uint",  "float", "double"};

/// One property of a generated vertex element.
struct Column {
    std::string name;
    Kind kind;
};

/// A generated PLY file: a vertex element of `columns`, values drawn per column.
struct Layout {
    std::string format = "binary_little_endian";
    std::vector<Column> columns;
    std::vector<std::string> comments;
    std::size_t count = 10;
    std::string after; ///< further header lines (other elements)
    std::vector<std::uint8_t> afterBody;
};

/// A value of `kind` for column `name` of vertex `i`: positions and normals spread over signs
/// and magnitudes, colours over their range, with a few that are dropped or special.
double valueFor(std::mt19937& random, const Column& column, std::size_t i)
{
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    switch (column.kind) {
    case Kind::Int8:
        return std::uniform_int_distribution<int>(-128, 127)(random);
    case Kind::UInt8:
        return std::uniform_int_distribution<int>(0, 255)(random);
    case Kind::Int16:
        return std::uniform_int_distribution<int>(-32768, 32767)(random);
    case Kind::UInt16:
        return std::uniform_int_distribution<int>(0, 65535)(random);
    case Kind::Int32:
        return std::uniform_int_distribution<int>(-2000000000, 2000000000)(random);
    case Kind::UInt32:
        return static_cast<double>(std::uniform_int_distribution<std::uint32_t>()(random));
    case Kind::Float32:
    case Kind::Float64:
        break;
    }
    if (i % 97 == 5)
        return -0.0;
    if (column.name == "x" && i % 389 == 7)
        return std::numeric_limits<double>::quiet_NaN(); // a point dropped
    if (column.name == "y" && i % 511 == 9)
        return column.kind == Kind::Float64 ? 1e300 : 3e38; // far: dropped
    if (column.name == "nx" && i % 53 == 3)
        return 0.0; // with ny, nz below: no length
    if (column.name == "ny" && i % 71 == 2)
        return std::numeric_limits<double>::quiet_NaN(); // a normal of no direction
    if (column.name == "nz" && i % 83 == 4)
        return column.kind == Kind::Float64 ? 1e300 : 3e38; // past float: infinite
    const double magnitude = std::pow(10.0, std::uniform_int_distribution<int>(-3, 4)(random));
    return unit(random) * magnitude;
}

std::string header(const Layout& layout)
{
    std::string text = fmt::format("ply\nformat {} 1.0\n", layout.format);
    for (const std::string& comment : layout.comments)
        text += "comment " + comment + "\n";
    text += fmt::format("element vertex {}\n", layout.count);
    for (const Column& c : layout.columns)
        text += fmt::format("property {} {}\n", KindNames[static_cast<int>(c.kind)], c.name);
    return text + layout.after + "end_header\n";
}

template <class T> void put(std::vector<std::uint8_t>& out, double value, bool big)
{
    const T typed = static_cast<T>(value);
    std::uint8_t raw[sizeof(T)];
    std::memcpy(raw, &typed, sizeof(T));
    if (big != (std::endian::native == std::endian::big))
        std::reverse(raw, raw + sizeof(T));
    out.insert(out.end(), raw, raw + sizeof(T));
}

std::vector<std::uint8_t> bytesOf(const Layout& layout, unsigned seed)
{
    std::mt19937 random(seed);
    const std::string text = header(layout);
    std::vector<std::uint8_t> out(text.begin(), text.end());
    const bool ascii = layout.format == "ascii";
    const bool big = layout.format == "binary_big_endian";
    for (std::size_t i = 0; i < layout.count; ++i) {
        std::string line;
        for (const Column& c : layout.columns) {
            const double v = valueFor(random, c, i);
            if (ascii) {
                line += (c.kind == Kind::Float32 || c.kind == Kind::Float64)
                            ? fmt::format("{} ", c.kind == Kind::Float32
                                                     ? static_cast<double>(static_cast<float>(v))
                                                     : v)
                            : fmt::format("{} ", static_cast<long long>(v));
                continue;
            }
            switch (c.kind) {
            case Kind::Int8:
                put<std::int8_t>(out, v, big);
                break;
            case Kind::UInt8:
                put<std::uint8_t>(out, v, big);
                break;
            case Kind::Int16:
                put<std::int16_t>(out, v, big);
                break;
            case Kind::UInt16:
                put<std::uint16_t>(out, v, big);
                break;
            case Kind::Int32:
                put<std::int32_t>(out, v, big);
                break;
            case Kind::UInt32:
                put<std::uint32_t>(out, v, big);
                break;
            case Kind::Float32:
                put<float>(out, v, big);
                break;
            case Kind::Float64:
                put<double>(out, v, big);
                break;
            }
        }
        if (ascii) {
            line.back() = '\n';
            out.insert(out.end(), line.begin(), line.end());
        }
    }
    out.insert(out.end(), layout.afterBody.begin(), layout.afterBody.end());
    return out;
}

void expectAgreement(const std::vector<std::uint8_t>& bytes, const std::string& name,
                     bool* pointsTaken = nullptr)
{
    const fuzz::PlyAgreement agreement = fuzz::comparePlyReaders(bytes, name);
    EXPECT_EQ(agreement.disagreement, "") << name;
    if (pointsTaken)
        *pointsTaken = agreement.pointsTaken;
}

TEST(PlyDecoding, EveryCommittedPlyFileReadsTheSameEveryWay)
{
    const fs::path root(TANDEM_SOURCE_DIR);
    std::size_t files = 0;
    std::vector<std::string> takenNames;
    for (const fs::path& folder : {root / "tests" / "data", root / "tests" / "fuzz"})
        for (const auto& entry : fs::recursive_directory_iterator(folder)) {
            if (!entry.is_regular_file() || entry.path().extension() != ".ply")
                continue;
            auto bytes = readFile(entry.path());
            ASSERT_TRUE(bytes) << bytes.error();
            bool pointsTaken = false;
            expectAgreement(bytes.value(), entry.path().string(), &pointsTaken);
            ++files;
            if (pointsTaken)
                takenNames.push_back(entry.path().filename().string());
        }
    EXPECT_GE(files, 20u);
    // The clouds the streaming path is for go straight into their blocks.
    for (const char* cloud : {"torus_binary_double.ply", "box_big_endian_bare.ply",
                              "helix_ascii_rgba.ply", "sheet_normals_only.ply"})
        EXPECT_NE(std::find(takenNames.begin(), takenNames.end(), cloud), takenNames.end())
            << cloud;
}

TEST(PlyDecoding, GeneratedLayoutsReadTheSameEveryWay)
{
    const std::vector<std::string> formats = {"binary_little_endian", "binary_big_endian", "ascii"};
    const std::vector<std::vector<Column>> positions = {
        {{"x", Kind::Float32}, {"y", Kind::Float32}, {"z", Kind::Float32}},
        {{"x", Kind::Float64}, {"y", Kind::Float64}, {"z", Kind::Float64}},
        {{"x", Kind::Int32}, {"y", Kind::Int32}, {"z", Kind::Int32}},
        {{"x", Kind::UInt16}, {"y", Kind::Int16}, {"z", Kind::UInt8}}};
    const std::vector<std::vector<Column>> normals = {
        {},
        {{"nx", Kind::Float32}, {"ny", Kind::Float32}, {"nz", Kind::Float32}},
        {{"normal_x", Kind::Float64}, {"normal_y", Kind::Float64}, {"normal_z", Kind::Float64}}};
    const std::vector<std::vector<Column>> colors = {
        {},
        {{"red", Kind::UInt8}, {"green", Kind::UInt8}, {"blue", Kind::UInt8}},
        {{"red", Kind::UInt8},
         {"green", Kind::UInt8},
         {"blue", Kind::UInt8},
         {"alpha", Kind::UInt8}},
        {{"r", Kind::Float32}, {"g", Kind::Float32}, {"b", Kind::Float32}},
        {{"diffuse_red", Kind::UInt16},
         {"diffuse_green", Kind::UInt16},
         {"diffuse_blue", Kind::UInt16}},
        {{"rgb", Kind::Float32}},
        {{"rgba", Kind::UInt32}},
        {{"rgb", Kind::Float64}}}; // ignored with a warning: not 4 bytes
    const std::vector<std::vector<std::string>> comments = {
        {},
        {"frame_to_world_scale 0.179", "frame_to_world_translation -39.2 3.1 -24.5"},
        {"scale 2"}};
    const std::size_t counts[] = {1, 1023, 1024, 1025, 2600, 9000}; // 9000: several pieces
    std::mt19937 pick(7);
    int cases = 0, taken = 0, takenWithDrops = 0;
    for (int round = 0; round < 240; ++round) {
        Layout layout;
        layout.format = formats[pick() % formats.size()];
        std::vector<Column> columns = positions[pick() % positions.size()];
        for (const auto* part :
             {&normals[pick() % normals.size()], &colors[pick() % colors.size()]})
            columns.insert(columns.end(), part->begin(), part->end());
        if (pick() % 4 == 0)
            columns.push_back({"u", Kind::Float32}), columns.push_back({"v", Kind::Float32});
        if (pick() % 3 == 0) // a property nothing reads
            columns.insert(columns.begin() + static_cast<long>(pick() % columns.size()),
                           {"intensity", Kind::Float64});
        std::shuffle(columns.begin(), columns.end(), pick);
        layout.columns = columns;
        layout.comments = comments[pick() % comments.size()];
        layout.count = counts[pick() % std::size(counts)];
        const std::vector<std::uint8_t> bytes = bytesOf(layout, static_cast<unsigned>(round));
        bool pointsTaken = false;
        SCOPED_TRACE(header(layout));
        expectAgreement(bytes, fmt::format("generated_{}.ply", round), &pointsTaken);
        ++cases;
        taken += pointsTaken;
        // Straight into a block exactly where readPly() leaves points to draw, those with
        // dropped points (NaN or far positions) among them.
        const auto mesh = readPly(bytes, "generated.ply", PlyDecoding::Fast);
        const bool drawable = mesh && !mesh.value().positions.empty();
        EXPECT_EQ(pointsTaken, drawable);
        const auto& warnings = mesh.warnings();
        takenWithDrops +=
            pointsTaken && std::any_of(warnings.begin(), warnings.end(), [](const std::string& w) {
                return w.find("dropped") != std::string::npos;
            });
    }
    EXPECT_EQ(cases, 240);
    EXPECT_GT(taken, 220);
    EXPECT_GT(takenWithDrops, 60);
}

TEST(PlyDecoding, AFastReadGivesTheValuesWritten)
{
    // Not only the same as the value-by-value reader: the values themselves, across chunks.
    Layout layout;
    layout.columns = {{"x", Kind::Float32}, {"y", Kind::Float32},   {"z", Kind::Float32},
                      {"red", Kind::UInt8}, {"green", Kind::UInt8}, {"blue", Kind::UInt8}};
    layout.count = 3000;
    std::string text = header(layout);
    std::vector<std::uint8_t> bytes(text.begin(), text.end());
    for (std::size_t i = 0; i < layout.count; ++i) {
        for (float v : {float(i), -0.5f * float(i), 0.25f})
            put<float>(bytes, v, false);
        for (int c : {int(i % 256), int((i * 7) % 256), 9})
            put<std::uint8_t>(bytes, c, false);
    }
    auto mesh = readPly(bytes, "values.ply", PlyDecoding::Fast);
    ASSERT_TRUE(mesh) << mesh.error();
    ASSERT_EQ(mesh.value().positions.size(), 3000u);
    for (std::size_t i :
         {std::size_t{0}, std::size_t{1023}, std::size_t{1024}, std::size_t{2999}}) {
        EXPECT_EQ(mesh.value().positions[i], glm::vec3(float(i), -0.5f * float(i), 0.25f));
        EXPECT_EQ(mesh.value().colors[i], glm::u8vec4(i % 256, (i * 7) % 256, 9, 255));
    }
    auto reader = PlyPointReader::open(bytes, "values.ply");
    ASSERT_TRUE(reader);
    std::vector<glm::vec3> points(3000);
    std::vector<glm::u8vec4> colors(3000);
    EXPECT_EQ(reader->read(points, {}, colors), std::optional<std::size_t>(3000));
    EXPECT_EQ(points, mesh.value().positions);
    EXPECT_EQ(colors, mesh.value().colors);
    EXPECT_FALSE(reader->read(std::span(points).first(1), {}, std::span(colors).first(1)))
        << "past the last point";
}

TEST(PlyDecoding, BadBodiesFailTheSameWay)
{
    Layout layout;
    layout.format = "ascii";
    layout.columns = {{"x", Kind::Float32}, {"y", Kind::Float32}, {"z", Kind::UInt8}};
    layout.count = 1500;
    const std::vector<std::uint8_t> good = bytesOf(layout, 1);
    const std::string text(good.begin(), good.end());
    const std::size_t body = text.find("end_header\n") + 11;
    // A malformed token in the second chunk, a value out of range for its type, a body cut
    // short: the fast readers stop, and the failure is the value-by-value reader's.
    std::size_t line1200 = body;
    for (int i = 0; i < 1200; ++i)
        line1200 = text.find('\n', line1200) + 1;
    for (const std::string& bad :
         {text.substr(0, line1200) + "1.0.0 2 3\n" + text.substr(text.find('\n', line1200) + 1),
          text.substr(0, line1200) + "1 2 300\n" + text.substr(text.find('\n', line1200) + 1),
          text.substr(0, line1200 + 3)}) {
        const std::vector<std::uint8_t> bytes(bad.begin(), bad.end());
        auto fast = readPly(bytes, "bad.ply", PlyDecoding::Fast);
        ASSERT_FALSE(fast);
        EXPECT_NE(fast.error().find("1200 of 1500"), std::string::npos) << fast.error();
        expectAgreement(bytes, "bad.ply");
    }
    // A binary body cut short is refused from its header, as before.
    layout.format = "binary_little_endian";
    std::vector<std::uint8_t> cut = bytesOf(layout, 2);
    ASSERT_GT(cut.size(), 5u);
    cut.erase(cut.end() - 5, cut.end());
    EXPECT_FALSE(readPly(cut, "cut.ply", PlyDecoding::Fast));
    expectAgreement(cut, "cut.ply");
}

TEST(PlyDecoding, ElementsBesideTheVertices)
{
    Layout layout;
    layout.columns = {{"x", Kind::Float32}, {"y", Kind::Float32}, {"z", Kind::Float32}};
    layout.count = 4;
    // A fixed-size element after the points is passed over; bytes after it are warned about.
    layout.after = "element camera 1\nproperty float view_px\nproperty float view_py\n";
    layout.afterBody.assign(8, 0);
    layout.afterBody.push_back(0x55);
    std::vector<std::uint8_t> bytes = bytesOf(layout, 3);
    bool taken = false;
    expectAgreement(bytes, "camera.ply", &taken);
    EXPECT_TRUE(taken);
    auto reader = PlyPointReader::open(bytes, "camera.ply");
    ASSERT_TRUE(reader);
    std::vector<glm::vec3> points(4);
    ASSERT_TRUE(reader->read(points, {}, {}));
    EXPECT_EQ(reader->warnings(),
              std::vector<std::string>{"camera.ply: 1 bytes after the last element were ignored"});
    // Faces make a mesh: readPly's; an element with a list, too.
    layout.after = "element face 1\nproperty list uchar int vertex_indices\n";
    layout.afterBody = {3, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0};
    bytes = bytesOf(layout, 4);
    expectAgreement(bytes, "face.ply", &taken);
    EXPECT_FALSE(taken);
    EXPECT_FALSE(PlyPointReader::open(bytes, "face.ply"));
    // A face element with no faces is a point cloud still.
    layout.after = "element face 0\nproperty list uchar int vertex_indices\n";
    layout.afterBody.clear();
    expectAgreement(bytesOf(layout, 5), "noface.ply", &taken);
    EXPECT_TRUE(taken);
    // A texture comment on points: loadMesh warns that points are not textured.
    layout.after.clear();
    layout.comments = {"TextureFile skin.png"};
    EXPECT_FALSE(PlyPointReader::open(bytesOf(layout, 6), "textured.ply"));
}

} // namespace
} // namespace tandem::io
