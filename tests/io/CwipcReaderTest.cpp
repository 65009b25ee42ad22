// CWIPC point-cloud dumps written here to cwipc_util's published layout (a 32-byte header,
// 16-byte points): read by the reader, through loadMesh by extension and by magic, and as a
// sequence folder; each kind of bad file gives one clear message.
#include "engine/io/CwipcReader.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/io/MeshLoader.h"
#include "tests/support/SequenceFrame.h"
#include "tests/support/TempDir.h"

namespace tandem::io {
namespace {

struct CwipcPoint {
    float x, y, z;
    std::uint8_t r, g, b, tile;
};

template <class T> void put(std::string& out, T value)
{
    out.append(reinterpret_cast<const char*>(&value), sizeof value); // little endian hosts
}

/// A dump as cwipc_util's cwipc_write_debugdump writes it.
std::string dump(const std::vector<CwipcPoint>& points, std::uint32_t version = CwipcDumpVersion)
{
    std::string out = "cpcd";
    put(out, version);
    put(out, std::uint64_t{1700000000123});       // timestamp
    put(out, 0.0025f);                            // cell size
    put(out, std::uint32_t{0});                   // unused
    put(out, std::uint64_t{points.size() * 16u}); // bytes of points
    for (const CwipcPoint& p : points) {
        put(out, p.x);
        put(out, p.y);
        put(out, p.z);
        out += static_cast<char>(p.r);
        out += static_cast<char>(p.g);
        out += static_cast<char>(p.b);
        out += static_cast<char>(p.tile);
    }
    return out;
}

std::vector<std::uint8_t> dumpBytes(const std::string& text)
{
    return {text.begin(), text.end()};
}

const std::vector<CwipcPoint> threePoints = {
    {0.5f, 1.25f, -0.75f, 255, 0, 10, 1}, {-1, 0, 2, 1, 2, 3, 4}, {0, 0, 0, 9, 8, 7, 2}};

TEST(CwipcReader, ReadsPositionsAndColoursOfThePublishedLayout)
{
    const std::string file = dump(threePoints);
    ASSERT_EQ(file.size(), 32u + 3 * 16);
    auto mesh = readCwipcDump(dumpBytes(file), "frame.cwipcdump");
    ASSERT_TRUE(mesh) << mesh.error();
    ASSERT_EQ(mesh.value().positions.size(), 3u);
    EXPECT_TRUE(mesh.value().isPointCloud());
    EXPECT_EQ(mesh.value().positions[0], glm::vec3(0.5f, 1.25f, -0.75f));
    EXPECT_EQ(mesh.value().colors[0], glm::u8vec4(255, 0, 10, 255));
    EXPECT_EQ(mesh.value().positions[1], glm::vec3(-1, 0, 2));
    EXPECT_EQ(mesh.value().colors[2], glm::u8vec4(9, 8, 7, 255));
    EXPECT_TRUE(mesh.value().normals.empty());
    EXPECT_TRUE(mesh.warnings().empty());
}

TEST(CwipcReader, UnusablePointsAreDroppedWithOneWarning)
{
    auto points = threePoints;
    points[1].y = NAN;
    auto mesh = readCwipcDump(dumpBytes(dump(points)), "frame.cwipcdump");
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().positions.size(), 2u);
    ASSERT_EQ(mesh.warnings().size(), 1u);
    EXPECT_NE(mesh.warnings()[0].find("dropped 1 of 3 points"), std::string::npos)
        << mesh.warnings()[0];
}

TEST(CwipcReader, BadFilesAreNamedWithTheProblem)
{
    const auto error = [](const std::string& file) {
        auto mesh = readCwipcDump(dumpBytes(file), "bad.cwipcdump");
        EXPECT_FALSE(mesh);
        return mesh ? std::string() : mesh.error();
    };
    const std::string good = dump(threePoints);
    EXPECT_EQ(error("ply\n"), "bad.cwipcdump: not a CWIPC dump (it does not start with \"cpcd\")");
    EXPECT_EQ(error(good.substr(0, 20)),
              "bad.cwipcdump: truncated: a CWIPC dump's header is 32 bytes, the file holds 20");
    EXPECT_EQ(error(dump(threePoints, 0x20200101)),
              "bad.cwipcdump: CWIPC dump version 0x20200101; this reader takes 0x20210208");
    EXPECT_EQ(error(good.substr(0, good.size() - 5)),
              "bad.cwipcdump: truncated: the header gives 3 points (48 bytes), the file holds 2 "
              "complete");
    EXPECT_EQ(error(good + "xyz"), "bad.cwipcdump: 3 bytes after the 3 points the header gives");
    std::string ragged = good;
    ragged[24] = 47; // 47 bytes of points
    EXPECT_EQ(error(ragged), "bad.cwipcdump: the header's 47 bytes of points are not whole "
                             "16-byte points");
    EXPECT_EQ(error(dump({})), "bad.cwipcdump: no points");
    std::string huge = good;
    huge[31] = 0x7f; // a count no file holds: refused, nothing allocated
    EXPECT_NE(error(huge).find("truncated"), std::string::npos);
}

TEST(CwipcReader, LoadsByExtensionByMagicAndAsASequence)
{
    test::TempDir dir;
    const auto file = dir.write("seq/frame_0001.cwipcdump", dump(threePoints));
    dir.write("seq/frame_0002.cwipcdump", dump({threePoints[0]}));
    auto byExtension = loadMesh(file);
    ASSERT_TRUE(byExtension) << byExtension.error();
    EXPECT_EQ(byExtension.value().positions.size(), 3u);
    auto byMagic = loadMesh(dir.write("capture.bin", dump(threePoints)));
    ASSERT_TRUE(byMagic) << byMagic.error();
    EXPECT_EQ(byMagic.value().colors[0], glm::u8vec4(255, 0, 10, 255));

    const auto frame = test::loadSequenceFrame(dir.path() / "seq", 1, "frame_0002.cwipcdump");
    EXPECT_NE(frame.description.find("2 CWIPC files"), std::string::npos) << frame.description;
    EXPECT_TRUE(frame.view.isCompact());
    ASSERT_EQ(frame.view.positions.size(), 1u);
    EXPECT_EQ(frame.view.positions[0], glm::vec3(0.5f, 1.25f, -0.75f));
}

} // namespace
} // namespace tandem::io
