#include "engine/stream/Block.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "engine/stream/SampleSource.h"

using namespace tandem;

namespace {

render::Scene twoObjects()
{
    render::Scene scene;
    io::MeshData mesh;
    mesh.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    mesh.indices = {0, 1, 2, 2, 1, 3};
    io::computeVertexNormals(mesh);
    io::MeshData cloud;
    cloud.positions = {{0, 0, 1}, {2, 0, 1}, {0, 3, 1}};
    cloud.colors = {{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}};
    scene.objects.push_back({"mesh", mesh});
    scene.objects.push_back({"cloud", cloud});
    return scene;
}

std::vector<std::uint8_t> blockOf(const render::Scene& scene)
{
    std::vector<std::uint8_t> bytes(stream::blockBytes(render::sceneCounts(scene)));
    EXPECT_EQ(stream::writeBlock(scene, bytes), bytes.size());
    return bytes;
}

} // namespace

TEST(Block, RoundTripsAScene)
{
    const render::Scene scene = twoObjects();
    const std::vector<std::uint8_t> bytes = blockOf(scene);
    auto view = stream::viewBlock(bytes, "two objects");
    ASSERT_TRUE(view) << view.error();
    const render::SceneView& v = view.value();
    ASSERT_EQ(v.objects.size(), 2u);
    ASSERT_EQ(v.vertices.size(), 7u);
    ASSERT_EQ(v.indices.size(), 6u);
    EXPECT_EQ(v.objects[1].firstVertex, 4u);
    EXPECT_EQ(v.objects[1].firstPrimitive, 2u); // triangles first, then points
    EXPECT_TRUE(v.objects[1].flags & render::ObjectIsPoints);
    EXPECT_EQ(v.vertices[5].position, glm::vec3(2, 0, 1));
    EXPECT_EQ(v.vertices[6].color, glm::u8vec4(0, 0, 255, 255));
    EXPECT_EQ(v.indices[5], 3u);
    // Triangle 1 (2, 1, 3) is the one whose provoking (last) vertex is 3.
    ASSERT_EQ(v.provokingOffsets.size(), 5u);
    EXPECT_EQ(v.provokingOffsets[3], 1u);
    EXPECT_EQ(v.provokingOffsets[4], 2u);
    EXPECT_EQ(v.provokingTriangles[1], 1u);
    EXPECT_EQ(v.bounds.max, glm::vec3(2, 3, 1));
    // Every section is aligned for direct upload.
    for (const void* p :
         {static_cast<const void*>(v.objects.data()), static_cast<const void*>(v.vertices.data()),
          static_cast<const void*>(v.indices.data())})
        EXPECT_EQ((static_cast<const std::uint8_t*>(p) - bytes.data()) % stream::BlockAlign, 0);
}

TEST(Block, RejectsDamage)
{
    const std::vector<std::uint8_t> good = blockOf(twoObjects());
    std::vector<std::uint8_t> bytes = good;
    bytes[0] ^= 1;
    auto view = stream::viewBlock(bytes, "f");
    EXPECT_FALSE(view);
    EXPECT_NE(view.error().find("bad magic"), std::string::npos);

    bytes = good;
    bytes.resize(bytes.size() - 300);
    view = stream::viewBlock(bytes, "f");
    EXPECT_FALSE(view);
    EXPECT_NE(view.error().find("needs"), std::string::npos) << view.error();

    // An index past the vertices is caught before it reaches the GPU.
    bytes = good;
    auto* header = reinterpret_cast<const stream::BlockHeader*>(bytes.data());
    std::uint32_t bad = 99;
    std::memcpy(bytes.data() + header->indicesOffset + 4, &bad, 4);
    view = stream::viewBlock(bytes, "frame_7.ply");
    EXPECT_FALSE(view);
    EXPECT_NE(view.error().find("frame_7.ply: triangle index 99 is out of range"),
              std::string::npos)
        << view.error();

    // A vertex count that claims more than the block holds.
    bytes = good;
    std::uint32_t many = 1u << 30;
    std::memcpy(bytes.data() + offsetof(stream::BlockHeader, vertexCount), &many, 4);
    EXPECT_FALSE(stream::viewBlock(bytes, "f"));
}

