// PLY reader: every format, scalar type name, attribute and face kind, and each kind of bad
// input giving one clear message.
#include "engine/io/PlyReader.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace tandem::io {
namespace {

std::vector<std::uint8_t> bytesOf(const std::string& text)
{
    return std::vector<std::uint8_t>(text.begin(), text.end());
}

Result<MeshData> parse(const std::string& text)
{
    return readPly(bytesOf(text), "test.ply");
}

/// Appends binary values in little or big endian.
struct Writer {
    bool bigEndian = false;
    std::vector<std::uint8_t> bytes;

    explicit Writer(const std::string& header, bool big = false) : bigEndian(big)
    {
        bytes.assign(header.begin(), header.end());
    }
    template <class T> Writer& put(T value)
    {
        std::uint8_t raw[sizeof(T)];
        std::memcpy(raw, &value, sizeof(T));
        if (bigEndian != (std::endian::native == std::endian::big))
            std::reverse(raw, raw + sizeof(T));
        bytes.insert(bytes.end(), raw, raw + sizeof(T));
        return *this;
    }
};

const std::string triangleAscii = "ply\n"
                                  "format ascii 1.0\n"
                                  "comment made by hand\n"
                                  "obj_info nothing\n"
                                  "element vertex 3\n"
                                  "property float x\n"
                                  "property float y\n"
                                  "property float z\n"
                                  "element face 1\n"
                                  "property list uchar int vertex_indices\n"
                                  "end_header\n"
                                  "0 0 0\n"
                                  "1 0 0\n"
                                  "0 1 0\n"
                                  "3 0 1 2\n";

TEST(PlyReader, AsciiTriangle)
{
    auto mesh = parse(triangleAscii);
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().vertexCount(), 3u);
    EXPECT_EQ(mesh.value().indices, (std::vector<std::uint32_t>{0, 1, 2}));
    EXPECT_EQ(mesh.value().positions[1], glm::vec3(1, 0, 0));
    EXPECT_TRUE(mesh.value().normals.empty());
    EXPECT_TRUE(mesh.value().colors.empty());
}

TEST(PlyReader, CrLfLineEndings)
{
    std::string text;
    for (char c : triangleAscii) {
        if (c == '\n')
            text += '\r';
        text += c;
    }
    auto mesh = parse(text);
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().triangleCount(), 1u);
}

TEST(PlyReader, BinaryLittleAndBigEndianAgree)
{
    const std::string header = "element vertex 4\n"
                               "property double x\nproperty double y\nproperty double z\n"
                               "element face 1\nproperty list uchar uint vertex_indices\n"
                               "end_header\n";
    for (bool big : {false, true}) {
        Writer w(std::string("ply\nformat ") +
                     (big ? "binary_big_endian" : "binary_little_endian") + " 1.0\n" + header,
                 big);
        const double p[4][3] = {{0, 0, 0}, {2, 0, 0}, {2, 3, 0}, {0, 3, -1.5}};
        for (auto& v : p)
            w.put(v[0]).put(v[1]).put(v[2]);
        w.put<std::uint8_t>(4)
            .put<std::uint32_t>(0)
            .put<std::uint32_t>(1)
            .put<std::uint32_t>(2)
            .put<std::uint32_t>(3);
        auto mesh = readPly(w.bytes, "t.ply");
        ASSERT_TRUE(mesh) << (big ? "big: " : "little: ") << mesh.error();
        EXPECT_EQ(mesh.value().positions[3], glm::vec3(0, 3, -1.5f));
        // A quad becomes a fan of two triangles.
        EXPECT_EQ(mesh.value().indices, (std::vector<std::uint32_t>{0, 1, 2, 0, 2, 3}));
    }
}

TEST(PlyReader, EveryScalarTypeName)
{
    // One vertex property per type name; x/y/z use three of them, the rest are skipped.
    const char* names[] = {"char",  "uchar",  "short",   "ushort", "int",   "uint",
                           "float", "double", "int8",    "uint8",  "int16", "uint16",
                           "int32", "uint32", "float32", "float64"};
    for (const char* xType : names) {
        std::string header = "ply\nformat binary_little_endian 1.0\nelement vertex 1\n";
        header += std::string("property ") + xType + " x\n";
        header += "property int16 y\nproperty float64 z\n";
        for (const char* other : names)
            header += std::string("property ") + other + " extra_" + other + "\n";
        header += "end_header\n";
        Writer w(header);
        auto putAs = [&](const std::string& type, double value) {
            if (type == "char" || type == "int8")
                w.put<std::int8_t>(static_cast<std::int8_t>(value));
            else if (type == "uchar" || type == "uint8")
                w.put<std::uint8_t>(static_cast<std::uint8_t>(value));
            else if (type == "short" || type == "int16")
                w.put<std::int16_t>(static_cast<std::int16_t>(value));
            else if (type == "ushort" || type == "uint16")
                w.put<std::uint16_t>(static_cast<std::uint16_t>(value));
            else if (type == "int" || type == "int32")
                w.put<std::int32_t>(static_cast<std::int32_t>(value));
            else if (type == "uint" || type == "uint32")
                w.put<std::uint32_t>(static_cast<std::uint32_t>(value));
            else if (type == "float" || type == "float32")
                w.put<float>(static_cast<float>(value));
            else
                w.put<double>(value);
        };
        putAs(xType, 7);
        w.put<std::int16_t>(-3);
        w.put<double>(0.25);
        for (const char* other : names)
            putAs(other, 9);
        auto mesh = readPly(w.bytes, "types.ply");
        ASSERT_TRUE(mesh) << xType << ": " << mesh.error();
        EXPECT_EQ(mesh.value().positions[0], glm::vec3(7, -3, 0.25f)) << xType;
        EXPECT_TRUE(mesh.value().isPointCloud());
    }
}

