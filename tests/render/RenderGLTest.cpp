// Rendering on headless EGL (llvmpipe in CI): known scenes through the frame (geometry pass,
// the debug views as post-process stages, present), every channel, compared with committed
// reference images within a tolerance; several objects in one scene.
// Regenerate the references with scripts/update-references.sh after an intended change.
#include <algorithm>
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "engine/io/MeshLoader.h"
#include "engine/render/PointSplat.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GlTestContext.h"
#include "tests/support/ImageCompare.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::render {
namespace {

const std::filesystem::path references =
    std::filesystem::path(TANDEM_SOURCE_DIR) / "tests" / "render" / "references";

using frame::Channel;
using test::colouredCube;
using test::pointGrid;

class Render : public test::GlTest {
protected:
    io::Image renderChannel(const io::MeshData& data, Channel channel, ColorFormat format)
    {
        const GpuScene scene = test::sceneOf(data);
        test::FrameStack stack(160, 120, format);
        GeometryOptions options;
        options.pointSize = 3.0f;
        return stack.render(scene, test::fittedCamera(scene.bounds()), postfx::Chain{}, channel,
                            options);
    }
    std::vector<std::uint32_t> readIds(const GBuffer& gbuffer)
    {
        std::vector<std::uint32_t> ids(static_cast<std::size_t>(gbuffer.width()) *
                                       gbuffer.height());
        glGetTextureSubImage(gbuffer.id().id(), 0, 0, 0, 0, gbuffer.width(), gbuffer.height(), 1,
                             GL_RED_INTEGER, GL_UNSIGNED_INT, static_cast<GLsizei>(ids.size() * 4),
                             ids.data());
        return ids;
    }
};

TEST_F(Render, CubeEveryChannelMatchesReference)
{
    for (Channel channel : {Channel::Color, Channel::Depth, Channel::Normal, Channel::Id}) {
        const io::Image image = renderChannel(colouredCube(), channel, ColorFormat::Rgba8);
        const std::string name = "cube_" + std::string(frame::Channels.name(channel)) + ".png";
        EXPECT_EQ(test::compareWithReference(image, references / name), "") << name;
        EXPECT_GT(test::nonBackgroundFraction(image), 0.1) << name << " is blank";
    }
}

TEST_F(Render, Rgba16FColourMatchesRgba8)
{
    const io::Image rgba8 = renderChannel(colouredCube(), Channel::Color, ColorFormat::Rgba8);
    const io::Image rgba16f = renderChannel(colouredCube(), Channel::Color, ColorFormat::Rgba16F);
    ASSERT_EQ(rgba8.width, rgba16f.width);
    ASSERT_EQ(rgba8.height, rgba16f.height);
    ASSERT_EQ(rgba8.pixels.size(), rgba16f.pixels.size());
    // The same shading stored at two precisions, presented as 8 bits: at most a rounding step
    // apart, pixel for pixel, and the same picture (not both blank).
    int worst = 0;
    for (std::size_t i = 0; i < rgba8.pixels.size(); ++i)
        worst = std::max(worst, std::abs(int(rgba8.pixels[i]) - int(rgba16f.pixels[i])));
    EXPECT_LE(worst, 1) << "RGBA16F and RGBA8 colour differ by more than one 8-bit step";
    EXPECT_GT(test::nonBackgroundFraction(rgba16f), 0.1);
    EXPECT_EQ(
        test::compareWithReference(rgba16f, references / "cube_color.png", test::Tolerance{2, 0.0}),
        "");
}

TEST_F(Render, PointsMatchReference)
{
    const io::Image image = renderChannel(pointGrid(), Channel::Color, ColorFormat::Rgba8);
    EXPECT_EQ(test::compareWithReference(image, references / "points_color.png"), "");
    EXPECT_GT(test::nonBackgroundFraction(image), 0.02);
}

TEST_F(Render, IdsAreDistinctPerTriangle)
{
    // Read the raw id target: the visible cube shows 3 faces = 6 triangles, ids 1..12.
    const GpuScene scene = test::sceneOf(colouredCube(), "cube");
    test::FrameStack stack(160, 120);
    stack.render(scene, test::fittedCamera(scene.bounds()), postfx::Chain{}, Channel::Color);
    const auto ids = readIds(stack.renderer.gbuffer());
    std::set<std::uint32_t> seen(ids.begin(), ids.end());
    EXPECT_TRUE(seen.count(0u)) << "background is 0";
    seen.erase(0u);
    EXPECT_EQ(seen.size(), 6u);
    for (std::uint32_t id : seen) {
        EXPECT_GE(id, 1u);
        EXPECT_LE(id, 12u);
    }
}

TEST_F(Render, SeveralObjectsInOneScene)
{
    // A cube and a point grid in one scene: both are drawn, each keeps its own ids (the cube's
    // 12 triangles first, then the grid's points, marked with PointIdBit), and the image holds
    // each one's pixels.
    Scene scene;
    scene.objects.push_back({"cube", colouredCube()});
    io::MeshData grid = pointGrid();
    for (auto& p : grid.positions)
        p = p * 0.5f + glm::vec3(0.0f, 0.0f, 2.5f); // in front of the cube
    scene.objects.push_back({"grid", grid});
    const GpuScene gpu(scene, "two objects");
    ASSERT_EQ(gpu.objects().size(), 2u);
    EXPECT_EQ(gpu.objects()[0].firstVertex, 0u);
    EXPECT_EQ(gpu.objects()[1].firstVertex, 24u);
    EXPECT_EQ(gpu.objects()[1].firstPrimitive, 12u) << "points are numbered after triangles";
    EXPECT_TRUE(gpu.objects()[1].flags & ObjectIsPoints);
    EXPECT_EQ(gpu.vertexCount(), 24u + grid.positions.size());

    test::FrameStack stack(160, 120);
    GeometryOptions options;
    options.pointSize = 3.0f;
    const Camera camera = test::fittedCamera(gpu.bounds());
    const io::Image both = stack.render(gpu, camera, postfx::Chain{}, Channel::Color, options);
    std::size_t triangles = 0, points = 0;
    for (std::uint32_t id : readIds(stack.renderer.gbuffer())) {
        const bool isPoint = (id & PointIdBit) != 0;
        const std::uint32_t primitive = id & ~PointIdBit;
        triangles += !isPoint && id >= 1 && id <= 12 ? 1 : 0;
        points += isPoint && primitive > 12 && primitive <= 12 + grid.positions.size() ? 1 : 0;
        EXPECT_LE(primitive, 12 + grid.positions.size()) << "an id past the scene's primitives";
        EXPECT_TRUE(!isPoint || primitive > 12) << "a triangle's id marked as a point";
    }
    EXPECT_GT(triangles, 100u) << "the cube is drawn";
    EXPECT_GT(points, 20u) << "the points are drawn";
    // Each object alone draws a different picture from the two together.
    const GpuScene cubeOnly = test::sceneOf(colouredCube(), "cube");
    const io::Image cube = stack.render(cubeOnly, camera, postfx::Chain{}, Channel::Color, options);
    EXPECT_NE(cube.pixels, both.pixels);
}

TEST_F(Render, TexturedMeshTakesItsTexels)
{
    // A quad facing the camera, (0, 0) at its bottom left, and a 2×2 texture whose rows are
    // stored top first: red and green on top, blue and white below. Each quarter of the image
    // shows its texel; without the texture the quad is white.
    Scene scene;
    io::MeshData quad;
    quad.positions = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
    quad.normals.assign(4, glm::vec3(0, 0, 1));
    quad.texcoords = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    quad.indices = {0, 1, 2, 0, 2, 3};
    scene.objects.push_back({"quad", quad});
    scene.texture.width = 2;
    scene.texture.height = 2;
    scene.texture.pixels = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};
    const GpuScene gpu(scene, "textured quad");
    ASSERT_TRUE(gpu.objects()[0].flags & ObjectHasTexture);
    EXPECT_EQ(gpu.texture().width(), 2);

