// glTF 2.0 files written to the specification's layout by tests/data/gltf/make_gltf.py (each
// value known here), by Open3D and by assimp, read through io::readGltf and io::loadMesh: node
// transforms, strips and fans, points, quantized and normalized attributes, embedded, data: URI
// and external buffers and textures, Draco primitives, sequences of .glb frames; each kind of bad
// file gives one clear message.
#include "engine/io/GltfReader.h"

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/core/File.h"
#include "engine/io/DracoReader.h"
#include "engine/io/MeshLoader.h"
#include "engine/io/ObjReader.h"
#include "engine/io/PlyReader.h"
#include "tests/support/SequenceFrame.h"
#include "tests/support/TempDir.h"

namespace tandem::io {
namespace {

namespace fs = std::filesystem;

const fs::path gltfData = fs::path(TANDEM_SOURCE_DIR) / "tests" / "data" / "gltf";

std::string textOf(const fs::path& file)
{
    auto bytes = readFile(file);
    EXPECT_TRUE(bytes) << bytes.error();
    return bytes ? std::string(bytes.value().begin(), bytes.value().end()) : std::string();
}

/// The file read by readGltf, which must take it without a warning.
MeshData readClean(const fs::path& file)
{
    auto mesh = readGltf(file);
    EXPECT_TRUE(mesh) << mesh.error();
    EXPECT_TRUE(mesh.warnings().empty()) << mesh.warnings()[0];
    return mesh ? std::move(mesh.value()) : MeshData{};
}

/// A linear value in 0..1 as an sRGB byte, from the sRGB definition (IEC 61966-2-1).
int srgbByte(double linear)
{
    const double s =
        linear <= 0.0031308 ? 12.92 * linear : 1.055 * std::pow(linear, 1 / 2.4) - 0.055;
    return static_cast<int>(std::lround(255.0 * s));
}

glm::u8vec4 rgba(int r, int g, int b, int a)
{
    return {r, g, b, a};
}

void expectNear(const glm::vec3& actual, const glm::vec3& expected, float tolerance = 1e-5f)
{
    EXPECT_NEAR(actual.x, expected.x, tolerance) << "y " << actual.y << " z " << actual.z;
    EXPECT_NEAR(actual.y, expected.y, tolerance) << "x " << actual.x << " z " << actual.z;
    EXPECT_NEAR(actual.z, expected.z, tolerance) << "x " << actual.x << " y " << actual.y;
}

TEST(GltfReader, PointsWithNormalsAndNormalizedByteColours)
{
    const MeshData cloud = readClean(gltfData / "points.glb");
    ASSERT_EQ(cloud.positions.size(), 1000u);
    EXPECT_TRUE(cloud.isPointCloud());
    ASSERT_EQ(cloud.normals.size(), 1000u);
    ASSERT_EQ(cloud.colors.size(), 1000u);
    EXPECT_TRUE(cloud.texcoords.empty());
    for (int i : {0, 1, 7, 500, 999}) {
        const double t = i / 1000.0;
        // The node's translation (10, 0, 0) applied.
        expectNear(cloud.positions[static_cast<std::size_t>(i)],
                   glm::vec3(10 + std::cos(i * 0.1) * (1 + t), std::sin(i * 0.1) * (1 + t), t));
        EXPECT_EQ(cloud.normals[static_cast<std::size_t>(i)],
                  i % 2 ? glm::vec3(0, 0, 1) : glm::vec3(1, 0, 0));
        // glTF's colours are linear: stored as the sRGB bytes the renderer decodes; alpha as is.
        EXPECT_EQ(cloud.colors[static_cast<std::size_t>(i)],
                  rgba(srgbByte((i % 256) / 255.0), srgbByte((3 * i % 256) / 255.0),
                       srgbByte((255 - i % 256) / 255.0), i % 5 ? 255 : 128))
            << i;
    }
}

TEST(GltfReader, NodesPlaceEachInstanceWithItsTransform)
{
    const MeshData mesh = readClean(gltfData / "scene.glb");
    // The default scene (1): node 0 (scale 2) with children 1 and 2, then node 3 (mirrored);
    // each draws the unit quad, 4 vertices and 2 triangles.
    ASSERT_EQ(mesh.positions.size(), 12u);
    ASSERT_EQ(mesh.indices.size(), 18u);
    const glm::vec3 quad[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    for (int i = 0; i < 4; ++i) {
        const glm::vec3 q = quad[i];
        // Child 1: 2 × (translate (5, 0, 0) × rotate 90° about z): (x, y) → (2(5 - y), 2x).
        expectNear(mesh.positions[static_cast<std::size_t>(i)],
                   glm::vec3(2 * (5 - q.y), 2 * q.x, 0));
        // Child 2: 2 × translate (0, 0, 3).
        expectNear(mesh.positions[static_cast<std::size_t>(4 + i)], glm::vec3(2 * q.x, 2 * q.y, 6));
        // Node 3: scale (-1, 1, 1).
        expectNear(mesh.positions[static_cast<std::size_t>(8 + i)], glm::vec3(-q.x, q.y, 0));
    }
    for (std::size_t v = 0; v < 12; ++v)
        expectNear(mesh.normals[v], glm::vec3(0, 0, 1));
    // Every triangle still faces its normal, the mirrored ones wound back.
    for (std::size_t t = 0; t < 6; ++t) {
        const auto a = mesh.positions[mesh.indices[3 * t]],
                   b = mesh.positions[mesh.indices[3 * t + 1]],
                   c = mesh.positions[mesh.indices[3 * t + 2]];
        EXPECT_GT(glm::dot(glm::cross(b - a, c - a), mesh.normals[mesh.indices[3 * t]]), 0.0f)
            << "triangle " << t;
        EXPECT_GE(mesh.indices[3 * t], 4 * (t / 2));
        EXPECT_LT(mesh.indices[3 * t], 4 * (t / 2 + 1));
    }
    // The base colour factor (1, 0.5, 1) as sRGB bytes; the texture's coordinates with v flipped
    // to tandem's bottom-left origin (the file gives (0, 1) for the quad's first corner).
    ASSERT_EQ(mesh.colors.size(), 12u);
    EXPECT_EQ(mesh.colors[0], rgba(255, srgbByte(0.5), 255, 255));
    ASSERT_EQ(mesh.texcoords.size(), 12u);
    EXPECT_EQ(mesh.texcoords[0], glm::vec2(0, 0));
    EXPECT_EQ(mesh.texcoords[2], glm::vec2(1, 1));
    EXPECT_EQ(mesh.texcoords[7], glm::vec2(0, 1));
    // The embedded PNG (a buffer view), rows top first: red rises to the right, green downwards.
    ASSERT_EQ(mesh.texture.width, 4);
    ASSERT_EQ(mesh.texture.height, 4);
    EXPECT_EQ(mesh.texture.pixels[0], 0);
    EXPECT_EQ(mesh.texture.row(3)[3 * 4 + 0], 255);
    EXPECT_EQ(mesh.texture.row(3)[3 * 4 + 1], 255);
    EXPECT_EQ(mesh.texture.row(0)[3 * 4 + 1], 0);
    EXPECT_EQ(mesh.texture.row(2)[1 * 4 + 2], 40);
}

TEST(GltfReader, StripsFansQuantizedPositionsAndAnExternalBuffer)
{
    const MeshData mesh = readClean(gltfData / "strips.gltf");
    // The strip's 6 vertices (4 triangles), then the fan's 5 (3 triangles); shorts × 0.01.
    ASSERT_EQ(mesh.positions.size(), 11u);
    for (int i = 0; i < 6; ++i)
        expectNear(mesh.positions[static_cast<std::size_t>(i)],
                   glm::vec3(static_cast<float>(i / 2), static_cast<float>(i % 2), 0));
    expectNear(mesh.positions[6], glm::vec3(0, 0, 2));
    expectNear(mesh.positions[8], glm::vec3(0.87f, 0.47f, 2));
    const std::vector<std::uint32_t> expected = {0, 1, 2, 1, 3, 2, 2, 3, 4,  3, 5,
                                                 4, 7, 8, 6, 8, 9, 6, 9, 10, 6};
    EXPECT_EQ(mesh.indices, expected);
    // No normals in the file: area-weighted ones; the strip turns to -z, as its first triangle.
    ASSERT_EQ(mesh.normals.size(), 11u);
    expectNear(mesh.normals[0], glm::vec3(0, 0, -1));
    expectNear(mesh.normals[6], glm::vec3(0, 0, 1));
    // The strip's material colour; the fan has no material: white.
    ASSERT_EQ(mesh.colors.size(), 11u);
    EXPECT_EQ(mesh.colors[0], rgba(srgbByte(0.5), srgbByte(0.25), 255, 255));
    EXPECT_EQ(mesh.colors[6], rgba(255, 255, 255, 255));
    EXPECT_TRUE(mesh.texcoords.empty());
}

TEST(GltfReader, DataUrisForTheBufferAndTheTexture)
{
    const MeshData mesh = readClean(gltfData / "datauri.gltf");
    ASSERT_EQ(mesh.positions.size(), 4u);
    EXPECT_EQ(mesh.indices, (std::vector<std::uint32_t>{0, 1, 2, 2, 1, 3}));
    EXPECT_EQ(mesh.colors[0], rgba(255, 0, 0, 255));
    EXPECT_EQ(mesh.colors[3], rgba(srgbByte(0.5), srgbByte(0.5), srgbByte(0.5), 255));
    // Normalized unsigned shorts: (0, 65535) is (0, 1), flipped to (0, 0).
    EXPECT_EQ(mesh.texcoords[0], glm::vec2(0, 0));
    EXPECT_EQ(mesh.texcoords[3], glm::vec2(1, 1));
    EXPECT_EQ(mesh.texture.width, 4);
    EXPECT_EQ(mesh.texture.row(3)[0 * 4 + 1], 255);
}

TEST(GltfReader, DracoCompressedPrimitive)
{
    const MeshData mesh = readClean(gltfData / "draco.glb");
    auto sheet = readDraco(fs::path(TANDEM_SOURCE_DIR) / "tests" / "data" / "draco" / "sheet.drc");
    ASSERT_TRUE(sheet) << sheet.error();
    ASSERT_EQ(mesh.positions.size(), sheet.value().positions.size());
    EXPECT_EQ(mesh.indices, sheet.value().indices);
    for (std::size_t i = 0; i < mesh.positions.size(); ++i)
        ASSERT_EQ(mesh.positions[i], sheet.value().positions[i] + glm::vec3(0, 0, 1)) << i;
}

TEST(GltfReader, Open3dGlbAgreesWithOpen3dPly)
{
    const MeshData glb = readClean(gltfData / "open3d_sphere.glb");
    auto ply = readPly(gltfData / "open3d_sphere.ply");
    ASSERT_TRUE(ply) << ply.error();
    const MeshData& source = ply.value();
    ASSERT_GT(source.positions.size(), 20u);
    ASSERT_EQ(glb.positions.size(), source.positions.size());
    EXPECT_EQ(glb.indices, source.indices);
    ASSERT_EQ(glb.colors.size(), source.colors.size());
    for (std::size_t i = 0; i < glb.positions.size(); ++i) {
        expectNear(glb.positions[i], source.positions[i]);
        expectNear(glb.normals[i], source.normals[i], 1e-5f);
        // Open3D writes its colours into COLOR_0, which glTF defines as linear: read as linear.
        for (int c = 0; c < 3; ++c)
            EXPECT_NEAR(glb.colors[i][c], srgbByte(source.colors[i][c] / 255.0), 1) << i;
    }
}

TEST(GltfReader, AssimpGlbAgreesWithItsObjSource)
{
    const MeshData glb = readClean(gltfData / "assimp_knot.glb");
    auto obj =
        readObj(fs::path(TANDEM_SOURCE_DIR) / "tests" / "data" / "real_world" / "knot_assimp.obj");
    ASSERT_TRUE(obj) << obj.error();
    EXPECT_EQ(glb.triangleCount(), obj.value().triangleCount());
    const Bounds a = glb.bounds(), b = obj.value().bounds();
    expectNear(a.min, b.min);
    expectNear(a.max, b.max);
}

TEST(GltfReader, LoadsByExtensionByMagicAndAsASequence)
{
    test::TempDir dir;
    const std::string points = textOf(gltfData / "points.glb");
    dir.write("seq/frame_0001.glb", textOf(gltfData / "scene.glb"));
    dir.write("seq/frame_0002.glb", points);
    auto byExtension = loadMesh(gltfData / "scene.glb");
    ASSERT_TRUE(byExtension) << byExtension.error();
    EXPECT_EQ(byExtension.value().texture.width, 4); // the embedded texture, kept
    auto byMagic = loadMesh(dir.write("capture.bin", points));
    ASSERT_TRUE(byMagic) << byMagic.error();
    EXPECT_EQ(byMagic.value().positions.size(), 1000u);

    const auto frame = test::loadSequenceFrame(dir.path() / "seq", 1, "frame_0002.glb");
    EXPECT_EQ(frame.frames, 2);
    EXPECT_NE(frame.description.find("2 glTF files"), std::string::npos) << frame.description;
    ASSERT_EQ(frame.view.positions.size(), 1000u);
    expectNear(frame.view.positions[0], glm::vec3(11, 0, 0));
}

TEST(GltfReader, AnImageFileBesideTheGltfIsReadByLoadMesh)
{
    test::TempDir dir;
    std::string gltf = textOf(gltfData / "datauri.gltf");
    const auto start = gltf.find("data:image/png;base64,");
    const auto end = gltf.find('"', start);
    ASSERT_NE(start, std::string::npos);
    gltf.replace(start, end - start, "texture%20one.png"); // a URI: %20 is a space
    const auto file = dir.write("mesh.gltf", gltf);
    // The PNG from the data: URI's bytes, into the file the URI names.
    auto decoded = readGltf(gltfData / "datauri.gltf");
    ASSERT_TRUE(decoded);
    ASSERT_TRUE(writePng(dir.path() / "texture one.png", decoded.value().texture, false));
    auto mesh = loadMesh(file);
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_TRUE(mesh.warnings().empty()) << mesh.warnings()[0];
    EXPECT_EQ(mesh.value().texture.pixels, decoded.value().texture.pixels);
}

/// readGltf's message for `text` as a .gltf file in `dir`, or "" when it reads.
std::string error(const test::TempDir& dir, const std::string& text, const char* name = "bad.gltf")
{
    const fs::path file = dir.write(name, text);
    auto mesh = readGltf(file);
    return mesh ? std::string() : mesh.error();
}

/// `bytes` in base64, as a data: URI holds them.
std::string base64(const std::vector<std::uint8_t>& bytes)
{
    static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const std::size_t n = bytes.size();
    std::string out;
    for (std::size_t i = 0; i < n; i += 3) {
        const std::uint32_t v =
            (bytes[i] << 16) | (i + 1 < n ? bytes[i + 1] << 8 : 0) | (i + 2 < n ? bytes[i + 2] : 0);
        out += digits[(v >> 18) & 63];
        out += digits[(v >> 12) & 63];
        out += i + 1 < n ? digits[(v >> 6) & 63] : '=';
        out += i + 2 < n ? digits[v & 63] : '=';
    }
    return out;
}

/// A .gltf of `count` points in a data: URI, drawn by the nodes `nodes` (JSON) lists.
std::string cloudGltf(int count, const std::string& nodes, const std::string& scene = "[0]")
{
    std::vector<float> xyz;
    for (int i = 0; i < count; ++i)
        xyz.insert(xyz.end(), {static_cast<float>(i), 0.0f, 0.0f});
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(xyz.data());
    const std::size_t n = xyz.size() * sizeof(float);
    return fmt::format(R"({{"asset":{{"version":"2.0"}},
"buffers":[{{"byteLength":{0},"uri":"data:application/octet-stream;base64,{1}"}}],
"bufferViews":[{{"buffer":0,"byteLength":{0}}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":{2},"type":"VEC3"}}],
"meshes":[{{"primitives":[{{"mode":0,"attributes":{{"POSITION":0}}}}]}}],
"nodes":{3},"scenes":[{{"nodes":{4}}}]}})",
                       n, base64({bytes, bytes + n}), count, nodes, scene);
}

/// A .gltf of one triangle drawn `triangles` times (byte indices), under `nodes`.
std::string triangleGltf(int triangles, const std::string& nodes, const std::string& scene)
{
    const float xyz[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    std::vector<std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(xyz),
                                    reinterpret_cast<const std::uint8_t*>(xyz) + sizeof xyz);
    for (int t = 0; t < triangles; ++t)
        bytes.insert(bytes.end(), {0, 1, 2});
    return fmt::format(R"({{"asset":{{"version":"2.0"}},
"buffers":[{{"byteLength":{0},"uri":"data:application/octet-stream;base64,{1}"}}],
"bufferViews":[{{"buffer":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":{2}}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}},
{{"bufferView":1,"componentType":5121,"count":{2},"type":"SCALAR"}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1}}]}}],
"nodes":{3},"scenes":[{{"nodes":{4}}}]}})",
                       bytes.size(), base64(bytes), 3 * triangles, nodes, scene);
}