TEST(PlyReader, NormalsColoursAndTexcoords)
{
    auto mesh = parse("ply\nformat ascii 1.0\nelement vertex 2\n"
                      "property float x\nproperty float y\nproperty float z\n"
                      "property float nx\nproperty float ny\nproperty float nz\n"
                      "property uchar red\nproperty uchar green\nproperty uchar blue\n"
                      "property uchar alpha\nproperty float u\nproperty float v\n"
                      "end_header\n"
                      "0 0 0 0 0 2 255 128 0 200 0.5 0.25\n"
                      "1 0 0 0 1 0 1 2 3 4 1 1\n");
    ASSERT_TRUE(mesh) << mesh.error();
    const MeshData& m = mesh.value();
    ASSERT_EQ(m.normals.size(), 2u);
    EXPECT_EQ(m.normals[0], glm::vec3(0, 0, 1)) << "normals are normalised";
    ASSERT_EQ(m.colors.size(), 2u);
    EXPECT_EQ(m.colors[0], glm::u8vec4(255, 128, 0, 200));
    ASSERT_EQ(m.texcoords.size(), 2u);
    EXPECT_EQ(m.texcoords[0], glm::vec2(0.5f, 0.25f));
    EXPECT_TRUE(m.isPointCloud());
}

TEST(PlyReader, FloatColoursAndAlternativeNames)
{
    auto mesh = parse("ply\nformat ascii 1.0\nelement vertex 1\n"
                      "property float x\nproperty float y\nproperty float z\n"
                      "property float r\nproperty float g\nproperty float b\n"
                      "property float s\nproperty float t\n"
                      "end_header\n0 0 0 1.0 0.5 0.0 0.1 0.9\n");
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().colors[0], glm::u8vec4(255, 128, 0, 255));
    EXPECT_EQ(mesh.value().texcoords[0], glm::vec2(0.1f, 0.9f));
}

TEST(PlyReader, VertexIndexAliasAndPolygons)
{
    auto mesh = parse("ply\nformat ascii 1.0\nelement vertex 5\n"
                      "property float x\nproperty float y\nproperty float z\n"
                      "element face 2\nproperty list uchar int vertex_index\n"
                      "end_header\n0 0 0\n1 0 0\n1 1 0\n0.5 1.5 0\n0 1 0\n"
                      "5 0 1 2 3 4\n3 0 1 2\n");
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().triangleCount(), 3u + 1u) << "a pentagon gives 3 triangles";
}

TEST(PlyReader, SkipsUnknownElementsAndProperties)
{
    Writer w("ply\nformat binary_little_endian 1.0\n"
             "element material 2\nproperty uchar ambient\nproperty list uchar float coeffs\n"
             "element vertex 3\nproperty float x\nproperty float confidence\n"
             "property float y\nproperty float z\nproperty list uchar int neighbours\n"
             "element face 1\nproperty uchar flags\nproperty list uchar int vertex_indices\n"
             "property list uchar float texcoord\n"
             "element edge 1\nproperty int vertex1\nproperty int vertex2\n"
             "end_header\n");
    // material: two elements with lists of 2 and 0 floats
    w.put<std::uint8_t>(1).put<std::uint8_t>(2).put<float>(0.1f).put<float>(0.2f);
    w.put<std::uint8_t>(3).put<std::uint8_t>(0);
    const float p[3][2] = {{0, 0}, {1, 0}, {0, 1}};
    for (auto& v : p)
        w.put<float>(v[0])
            .put<float>(9)
            .put<float>(v[1])
            .put<float>(0)
            .put<std::uint8_t>(1)
            .put<std::int32_t>(7);
    w.put<std::uint8_t>(0)
        .put<std::uint8_t>(3)
        .put<std::int32_t>(2)
        .put<std::int32_t>(1)
        .put<std::int32_t>(0);
    w.put<std::uint8_t>(2).put<float>(0.5f).put<float>(0.5f);
    w.put<std::int32_t>(0).put<std::int32_t>(1);
    auto mesh = readPly(w.bytes, "extra.ply");
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().positions[2], glm::vec3(0, 1, 0));
    EXPECT_EQ(mesh.value().indices, (std::vector<std::uint32_t>{2, 1, 0}));
}

TEST(PlyReader, FacesBeforeVertices)
{
    auto mesh = parse("ply\nformat ascii 1.0\nelement face 1\n"
                      "property list uchar int vertex_indices\nelement vertex 3\n"
                      "property float x\nproperty float y\nproperty float z\nend_header\n"
                      "3 0 1 2\n0 0 0\n1 0 0\n0 1 0\n");
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().triangleCount(), 1u);
}

TEST(PlyReader, DegenerateFacesAreSkippedWithAWarning)
{
    auto mesh = parse("ply\nformat ascii 1.0\nelement vertex 3\n"
                      "property float x\nproperty float y\nproperty float z\n"
                      "element face 2\nproperty list uchar int vertex_indices\nend_header\n"
                      "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n2 0 1\n");
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().triangleCount(), 1u);
    ASSERT_EQ(mesh.warnings().size(), 1u);
    EXPECT_NE(mesh.warnings()[0].find("skipped 1 faces"), std::string::npos);
}

// --- capture formats: ascii and binary, float or double coordinates, uchar or float colours,
// optional normals; scale and translation comments ---

