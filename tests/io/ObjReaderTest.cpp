// OBJ reader (one pass, tandem's own): triangulation, vertex colours, normals, texture
// coordinates, point-only files, materials and their textures (as Blender and Open3D write
// them), missing .mtl and images as warnings, non-finite vertices dropped, and bad input as
// clear errors. The loader: textures found and read, FIFOs refused.
#include "engine/io/ObjReader.h"

#include <sys/stat.h>

#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/io/Image.h"
#include "engine/io/MeshLoader.h"
#include "tests/support/TempDir.h"

namespace tandem::io {
namespace {

using test::TempDir;
namespace fs = std::filesystem;

const fs::path textured = fs::path(TANDEM_SOURCE_DIR) / "tests" / "data" / "textured";

/// A w×h image of one colour.
Image solid(int w, int h, glm::u8vec4 colour)
{
    Image image;
    image.width = w;
    image.height = h;
    for (int i = 0; i < w * h; ++i)
        image.pixels.insert(image.pixels.end(), {colour.r, colour.g, colour.b, colour.a});
    return image;
}

/// The first pixel of an image.
glm::u8vec4 firstPixel(const Image& image)
{
    return {image.pixels[0], image.pixels[1], image.pixels[2], image.pixels[3]};
}

const std::string texturedQuad = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\n"
                                 "vt 0 1\nf 1/1 2/2 3/3\nf 1/1 3/3 4/4\n";

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

/// The area of triangle `t` of `mesh` facing along `normal` (negative: it faces away).
double signedArea(const MeshData& mesh, std::size_t t, glm::dvec3 normal = {0, 0, 1})
{
    const glm::dvec3 a = mesh.positions[mesh.indices[3 * t]];
    const glm::dvec3 b = mesh.positions[mesh.indices[3 * t + 1]];
    const glm::dvec3 c = mesh.positions[mesh.indices[3 * t + 2]];
    return 0.5 * glm::dot(glm::cross(b - a, c - a), normal);
}

/// An OBJ of one face through `corners` (x, y in the plane named by `plane`: "xy", "xz" with y
/// as 0, or "yz"), and the normal its counter-clockwise winding faces.
std::pair<std::string, glm::dvec3> planar(const std::vector<glm::dvec2>& corners,
                                          const std::string& plane, bool reversed = false)
{
    std::string text, face = "f";
    for (const glm::dvec2& p : corners) {
        const glm::dvec3 at = plane == "xy"   ? glm::dvec3(p.x, p.y, 0)
                              : plane == "xz" ? glm::dvec3(p.y, 0, p.x) // z, x: y up
                                              : glm::dvec3(0, p.x, p.y);
        text += fmt::format("v {} {} {}\n", at.x, at.y, at.z);
    }
    for (std::size_t k = 0; k < corners.size(); ++k)
        face += fmt::format(" {}", reversed ? corners.size() - k : k + 1);
    const glm::dvec3 normal = plane == "xy"   ? glm::dvec3(0, 0, 1)
                              : plane == "xz" ? glm::dvec3(0, 1, 0)
                                              : glm::dvec3(1, 0, 0);
    return {text + face + "\n", reversed ? -normal : normal};
}

/// The area `corners` enclose (shoelace).
double areaOf(const std::vector<glm::dvec2>& corners)
{
    double twice = 0;
    for (std::size_t k = 0; k < corners.size(); ++k) {
        const glm::dvec2 a = corners[k], b = corners[(k + 1) % corners.size()];
        twice += a.x * b.y - b.x * a.y;
    }
    return twice / 2;
}

TEST(ObjReader, ConcavePolygonsAreCutIntoTrianglesInsideThem)
{
    TempDir dir;
    // Each polygon (counter-clockwise) in each axis plane, both ways round: n - 2 triangles,
    // none facing away (a fan from a reflex corner would draw some outside it), covering its
    // area once.
    std::vector<glm::dvec2> comb = {{0, 0}, {39, 0}}; // 20 teeth: 80 corners
    for (int i = 19; i >= 0; --i) {
        comb.insert(comb.end(), {{2 * i + 1, 10}, {2 * i, 10}});
        if (i > 0)
            comb.insert(comb.end(), {{2 * i, 1}, {2 * i - 1, 1}});
    }
    const std::vector<std::pair<const char*, std::vector<glm::dvec2>>> polygons = {
        {"arrow", {{1, 1}, {0, 0}, {3, 0}, {3, 3}, {0, 3}, {1, 2}}},
        {"L", {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}}},
        {"dart", {{0, 0}, {0.5, 0.1}, {1, 0}, {0.5, 10}}}, // a concave quad
        // A square with a square hole, joined by a bridge whose ends are the same places.
        {"keyhole",
         {{0, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}, {1, 1}, {1, 3}, {3, 3}, {3, 1}, {1, 1}}},
        {"comb", comb}};
    for (const auto& [what, corners] : polygons)
        for (const char* plane : {"xy", "xz", "yz"})
            for (const bool reversed : {false, true}) {
                const auto [text, normal] = planar(corners, plane, reversed);
                SCOPED_TRACE(fmt::format("{} in {}{}", what, plane, reversed ? ", reversed" : ""));
                auto mesh = readObj(dir.write("polygon.obj", text));
                ASSERT_TRUE(mesh) << mesh.error();
                ASSERT_EQ(mesh.value().triangleCount(), corners.size() - 2);
                double area = 0;
                for (std::size_t t = 0; t < corners.size() - 2; ++t) {
                    const double a = signedArea(mesh.value(), t, normal);
                    EXPECT_GE(a, -1e-9) << "triangle " << t << " faces away";
                    area += a;
                }
                EXPECT_NEAR(area, areaOf(corners), 1e-4);
            }
    // A convex quad is cut along its shorter diagonal.
    auto kite = readObj(dir.write("kite.obj", "v 0 0 0\nv 1 -3 0\nv 2 0 0\nv 1 3 0\nf 1 2 3 4\n"));
    ASSERT_TRUE(kite) << kite.error();
    EXPECT_EQ(kite.value().indices, (std::vector<std::uint32_t>{0, 1, 2, 0, 2, 3}));
    // A convex polygon of many corners (a circle of 300).
    std::vector<glm::dvec2> circle;
    for (int k = 0; k < 300; ++k)
        circle.emplace_back(std::cos(2 * 3.14159265358979 * k / 300),
                            std::sin(2 * 3.14159265358979 * k / 300));
    auto round = readObj(dir.write("circle.obj", planar(circle, "xy").first));
    ASSERT_TRUE(round) << round.error();
    ASSERT_EQ(round.value().triangleCount(), 298u);
    for (std::size_t t = 0; t < 298; ++t)
        EXPECT_GT(signedArea(round.value(), t), 0.0) << t;
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

TEST(ObjReader, VerticesWithoutAColourAreWhiteBesideOnesWithAndWeightsAreNoColour)
{
    TempDir dir;
    auto mesh = readObj(dir.write("mixed.obj", "v 0 0 0 1\nv 1 0 0 0 0.5 0\nv 0 1 0\nf 1 2 3\n"));
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(
        mesh.value().colors,
        (std::vector<glm::u8vec4>{{255, 255, 255, 255}, {0, 128, 0, 255}, {255, 255, 255, 255}}));
    // x y z w: a weight, no colour.
    auto weights = readObj(dir.write("w.obj", "v 0 0 0 1\nv 1 0 0 1\nv 0 1 0 1\nf 1 2 3\n"));
    ASSERT_TRUE(weights) << weights.error();
    EXPECT_TRUE(weights.value().colors.empty());
}

TEST(ObjReader, CornersSharingAPositionKeepTheirOwnNormalsAndTexcoords)
{
    TempDir dir;
    // A cube corner's position with three normals: three vertices; the same triple twice: one.
    auto mesh = readObj(dir.write("split.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
                                               "vn 0 0 1\nvn 0 1 0\nvn 1 0 0\n"
                                               "vt 0 0\nvt 1 1\n"
                                               "f 1/1/1 2/1/1 3/1/1\nf 1/1/2 2/1/2 4/2/2\n"
                                               "f 1/2/3 3/1/3 4/2/3\nf 1/1/1 3/1/1 2/1/1\n"));
    ASSERT_TRUE(mesh) << mesh.error();
    const MeshData& m = mesh.value();
    EXPECT_EQ(m.vertexCount(), 9u);
    EXPECT_EQ(m.indices, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 2, 1}));
    EXPECT_EQ(m.normals[3], glm::vec3(0, 1, 0));
    EXPECT_EQ(m.normals[6], glm::vec3(1, 0, 0));
    EXPECT_EQ(m.texcoords[6], glm::vec2(1, 1));
    EXPECT_EQ(m.positions[6], glm::vec3(0, 0, 0));
    // A corner without a normal: none of them keeps one, and positions are shared again.
    auto partial = readObj(dir.write("partial.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\n"
                                                    "vn 0 0 -1\nf 1//1 2//1 3//1\nf 1//2 3 2\n"));
    ASSERT_TRUE(partial) << partial.error();
    EXPECT_EQ(partial.value().vertexCount(), 3u);
    EXPECT_TRUE(partial.value().normals.empty());
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
    EXPECT_NE(mesh.warnings()[0].find("its material library gone.mtl cannot be read"),
              std::string::npos)
        << mesh.warnings()[0];
    EXPECT_NE(mesh.warnings()[0].find("gone.mtl: no such file"), std::string::npos)
        << mesh.warnings()[0];
}