TEST(Block, CarriesTheFrameTexture)
{
    render::Scene scene = twoObjects();
    scene.objects[0].mesh.texcoords = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    scene.texture.width = 3;
    scene.texture.height = 2;
    for (int i = 0; i < 3 * 2 * 4; ++i)
        scene.texture.pixels.push_back(static_cast<std::uint8_t>(10 * i));
    const std::vector<std::uint8_t> bytes = blockOf(scene);
    auto view = stream::viewBlock(bytes, "textured");
    ASSERT_TRUE(view) << view.error();
    const render::SceneView& v = view.value();
    EXPECT_EQ(v.textureWidth, 3u);
    EXPECT_EQ(v.textureHeight, 2u);
    ASSERT_EQ(v.texels.size(), 24u);
    EXPECT_TRUE(std::equal(v.texels.begin(), v.texels.end(), scene.texture.pixels.begin()));
    EXPECT_EQ((v.texels.data() - bytes.data()) % stream::BlockAlign, 0);
    EXPECT_EQ(v.counts().textureBytes(), 24u);
    EXPECT_EQ(stream::blockBytes(v.counts()), bytes.size());
    // The mesh with texture coordinates is textured; the point cloud is not.
    EXPECT_TRUE(v.objects[0].flags & render::ObjectHasTexture);
    EXPECT_FALSE(v.objects[1].flags & render::ObjectHasTexture);
    EXPECT_EQ(v.vertices[3].texcoord, glm::vec2(1, 1));

    // A texture with one side zero, or one bigger than GL guarantees, is refused.
    std::vector<std::uint8_t> bad = bytes;
    const std::uint32_t zero = 0;
    std::memcpy(bad.data() + offsetof(stream::BlockHeader, textureHeight), &zero, 4);
    view = stream::viewBlock(bad, "f");
    ASSERT_FALSE(view);
    EXPECT_NE(view.error().find("texture of 3x0"), std::string::npos) << view.error();
    bad = bytes;
    const std::uint32_t huge = 1u << 20;
    std::memcpy(bad.data() + offsetof(stream::BlockHeader, textureWidth), &huge, 4);
    EXPECT_FALSE(stream::viewBlock(bad, "f"));
    // A textured object without a texture is caught too.
    render::Scene untextured = scene;
    untextured.texture = {};
    const std::vector<std::uint8_t> plain = blockOf(untextured);
    auto plainView = stream::viewBlock(plain, "plain");
    ASSERT_TRUE(plainView) << plainView.error();
    EXPECT_FALSE(plainView.value().objects[0].flags & render::ObjectHasTexture);
    EXPECT_TRUE(plainView.value().texels.empty());
}

TEST(Sample, IsDeterministicAndMoves)
{
    stream::SampleSettings s;
    s.points = 5000;
    const render::Scene a = stream::sampleFrame(s, 3);
    const render::Scene b = stream::sampleFrame(s, 3);
    const render::Scene c = stream::sampleFrame(s, 4);
    ASSERT_EQ(a.objects.size(), 1u);
    ASSERT_EQ(a.objects[0].mesh.positions.size(), 5000u);
    EXPECT_EQ(blockOf(a), blockOf(b));
    EXPECT_NE(blockOf(a), blockOf(c));
    EXPECT_FALSE(a.objects[0].mesh.colors.empty());
    auto source = stream::makeSampleSource(s);
    EXPECT_EQ(source->frameCount(), 180);
    EXPECT_DOUBLE_EQ(source->fps(), 30.0);
    EXPECT_EQ(source->largestFrame()->vertices, 5000u);
    const io::Bounds all = *source->bounds();
    for (const glm::vec3& p : c.objects[0].mesh.positions)
        for (int i = 0; i < 3; ++i) {
            EXPECT_GE(p[i], all.min[i]);
            EXPECT_LE(p[i], all.max[i]);
        }
}

