// Material libraries: names and diffuse textures as Blender, Open3D and assimp write them,
// map_Kd's options skipped, Windows paths, and what is wrong said as warnings.
#include "engine/io/MtlReader.h"

#include <gtest/gtest.h>

#include "tests/support/TempDir.h"

namespace tandem::io {
namespace {

namespace fs = std::filesystem;

TEST(MtlReader, NamesAndDiffuseTextures)
{
    auto parsed = parseMtl("# Blender 4.0.2 MTL File\r\n\r\nnewmtl Material\r\nNs 250\r\n"
                           "Kd 0.8 0.8 0.8\r\nmap_Kd textures/wood.png\r\n"
                           "newmtl plain\nKd 1 0 0\n"
                           "  newmtl   spaced  \n\tmap_Kd  a b.png  \n",
                           "lib.mtl");
    ASSERT_TRUE(parsed);
    EXPECT_TRUE(parsed.warnings().empty());
    const auto& m = parsed.value();
    ASSERT_EQ(m.size(), 3u);
    EXPECT_EQ(m[0].name, "Material");
    EXPECT_EQ(m[0].diffuseTexture, "textures/wood.png");
    EXPECT_EQ(m[1].name, "plain");
    EXPECT_TRUE(m[1].diffuseTexture.empty());
    EXPECT_EQ(m[2].name, "spaced");
    EXPECT_EQ(m[2].diffuseTexture, "a b.png");
}

TEST(MtlReader, TextureOptionsAreSkippedAndBackslashesAreSeparators)
{
    auto parsed = parseMtl("newmtl m\nmap_Kd -s 1 1 1 -o 0.5 -bm 0.2 -clamp on -mm 0 1 -t 1 "
                           "-imfchan r -type sphere textures\\wood 2.png\n",
                           "lib.mtl");
    ASSERT_EQ(parsed.value().size(), 1u);
    EXPECT_EQ(parsed.value()[0].diffuseTexture, "textures/wood 2.png");
    // -s takes up to three numbers: a name that is no number ends them.
    auto scaled = parseMtl("newmtl m\nmap_Kd -s 2 wood.png\n", "lib.mtl");
    EXPECT_EQ(scaled.value()[0].diffuseTexture, "wood.png");
}

TEST(MtlReader, WhatIsWrongIsAWarningAndTheFirstDefinitionCounts)
{
    auto parsed = parseMtl("map_Kd early.png\nnewmtl a\nmap_Kd first.png\nmap_Kd -s 1 1 1\n"
                           "newmtl a\nmap_Kd second.png\nnewmtl\n",
                           "lib.mtl");
    ASSERT_EQ(parsed.value().size(), 1u);
    EXPECT_EQ(parsed.value()[0].diffuseTexture, "first.png");
    const std::vector<std::string> expected = {
        "lib.mtl:1: map_Kd before any newmtl: ignored",
        "lib.mtl:4: map_Kd without a file name: ignored",
        "lib.mtl:5: material 'a' defined again: the first one counts",
        "lib.mtl:7: newmtl without a name"};
    EXPECT_EQ(parsed.warnings(), expected);
}

TEST(MtlReader, ReadResolvesTexturesAgainstTheLibrarysFolder)
{
    test::TempDir dir;
    dir.write("lib/wood.png", "x");
    const fs::path lib = dir.write("lib/m.mtl", "newmtl here\nmap_Kd wood.png\n"
                                                "newmtl elsewhere\nmap_Kd C:\\Users\\me\\wood.png\n"
                                                "newmtl up\nmap_Kd ../up.png\n");
    auto read = readMtl(lib);
    ASSERT_TRUE(read) << read.error();
    ASSERT_EQ(read.value().size(), 3u);
    EXPECT_EQ(read.value()[0].diffuseTexture, dir.path() / "lib" / "wood.png");
    // A path from another machine that names no file here: the name beside the library.
    EXPECT_EQ(read.value()[1].diffuseTexture, dir.path() / "lib" / "wood.png");
    EXPECT_EQ(read.value()[2].diffuseTexture, dir.path() / "lib" / ".." / "up.png");
    auto missing = readMtl(dir.path() / "gone.mtl");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("gone.mtl: no such file"), std::string::npos);
}

} // namespace
} // namespace tandem::io