TEST(GltfReader, BadFilesGiveOneClearMessage)
{
    test::TempDir dir;
    ASSERT_EQ(error(dir, cloudGltf(3, R"([{"mesh":0}])")), "");
    const auto contains = [](const std::string& message, const std::string& part) {
        EXPECT_NE(message.find(part), std::string::npos)
            << "the message: '" << message << "'\nexpected in it: '" << part << "'";
    };
    // Not glTF at all, and a GLB cut short.
    contains(error(dir, "{ not json"), "bad.gltf: not a glTF file tandem can read");
    contains(error(dir, textOf(gltfData / "scene.glb").substr(0, 100), "cut.glb"),
             "cut.glb: not a glTF file tandem can read");
    contains(error(dir, ""), "bad.gltf: empty file");
    // An accessor reaching past its buffer view; a buffer view past its buffer.
    std::string text = cloudGltf(3, R"([{"mesh":0}])");
    std::string longer = text;
    longer.replace(longer.find("\"count\":3"), 9, "\"count\":4");
    contains(error(dir, longer), "bad.gltf: mesh 0 primitive 0 POSITION (accessor 0): 4 elements "
                                 "from byte 0 reach past its buffer view's 36 bytes");
    std::string view = text;
    view.replace(view.find("\"buffer\":0,"), 11, "\"buffer\":0,\"byteOffset\":8,");
    contains(error(dir, view), "buffer view 0 (bytes 8 to 44) reaches past its buffer's 36 bytes");
    // A node naming a mesh that is not there; an extension the file needs that is not read.
    contains(error(dir, cloudGltf(3, R"([{"mesh":3}])")),
             "bad.gltf: node 0 names mesh 3; the file has 1");
    std::string required = text;
    required.insert(1, R"("extensionsRequired":["EXT_meshopt_compression"],)");
    contains(error(dir, required),
             "requires the glTF extension EXT_meshopt_compression, which tandem does not read");
    // An index past the vertices.
    std::string indexed = textOf(gltfData / "strips.gltf");
    dir.write("strips.bin", textOf(gltfData / "strips.bin"));
    std::string bin = textOf(gltfData / "strips.bin");
    bin[bin.size() - 1] = 9; // the fan's last index
    dir.write("badindex.bin", bin);
    indexed.replace(indexed.find("strips.bin"), 10, "badindex.bin");
    contains(error(dir, indexed), "bad.gltf: mesh 0 primitive 1: index 9 (number 4) past its 5 "
                                  "vertices");
    // A buffer file that is missing, and one outside the folder's reach through the working
    // directory (tinygltf's own fallback) is not looked for either.
    std::string missing = textOf(gltfData / "strips.gltf");
    missing.replace(missing.find("strips.bin"), 10, "gone.bin");
    contains(error(dir, missing), "File not found : gone.bin");
    // A URI leaving the glTF's folder, though the file is there.
    std::string up = textOf(gltfData / "strips.gltf");
    up.replace(up.find("strips.bin"), 10, "../strips.bin");
    dir.write("inner/up.gltf", up);
    auto escaped = readGltf(dir.path() / "inner" / "up.gltf");
    ASSERT_FALSE(escaped);
    contains(escaped.error(), "File not found : ../strips.bin");
    // JSON nesting deeper than tinygltf's recursion can take, refused before it parses.
    contains(error(dir, R"({"asset":{"version":"2.0","extras":)" + std::string(100000, '[') + "1" +
                            std::string(100000, ']') + "}}"),
             "bad.gltf: its JSON nests more than 256 levels deep");
    // Nothing to draw.
    contains(error(dir, cloudGltf(3, "[]", "[]")), "bad.gltf: nothing to draw");
    // A thousand nodes each drawing a 3000-point cloud ask for more vertices than the file's
    // bytes allow: refused before any is copied.
    std::string nodes = "[";
    std::string roots = "[";
    for (int i = 0; i < 1000; ++i) {
        nodes += std::string(i ? "," : "") + R"({"mesh":0})";
        roots += fmt::format("{}{}", i ? "," : "", i);
    }
    contains(error(dir, cloudGltf(3000, nodes + "]", roots + "]")),
             "bad.gltf: its scene draws 3000000 vertices from");
    // The same for triangles of few vertices: one triangle's 3 vertices, indexed 1000 times.
    ASSERT_EQ(error(dir, triangleGltf(1000, R"([{"mesh":0}])", "[0]")), "");
    contains(error(dir, triangleGltf(1000, nodes + "]", roots + "]")),
             "bad.gltf: its scene draws 1000000 triangles from");
}

