// Meshes through the frame on headless EGL (llvmpipe in CI): the mesh pass's host twin (the
// same functions as the CUDA pass: TriangleRaster's clipping, fill rule and depth ties, then the
// resolve) against GL's geometry pass, every channel of the G-buffer, on the test meshes and the
// held-out real-world files, textured and clipped ones, both colour formats; pixels whose
// triangle differs are counted, bounded and must lie on triangle edges. Then what reads the
// G-buffer: the point pass's depth test, post-processing and the debug channels.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/io/MeshLoader.h"
#include "engine/render/MeshPass.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GBufferPixels.h"
#include "tests/support/GlTestContext.h"
#include "tests/support/ImageCompare.h"
#include "tests/support/MeshAgreement.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::render {
namespace {

using frame::Channel;

const std::filesystem::path data = std::filesystem::path(TANDEM_SOURCE_DIR) / "tests" / "data";

io::MeshData load(const std::filesystem::path& path)
{
    auto mesh = io::loadMesh(path);
    EXPECT_TRUE(mesh) << mesh.error();
    return mesh ? mesh.value() : io::MeshData{};
}

/// Textured pixels may differ more: GL's texture units snap coordinates and filter weights to a
/// few bits of sub-texel precision (8 on NVIDIA), where the mesh pass filters in float; across
/// the checker's edges that is up to 5 codes on an H200 (1 on llvmpipe).
constexpr int TexturedCodes = 6;

class Meshes : public test::GlTest {
protected:
    /// The G-buffer after one frame of `scene` with meshes drawn on `raster` (points by the host
    /// point pass when meshes are off GL, else as `points` says).
    test::GBufferPixels render(const GpuScene& scene, const Camera& camera, RasterChoice raster,
                               ColorFormat format = ColorFormat::Rgba8,
                               PointPath points = PointPath::Host, int width = 192,
                               int height = 144)
    {
        test::FrameStack stack(width, height, format);
        stack.frame.setPointPath(points);
        stack.frame.setRaster(raster, "test");
        stack.render(scene, camera, postfx::Chain{}, Channel::Color, GeometryOptions{});
        EXPECT_EQ(stack.frame.rasterPath(),
                  raster == RasterChoice::Host ? RasterPath::Host : RasterPath::Gl);
        return test::readGBuffer(stack.renderer.gbuffer());
    }

    /// GL and the host twin on `scene`: how they agree.
    test::MeshAgreement both(const GpuScene& scene, const Camera& camera,
                             ColorFormat format = ColorFormat::Rgba8)
    {
        const test::GBufferPixels gl = render(scene, camera, RasterChoice::Gl, format);
        const test::GBufferPixels host = render(scene, camera, RasterChoice::Host, format);
        return test::compareMeshes(gl, host);
    }

