// OBJ reader (tinyobjloader underneath): triangulation, vertex colours, normals, texture
// coordinates, point-only files, missing .mtl as a warning, and bad input as clear errors.
#include "engine/io/ObjReader.h"

#include <gtest/gtest.h>

#include "engine/io/MeshLoader.h"
#include "tests/support/TempDir.h"

namespace tandem::io {
namespace {

using test::TempDir;

TEST(ObjReader, QuadIsTriangulated)
{
    TempDir dir;
    auto mesh = readObj(dir.write("quad.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n"));
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().vertexCount(), 4u);
    EXPECT_EQ(mesh.value().triangleCount(), 2u);
    EXPECT_TRUE(mesh.value().colors.empty());
}

TEST(ObjReader, PolygonWithNegativeIndices)
{
    TempDir dir;
    auto mesh = readObj(dir.write(
        "penta.obj", "v 0 0 0\nv 1 0 0\nv 1.5 1 0\nv 0.5 1.5 0\nv -0.5 1 0\nf -5 -4 -3 -2 -1\n"));
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().triangleCount(), 3u);
}

TEST(ObjReader, VertexColoursNormalsAndTexcoords)
{
    TempDir dir;
    auto mesh = readObj(dir.write("c.obj", "v 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 0 1 0 0 0 1\n"
                                           "vn 0 0 2\nvt 0.5 0.5\n"
                                           "f 1/1/1 2/1/1 3/1/1\n"));
    ASSERT_TRUE(mesh) << mesh.error();
    const MeshData& m = mesh.value();
    ASSERT_EQ(m.colors.size(), 3u);
    EXPECT_EQ(m.colors[0], glm::u8vec4(255, 0, 0, 255));
    EXPECT_EQ(m.colors[2], glm::u8vec4(0, 0, 255, 255));
    ASSERT_EQ(m.normals.size(), 3u);
    EXPECT_EQ(m.normals[1], glm::vec3(0, 0, 1));
    ASSERT_EQ(m.texcoords.size(), 3u);
    EXPECT_EQ(m.texcoords[0], glm::vec2(0.5f, 0.5f));
}

TEST(ObjReader, PointsOnly)
{
    TempDir dir;
    auto mesh = readObj(dir.write("p.obj", "# a cloud\nv 0 0 0\nv 1 2 3\nv 4 5 6\n"));
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_TRUE(mesh.value().isPointCloud());
    EXPECT_EQ(mesh.value().positions[2], glm::vec3(4, 5, 6));
}

TEST(ObjReader, MissingMtlIsAWarning)
{
    TempDir dir;
    auto mesh = readObj(dir.write("m.obj", "mtllib gone.mtl\nusemtl red\nv 0 0 0\nv 1 0 0\n"
                                           "v 0 1 0\nf 1 2 3\n"));
    ASSERT_TRUE(mesh) << mesh.error();
    ASSERT_FALSE(mesh.warnings().empty());
    EXPECT_NE(mesh.warnings()[0].find("gone.mtl"), std::string::npos) << mesh.warnings()[0];
}

TEST(ObjReader, LoaderComputesNormalsForMeshesWithoutThem)
{
    TempDir dir;
    auto mesh = loadMesh(dir.write("n.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"));
    ASSERT_TRUE(mesh) << mesh.error();
    ASSERT_EQ(mesh.value().normals.size(), 3u);
    EXPECT_NEAR(mesh.value().normals[0].z, 1.0f, 1e-6f);
}

void expectError(const Result<MeshData>& result, const std::string& fragment)
{
    ASSERT_FALSE(result) << "expected an error containing '" << fragment << "'";
    EXPECT_NE(result.error().find(fragment), std::string::npos) << result.error();
}

TEST(ObjReaderErrors, EmptyAndMissing)
{
    TempDir dir;
    expectError(readObj(dir.write("empty.obj", "")), "no vertices");
    expectError(readObj(dir.path() / "absent.obj"), "no such file");
    expectError(readObj(dir.path()), "is a directory");
}