TEST(GltfReader, AMirroredMeshWithoutNormalsGetsThemFacingOut)
{
    // One triangle facing +z, under a node mirroring x: wound back, and its made normals +z.
    test::TempDir dir;
    auto mesh = readGltf(
        dir.write("mirror.gltf", triangleGltf(1, R"([{"mesh":0,"scale":[-1,1,1]}])", "[0]")));
    ASSERT_TRUE(mesh) << mesh.error();
    ASSERT_EQ(mesh.value().normals.size(), 3u);
    for (const glm::vec3& n : mesh.value().normals)
        expectNear(n, glm::vec3(0, 0, 1));
    const auto& p = mesh.value().positions;
    const auto& i = mesh.value().indices;
    EXPECT_GT(glm::cross(p[i[1]] - p[i[0]], p[i[2]] - p[i[0]]).z, 0.0f);
}

TEST(GltfReader, OddButReadableFilesWarn)
{
    test::TempDir dir;
    // A node cycle (0 → 1 → 0): each node drawn once, with a warning.
    const auto file =
        dir.write("cycle.gltf", cloudGltf(3, R"([{"mesh":0,"children":[1]},{"children":[0]}])"));
    auto mesh = readGltf(file);
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().positions.size(), 3u);
    ASSERT_EQ(mesh.warnings().size(), 1u);
    EXPECT_EQ(mesh.warnings()[0],
              file.string() + ": 1 nodes reached more than once (a node with two parents, or a "
                              "cycle) drawn once");
    // A texture whose bytes are no image: the mesh is drawn without it.
    std::string gltf = textOf(gltfData / "datauri.gltf");
    const auto at = gltf.find("data:image/png;base64,") + 30;
    gltf.replace(at, 8, "AAAAAAAA");
    auto untextured = readGltf(dir.write("badpng.gltf", gltf));
    ASSERT_TRUE(untextured) << untextured.error();
    EXPECT_TRUE(untextured.value().texcoords.empty());
    ASSERT_EQ(untextured.warnings().size(), 1u);
    EXPECT_NE(untextured.warnings()[0].find("its texture is not drawn"), std::string::npos)
        << untextured.warnings()[0];
    // Non-finite and far points dropped, as PLY's are.
    std::string far = cloudGltf(3, R"([{"mesh":0,"scale":[1e9,1,1]}])");
    auto dropped = readGltf(dir.write("far.gltf", far));
    ASSERT_TRUE(dropped) << dropped.error();
    EXPECT_EQ(dropped.value().positions.size(), 2u);
    ASSERT_EQ(dropped.warnings().size(), 1u);
    EXPECT_NE(dropped.warnings()[0].find("dropped 1 of 3 points"), std::string::npos)
        << dropped.warnings()[0];
}

} // namespace
} // namespace tandem::io