TEST(ObjReader, EveryLibraryOfAMtllibLineCountsAndAnUnknownMaterialIsAWarning)
{
    TempDir dir;
    dir.write("a.mtl", "newmtl plain\n");
    dir.write("b.mtl", "newmtl wood\nmap_Kd wood.png\nnewmtl plain\nmap_Kd other.png\n");
    auto mesh = readObj(dir.write("m.obj", "mtllib a.mtl b.mtl\nusemtl wood\n" + texturedQuad));
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_TRUE(mesh.warnings().empty()) << mesh.warnings()[0];
    EXPECT_EQ(mesh.value().textureFile, dir.path() / "wood.png");
    // a.mtl's plain (no texture) counts over b.mtl's: the faces have none.
    auto plain = readObj(dir.write("p.obj", "mtllib a.mtl b.mtl\nusemtl plain\n" + texturedQuad));
    ASSERT_TRUE(plain) << plain.error();
    EXPECT_TRUE(plain.value().textureFile.empty());
    // A library named again (here 300 times) is read once, and warns once.
    dir.write("warn.mtl", "map_Kd early.png\nnewmtl wood\n");
    std::string again = "mtllib";
    for (int i = 0; i < 300; ++i)
        again += " warn.mtl";
    auto repeated = readObj(dir.write("r.obj", again + "\nusemtl wood\n" + texturedQuad));
    ASSERT_TRUE(repeated) << repeated.error();
    EXPECT_EQ(repeated.warnings().size(), 1u);
    auto unknown = readObj(
        dir.write("u.obj", "mtllib a.mtl\nusemtl nothing\nusemtl nothing\n" + texturedQuad));
    ASSERT_TRUE(unknown) << unknown.error();
    ASSERT_EQ(unknown.warnings().size(), 1u);
    EXPECT_EQ(unknown.warnings()[0], (dir.path() / "u.obj").string() +
                                         ":2: material 'nothing' is in none of its material "
                                         "libraries; its faces are drawn without it");
}