TEST(PlyReader, CaptureFormatMatrix)
{
    const double p[2][3] = {{0.5, -1.25, 3.0}, {-2.0, 4.75, 0.125}};
    const double n[2][3] = {{0, 0, 2}, {0, -1, 0}};
    const int byteColour[2][3] = {{10, 200, 255}, {0, 1, 128}};
    const double floatColour[2][3] = {{0.0, 0.5, 1.0}, {0.25, 1.0, 0.0}};
    const glm::u8vec4 expectedFloatColour[2] = {{0, 128, 255, 255}, {64, 255, 0, 255}};
    for (const std::string format : {"ascii", "binary_little_endian", "binary_big_endian"})
        for (const std::string coordinate : {"float", "double"})
            for (const std::string colour : {"none", "uchar", "float"})
                for (bool normals : {false, true}) {
                    const std::string what =
                        format + " " + coordinate + " colour " + colour + (normals ? " +n" : "");
                    std::string header = "ply\nformat " + format + " 1.0\nelement vertex 2\n";
                    for (const char* axis : {"x", "y", "z"})
                        header += "property " + coordinate + " " + axis + "\n";
                    if (normals)
                        for (const char* axis : {"nx", "ny", "nz"})
                            header += "property " + coordinate + " " + axis + "\n";
                    if (colour != "none")
                        for (const char* channel : {"red", "green", "blue"})
                            header += "property " + colour + " " + channel + "\n";
                    header += "end_header\n";
                    Writer w(header, format == "binary_big_endian");
                    std::string text = header;
                    auto put = [&](const std::string& type, double value) {
                        if (format == "ascii")
                            text += fmt::format("{} ", value);
                        else if (type == "float")
                            w.put<float>(static_cast<float>(value));
                        else if (type == "double")
                            w.put<double>(value);
                        else
                            w.put<std::uint8_t>(static_cast<std::uint8_t>(value));
                    };
                    for (int v = 0; v < 2; ++v) {
                        for (double c : p[v])
                            put(coordinate, c);
                        if (normals)
                            for (double c : n[v])
                                put(coordinate, c);
                        for (int c = 0; c < 3 && colour != "none"; ++c)
                            put(colour, colour == "uchar" ? byteColour[v][c] : floatColour[v][c]);
                        text += "\n";
                    }
                    auto mesh = format == "ascii" ? parse(text) : readPly(w.bytes, "matrix.ply");
                    ASSERT_TRUE(mesh) << what << ": " << mesh.error();
                    const MeshData& m = mesh.value();
                    ASSERT_EQ(m.vertexCount(), 2u) << what;
                    EXPECT_TRUE(m.isPointCloud()) << what;
                    EXPECT_TRUE(mesh.warnings().empty()) << what;
                    for (int v = 0; v < 2; ++v)
                        EXPECT_EQ(m.positions[v], glm::vec3(p[v][0], p[v][1], p[v][2])) << what;
                    ASSERT_EQ(m.normals.size(), normals ? 2u : 0u) << what;
                    if (normals) {
                        EXPECT_EQ(m.normals[0], glm::vec3(0, 0, 1)) << what;
                        EXPECT_EQ(m.normals[1], glm::vec3(0, -1, 0)) << what;
                    }
                    ASSERT_EQ(m.colors.size(), colour == "none" ? 0u : 2u) << what;
                    for (int v = 0; v < 2 && colour == "uchar"; ++v)
                        EXPECT_EQ(m.colors[v], glm::u8vec4(byteColour[v][0], byteColour[v][1],
                                                           byteColour[v][2], 255))
                            << what;
                    for (int v = 0; v < 2 && colour == "float"; ++v)
                        EXPECT_EQ(m.colors[v], expectedFloatColour[v]) << what;
                }
}

TEST(PlyReader, EightIFrameToWorldScaleAndTranslation)
{
    // The header of an 8i voxelized full body (longdress_vox10_1051.ply), two points.
    auto mesh = parse("ply\nformat ascii 1.0\n"
                      "comment Version 2, Copyright 2017, 8i Labs, Inc.\n"
                      "comment frame_to_world_scale 0.181731\n"
                      "comment frame_to_world_translation -39.1599 3.75652 46.6228\n"
                      "comment width 1023\n"
                      "element vertex 2\n"
                      "property float x\nproperty float y\nproperty float z\n"
                      "property uchar red\nproperty uchar green\nproperty uchar blue\n"
                      "end_header\n"
                      "0 0 0 1 2 3\n"
                      "236 1001 421 4 5 6\n");
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_TRUE(mesh.warnings().empty());
    const auto& positions = mesh.value().positions;
    EXPECT_EQ(positions[0], glm::vec3(glm::dvec3(-39.1599, 3.75652, 46.6228)));
    EXPECT_EQ(positions[1],
              glm::vec3(glm::dvec3(0.181731 * 236 - 39.1599, 0.181731 * 1001 + 3.75652,
                                   0.181731 * 421 + 46.6228)));
    EXPECT_NEAR(positions[1].y, 185.66925, 1e-4);
    EXPECT_EQ(mesh.value().colors[1], glm::u8vec4(4, 5, 6, 255));
}