    /// What every comparison holds to: the same triangle at all but a few pixels, each of them on
    /// an edge; where the triangle is the same, colour within 2 codes (textured: TexturedCodes),
    /// depth within 1e-4 of itself and the normal within 2e-3 (halves).
    static void expectAgree(const test::MeshAgreement& a, const std::string& what,
                            double fraction = 0.01, int colour = 2)
    {
        EXPECT_GT(a.covered, 2000u) << what << ": too little drawn to compare";
        EXPECT_LE(a.otherFraction(), fraction) << what << ": " << a;
        EXPECT_EQ(a.inside, 0u) << what << ": pixels off the edges changed triangle: " << a;
        EXPECT_EQ(a.background, 0u) << what << ": the background differs: " << a;
        EXPECT_LE(a.worstColour, colour) << what << ": " << a;
        EXPECT_LE(a.worstDepth, 1e-4) << what << ": " << a;
        EXPECT_LE(a.worstNormal, 2e-3) << what << ": " << a;
        std::cout << what << ": " << a << "\n";
    }
};

TEST_F(Meshes, HostPassMatchesGlOnTheTestMeshes)
{
    const GpuScene cube = test::sceneOf(test::colouredCube(), "cube");
    expectAgree(both(cube, test::fittedCamera(cube.bounds())), "cube");
    const GpuScene floor = test::sceneOf(test::cubeOnFloor(), "cubes on a floor");
    expectAgree(both(floor, test::fittedCamera(floor.bounds())), "cubes on a floor");
    expectAgree(both(floor, test::fittedCamera(floor.bounds()), ColorFormat::Rgba16F),
                "cubes on a floor, rgba16f");
    const GpuScene sample = test::sceneOf(
        load(std::filesystem::path(TANDEM_SOURCE_DIR) / "assets" / "sample.ply"), "sample");
    expectAgree(both(sample, test::fittedCamera(sample.bounds())), "sample.ply");
}

TEST_F(Meshes, HostPassMatchesGlOnHeldOutFiles)
{
    // Real exporters' files the engine was not written against: small triangles by the
    // thousand, so edges are most of the picture.
    for (const char* file : {"knot_assimp.obj", "knot_assimp_binary.ply"}) {
        const GpuScene scene = test::sceneOf(load(data / "real_world" / file), file);
        expectAgree(both(scene, test::fittedCamera(scene.bounds())), file);
    }
}

TEST_F(Meshes, TexturedMeshMatchesGl)
{
    const GpuScene scene(test::texturedQuad(), "textured quad");
    ASSERT_TRUE(scene.objects()[0].flags & ObjectHasTexture);
    ASSERT_EQ(scene.texels().size(), 16u * 16u * 4u);
    Camera camera;
    camera.eye = {0.3f, -0.2f, 2.2f};
    expectAgree(both(scene, camera), "textured quad", 0.01, TexturedCodes);
    expectAgree(both(scene, camera, ColorFormat::Rgba16F), "textured quad, rgba16f", 0.01,
                TexturedCodes);
}

TEST_F(Meshes, ClippedByTheNearPlaneAndTheSides)
{
    // The camera inside the floor scene's bounds, low and close: triangles cross the near plane
    // and reach far outside the guard band; both clip them to the same pixels.
    const GpuScene floor = test::sceneOf(test::cubeOnFloor(), "cubes on a floor");
    expectAgree(both(floor, test::insideFloorCamera()), "inside the floor scene");
}

TEST_F(Meshes, PointsAreDepthTestedAgainstHostMeshes)
{
    // A cube with a sheet of points in front of it and one behind it: with meshes drawn by the
    // host twin the point pass tests against the depth it wrote, as against GL's.
    Scene scene;
    scene.objects.push_back({"cube", test::colouredCube()});
    scene.objects.push_back({"front", test::pointSheet(40, 2.0f, 1.5f, {255, 0, 0, 255})});
    scene.objects.push_back({"back", test::pointSheet(40, 2.5f, -1.5f, {0, 0, 255, 255})});
    const GpuScene gpu(scene, "cube between sheets");
    Camera camera;
    camera.eye = {0.0f, 0.0f, 6.0f};
    const test::GBufferPixels gl = render(gpu, camera, RasterChoice::Gl);
    const test::GBufferPixels host = render(gpu, camera, RasterChoice::Host);
    std::size_t points = 0, same = 0;
    for (std::size_t i = 0; i < gl.id.size(); ++i)
        if (gl.isPoint(i) || host.isPoint(i)) {
            ++points;
            same += gl.id[i] == host.id[i] ? 1 : 0;
        }
    EXPECT_GT(points, 3000u);
    EXPECT_GE(double(same), 0.99 * double(points)) << same << " of " << points;
    expectAgree(test::compareMeshes(gl, host), "cube between sheets");
}

TEST_F(Meshes, PostProcessingAndDebugChannelsReadHostMeshes)
{
    const GpuScene floor = test::sceneOf(test::cubeOnFloor(), "cubes on a floor");
    const Camera camera = test::fittedCamera(floor.bounds());
    auto chain = postfx::parseChain("ssao,tonemap,fxaa");
    ASSERT_TRUE(chain) << chain.error();
    for (const Channel channel : {Channel::Output, Channel::Depth, Channel::Normal}) {
        io::Image images[2];
        for (int i = 0; i < 2; ++i) {
            test::FrameStack stack(192, 144);
            stack.frame.setPointPath(PointPath::Host);
            stack.frame.setRaster(i ? RasterChoice::Host : RasterChoice::Gl, "test");
            images[i] = stack.render(floor, camera, chain.value(), channel);
        }
        ASSERT_EQ(images[0].pixels.size(), images[1].pixels.size());
        std::size_t over = 0;
        const std::size_t pixels = images[0].pixels.size() / 4;
        for (std::size_t i = 0; i < pixels; ++i)
            for (int c = 0; c < 3; ++c)
                if (std::abs(int(images[0].pixels[i * 4 + c]) - int(images[1].pixels[i * 4 + c])) >
                    4) {
                    ++over;
                    break;
                }
        EXPECT_LE(double(over), 0.01 * double(pixels))
            << frame::Channels.name(channel) << ": " << over << " pixels differ by more than 4";
        EXPECT_GT(test::nonBackgroundFraction(images[1]), 0.1) << frame::Channels.name(channel);
    }
}

TEST_F(Meshes, ScenesWithoutTrianglesLeaveThePassOut)
{
    // Points only: the mesh pass does nothing and the point pass writes every pixel; an empty
    // scene is the background, as with GL.
    const GpuScene grid = test::sceneOf(test::pointGrid(), "grid");
    const Camera camera = test::fittedCamera(grid.bounds());
    const test::GBufferPixels gl = render(grid, camera, RasterChoice::Gl);
    const test::GBufferPixels host = render(grid, camera, RasterChoice::Host);
    EXPECT_EQ(gl.id, host.id);
    EXPECT_EQ(gl.color, host.color);
    io::MeshData nothing;
    Scene empty;
    empty.objects.push_back({"empty", nothing});
    const GpuScene none(empty, "empty");
    const test::GBufferPixels a = render(none, camera, RasterChoice::Gl);
    const test::GBufferPixels b = render(none, camera, RasterChoice::Host);
    EXPECT_EQ(a.color, b.color);
    EXPECT_EQ(b.id, std::vector<std::uint32_t>(b.id.size(), 0u));
}

} // namespace
} // namespace tandem::render