TEST(ObjReader, BlendersMaterialTextureIsLoadedWithTheMesh)
{
    // Blender 4's OBJ export: mtllib, usemtl Material, map_Kd textures/quad_blue.png (relative
    // to the .mtl), an image not named after the OBJ.
    const fs::path obj = textured / "blender" / "quad.obj";
    auto read = readObj(obj);
    ASSERT_TRUE(read) << read.error();
    EXPECT_EQ(read.value().textureFile, textured / "blender" / "textures" / "quad_blue.png");
    auto mesh = loadMesh(obj);
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_TRUE(mesh.warnings().empty()) << mesh.warnings()[0];
    EXPECT_EQ(mesh.value().triangleCount(), 2u);
    ASSERT_EQ(mesh.value().texture.width, 4);
    ASSERT_EQ(mesh.value().texture.height, 4);
    EXPECT_EQ(firstPixel(mesh.value().texture), glm::u8vec4(20, 40, 230, 255));
    EXPECT_EQ(mesh.value().textureFile, read.value().textureFile);
}

TEST(ObjReader, Open3dsMaterialTextureIsLoadedWithTheMesh)
{
    // Open3D writes mesh.obj, mesh.mtl and mesh_0.png, one texture coordinate a corner.
    auto mesh = loadMesh(textured / "open3d" / "mesh.obj");
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_TRUE(mesh.warnings().empty()) << mesh.warnings()[0];
    EXPECT_EQ(mesh.value().textureFile, textured / "open3d" / "mesh_0.png");
    EXPECT_EQ(firstPixel(mesh.value().texture), glm::u8vec4(30, 220, 40, 255));
    EXPECT_EQ(mesh.value().texcoords.size(), mesh.value().vertexCount());
}

