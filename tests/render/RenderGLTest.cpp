// Rendering on headless EGL (llvmpipe in CI): known meshes through the geometry and present
// passes, every channel, compared with committed reference images within a tolerance.
// Regenerate the references with scripts/update-references.sh after an intended change.
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "engine/io/MeshLoader.h"
#include "engine/render/GpuMesh.h"
#include "engine/render/OrbitCamera.h"
#include "engine/render/SceneRenderer.h"
#include "tests/support/GlTestContext.h"
#include "tests/support/ImageCompare.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::render {
namespace {

const std::filesystem::path references =
    std::filesystem::path(TANDEM_SOURCE_DIR) / "tests" / "render" / "references";

using test::colouredCube;
using test::pointGrid;

class Render : public test::GlTest {
protected:
    io::Image renderChannel(const io::MeshData& data, Channel channel, ColorFormat format)
    {
        GpuMesh mesh(data, "test mesh");
        SceneRenderer renderer(160, 120, format, true);
        OrbitCamera camera;
        camera.fit(mesh.bounds());
        GeometryOptions options;
        options.pointSize = 3.0f;
        renderer.render(mesh, camera, channel, options);
        return renderer.readPresented();
    }
};

TEST_F(Render, CubeEveryChannelMatchesReference)
{
    for (Channel channel : {Channel::Color, Channel::Depth, Channel::Normal, Channel::Id}) {
        const io::Image image = renderChannel(colouredCube(), channel, ColorFormat::Rgba8);
        const std::string name = "cube_" + std::string(channelName(channel)) + ".png";
        EXPECT_EQ(test::compareWithReference(image, references / name), "") << name;
        EXPECT_GT(test::nonBackgroundFraction(image), 0.1) << name << " is blank";
    }
}

TEST_F(Render, Rgba16FColourMatchesRgba8)
{
    const io::Image rgba8 = renderChannel(colouredCube(), Channel::Color, ColorFormat::Rgba8);
    const io::Image rgba16f = renderChannel(colouredCube(), Channel::Color, ColorFormat::Rgba16F);
    EXPECT_EQ(
        test::compareWithReference(rgba16f, references / "cube_color.png", test::Tolerance{2, 0.0}),
        "");
    EXPECT_EQ(rgba8.pixels.size(), rgba16f.pixels.size());
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
    GpuMesh mesh(colouredCube(), "cube");
    SceneRenderer renderer(160, 120, ColorFormat::Rgba8, true);
    OrbitCamera camera;
    camera.fit(mesh.bounds());
    renderer.render(mesh, camera, Channel::Id, GeometryOptions{});
    std::vector<std::uint32_t> ids(160 * 120);
    glGetTextureImage(renderer.gbuffer().id().id(), 0, GL_RED_INTEGER, GL_UNSIGNED_INT,
                      static_cast<GLsizei>(ids.size() * 4), ids.data());
    std::set<std::uint32_t> seen(ids.begin(), ids.end());
    EXPECT_TRUE(seen.count(0u)) << "background is 0";
    seen.erase(0u);
    EXPECT_EQ(seen.size(), 6u);
    for (std::uint32_t id : seen) {
        EXPECT_GE(id, 1u);
        EXPECT_LE(id, 12u);
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
    GpuMesh mesh(colouredCube(), "cube");
    SceneRenderer renderer(64, 64, ColorFormat::Rgba8, true);
    OrbitCamera camera;
    camera.fit(mesh.bounds());
    renderer.resize(100, 50);
    renderer.render(mesh, camera, Channel::Color, GeometryOptions{});
    const io::Image image = renderer.readPresented();
    EXPECT_EQ(image.width, 100);
    EXPECT_EQ(image.height, 50);
    EXPECT_GT(test::nonBackgroundFraction(image), 0.1);
}

} // namespace
} // namespace tandem::render