TEST(PlyReader, ScaleTranslationAndOffsetComments)
{
    const std::string body = "element vertex 2\n"
                             "property double x\nproperty double y\nproperty double z\n"
                             "property double nx\nproperty double ny\nproperty double nz\n"
                             "end_header\n";
    for (const char* translation : {"translation", "offset"}) {
        Writer w(std::string("ply\nformat binary_little_endian 1.0\ncomment scale 2.5\n") +
                 "comment " + translation + " 1 -2 0.5\n" + body);
        w.put(1.0).put(2.0).put(3.0).put(0.0).put(3.0).put(4.0);
        w.put(-1.0).put(0.0).put(0.0).put(1.0).put(0.0).put(0.0);
        auto mesh = readPly(w.bytes, "scaled.ply");
        ASSERT_TRUE(mesh) << translation << ": " << mesh.error();
        EXPECT_TRUE(mesh.warnings().empty()) << translation;
        EXPECT_EQ(mesh.value().positions[0], glm::vec3(3.5f, 3.0f, 8.0f)) << translation;
        EXPECT_EQ(mesh.value().positions[1], glm::vec3(-1.5f, -2.0f, 0.5f)) << translation;
        // A positive uniform scale leaves normals as they are (unit length, same direction).
        EXPECT_EQ(mesh.value().normals[0], glm::vec3(0.0f, 0.6f, 0.8f)) << translation;
        EXPECT_EQ(mesh.value().normals[1], glm::vec3(1, 0, 0)) << translation;
    }
    // Only a scale, or only a translation.
    auto scaled = parse("ply\nformat ascii 1.0\ncomment scale 0.5\nelement vertex 1\n"
                        "property float x\nproperty float y\nproperty float z\nend_header\n"
                        "2 4 -6\n");
    ASSERT_TRUE(scaled) << scaled.error();
    EXPECT_EQ(scaled.value().positions[0], glm::vec3(1, 2, -3));
    auto moved = parse("ply\nformat ascii 1.0\ncomment offset 10 20 30\nelement vertex 1\n"
                       "property float x\nproperty float y\nproperty float z\nend_header\n"
                       "2 4 -6\n");
    ASSERT_TRUE(moved) << moved.error();
    EXPECT_EQ(moved.value().positions[0], glm::vec3(12, 24, 24));
}

TEST(PlyReader, MalformedTransformCommentsAreWarnings)
{
    const std::string vertices = "element vertex 1\nproperty float x\nproperty float y\n"
                                 "property float z\nend_header\n2 4 -6\n";
    const std::pair<std::string, std::string> cases[] = {
        {"comment frame_to_world_scale abc", "a scale comment takes one number"},
        {"comment scale 1.5x", "a scale comment takes one number"},
        {"comment scale", "a scale comment takes one number"},
        {"comment scale -2", "a scale must be positive"},
        {"comment scale 0", "a scale must be positive"},
        {"comment frame_to_world_translation 1 2", "a translation comment takes three numbers"},
        {"comment translation 1 two 3", "a translation comment takes three numbers"},
        {"comment offset 1 2 3 4", "a translation comment takes three numbers"},
        {"comment offset 1 2 nan", "a translation comment takes three numbers"},
    };
    for (const auto& [comment, fragment] : cases) {
        auto mesh = parse("ply\nformat ascii 1.0\n" + comment + "\n" + vertices);
        ASSERT_TRUE(mesh) << comment << ": " << mesh.error();
        EXPECT_EQ(mesh.value().positions[0], glm::vec3(2, 4, -6)) << comment << ": ignored";
        ASSERT_EQ(mesh.warnings().size(), 1u) << comment;
        EXPECT_NE(mesh.warnings()[0].find(fragment), std::string::npos) << mesh.warnings()[0];
        EXPECT_NE(mesh.warnings()[0].find("test.ply: header line 3"), std::string::npos)
            << mesh.warnings()[0];
    }
    // The good part of a header still applies when another comment is malformed.
    auto mixed = parse("ply\nformat ascii 1.0\ncomment scale 2\ncomment offset x y z\n" + vertices);
    ASSERT_TRUE(mixed) << mixed.error();
    EXPECT_EQ(mixed.value().positions[0], glm::vec3(4, 8, -12));
    EXPECT_EQ(mixed.warnings().size(), 1u);
    // Other comments that merely start with another word are not transforms.
    auto plain =
        parse("ply\nformat ascii 1.0\ncomment scaled by hand\ncomment offsets: none\n" + vertices);
    ASSERT_TRUE(plain) << plain.error();
    EXPECT_TRUE(plain.warnings().empty());
    EXPECT_EQ(plain.value().positions[0], glm::vec3(2, 4, -6));
}

// --- bad input: one clear message naming the file and the problem ---

void expectError(const Result<MeshData>& result, const std::string& fragment)
{
    ASSERT_FALSE(result) << "expected an error containing '" << fragment << "'";
    EXPECT_NE(result.error().find(fragment), std::string::npos) << result.error();
    EXPECT_NE(result.error().find(".ply"), std::string::npos)
        << "names the file: " << result.error();
}

TEST(PlyReaderErrors, EmptyFile)
{
    expectError(parse(""), "empty file");
}

TEST(PlyReaderErrors, NotPly)
{
    expectError(parse("solid cube\nfacet\n"), "not a PLY file");
}

TEST(PlyReaderErrors, NoEndHeader)
{
    expectError(parse("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"),
                "no end_header");
}

TEST(PlyReaderErrors, NoFormat)
{
    expectError(parse("ply\nelement vertex 0\nend_header\n"), "no format line");
}

TEST(PlyReaderErrors, UnknownFormatAndTypes)
{
    expectError(parse("ply\nformat binary_middle_endian 1.0\nend_header\n"), "unknown format");
    expectError(parse("ply\nformat ascii 1.0\nelement vertex 1\nproperty float128 x\nend_header\n"),
                "unknown property type");
    expectError(parse("ply\nformat ascii 1.0\nelement vertex 1\n"
                      "property list float int idx\nend_header\n"),
                "list count type must be an integer");
    expectError(parse("ply\nformat ascii 1.0\nproperty float x\nend_header\n"),
                "property before any element");
    expectError(parse("ply\nformat ascii 1.0\nelement vertex -4\nend_header\n"),
                "negative element count");
    expectError(parse("ply\nformat ascii 1.0\nelement vertex lots\nend_header\n"),
                "element count is not a number");
}

