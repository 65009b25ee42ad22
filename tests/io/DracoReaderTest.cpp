// Draco files made with Debian's draco_encoder 1.5.5 from the PLY and OBJ sources beside them
// (tests/data/draco/make_draco.py), read against those sources; point clouds encoded here with
// libdraco's encoder for the colour types and normals draco_encoder does not write; loadMesh by
// extension and by magic, the texture beside a mesh, a sequence folder; each kind of bad file
// gives one clear message.
#include "engine/io/DracoReader.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <draco/compression/encode.h>
#include <draco/point_cloud/point_cloud_builder.h>
#include <gtest/gtest.h>

#include "engine/core/File.h"
#include "engine/io/MeshLoader.h"
#include "engine/io/ObjReader.h"
#include "engine/io/PlyReader.h"
#include "tests/support/SequenceFrame.h"
#include "tests/support/TempDir.h"

namespace tandem::io {
namespace {

namespace fs = std::filesystem;

const fs::path data = fs::path(TANDEM_SOURCE_DIR) / "tests" / "data" / "draco";

std::vector<std::uint8_t> bytesOf(const fs::path& file)
{
    auto bytes = readFile(file);
    EXPECT_TRUE(bytes) << bytes.error();
    return bytes ? bytes.value() : std::vector<std::uint8_t>{};
}

std::string textOf(const std::vector<std::uint8_t>& bytes)
{
    return {bytes.begin(), bytes.end()};
}

/// The file read by its format's reader, which must take it without a warning.
MeshData read(const fs::path& file)
{
    auto mesh = file.extension() == ".drc"   ? readDraco(file)
                : file.extension() == ".obj" ? readObj(file)
                                             : readPly(file);
    EXPECT_TRUE(mesh) << mesh.error();
    EXPECT_TRUE(mesh.warnings().empty()) << mesh.warnings()[0];
    return mesh ? std::move(mesh.value()) : MeshData{};
}

TEST(DracoReader, LosslessPointCloudIsItsPlySourceExactly)
{
    // -qp 0 -qn 0: positions and normals stored as floats, colours as bytes; sequential
    // encoding keeps the points in order.
    const MeshData drc = read(data / "cloud.drc");
    const MeshData ply = read(data / "cloud.ply");
    ASSERT_EQ(drc.positions.size(), 300u);
    ASSERT_EQ(ply.positions.size(), 300u);
    EXPECT_TRUE(drc.isPointCloud());
    ASSERT_EQ(drc.normals.size(), 300u);
    ASSERT_EQ(drc.colors.size(), 300u);
    EXPECT_TRUE(drc.texcoords.empty());
    for (std::size_t i = 0; i < 300; ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(drc.positions[i], ply.positions[i]);
        EXPECT_EQ(drc.normals[i], ply.normals[i]);
        EXPECT_EQ(drc.colors[i], ply.colors[i]);
        EXPECT_EQ(drc.colors[i].a, 255);
    }
}

TEST(DracoReader, QuantizedPointCloudIsItsSourceWithinOneQuantizationStep)
{
    // draco_encoder's defaults: 11-bit positions over the cloud's largest extent (1.5 here: a
    // sphere of radius 0.75), so each coordinate is within half a step, 1.5 / 2047 / 2
    // (measured: 3.653e-4, the half step of this cloud's 1.4957 extent); 8-bit octahedral
    // normals, within 1 degree (measured: 0.36 at most); colours exact. The k-d tree reorders
    // the points: each is matched to the nearest source point, and every source point must be
    // matched once.
    const MeshData drc = read(data / "cloud_dense.drc");
    const MeshData ply = read(data / "cloud_dense.ply");
    ASSERT_EQ(drc.positions.size(), 600u);
    ASSERT_EQ(ply.positions.size(), 600u);
    ASSERT_EQ(drc.normals.size(), 600u);
    ASSERT_EQ(drc.colors.size(), 600u);
    const float halfStep = 1.5f / 2047.0f / 2.0f * 1.001f;
    std::vector<int> matched(ply.positions.size(), 0);
    for (std::size_t i = 0; i < drc.positions.size(); ++i) {
        SCOPED_TRACE(i);
        std::size_t nearest = 0;
        for (std::size_t j = 1; j < ply.positions.size(); ++j)
            if (glm::length(ply.positions[j] - drc.positions[i]) <
                glm::length(ply.positions[nearest] - drc.positions[i]))
                nearest = j;
        ++matched[nearest];
        const glm::vec3 error = glm::abs(ply.positions[nearest] - drc.positions[i]);
        EXPECT_LE(std::max({error.x, error.y, error.z}), halfStep);
        EXPECT_EQ(drc.colors[i], ply.colors[nearest]);
        EXPECT_GE(glm::dot(drc.normals[i], ply.normals[nearest]), std::cos(glm::radians(1.0f)));
        EXPECT_NEAR(glm::length(drc.normals[i]), 1.0f, 1e-5f);
    }
    EXPECT_EQ(std::count(matched.begin(), matched.end(), 1), 600);
}

TEST(DracoReader, MeshWithTextureCoordinatesIsItsObjSource)
{
    // Positions and texture coordinates not quantized (-qp 0 -qt 0); edgebreaker reorders
    // vertices and faces, so vertices are matched by position (each is unique in the sheet)
    // and faces as corner cycles.
    const MeshData drc = read(data / "sheet.drc");
    const MeshData obj = read(data / "sheet.obj");
    ASSERT_EQ(obj.positions.size(), 169u);
    ASSERT_EQ(drc.positions.size(), 169u);
    ASSERT_EQ(drc.texcoords.size(), 169u);
    ASSERT_EQ(drc.triangleCount(), 288u);
    ASSERT_EQ(obj.triangleCount(), 288u);
    EXPECT_TRUE(drc.normals.empty()); // none in the file; loadMesh computes them
    const auto key = [](const glm::vec3& p) {
        return std::tuple(p.x, p.y, p.z);
    };
    std::map<std::tuple<float, float, float>, std::uint32_t> source;
    for (std::uint32_t i = 0; i < obj.positions.size(); ++i)
        source[key(obj.positions[i])] = i;
    std::vector<std::uint32_t> toSource(drc.positions.size());
    for (std::size_t i = 0; i < drc.positions.size(); ++i) {
        SCOPED_TRACE(i);
        const auto found = source.find(key(drc.positions[i]));
        ASSERT_NE(found, source.end()) << "no source vertex at this position";
        toSource[i] = found->second;
        EXPECT_EQ(drc.texcoords[i], obj.texcoords[found->second]);
    }
    // A triangle as its corners' cycle starting at the smallest: orientation kept.
    const auto cycle = [](std::uint32_t a, std::uint32_t b, std::uint32_t c) {
        if (b < a && b < c)
            return std::tuple(b, c, a);
        if (c < a && c < b)
            return std::tuple(c, a, b);
        return std::tuple(a, b, c);
    };
    std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> faces;
    for (std::size_t t = 0; t < obj.indices.size(); t += 3)
        faces.insert(cycle(obj.indices[t], obj.indices[t + 1], obj.indices[t + 2]));
    for (std::size_t t = 0; t < drc.indices.size(); t += 3)
        EXPECT_EQ(faces.erase(cycle(toSource[drc.indices[t]], toSource[drc.indices[t + 1]],
                                    toSource[drc.indices[t + 2]])),
                  1u)
            << "triangle " << t / 3 << " is not one of the source's";
    EXPECT_TRUE(faces.empty());
}

TEST(DracoReader, LoadsByExtensionAndMagicAndTakesTheTextureBesideIt)
{
    test::TempDir dir;
    const auto mesh = dir.write("sheet.drc", textOf(bytesOf(data / "sheet.drc")));
    const fs::path png =
        fs::path(TANDEM_SOURCE_DIR) / "tests/data/textured/blender/textures/quad_blue.png";
    fs::copy_file(png, dir.path() / "sheet.png");
    auto loaded = loadMesh(mesh);
    ASSERT_TRUE(loaded) << loaded.error();
    EXPECT_TRUE(loaded.warnings().empty()) << loaded.warnings()[0];
    EXPECT_EQ(loaded.value().textureFile, dir.path() / "sheet.png");
    auto image = readImage(png);
    ASSERT_TRUE(image) << image.error();
    EXPECT_EQ(loaded.value().texture.width, image.value().width);
    EXPECT_EQ(loaded.value().texture.pixels, image.value().pixels);
    EXPECT_EQ(loaded.value().normals.size(), 169u); // computed, as for any mesh without

    // Without the image: drawn with vertex colours, and said so.
    fs::remove(dir.path() / "sheet.png");
    auto bare = loadMesh(mesh);
    ASSERT_TRUE(bare) << bare.error();
    ASSERT_EQ(bare.warnings().size(), 1u);
    EXPECT_NE(bare.warnings()[0].find("has texture coordinates but no texture"), std::string::npos);

    auto byMagic = loadMesh(dir.write("capture.bin", textOf(bytesOf(data / "cloud.drc"))));
    ASSERT_TRUE(byMagic) << byMagic.error();
    EXPECT_EQ(byMagic.value().positions.size(), 300u);
}

/// A point cloud encoded here with libdraco (sequential, nothing quantized: values exact).
struct Encoded {
    std::vector<glm::vec3> positions;
    std::vector<glm::vec3> normals;
    draco::DataType colorType = draco::DT_FLOAT32;
    int colorComponents = 4;
    std::vector<double> colors; ///< colorComponents a point
    bool withPosition = true;