TEST(ObjReaderErrors, IndexOutOfRange)
{
    TempDir dir;
    expectError(readObj(dir.write("r.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n")),
                "out of range");
}

TEST(ObjReaderErrors, FaceIndicesNameWhatCameBefore)
{
    TempDir dir;
    const std::string triangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n";
    // tinyobjloader turned these into a triangle without a word.
    expectError(readObj(dir.write("a.obj", triangle + "f 1 2 99999999999999999999\n")),
                "a.obj:6: face index '99999999999999999999' is out of range");
    expectError(readObj(dir.write("b.obj", triangle + "f 1 2 4294967298\n")),
                "b.obj:6: face index 4294967298 is out of range: 3 vertices written before it");
    expectError(readObj(dir.write("c.obj", triangle + "f 1 2 3abc\n")),
                "c.obj:6: face index '3abc' is malformed (not an integer)");
    expectError(readObj(dir.write("d.obj", triangle + "f 1/2 2/1 3/1\n")),
                "face index 2 is out of range: 1 texture coordinates written before it");
    expectError(readObj(dir.write("e.obj", triangle + "f 1//1 2//1 3//-2\n")),
                "face index -2 is out of range: 1 normals written before it");
    expectError(readObj(dir.write("f.obj", triangle + "f 1 2\n")),
                "a face needs at least 3 corners, this one has 2");
    expectError(readObj(dir.write("g.obj", "v 0 0 0\nf 1 2 3\nv 1 0 0\nv 0 1 0\n")),
                "face index 2 is out of range: 1 vertices written before it");
    // What exporters write: every corner form, negative (relative) indices.
    for (const char* face : {"f 1 2 3", "f -3 -2 -1", "f 1/1 2/1 3/1", "f 1//1 2//1 3//1",
                             "f 1/1/1 2/1/1 3/1/1", "f 1/1/-1 2/-1/1 3/1/1", "f +1 +2 +3"}) {
        auto mesh = readObj(dir.write("ok.obj", triangle + face + "\n"));
        ASSERT_TRUE(mesh) << face << ": " << mesh.error();
        EXPECT_EQ(mesh.value().indices.size(), 3u) << face;
    }
}

TEST(ObjReaderErrors, NonFinite)
{
    TempDir dir;
    expectError(readObj(dir.write("nan.obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n")),
                "nan.obj:2: 'nan' is a non-finite coordinate");
    // Malformed and out-of-range tokens are named as such.
    expectError(readObj(dir.write("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1.0.0 0\nf 1 2 3\n")),
                "bad.obj:3: '1.0.0' is malformed (not a number)");
    expectError(readObj(dir.write("big.obj", "v 0 0 0\nv 1e999 0 0\nv 0 1 0\nf 1 2 3\n")),
                "big.obj:2: '1e999' is out of range");
    // tinyobjloader reads "0e999" as 0 * inf: NaN, in a position or in a colour.
    expectError(readObj(dir.write("zero.obj", "v 0 0 0\nv 0e999 0 0\nv 0 1 0\nf 1 2 3\n")),
                "zero.obj: vertex 1 has a non-finite coordinate");
    expectError(readObj(dir.write("colour.obj",
                                  "v 0 0 0 1 1 1\nv 1 0 0 0e999 1 1\nv 0 1 0 1 1 1\nf 1 2 3\n")),
                "colour.obj: vertex 1 has a non-numeric colour");
}

TEST(MeshLoader, UnknownExtensionAndPlyMagic)
{
    TempDir dir;
    expectError(loadMesh(dir.write("mesh.stl", "solid x\n")), "unknown mesh format");
    auto ply = loadMesh(dir.write("cloud.dat", "ply\nformat ascii 1.0\nelement vertex 1\n"
                                               "property float x\nproperty float y\n"
                                               "property float z\nend_header\n1 2 3\n"));
    ASSERT_TRUE(ply) << ply.error();
    EXPECT_TRUE(ply.value().isPointCloud());
}

} // namespace
} // namespace tandem::io