TEST(PlyReaderErrors, NoVertexElementOrNoVertices)
{
    expectError(parse("ply\nformat ascii 1.0\nelement point 1\nproperty float x\nend_header\n1\n"),
                "no 'vertex' element");
    expectError(parse("ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\n"
                      "property float y\nproperty float z\nend_header\n"),
                "no vertices");
    expectError(parse("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
                      "property float y\nend_header\n1 2\n"),
                "lacks x, y or z");
}

TEST(PlyReaderErrors, CountLargerThanFileCouldHold)
{
    // 4 billion vertices of 12 bytes in a file of a few bytes: rejected before allocating.
    Writer w("ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\n"
             "property float x\nproperty float y\nproperty float z\nend_header\n");
    w.put<float>(1).put<float>(2).put<float>(3);
    expectError(readPly(w.bytes, "huge.ply"),
                "huge.ply: truncated: the header declares 4000000000 'vertex' elements of 12 "
                "bytes, and the binary body holds 1 complete");
    expectError(parse("ply\nformat ascii 1.0\nelement vertex 18446744073709551615\n"
                      "property float x\nproperty float y\nproperty float z\nend_header\n1 2 3\n"),
                "can hold at most");
}

TEST(PlyReaderErrors, ElementWithoutPropertiesAndHugeCountDoesNotHang)
{
    auto mesh = parse("ply\nformat ascii 1.0\nelement nothing 18446744073709551615\n"
                      "element vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
                      "end_header\n1 2 3\n");
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().vertexCount(), 1u);
}

TEST(PlyReaderErrors, TruncatedBinary)
{
    Writer w("ply\nformat binary_little_endian 1.0\nelement vertex 2\n"
             "property float x\nproperty float y\nproperty float z\n"
             "element face 1\nproperty list uchar int vertex_indices\nend_header\n");
    w.put<float>(0).put<float>(0).put<float>(0).put<float>(1).put<float>(0).put<float>(0);
    w.put<std::uint8_t>(3).put<std::int32_t>(0);
    expectError(readPly(w.bytes, "cut.ply"), "list 'vertex_indices' claims 3 items");
    Writer v("ply\nformat binary_little_endian 1.0\nelement vertex 2\n"
             "property float x\nproperty float y\nproperty float z\nend_header\n");
    v.put<float>(0).put<float>(0).put<float>(0).put<float>(1).put<float>(0);
    expectError(readPly(v.bytes, "cut.ply"), "truncated");
}