TEST(Sample, MeshVariantCountsMatch)
{
    auto settings = stream::parseSample("sample:mesh,points=2000,frames=10");
    ASSERT_TRUE(settings) << settings.error();
    EXPECT_TRUE(settings.value().mesh);
    EXPECT_EQ(settings.value().frames, 10);
    auto source = stream::makeSampleSource(settings.value());
    const render::SceneCounts counts =
        render::sceneCounts(stream::sampleFrame(settings.value(), 2));
    const render::SceneCounts said = *source->largestFrame();
    EXPECT_EQ(counts.vertices, said.vertices);
    EXPECT_EQ(counts.indices, said.indices);
    EXPECT_EQ(counts.provokingOffsets, said.provokingOffsets);
    EXPECT_EQ(counts.provokingTriangles, said.provokingTriangles);
}

TEST(Sample, ParsesAndRejects)
{
    EXPECT_TRUE(stream::parseSample("sample"));
    EXPECT_EQ(stream::parseSample("sample:points=1000000").value().points, 1000000u);
    EXPECT_DOUBLE_EQ(stream::parseSample("sample:fps=60").value().fps, 60.0);
    EXPECT_FALSE(stream::parseSample("sample:points=abc"));
    EXPECT_FALSE(stream::parseSample("sample:frames=0"));
    auto bad = stream::parseSample("sample:colour=red");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().find("unknown setting 'colour=red'"), std::string::npos);
}

TEST(Block, PointCloudsAreCompactPoints)
{
    render::Scene scene;
    io::MeshData cloud;
    cloud.positions = {{0, 0, 1}, {2, 0, 1}, {0, 3, 1}};
    cloud.colors = {{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}};
    cloud.normals = {{0, 0, 1}, {0, 1, 0}, {1, 0, 0}};
    scene.objects.push_back({"a", cloud});
    scene.objects.push_back({"b", cloud});
    const render::SceneCounts counts = render::sceneCounts(scene);
    EXPECT_TRUE(counts.compact);
    EXPECT_EQ(counts.vertices, 6u);
    const std::vector<std::uint8_t> bytes = blockOf(scene);
    // 20 bytes a point instead of 36.
    EXPECT_NEAR(static_cast<double>(stream::blockBytes({1, 1000000, 0, 0, 0, true})) /
                    static_cast<double>(stream::blockBytes({1, 1000000, 0, 0, 0, false})),
                20.0 / 36.0, 1e-3);
    auto view = stream::viewBlock(bytes, "cloud");
    ASSERT_TRUE(view) << view.error();
    const render::SceneView& v = view.value();
    ASSERT_TRUE(v.isCompact());
    EXPECT_TRUE(v.vertices.empty());
    ASSERT_EQ(v.positions.size(), 6u);
    EXPECT_EQ(v.positions[4], glm::vec3(2, 0, 1));
    EXPECT_EQ(v.counts().vertices, 6u);
    // The attributes the CUDA point pass would have packed from the vertex.
    render::PointVertex p{};
    p.position[0] = 2;
    p.position[2] = 1;
    p.normal[1] = 1;
    p.color = 0xff00ff00u;
    const render::PointAttributes expected = render::packPoint(
        p, render::ObjectIsPoints | render::ObjectHasColors | render::ObjectHasNormals);
    EXPECT_EQ(v.attributes[4].color, expected.color);
    EXPECT_EQ(v.attributes[4].normal, expected.normal);
    EXPECT_EQ(v.objects[1].firstVertex, 3u);
    // A mesh among them makes the scene vertices again.
    io::MeshData mesh;
    mesh.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    mesh.indices = {0, 1, 2};
    scene.objects.push_back({"mesh", mesh});
    EXPECT_FALSE(render::sceneCounts(scene).compact);
}