TEST(ObjReader, TexturePathsAreRelativeToTheMtl)
{
    TempDir dir;
    dir.write("scene/model.obj", "mtllib ../materials/lib.mtl\nusemtl wood\n" + texturedQuad);
    dir.write("materials/lib.mtl",
              "newmtl wood\nmap_Kd -s 1 1 1 -bm 0.5 ..\\images\\wood grain.png\n");
    fs::create_directories(dir.path() / "images");
    ASSERT_TRUE(
        writePng(dir.path() / "images" / "wood grain.png", solid(2, 2, {9, 8, 7, 255}), false));
    auto mesh = loadMesh(dir.path() / "scene" / "model.obj");
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_TRUE(mesh.warnings().empty()) << mesh.warnings()[0];
    EXPECT_EQ(firstPixel(mesh.value().texture), glm::u8vec4(9, 8, 7, 255));
}

TEST(ObjReader, AMissingOrBrokenTextureIsAWarningNamingIt)
{
    TempDir dir;
    dir.write("a.mtl", "newmtl m\nmap_Kd gone.png\n");
    auto missing = loadMesh(dir.write("a.obj", "mtllib a.mtl\nusemtl m\n" + texturedQuad));
    ASSERT_TRUE(missing) << missing.error();
    EXPECT_TRUE(missing.value().texture.pixels.empty());
    ASSERT_EQ(missing.warnings().size(), 1u);
    EXPECT_EQ(missing.warnings()[0], (dir.path() / "a.obj").string() +
                                         ": its texture is not drawn: " +
                                         (dir.path() / "gone.png").string() + ": no such file");
    dir.write("b.mtl", "newmtl m\nmap_Kd b.png\n");
    dir.write("b.png", "not a png");
    auto broken = loadMesh(dir.write("b.obj", "mtllib b.mtl\nusemtl m\n" + texturedQuad));
    ASSERT_TRUE(broken) << broken.error();
    ASSERT_EQ(broken.warnings().size(), 1u);
    EXPECT_NE(broken.warnings()[0].find("b.png: cannot read image"), std::string::npos)
        << broken.warnings()[0];
}