TEST(PlyReaderErrors, TruncatedAscii)
{
    expectError(parse("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                      "property float y\nproperty float z\nend_header\n0 0 0\n1 0 0\n0 1"),
                "truncated");
}

TEST(PlyReaderErrors, MalformedAsciiNumber)
{
    expectError(parse("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
                      "property float y\nproperty float z\nend_header\n0 zero 0\n"),
                "'vertex' 0 of 1: property 'y' is malformed, not a number: \"zero\"");
    expectError(parse("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                      "property float y\nproperty float z\nelement face 1\n"
                      "property list uchar int vertex_indices\nend_header\n"
                      "0 0 0\n1 0 0\n0 1 0\n3 0 1.5 2\n"),
                "property 'vertex_indices' is malformed, not an integer: \"1.5\"");
    // Malformed tokens are named as such, not as non-finite values.
    for (const char* token : {"1.0.0", "1,5", "1.#QNAN", "0x1p3", "-", "--1"}) {
        SCOPED_TRACE(token);
        expectError(parse(fmt::format("ply\nformat ascii 1.0\nelement vertex 1\nproperty float "
                                      "x\nproperty float y\nproperty float z\nend_header\n0 {} "
                                      "0\n",
                                      token)),
                    fmt::format("property 'y' is malformed, not a number: \"{}\"", token));
    }
    expectError(parse("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
                      "property float y\nproperty float z\nend_header\n0 1e999 0\n"),
                "property 'y' is malformed, a number out of range: \"1e999\"");
}

TEST(PlyReaderErrors, NegativeListSize)
{
    Writer w("ply\nformat binary_little_endian 1.0\nelement vertex 3\n"
             "property float x\nproperty float y\nproperty float z\n"
             "element face 1\nproperty list char int vertex_indices\nend_header\n");
    for (int i = 0; i < 9; ++i)
        w.put<float>(static_cast<float>(i));
    w.put<std::int8_t>(-3).put<std::int32_t>(0).put<std::int32_t>(1).put<std::int32_t>(2);
    expectError(readPly(w.bytes, "neg.ply"), "negative size");
    expectError(parse("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                      "property float y\nproperty float z\nelement face 1\n"
                      "property list int int vertex_indices\nend_header\n"
                      "0 0 0\n1 0 0\n0 1 0\n-3 0 1 2\n"),
                "negative size");
}

TEST(PlyReaderErrors, AsciiIntegerBeyondItsType)
{
    const std::string header = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                               "property float y\nproperty float z\nelement face 1\n"
                               "property list uchar int vertex_indices\nend_header\n"
                               "0 0 0\n1 0 0\n0 1 0\n";
    expectError(parse(header + "1e300 0 1 2\n"), "out of range for uchar: \"1e300\"");
    expectError(parse(header + "256 0 1 2\n"), "out of range for uchar: \"256\"");
    expectError(parse(header + "3 0 1 3000000000\n"), "out of range for int: \"3000000000\"");
}

TEST(PlyReaderErrors, IndexOutOfRange)
{
    expectError(parse("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                      "property float y\nproperty float z\nelement face 1\n"
                      "property list uchar int vertex_indices\nend_header\n"
                      "0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n"),
                "vertex index 3 out of range");
    expectError(parse("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                      "property float y\nproperty float z\nelement face 1\n"
                      "property list uchar int vertex_indices\nend_header\n"
                      "0 0 0\n1 0 0\n0 1 0\n3 0 -1 2\n"),
                "out of range");
}

/// An ascii point cloud with one point a line of `points` ("x y z r g b").
std::string cloudWithColours(const std::vector<std::string>& points)
{
    std::string text = fmt::format("ply\nformat ascii 1.0\nelement vertex {}\nproperty float x\n"
                                   "property float y\nproperty float z\nproperty uchar red\n"
                                   "property uchar green\nproperty uchar blue\nend_header\n",
                                   points.size());
    for (const std::string& point : points)
        text += point + "\n";
    return text;
}

TEST(PlyReader, NonFinitePointsAreDroppedWithOneWarningThatCountsThem)
{
    // Depth sensors and PCL write NaN for points they could not measure.
    auto mesh = parse(cloudWithColours(
        {"0 0 0 10 0 0", "nan nan nan 20 0 0", "1 0 0 30 0 0", "2 -inf 0 40 0 0", "3 0 0 50 0 0"}));
    ASSERT_TRUE(mesh) << mesh.error();
    const MeshData& m = mesh.value();
    ASSERT_EQ(m.vertexCount(), 3u);
    EXPECT_EQ(m.positions[1], glm::vec3(1, 0, 0));
    EXPECT_EQ(m.positions[2], glm::vec3(3, 0, 0));
    // Each point keeps its own colour.
    EXPECT_EQ(m.colors[1], glm::u8vec4(30, 0, 0, 255));
    EXPECT_EQ(m.colors[2], glm::u8vec4(50, 0, 0, 255));
    ASSERT_EQ(mesh.warnings().size(), 1u);
    EXPECT_EQ(mesh.warnings()[0],
              "test.ply: dropped 2 of 5 points (2 with NaN or infinite coordinates)");

    // Binary, as PCL writes it: the same.
    Writer w("ply\nformat binary_little_endian 1.0\nelement vertex 3\n"
             "property float x\nproperty float y\nproperty float z\nend_header\n");
    w.put<float>(0).put<float>(std::numeric_limits<float>::infinity()).put<float>(0);
    w.put<float>(NAN).put<float>(0).put<float>(0);
    w.put<float>(4).put<float>(5).put<float>(6);
    auto binary = readPly(w.bytes, "pcl.ply");
    ASSERT_TRUE(binary) << binary.error();
    ASSERT_EQ(binary.value().positions, (std::vector<glm::vec3>{{4, 5, 6}}));
    ASSERT_EQ(binary.warnings().size(), 1u);
    EXPECT_NE(binary.warnings()[0].find("dropped 2 of 3 points"), std::string::npos);

    // Every spelling of a non-finite value is a number to drop, not a malformed token.
    for (const char* token : {"NaN", "-inf", "+Inf", "infinity", "nan(0x1)"}) {
        SCOPED_TRACE(token);
        auto spelled = parse(fmt::format("ply\nformat ascii 1.0\nelement vertex 2\nproperty "
                                         "float x\nproperty float y\nproperty float z\n"
                                         "end_header\n0 {} 0\n1 2 3\n",
                                         token));
        ASSERT_TRUE(spelled) << spelled.error();
        EXPECT_EQ(spelled.value().positions, (std::vector<glm::vec3>{{1, 2, 3}}));
    }
}

TEST(PlyReader, AFrameOfOnlyNonFinitePointsIsEmptyNotAFailure)
{
    auto mesh = parse(cloudWithColours({"nan 0 0 1 2 3", "0 nan 0 1 2 3"}));
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_TRUE(mesh.value().positions.empty());
    EXPECT_TRUE(mesh.value().colors.empty());
    EXPECT_TRUE(mesh.value().bounds().isEmpty());
    ASSERT_EQ(mesh.warnings().size(), 1u);
    EXPECT_EQ(mesh.warnings()[0], "test.ply: dropped 2 of 2 points (2 with NaN or infinite "
                                  "coordinates): nothing is left to draw, the frame is empty");
}

TEST(PlyReader, FarOutliersAreDroppedSoTheBoundsAreTheRealPoints)
{
    // Two points at ±1e20 (or beyond float, or at FLT_MAX) would make the frame's bounds 1e20
    // wide: its real points would fit in no pixel.
    auto mesh = parse(cloudWithColours({"0 0 0 1 1 1", "1e20 1e20 1e20 1 1 1", "1 1 1 1 1 1",
                                        "-1e20 0 0 1 1 1", "0 1e300 0 1 1 1", "0 0 3.4e38 1 1 1"}));
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().vertexCount(), 2u);
    EXPECT_EQ(mesh.value().bounds().min, glm::vec3(0, 0, 0));
    EXPECT_EQ(mesh.value().bounds().max, glm::vec3(1, 1, 1));
    ASSERT_EQ(mesh.warnings().size(), 1u);
    EXPECT_EQ(mesh.warnings()[0],
              fmt::format("test.ply: dropped 4 of 6 points (4 beyond ±{:g})", MaxCoordinate));
    // Up to the bound, a coordinate is geometry (UTM northings in centimetres are 5e8).
    auto far = parse(cloudWithColours({"5e8 0 0 1 1 1", "-1e9 0 0 1 1 1"}));
    ASSERT_TRUE(far) << far.error();
    EXPECT_EQ(far.value().vertexCount(), 2u);
    EXPECT_TRUE(far.warnings().empty());
}

