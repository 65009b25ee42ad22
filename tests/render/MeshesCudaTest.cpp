// gpu tier: the CUDA mesh pass, inside the frame's one handoff, writes the same G-buffer as its
// host twin (the same functions, no FMA contraction) bit for bit — colour (RGBA8 and RGBA16F),
// normal, linear depth and id — on the test meshes, a textured one, a clipped view, the held-out
// files and with points composited; it agrees with GL's geometry pass as the host twin does
// (pixels of another triangle counted, bounded, on edges); a frame of CUDA meshes, CUDA points
// and post-processing makes one handoff; --raster auto keeps what the times it is fed say, and
// on this GPU keeps the faster of what it measures.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

#include <gtest/gtest.h>

#include "engine/io/MeshLoader.h"
#include "engine/render/MeshPass.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GBufferPixels.h"
#include "tests/support/GpuTestContext.h"
#include "tests/support/MeshAgreement.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::render {
namespace {

using render::RasterChoice;

class MeshesCuda : public test::GpuTest {
protected:
    struct Renders {
        test::GBufferPixels cuda, host, gl;
        std::uint64_t cudaHandoffs = 0;
    };

    /// `scene` through a CUDA frame with CUDA meshes and points, a host frame with the host
    /// twins, and a CUDA frame with GL meshes (CUDA points), each with targets of its own (so a
    /// frame that drew nothing cannot pass on another's pixels).
    Renders renderAll(const GpuScene& scene, const Camera& camera,
                      ColorFormat format = ColorFormat::Rgba8, const std::string& chain = "")
    {
        profile::ProfilerOptions off;
        off.enabled = false;
        profile::Profiler profiler(off);
        auto onCuda = frame::chooseResidence(postfx::BackendChoice::Cuda, s_doctor);
        auto onHost = frame::chooseResidence(postfx::BackendChoice::Host, s_doctor);
        EXPECT_TRUE(onCuda && onHost);
        auto parsed = postfx::parseChain(chain.empty() ? "none" : chain);
        EXPECT_TRUE(parsed) << parsed.error();
        const auto draw = [&](const frame::Residence& residence, RasterChoice raster,
                              PointPath points, std::uint64_t* handoffs) {
            SceneRenderer renderer(320, 240, format, true);
            frame::Frame frame(renderer, residence, profiler);
            frame.setPointPath(points);
            frame.setRaster(raster, "test");
            frame.render(scene, camera, parsed.value(), frame::Channel::Color, {});
            frame.synchronize();
            if (handoffs)
                *handoffs = frame.handoffs();
            return test::readGBuffer(renderer.gbuffer());
        };
        Renders out;
        out.cuda = draw(onCuda.value(), RasterChoice::Cuda, PointPath::Cuda, &out.cudaHandoffs);
        out.host = draw(onHost.value(), RasterChoice::Host, PointPath::Host, nullptr);
        out.gl = draw(onCuda.value(), RasterChoice::Gl, PointPath::Cuda, nullptr);
        return out;
    }