    test::FrameStack stack(160, 160);
    Camera camera;
    camera.eye = {0.0f, 0.0f, 2.0f};
    camera.fovY = 60.0f;
    const io::Image image = stack.render(gpu, camera, postfx::Chain{}, Channel::Color);
    const auto at = [&](int x, int y) {
        const std::uint8_t* p = image.row(y) + 4 * x;
        return glm::ivec3(p[0], p[1], p[2]);
    };
    const auto dominant = [](glm::ivec3 c) {
        return c.r > 2 * std::max(c.g, c.b)   ? 'r'
               : c.g > 2 * std::max(c.r, c.b) ? 'g'
               : c.b > 2 * std::max(c.r, c.g) ? 'b'
                                              : '-';
    };
    EXPECT_EQ(dominant(at(50, 50)), 'r');
    EXPECT_EQ(dominant(at(110, 50)), 'g');
    EXPECT_EQ(dominant(at(50, 110)), 'b');
    const glm::ivec3 white = at(110, 110);
    EXPECT_GT(std::min({white.r, white.g, white.b}), 100);

    Scene plain = scene;
    plain.texture = {};
    const GpuScene untextured(plain, "plain quad");
    EXPECT_FALSE(untextured.objects()[0].flags & ObjectHasTexture);
    const io::Image noTexture = stack.render(untextured, camera, postfx::Chain{}, Channel::Color);
    const std::uint8_t* p = noTexture.row(50) + 4 * 50;
    EXPECT_GT(std::min({p[0], p[1], p[2]}), 100) << "untextured: white";
}