TEST(PlyReader, ANonFiniteMeshVertexDropsTheTrianglesThatUseIt)
{
    // A quad of two triangles (0 1 2) and (0 2 3), and a third (1 4 2): vertex 3 is NaN.
    const std::string header = "ply\nformat ascii 1.0\nelement vertex 5\nproperty float x\n"
                               "property float y\nproperty float z\nproperty float u\n"
                               "property float v\nelement face 3\n"
                               "property list uchar int vertex_indices\nend_header\n";
    auto mesh = parse(header + "0 0 0 0 0\n1 0 0 1 0\n1 1 0 1 1\nnan 1 0 0 1\n2 0 0 0.5 0\n"
                               "3 0 1 2\n3 0 2 3\n3 1 4 2\n");
    ASSERT_TRUE(mesh) << mesh.error();
    const MeshData& m = mesh.value();
    ASSERT_EQ(m.vertexCount(), 4u);
    // Vertex 4 is vertex 3 now; the triangle that used the NaN vertex is gone.
    EXPECT_EQ(m.indices, (std::vector<std::uint32_t>{0, 1, 2, 1, 3, 2}));
    EXPECT_EQ(m.positions[3], glm::vec3(2, 0, 0));
    EXPECT_EQ(m.texcoords[3], glm::vec2(0.5f, 0.0f));
    ASSERT_EQ(mesh.warnings().size(), 1u);
    EXPECT_EQ(mesh.warnings()[0], "test.ply: dropped 1 of 5 vertices (1 with NaN or infinite "
                                  "coordinates) and the 1 triangle using them");

    // When no triangle is left, neither is any vertex: the mesh does not turn into points.
    auto gone = parse(header + "nan 0 0 0 0\n1 0 0 1 0\n1 1 0 1 1\n0 1 0 0 1\n2 0 0 0 0\n"
                               "3 0 1 2\n3 0 2 3\n3 0 4 2\n");
    ASSERT_TRUE(gone) << gone.error();
    EXPECT_TRUE(gone.value().positions.empty());
    EXPECT_TRUE(gone.value().indices.empty());
    ASSERT_EQ(gone.warnings().size(), 1u);
    EXPECT_NE(gone.warnings()[0].find("and the 3 triangles using them: no triangle is left, the "
                                      "mesh is empty"),
              std::string::npos)
        << gone.warnings()[0];
}

TEST(PlyReader, PlusSignsAreNumbers)
{
    auto mesh = parse("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
                      "property float y\nproperty uchar z\nend_header\n+1.5 -2 +3\n");
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().positions[0], glm::vec3(1.5f, -2.0f, 3.0f));
}

TEST(PlyReader, AUtf8ByteOrderMarkBeforeTheMagicIsSkipped)
{
    // As Notepad saves a PLY: EF BB BF, then "ply".
    auto ascii = parse("\xEF\xBB\xBF" + triangleAscii);
    ASSERT_TRUE(ascii) << ascii.error();
    EXPECT_EQ(ascii.value().indices, (std::vector<std::uint32_t>{0, 1, 2}));
    // The binary body starts where it would without the mark, plus its three bytes.
    Writer w("\xEF\xBB\xBFply\r\nformat binary_little_endian 1.0\r\nelement vertex 1\r\n"
             "property float x\r\nproperty float y\r\nproperty float z\r\nend_header\n");
    w.put<float>(1).put<float>(2).put<float>(3);
    auto binary = readPly(w.bytes, "bom.ply");
    ASSERT_TRUE(binary) << binary.error();
    EXPECT_EQ(binary.value().positions, (std::vector<glm::vec3>{{1, 2, 3}}));
    EXPECT_TRUE(binary.warnings().empty());
    // Only the mark: a half one is still not a PLY file.
    expectError(parse("\xEF\xBBply\n"), "not a PLY file");
}

TEST(PlyReader, PclPackedRgbIsReadAsColours)
{
    // PCL's "property float rgb": the bytes 0x00RRGGBB in a float's bits, binary and ascii.
    const std::uint32_t orange = 0x00ff8040u, teal = 0x00208080u;
    Writer w("ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\n"
             "property float y\nproperty float z\nproperty float rgb\nend_header\n");
    w.put<float>(0).put<float>(0).put<float>(0).put<float>(std::bit_cast<float>(orange));
    w.put<float>(1).put<float>(0).put<float>(0).put<float>(std::bit_cast<float>(teal));
    auto binary = readPly(w.bytes, "pcl.ply");
    ASSERT_TRUE(binary) << binary.error();
    EXPECT_EQ(binary.value().colors,
              (std::vector<glm::u8vec4>{{0xff, 0x80, 0x40, 255}, {0x20, 0x80, 0x80, 255}}));
    EXPECT_TRUE(binary.warnings().empty());

    auto ascii = parse(fmt::format("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
                                   "property float y\nproperty float z\nproperty float rgb\n"
                                   "end_header\n0 0 0 {:.9g}\n",
                                   std::bit_cast<float>(orange)));
    ASSERT_TRUE(ascii) << ascii.error();
    EXPECT_EQ(ascii.value().colors, (std::vector<glm::u8vec4>{{0xff, 0x80, 0x40, 255}}));

    // "uint rgb" and "uint rgba": the same bytes as an integer; rgba's top byte (an alpha PCL
    // often leaves 0) is not used, big endian too.
    for (const char* name : {"rgb", "rgba"}) {
        SCOPED_TRACE(name);
        Writer big(fmt::format("ply\nformat binary_big_endian 1.0\nelement vertex 1\nproperty "
                               "double x\nproperty double y\nproperty double z\nproperty uint "
                               "{}\nend_header\n",
                               name),
                   true);
        big.put<double>(0).put<double>(0).put<double>(0).put<std::uint32_t>(0x00ff8040u);
        auto packed = readPly(big.bytes, "big.ply");
        ASSERT_TRUE(packed) << packed.error();
        EXPECT_EQ(packed.value().colors, (std::vector<glm::u8vec4>{{0xff, 0x80, 0x40, 255}}));
    }
    auto integer = parse("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
                         "property float y\nproperty float z\nproperty uint rgba\n"
                         "end_header\n0 0 0 16744512\n");
    ASSERT_TRUE(integer) << integer.error();
    EXPECT_EQ(integer.value().colors, (std::vector<glm::u8vec4>{{0xff, 0x80, 0x40, 255}}));

    // Separate red, green and blue win; a packed colour of another size is named and ignored.
    auto both = parse("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
                      "property float y\nproperty float z\nproperty uint rgb\nproperty uchar "
                      "red\nproperty uchar green\nproperty uchar blue\nend_header\n"
                      "0 0 0 16744512 1 2 3\n");
    ASSERT_TRUE(both) << both.error();
    EXPECT_EQ(both.value().colors, (std::vector<glm::u8vec4>{{1, 2, 3, 255}}));
    auto small = parse("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
                       "property float y\nproperty float z\nproperty ushort rgb\n"
                       "end_header\n0 0 0 500\n");
    ASSERT_TRUE(small) << small.error();
    EXPECT_TRUE(small.value().colors.empty());
    ASSERT_EQ(small.warnings().size(), 1u);
    EXPECT_EQ(small.warnings()[0], "test.ply: property 'rgb' (ushort) ignored: a packed colour "
                                   "is a 4-byte float, int or uint");
}