    std::vector<std::uint8_t> bytes() const
    {
        const auto n = static_cast<std::uint32_t>(withPosition ? positions.size()
                                                               : colors.size() / colorComponents);
        draco::PointCloudBuilder builder;
        builder.Start(n);
        const int position = withPosition ? builder.AddAttribute(draco::GeometryAttribute::POSITION,
                                                                 3, draco::DT_FLOAT32)
                                          : -1;
        const int normal = normals.empty() ? -1
                                           : builder.AddAttribute(draco::GeometryAttribute::NORMAL,
                                                                  3, draco::DT_FLOAT32);
        const int color =
            colors.empty()
                ? -1
                : builder.AddAttribute(draco::GeometryAttribute::COLOR,
                                       static_cast<std::int8_t>(colorComponents), colorType);
        for (std::uint32_t i = 0; i < n; ++i) {
            const draco::PointIndex point(i);
            if (position >= 0)
                builder.SetAttributeValueForPoint(position, point, &positions[i]);
            if (normal >= 0)
                builder.SetAttributeValueForPoint(normal, point, &normals[i]);
            if (color >= 0) {
                const double* c = &colors[std::size_t{i} * colorComponents];
                float f[4];
                std::uint8_t b[4];
                std::uint16_t s[4];
                // Only the type stored: 65535 as a byte would be undefined.
                for (int k = 0; k < colorComponents; ++k) {
                    if (colorType == draco::DT_FLOAT32)
                        f[k] = static_cast<float>(c[k]);
                    else if (colorType == draco::DT_UINT8)
                        b[k] = static_cast<std::uint8_t>(c[k]);
                    else
                        s[k] = static_cast<std::uint16_t>(c[k]);
                }
                const void* value = colorType == draco::DT_FLOAT32 ? static_cast<void*>(f)
                                    : colorType == draco::DT_UINT8 ? static_cast<void*>(b)
                                                                   : static_cast<void*>(s);
                builder.SetAttributeValueForPoint(color, point, value);
            }
        }
        std::unique_ptr<draco::PointCloud> cloud = builder.Finalize(false);
        EXPECT_NE(cloud, nullptr);
        draco::Encoder encoder;
        encoder.SetEncodingMethod(draco::POINT_CLOUD_SEQUENTIAL_ENCODING);
        draco::EncoderBuffer out;
        const draco::Status status = encoder.EncodePointCloudToBuffer(*cloud, &out);
        EXPECT_TRUE(status.ok()) << status.error_msg();
        return {out.data(), out.data() + out.size()};
    }
};

const std::vector<glm::vec3> fourPositions = {{0, 0, 0}, {1, 2, 3}, {-1, 0.5f, 2}, {4, 4, 4}};

TEST(DracoReader, FloatColoursAreScaledRoundedAndClampedAsPlyDoes)
{
    Encoded file;
    file.positions = fourPositions;
    file.colors = {0.5, 1.2, -0.1, 0.25, 1, 0, 0.2, 1, 0, 0, 0, 0, 0.999, 0.002, 0.5, 0.75};
    auto mesh = readDraco(file.bytes(), "float.drc");
    ASSERT_TRUE(mesh) << mesh.error();
    ASSERT_EQ(mesh.value().colors.size(), 4u);
    // ×255 and rounded (127.5 → 128, 63.75 → 64), beyond 0..1 clamped; alpha kept.
    EXPECT_EQ(mesh.value().colors[0], glm::u8vec4(128, 255, 0, 64));
    EXPECT_EQ(mesh.value().colors[1], glm::u8vec4(255, 0, 51, 255));
    EXPECT_EQ(mesh.value().colors[2], glm::u8vec4(0, 0, 0, 0));
    EXPECT_EQ(mesh.value().colors[3], glm::u8vec4(255, 1, 128, 191));
    EXPECT_EQ(mesh.value().positions, fourPositions);
    EXPECT_TRUE(mesh.value().normals.empty());

    file.colorComponents = 3; // no alpha: opaque
    file.colors = {0.5, 1.2, -0.1, 1, 0, 0.2, 0, 0, 0, 0.999, 0.002, 0.5};
    auto opaque = readDraco(file.bytes(), "float3.drc");
    ASSERT_TRUE(opaque) << opaque.error();
    EXPECT_EQ(opaque.value().colors[0], glm::u8vec4(128, 255, 0, 255));
    EXPECT_EQ(opaque.value().colors[3], glm::u8vec4(255, 1, 128, 255));
}

TEST(DracoReader, ByteColoursAreStoredBytesAnd16BitOnesAreScaled)
{
    Encoded file;
    file.positions = fourPositions;
    file.colorType = draco::DT_UINT8;
    file.colors = {1, 2, 3, 4, 255, 128, 0, 0, 9, 8, 7, 255, 10, 20, 30, 40};
    auto bytes = readDraco(file.bytes(), "rgba.drc");
    ASSERT_TRUE(bytes) << bytes.error();
    EXPECT_EQ(bytes.value().colors[0], glm::u8vec4(1, 2, 3, 4));
    EXPECT_EQ(bytes.value().colors[1], glm::u8vec4(255, 128, 0, 0));
    EXPECT_EQ(bytes.value().colors[3], glm::u8vec4(10, 20, 30, 40));

    file.colorType = draco::DT_UINT16;
    file.colorComponents = 3;
    file.colors = {65535, 257, 0, 32768, 128, 1000, 0, 0, 0, 65535, 65535, 65535};
    auto wide = readDraco(file.bytes(), "rgb16.drc");
    ASSERT_TRUE(wide) << wide.error();
    EXPECT_EQ(wide.value().colors[0], glm::u8vec4(255, 1, 0, 255));
    EXPECT_EQ(wide.value().colors[1], glm::u8vec4(128, 0, 4, 255));
}

TEST(DracoReader, NormalsAreMadeUnitLengthAndUnusablePointsDropped)
{
    Encoded file;
    file.positions = fourPositions;
    file.positions[2].y = std::numeric_limits<float>::quiet_NaN();
    file.normals = {
        {0, 0, 0}, {3, 0, 4}, {1, 0, 0}, {0, std::numeric_limits<float>::infinity(), 0}};
    auto mesh = readDraco(file.bytes(), "normals.drc");
    ASSERT_TRUE(mesh) << mesh.error();
    ASSERT_EQ(mesh.value().positions.size(), 3u);
    ASSERT_EQ(mesh.value().normals.size(), 3u);
    EXPECT_EQ(mesh.value().normals[0], glm::vec3(0, 0, 1)); // no length
    EXPECT_NEAR(mesh.value().normals[1].x, 0.6f, 1e-6f);
    EXPECT_NEAR(mesh.value().normals[1].z, 0.8f, 1e-6f);
    EXPECT_EQ(mesh.value().normals[2], glm::vec3(0, 0, 1)); // not finite
    EXPECT_EQ(mesh.value().positions[2], glm::vec3(4, 4, 4));
    ASSERT_EQ(mesh.warnings().size(), 1u);
    EXPECT_NE(mesh.warnings()[0].find("normals.drc: dropped 1 of 4 points"), std::string::npos)
        << mesh.warnings()[0];
}

TEST(DracoReader, AttributesOfAnotherShapeAreLeftOutWithAWarning)
{
    // Two-component colours, bool texture coordinates (a byte Draco would load as a C++ bool:
    // the fuzzer's find), 32-bit integer normals are numbers and read.
    draco::PointCloudBuilder builder;
    builder.Start(2);
    const int position =
        builder.AddAttribute(draco::GeometryAttribute::POSITION, 3, draco::DT_FLOAT32);
    const int color = builder.AddAttribute(draco::GeometryAttribute::COLOR, 2, draco::DT_FLOAT32);
    const int uv = builder.AddAttribute(draco::GeometryAttribute::TEX_COORD, 2, draco::DT_BOOL);
    const int normal = builder.AddAttribute(draco::GeometryAttribute::NORMAL, 3, draco::DT_INT32);
    for (std::uint32_t i = 0; i < 2; ++i) {
        const float p[3] = {float(i), 1, 2}, c[2] = {0.5f, 0.5f};
        const bool t[2] = {true, false};
        const std::int32_t n[3] = {0, -2, 0};
        builder.SetAttributeValueForPoint(position, draco::PointIndex(i), p);
        builder.SetAttributeValueForPoint(color, draco::PointIndex(i), c);
        builder.SetAttributeValueForPoint(uv, draco::PointIndex(i), t);
        builder.SetAttributeValueForPoint(normal, draco::PointIndex(i), n);
    }
    const std::unique_ptr<draco::PointCloud> cloud = builder.Finalize(false);
    ASSERT_NE(cloud, nullptr);
    draco::Encoder encoder;
    encoder.SetEncodingMethod(draco::POINT_CLOUD_SEQUENTIAL_ENCODING);
    draco::EncoderBuffer out;
    ASSERT_TRUE(encoder.EncodePointCloudToBuffer(*cloud, &out).ok());
    auto mesh =
        readDraco(std::vector<std::uint8_t>(out.data(), out.data() + out.size()), "shapes.drc");
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().positions.size(), 2u);
    EXPECT_TRUE(mesh.value().colors.empty());
    EXPECT_TRUE(mesh.value().texcoords.empty());
    ASSERT_EQ(mesh.value().normals.size(), 2u);
    EXPECT_EQ(mesh.value().normals[1], glm::vec3(0, -1, 0));
    EXPECT_EQ(mesh.warnings(),
              (std::vector<std::string>{
                  "shapes.drc: its COLOR attribute (2 components of float32) is not read: 3 or 4 "
                  "components expected",
                  "shapes.drc: its TEX_COORD attribute (2 components of bool) is not read: 2 "
                  "numbers expected"}));
}

/// The message readDraco gives `bytes` as "bad.drc", or "" when it reads them.
std::string error(const std::vector<std::uint8_t>& bytes)
{
    auto mesh = readDraco(bytes, "bad.drc");
    EXPECT_FALSE(mesh);
    return mesh ? std::string() : mesh.error();
}

std::vector<std::uint8_t> bytes(std::initializer_list<int> values)
{
    std::vector<std::uint8_t> out;
    for (int v : values)
        out.push_back(static_cast<std::uint8_t>(v));
    return out;
}

TEST(DracoReader, BadFilesAreNamedWithTheProblem)
{
    EXPECT_EQ(error({}), "bad.drc: not a Draco file: it is empty");
    EXPECT_EQ(error(bytesOf(data / "cloud.ply")),
              "bad.drc: not a Draco file: it does not start with \"DRACO\"");
    EXPECT_EQ(error(bytes({'D', 'R', 'A', 'C', 'O', 2, 2})),
              "bad.drc: not a Draco file: Failed to parse Draco header");
    // Geometry type 5: neither a point cloud (0) nor a mesh (1).
    EXPECT_EQ(error(bytes({'D', 'R', 'A', 'C', 'O', 2, 2, 5, 0, 0, 0, 0, 0, 0, 0})),
              "bad.drc: not a Draco file: Unsupported geometry type");
    EXPECT_EQ(error(bytes({'D', 'R', 'A', 'C', 'O', 9, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0})),
              "bad.drc: Draco bitstream version 9.1, which libdraco 1.5.5 does not read: "
              "Unknown major version");

    // Cut in half: the point cloud's attributes, and the mesh's, end early.
    auto cloud = bytesOf(data / "cloud.drc");
    cloud.resize(cloud.size() / 2);
    EXPECT_EQ(error(cloud), "bad.drc: corrupt Draco data: Failed to decode point attributes");
    auto mesh = bytesOf(data / "sheet.drc");
    const auto whole = mesh;
    mesh.resize(mesh.size() / 2);
    EXPECT_EQ(error(mesh), "bad.drc: corrupt Draco data: Failed to decode point attributes");
    // Corrupt bytes: the mesh's edgebreaker traversal kind (byte 11) and counts after it.
    mesh = whole;
    std::fill(mesh.begin() + 11, mesh.begin() + 19, 0xff);
    EXPECT_EQ(error(mesh), "bad.drc: corrupt Draco data: Failed to initialize the decoder");
    mesh = whole;
    std::fill(mesh.begin() + 12, mesh.begin() + 19, 0xff);
    EXPECT_EQ(error(mesh), "bad.drc: corrupt Draco data: Failed to decode geometry data");

    // No positions: a cloud of colours only.
    Encoded colours;
    colours.withPosition = false;
    colours.colors = {0.5, 0.5, 0.5, 1, 0.1, 0.2, 0.3, 1};
    EXPECT_EQ(error(colours.bytes()),
              "bad.drc: no POSITION attribute (its points have no positions)");
}

TEST(DracoReader, AbsurdCountsAreRefusedBeforeDracoAllocates)
{
    // A sequential point cloud (version 2.3) declaring 2^31 - 1 points in 20 bytes: Draco would
    // reserve their ids (8 GiB) before finding the data missing.
    EXPECT_EQ(error(bytes({'D', 'R',  'A',  'C',  'O',  2, 3, 0, 0, 0,
                           0,   0xff, 0xff, 0xff, 0x7f, 1, 1, 0, 1, 0})),
              "bad.drc: corrupt Draco data: it declares 2147483647 points in 20 bytes (more than "
              "64 a byte, which no Draco encoding of real geometry reaches)");
    // An edgebreaker mesh (version 2.2) declaring 2^28 faces (a varint) and 3 vertices.
    EXPECT_EQ(error(bytes({'D', 'R', 'A', 'C',  'O',  2,    2,    1,    1, 0,
                           0,   0,   3,   0x80, 0x80, 0x80, 0x80, 0x01, 0, 0})),
              "bad.drc: corrupt Draco data: it declares 268435456 faces in 20 bytes (more than "
              "64 a byte, which no Draco encoding of real geometry reaches)");
    // 1000 points (within 64 a byte of this 24-byte file) of one attribute of 255 doubles
    // (2040 bytes a point): 2 MB of values from 24 bytes.
    EXPECT_EQ(error(bytes({'D',  'R', 'A', 'C', 'O', 2, 3,  0,   0, 0, 0, 0xe8,
                           0x03, 0,   0,   1,   1,   0, 10, 255, 0, 0, 0, 0})),
              "bad.drc: corrupt Draco data: it declares 1000 points of 2040 bytes each in 24 "
              "bytes (more than 1024 times its size)");
    // The same within both limits goes to Draco, which finds the values missing.
    EXPECT_EQ(error(bytes({'D', 'R', 'A', 'C', 'O', 2, 3, 0, 0, 0, 0, 10,
                           0,   0,   0,   1,   1,   0, 9, 3, 0, 0, 0, 0})),
              "bad.drc: corrupt Draco data: Failed to decode point attributes");
    // A k-d tree point cloud of bitstream 2.1 declares 10 points in its header, then, after its
    // descriptors (POSITION as 3 floats), the integer method, level 1 and 2^30 points, which
    // Draco would allocate 12 GiB of positions for (found by the draco fuzz target).
    const std::vector<std::uint8_t> kdTree = {'D', 'R', 'A', 'C', 'O', 2, 1, 0,   1, 0,
                                              0,   10,  0,   0,   0,   1, 1, 0,   9, 3,
                                              0,   0,   1,   1,   0,   0, 0, 0x40};
    EXPECT_EQ(error(kdTree), "bad.drc: corrupt Draco data: it declares 1073741824 points in 28 "
                             "bytes (more than 64 a byte, which no Draco encoding of real "
                             "geometry reaches)");
    // Its second count (10) within both limits goes to Draco, which finds the data missing.
    auto within = kdTree;
    within[24] = 10;
    within[27] = 0;
    EXPECT_EQ(error(within), "bad.drc: corrupt Draco data: Failed to decode point attributes");
    // Two attributes decoders in such a bitstream, which Draco's encoder never writes.
    auto twoDecoders = kdTree;
    twoDecoders[15] = 2;
    EXPECT_EQ(error(twoDecoders), "bad.drc: corrupt Draco data: a k-d tree point cloud of "
                                  "bitstream 2.1 with 2 attributes decoders (Draco writes one)");
}

TEST(DracoReader, FolderOfDracoFramesPlaysAsASequence)
{
    test::TempDir dir;
    dir.write("seq/frame_0001.drc", textOf(bytesOf(data / "cloud.drc")));
    dir.write("seq/frame_0002.drc", textOf(bytesOf(data / "cloud_dense.drc")));
    dir.write("seq/notes.txt", "not a frame");
    const auto frame = test::loadSequenceFrame(dir.path() / "seq", 1, "frame_0002.drc");
    EXPECT_EQ(frame.frames, 2);
    EXPECT_NE(frame.description.find("2 Draco files"), std::string::npos) << frame.description;
    const MeshData expected = read(data / "cloud_dense.drc");
    ASSERT_EQ(frame.view.positions.size(), 600u);
    EXPECT_TRUE(std::equal(expected.positions.begin(), expected.positions.end(),
                           frame.view.positions.begin()));
}

} // namespace
} // namespace tandem::io