TEST(ObjReader, TextureCoordinatesWithoutATextureAreAWarning)
{
    TempDir dir;
    auto mesh = loadMesh(dir.write("bare.obj", texturedQuad));
    ASSERT_TRUE(mesh) << mesh.error();
    ASSERT_EQ(mesh.warnings().size(), 1u);
    EXPECT_NE(mesh.warnings()[0].find("bare.obj: has texture coordinates but no texture"),
              std::string::npos)
        << mesh.warnings()[0];
    // The image beside it with its name is its texture (what capture pipelines write).
    ASSERT_TRUE(writePng(dir.path() / "bare.png", solid(1, 1, {1, 2, 3, 255}), false));
    auto beside = loadMesh(dir.path() / "bare.obj");
    ASSERT_TRUE(beside) << beside.error();
    EXPECT_TRUE(beside.warnings().empty());
    EXPECT_EQ(firstPixel(beside.value().texture), glm::u8vec4(1, 2, 3, 255));
}

TEST(ObjReader, FacesOfSeveralTexturesAreDrawnWithoutOneAndSaySo)
{
    TempDir dir;
    dir.write("two.mtl", "newmtl a\nmap_Kd a.png\nnewmtl b\nmap_Kd b.png\n");
    auto mesh = readObj(dir.write("two.obj", "mtllib two.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\n"
                                             "v 0 1 0\nvt 0 0\nusemtl a\nf 1/1 2/1 3/1\n"
                                             "usemtl b\nf 1/1 3/1 4/1\nf 2/1 3/1 4/1\n"));
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_TRUE(mesh.value().textureFile.empty());
    ASSERT_EQ(mesh.warnings().size(), 1u);
    EXPECT_NE(mesh.warnings()[0].find("two.obj: drawn without a texture: its materials give its "
                                      "faces a.png (1 face), b.png (2 faces)"),
              std::string::npos)
        << mesh.warnings()[0];
}

TEST(MeshLoader, AGivenTextureWinsAndFailsTheLoadWhenItCannotBeRead)
{
    TempDir dir;
    dir.write("f.mtl", "newmtl m\nmap_Kd f.png\n");
    ASSERT_TRUE(writePng(dir.path() / "f.png", solid(1, 1, {1, 1, 1, 255}), false));
    ASSERT_TRUE(writePng(dir.path() / "given.png", solid(1, 1, {200, 0, 0, 255}), false));
    const fs::path obj = dir.write("f.obj", "mtllib f.mtl\nusemtl m\n" + texturedQuad);
    auto given = loadMesh(obj, {dir.path() / "given.png"});
    ASSERT_TRUE(given) << given.error();
    EXPECT_EQ(firstPixel(given.value().texture), glm::u8vec4(200, 0, 0, 255));
    auto gone = loadMesh(obj, {dir.path() / "gone.png"});
    ASSERT_FALSE(gone);
    EXPECT_NE(gone.error().find("gone.png: no such file (the texture of "), std::string::npos)
        << gone.error();
    // A texture for a mesh that cannot show one is a warning.
    auto points = loadMesh(dir.write("p.obj", "v 0 0 0\nv 1 0 0\n"), {dir.path() / "f.png"});
    ASSERT_TRUE(points) << points.error();
    ASSERT_EQ(points.warnings().size(), 1u);
    EXPECT_NE(points.warnings()[0].find("texture f.png not drawn: points are not textured"),
              std::string::npos)
        << points.warnings()[0];
    auto plain = loadMesh(dir.write("plain.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"),
                          {dir.path() / "f.png"});
    ASSERT_TRUE(plain) << plain.error();
    ASSERT_EQ(plain.warnings().size(), 1u);
    EXPECT_NE(plain.warnings()[0].find("texture f.png not drawn: the mesh has no texture "
                                       "coordinates"),
              std::string::npos)
        << plain.warnings()[0];
}