TEST(PlyReader, TextureFileCommentNamesTheTexture)
{
    // As MeshLab writes a textured mesh.
    auto mesh = parse("ply\nformat ascii 1.0\ncomment TextureFile my texture.png\n" +
                      triangleAscii.substr(std::string("ply\nformat ascii 1.0\n").size()));
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().textureFile, "my texture.png");
}

TEST(PlyReader, HeaderLinesWithoutTheCommentKeywordAreSkippedWithAWarning)
{
    // As old exporters wrote them: free text in the header.
    auto mesh = parse("ply\nformat ascii 1.0\nVCGLIB generated\nelement vertex 1\n"
                      "property float x\nproperty float y\nproperty float z\n"
                      "File exported by an old scanner\nend_header\n1 2 3\n");
    ASSERT_TRUE(mesh) << mesh.error();
    EXPECT_EQ(mesh.value().positions[0], glm::vec3(1, 2, 3));
    ASSERT_EQ(mesh.warnings().size(), 2u);
    EXPECT_NE(mesh.warnings()[0].find("header line 3: \"VCGLIB generated\" skipped (not a PLY "
                                      "keyword"),
              std::string::npos)
        << mesh.warnings()[0];
    EXPECT_NE(mesh.warnings()[1].find("header line 8"), std::string::npos);
    // Many such lines: three named, then a count.
    std::string text = "ply\nformat ascii 1.0\n";
    for (int i = 0; i < 50; ++i)
        text += fmt::format("note {}\n", i);
    text += "element vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
            "end_header\n1 2 3\n";
    auto many = parse(text);
    ASSERT_TRUE(many) << many.error();
    ASSERT_EQ(many.warnings().size(), 4u);
    EXPECT_NE(many.warnings()[3].find("47 more header lines skipped"), std::string::npos);
}

TEST(PlyReaderErrors, BinaryBodyAFewBytesShortSaysHowManyElementsAreComplete)
{
    Writer w("ply\nformat binary_little_endian 1.0\nelement vertex 10\n"
             "property float x\nproperty float y\nproperty float z\nend_header\n");
    for (int i = 0; i < 7; ++i)
        w.put<float>(static_cast<float>(i)).put<float>(0).put<float>(0);
    w.put<std::uint8_t>(0).put<std::uint8_t>(0);
    expectError(readPly(w.bytes, "short.ply"),
                "short.ply: truncated: the header declares 10 'vertex' elements of 12 bytes, "
                "and the binary body holds 7 complete (34 bytes short)");
    // After a complete vertex element, the faces that follow are counted the same way.
    Writer f("ply\nformat binary_little_endian 1.0\nelement vertex 3\n"
             "property float x\nproperty float y\nproperty float z\nelement face 2\n"
             "property int a\nproperty int b\nproperty int c\nend_header\n");
    for (int i = 0; i < 9; ++i)
        f.put<float>(static_cast<float>(i));
    f.put<std::int32_t>(0).put<std::int32_t>(1).put<std::int32_t>(2).put<std::int32_t>(0);
    expectError(readPly(f.bytes, "faces.ply"),
                "declares 2 'face' elements of 12 bytes, and the binary body holds 1 complete "
                "(8 bytes short)");
    // Elements with lists: a truncated one says which element ended early and how many are
    // complete.
    expectError(
        parse("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
              "property float y\nproperty float z\nend_header\n0.25 0.25 0.25\n1.5 0 0\n0 1"),
        "truncated: 'vertex' element 2 of 3 ends early (at property 'z'); 2 complete");
}

TEST(PlyReaderErrors, GarbageAfterMagic)
{
    std::string text = "ply\n";
    for (int i = 0; i < 5000; ++i)
        text += static_cast<char>((i * 37) & 0xff);
    auto result = parse(text);
    ASSERT_FALSE(result);
}

TEST(PlyReaderErrors, MissingFileAndDirectory)
{
    auto missing = readPly(std::filesystem::path("/nonexistent/thing.ply"));
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("no such file"), std::string::npos) << missing.error();
    auto directory = readPly(std::filesystem::temp_directory_path());
    ASSERT_FALSE(directory);
    EXPECT_NE(directory.error().find("is a directory"), std::string::npos) << directory.error();
}

} // namespace
} // namespace tandem::io