    /// CUDA and host bit for bit; CUDA against GL as the gl tier holds the host twin to.
    static void expectFaithful(const Renders& r, const std::string& what, int colour = 2)
    {
        test::expectBitExact(r.cuda, r.host, what);
        const test::MeshAgreement a = test::compareMeshes(r.gl, r.cuda);
        EXPECT_GT(a.covered, 2000u) << what;
        EXPECT_LE(a.otherFraction(), 0.01) << what << ": " << a;
        EXPECT_EQ(a.inside, 0u) << what << ": " << a;
        EXPECT_EQ(a.background, 0u) << what << ": " << a;
        EXPECT_LE(a.worstColour, colour) << what << ": " << a;
        EXPECT_LE(a.worstDepth, 1e-4) << what << ": " << a;
        EXPECT_LE(a.worstNormal, 2e-3) << what << ": " << a;
        std::cout << what << " (cuda against gl): " << a << "\n";
    }
};

io::MeshData load(const char* folder, const char* file)
{
    auto mesh = io::loadMesh(std::filesystem::path(TANDEM_SOURCE_DIR) / folder / file);
    EXPECT_TRUE(mesh) << mesh.error();
    return mesh ? mesh.value() : io::MeshData{};
}

TEST_F(MeshesCuda, BitExactWithHostAndFaithfulToGl)
{
    const GpuScene floor = test::sceneOf(test::cubeOnFloor(), "cubes on a floor");
    const Camera fitted = test::fittedCamera(floor.bounds());
    expectFaithful(renderAll(floor, fitted), "cubes on a floor");
    expectFaithful(renderAll(floor, fitted, ColorFormat::Rgba16F), "cubes on a floor, rgba16f");
    expectFaithful(renderAll(floor, test::insideFloorCamera()), "inside the floor scene (clipped)");
    const GpuScene textured(test::texturedQuad(), "textured quad");
    Camera quad;
    quad.eye = {0.3f, -0.2f, 2.2f};
    // GL's texture units filter with 8 bits of sub-texel precision (MeshesGLTest.cpp).
    expectFaithful(renderAll(textured, quad), "textured quad", 6);
    expectFaithful(renderAll(textured, quad, ColorFormat::Rgba16F), "textured quad, rgba16f", 6);
    for (const char* file : {"knot_assimp.obj", "knot_assimp_binary.ply"}) {
        const GpuScene knot = test::sceneOf(load("tests/data/real_world", file), file);
        expectFaithful(renderAll(knot, test::fittedCamera(knot.bounds())), file);
    }
}

TEST_F(MeshesCuda, OneHandoffForMeshesPointsAndPostProcessing)
{
    Scene scene;
    scene.objects.push_back({"cube", test::colouredCube()});
    scene.objects.push_back({"sheet", test::pointSheet(60, 2.0f, 1.5f, {255, 0, 0, 255})});
    const GpuScene gpu(scene, "cube and sheet");
    Camera camera;
    camera.eye = {0.0f, 0.0f, 6.0f};
    const Renders r = renderAll(gpu, camera, ColorFormat::Rgba8, "ssao,tonemap,fxaa");
    EXPECT_EQ(r.cudaHandoffs, 1u);
    expectFaithful(r, "cube and sheet");
}

TEST_F(MeshesCuda, AutoKeepsWhatTheTimesSay)
{
    const GpuScene floor = test::sceneOf(test::cubeOnFloor(), "cubes on a floor");
    const Camera camera = test::fittedCamera(floor.bounds());
    auto onCuda = frame::chooseResidence(postfx::BackendChoice::Cuda, s_doctor);
    ASSERT_TRUE(onCuda);
    for (const bool cudaFaster : {true, false}) {
        test::FrameStack stack(160, 120, ColorFormat::Rgba8, false, s_doctor,
                               postfx::BackendChoice::Cuda);
        stack.frame.setPointPath(PointPath::Cuda);
        stack.frame.setRaster(RasterChoice::Auto, "auto");
        int measured = 0;
        stack.frame.setRasterMeasure([&] {
            ++measured;
            return cudaFaster ? frame::RasterTimes{{3.0, 3.1}, {0.2, 0.3}, {}}
                              : frame::RasterTimes{{0.2, 0.3}, {3.0, 3.1}, {}};
        });
        EXPECT_EQ(stack.frame.rasterPath(), RasterPath::Gl) << "not measured yet";
        for (int i = 0; i < 3; ++i)
            stack.frame.render(floor, camera, postfx::Chain{}, frame::Channel::Color, {});
        stack.frame.synchronize();
        EXPECT_EQ(measured, 1) << "measured once, on the first frame with triangles";
        EXPECT_EQ(stack.frame.rasterPath(), cudaFaster ? RasterPath::Cuda : RasterPath::Gl);
        EXPECT_TRUE(stack.frame.rasterDecision().measured);
        stack.frame.remeasureRaster();
        stack.frame.render(floor, camera, postfx::Chain{}, frame::Channel::Color, {});
        EXPECT_EQ(measured, 2) << "a new scene is measured again";
    }
}

TEST_F(MeshesCuda, AutoMeasuresThisGpuAndKeepsTheFaster)
{
    // A 512×512 grid (0.5 M triangles) at 1080p: both rasterizers timed on the GPU.
    io::MeshData grid;
    const int n = 512;
    for (int y = 0; y <= n; ++y)
        for (int x = 0; x <= n; ++x)
            grid.positions.emplace_back(float(x) / n * 2 - 1, float(y) / n * 2 - 1,
                                        0.1f * std::sin(float(x + y) * 0.05f));
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const std::uint32_t i = static_cast<std::uint32_t>(y * (n + 1) + x);
            for (std::uint32_t v : {i, i + 1, i + n + 2, i, i + n + 2, i + n + 1})
                grid.indices.push_back(v);
        }
    const GpuScene scene = test::sceneOf(grid, "grid");
    test::FrameStack stack(1920, 1080, ColorFormat::Rgba8, false, s_doctor,
                           postfx::BackendChoice::Cuda);
    stack.frame.setPointPath(PointPath::Cuda);
    stack.frame.setRaster(RasterChoice::Auto, "auto");
    stack.frame.render(scene, test::fittedCamera(scene.bounds()), postfx::Chain{},
                       frame::Channel::Color, {});
    stack.frame.synchronize();
    const frame::RasterDecision& d = stack.frame.rasterDecision();
    ASSERT_TRUE(d.measured) << d.reason;
    EXPECT_GT(d.glMs, 0.0);
    EXPECT_GT(d.cudaMs, 0.0);
    EXPECT_EQ(d.path, d.cudaMs < d.glMs ? RasterPath::Cuda : RasterPath::Gl) << d.reason;
    std::cout << "auto on this GPU: " << d.reason << "\n";
}

} // namespace
} // namespace tandem::render