TEST(MeshLoader, AFifoOrADeviceNamedLikeAMeshIsRefusedNotRead)
{
    TempDir dir;
    // With no writer, opening a FIFO for reading blocks forever; /dev/zero never ends.
    const fs::path fifo = dir.path() / "frame.ply";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto fromFifo = loadMesh(fifo);
    ASSERT_FALSE(fromFifo);
    EXPECT_NE(fromFifo.error().find("frame.ply: is a FIFO (named pipe), not a regular file"),
              std::string::npos)
        << fromFifo.error();
    const fs::path zero = dir.path() / "z.obj";
    fs::create_symlink("/dev/zero", zero);
    auto fromZero = loadMesh(zero);
    ASSERT_FALSE(fromZero);
    EXPECT_NE(fromZero.error().find("z.obj: is a character device, not a regular file"),
              std::string::npos)
        << fromZero.error();
    // A texture that is a FIFO is refused too.
    const fs::path image = dir.path() / "t.png";
    ASSERT_EQ(::mkfifo(image.c_str(), 0600), 0);
    auto withFifoTexture = loadMesh(dir.write("t.obj", texturedQuad));
    ASSERT_TRUE(withFifoTexture) << withFifoTexture.error();
    EXPECT_TRUE(withFifoTexture.value().texture.pixels.empty());
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
    // Each names its line (tinyobjloader, the reader before, made a triangle of these).
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

TEST(ObjReader, NonFiniteAndFarVerticesAreDroppedWithTheFacesThatUseThem)
{
    TempDir dir;
    // A point cloud: the NaN, the infinite and the far vertex dropped, counted once.
    auto cloud = readObj(dir.write("cloud.obj", "v 0 0 0\nv nan 0 0\nv 1 2 3\nv 0 inf 0\n"
                                                "v 1e20 0 0\n"));
    ASSERT_TRUE(cloud) << cloud.error();
    EXPECT_EQ(cloud.value().positions, (std::vector<glm::vec3>{{0, 0, 0}, {1, 2, 3}}));
    ASSERT_EQ(cloud.warnings().size(), 1u);
    EXPECT_NE(cloud.warnings()[0].find("cloud.obj: dropped 3 of 5 points (2 with NaN or "
                                       "infinite coordinates, 1 beyond"),
              std::string::npos)
        << cloud.warnings()[0];
    // A mesh: the face using the NaN vertex goes, the other stays.
    auto mesh = readObj(dir.write("nan.obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nv 1 1 0\n"
                                             "f 1 2 3\nf 1 4 3\n"));
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().triangleCount(), 1u);
    EXPECT_EQ(mesh.value().vertexCount(), 3u);
    ASSERT_EQ(mesh.warnings().size(), 1u);
    EXPECT_NE(mesh.warnings()[0].find("nan.obj: dropped 1 of 4 vertices (1 with NaN or infinite "
                                      "coordinates) and the 1 triangle using them"),
              std::string::npos)
        << mesh.warnings()[0];
    // A mesh whose only triangle uses a dropped vertex is empty, and says so.
    auto empty = readObj(dir.write("empty.obj", "v 0 0 0\nv 0 -inf 0\nv 0 1 0\nf 1 2 3\n"));
    ASSERT_TRUE(empty) << empty.error();
    EXPECT_TRUE(empty.value().positions.empty());
    ASSERT_EQ(empty.warnings().size(), 1u);
    EXPECT_NE(empty.warnings()[0].find("no triangle is left, the mesh is empty"), std::string::npos)
        << empty.warnings()[0];
    // "0e999" is 0 (tinyobjloader, the reader before, made it 0 * inf: NaN, and dropped it).
    auto zero = readObj(dir.write("zero.obj", "v 1 1 1\nv 0e999 0 -0e-999\nv 0 1 0\nf 1 2 3\n"));
    ASSERT_TRUE(zero) << zero.error();
    EXPECT_TRUE(zero.warnings().empty()) << zero.warnings()[0];
    ASSERT_EQ(zero.value().positions.size(), 3u);
    EXPECT_EQ(zero.value().positions[1], glm::vec3(0, 0, 0));
}