TEST_F(Render, TexelsAndVertexColoursAreSrgbAndLitInLinearColour)
{
    // A grey quad facing the camera, once coloured by its vertices and once by a texture of
    // the same sRGB grey: both decode to linear colour (the texture through GL_SRGB8_ALPHA8
    // sampling), are lit alike and encoded once. The head light meets the quad at
    // cos = 1 / |(-0.3, 0.5, 1)| (GeometryPass), so the light is 0.25 + 0.75 cos = 0.898 of the
    // full, and grey 128 shows as the sRGB encoding of 0.898 × 0.216: 122 (lighting the byte
    // itself, as when colours were taken as linear, gave 115).
    const glm::u8vec4 grey(128, 128, 128, 255);
    io::MeshData quad;
    quad.positions = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
    quad.normals.assign(4, glm::vec3(0, 0, 1));
    quad.indices = {0, 1, 2, 0, 2, 3};
    Scene coloured;
    coloured.objects.push_back({"coloured quad", quad});
    coloured.objects[0].mesh.colors.assign(4, grey);
    Scene textured;
    textured.objects.push_back({"textured quad", quad});
    textured.objects[0].mesh.texcoords = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    textured.texture.width = 2;
    textured.texture.height = 2;
    for (int i = 0; i < 4; ++i)
        textured.texture.pixels.insert(textured.texture.pixels.end(), {128, 128, 128, 255});
    test::FrameStack stack(64, 64);
    Camera camera;
    camera.eye = {0.0f, 0.0f, 2.0f};
    camera.fovY = 60.0f;
    const double light = 0.25 + 0.75 / std::sqrt(0.09 + 0.25 + 1.0);
    const double linear = std::pow((128.0 / 255.0 + 0.055) / 1.055, 2.4) * light;
    const double expected = 255.0 * (1.055 * std::pow(linear, 1.0 / 2.4) - 0.055);
    for (const Scene* scene : {&coloured, &textured}) {
        const GpuScene gpu(*scene, scene->objects[0].name.c_str());
        const io::Image image = stack.render(gpu, camera, postfx::Chain{}, Channel::Color);
        for (int c = 0; c < 3; ++c)
            EXPECT_NEAR(image.row(32)[32 * 4 + c], expected, 1.0) << scene->objects[0].name;
    }
}

TEST_F(Render, SampleAssetRenders)
{
    auto sample = io::loadMesh(std::filesystem::path(TANDEM_SOURCE_DIR) / "assets" / "sample.ply");
    ASSERT_TRUE(sample) << sample.error();
    const io::Image image = renderChannel(sample.value(), Channel::Color, ColorFormat::Rgba8);
    EXPECT_EQ(test::compareWithReference(image, references / "sample_color.png"), "");
}

TEST_F(Render, ResizeKeepsRendering)
{
    const GpuScene scene = test::sceneOf(colouredCube(), "cube");
    test::FrameStack stack(64, 64);
    stack.renderer.resize(100, 50);
    const io::Image image =
        stack.render(scene, test::fittedCamera(scene.bounds()), postfx::Chain{}, Channel::Color);
    EXPECT_EQ(image.width, 100);
    EXPECT_EQ(image.height, 50);
    EXPECT_GT(test::nonBackgroundFraction(image), 0.1);
}

} // namespace
} // namespace tandem::render