TEST(ObjReaderErrors, ElementsWithTooFewNumbersAreNamed)
{
    TempDir dir;
    const std::pair<const char*, const char*> cases[] = {
        {"v 0 0 0\nv 1 0\nv 0 1 0\nf 1 2 3\n", "a vertex needs 3 numbers, this one has 2"},
        {"v 0 0 0\nv\n", "a vertex needs 3 numbers, this one has 0"},
        {"v 0 0 0\nvn 0 1\n", "a normal needs 3 numbers, this one has 2"},
        {"v 0 0 0\nvt\n", "a texture coordinate needs 1 number, this one has 0"}};
    for (const auto& [text, message] : cases)
        expectError(readObj(dir.write("short.obj", text)), std::string("short.obj:2: ") + message);
    // vt's v is optional (0).
    auto u = readObj(dir.write("u.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0.5\nf 1/1 2/1 3/1\n"));
    ASSERT_TRUE(u) << u.error();
    EXPECT_EQ(u.value().texcoords[0], glm::vec2(0.5f, 0));
}

TEST(ObjReader, AByteOrderMarkAndCommentsAfterNumbersAreRead)
{
    TempDir dir;
    auto mesh = readObj(dir.write("bom.obj", "\xEF\xBB\xBFv 0 0 0 # origin\nv 1 0 0\nv 0 1 0\n"
                                             "vn 0 0 1 #up\nf 1//1 2//1 3//1 # one\n"));
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().positions, (std::vector<glm::vec3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}));
    EXPECT_EQ(mesh.value().normals[0], glm::vec3(0, 0, 1));
}

TEST(ObjReader, LinesEndInLineFeedsCarriageReturnsOrBoth)
{
    TempDir dir;
    for (const char* end : {"\n", "\r\n", "\r"}) {
        std::string text;
        for (const char* line : {"# a triangle", "v 0 0 0", "v 1 0 0", "v 0 1 0", "f 1 2 3"})
            text += std::string(line) + end;
        auto mesh = readObj(dir.write("t.obj", text));
        ASSERT_TRUE(mesh) << mesh.error();
        EXPECT_EQ(mesh.value().triangleCount(), 1u);
        EXPECT_EQ(mesh.value().positions[1], glm::vec3(1, 0, 0));
        // Line numbers in messages count a "\r\n" once.
        expectError(readObj(dir.write("bad.obj", text + "v 1 x 0" + end)),
                    "bad.obj:6: 'x' is malformed (not a number)");
    }
}

TEST(ObjReaderErrors, NonFinite)
{
    TempDir dir;
    // Normals, texture coordinates and colours that are no numbers are errors.
    expectError(readObj(dir.write("vn.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn nan 0 1\n"
                                            "f 1//1 2//1 3//1\n")),
                "vn.obj:4: 'nan' is a non-finite coordinate");
    expectError(readObj(dir.write("rgb.obj", "v 0 0 0 1 inf 1\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")),
                "rgb.obj:1: 'inf' is a non-finite colour");
    // Malformed and out-of-range tokens are named as such.
    expectError(readObj(dir.write("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1.0.0 0\nf 1 2 3\n")),
                "bad.obj:3: '1.0.0' is malformed (not a number)");
    expectError(readObj(dir.write("big.obj", "v 0 0 0\nv 1e999 0 0\nv 0 1 0\nf 1 2 3\n")),
                "big.obj:2: '1e999' is out of range");
    // "0e999" is 0 in a colour too (tinyobjloader made it NaN).
    auto colour = readObj(
        dir.write("colour.obj", "v 0 0 0 1 1 1\nv 1 0 0 0e999 1 1\nv 0 1 0 1 1 1\nf 1 2 3\n"));
    ASSERT_TRUE(colour) << colour.error();
    ASSERT_EQ(colour.value().colors.size(), 3u);
    EXPECT_EQ(colour.value().colors[1], glm::u8vec4(0, 255, 255, 255));
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
