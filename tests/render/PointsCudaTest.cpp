// gpu tier: the CUDA point pass, inside the frame's one handoff, writes the same G-buffer as its
// host twin (the same per-point functions, no FMA contraction) bit for bit: colour (RGBA8 and
// RGBA16F), normal, linear depth and id, for splats of 1, 3 and 8 px and world-sized ones, with
// and without a mesh in the scene, and for the held-out PLY clouds. The test reports how many
// pixels of each target differ.
#include <cstring>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "engine/io/MeshLoader.h"
#include "engine/render/PointPass.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GBufferPixels.h"
#include "tests/support/GpuTestContext.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::render {
namespace {

class PointsCuda : public test::GpuTest {
protected:
    struct Both {
        test::GBufferPixels cuda, host;
        std::uint64_t cudaHandoffs = 0;
    };

    /// Renders `scene` once through a CUDA frame drawing points in CUDA and once through a host
    /// frame drawing them with the host twin, on one renderer; reads the G-buffer after each.
    Both renderBoth(const GpuScene& scene, const Camera& camera, const GeometryOptions& options,
                    ColorFormat format = ColorFormat::Rgba8, const std::string& chain = "")
    {
        SceneRenderer renderer(320, 240, format, true);
        profile::ProfilerOptions off;
        off.enabled = false;
        profile::Profiler profiler(off);
        auto onCuda = frame::chooseResidence(postfx::BackendChoice::Cuda, s_doctor);
        auto onHost = frame::chooseResidence(postfx::BackendChoice::Host, s_doctor);
        EXPECT_TRUE(onCuda && onHost);
        frame::Frame cudaFrame(renderer, onCuda.value(), profiler);
        frame::Frame hostFrame(renderer, onHost.value(), profiler);
        cudaFrame.setPointPath(PointPath::Cuda);
        hostFrame.setPointPath(PointPath::Host);
        auto parsed = postfx::parseChain(chain.empty() ? "none" : chain);
        EXPECT_TRUE(parsed) << parsed.error();
        Both out;
        cudaFrame.render(scene, camera, parsed.value(), frame::Channel::Color, options);
        cudaFrame.synchronize();
        out.cuda = test::readGBuffer(renderer.gbuffer());
        out.cudaHandoffs = cudaFrame.handoffs();
        hostFrame.render(scene, camera, parsed.value(), frame::Channel::Color, options);
        out.host = test::readGBuffer(renderer.gbuffer());
        return out;
    }

    static void expectBitExact(const Both& o, const std::string& what)
    {
        test::expectBitExact(o.cuda, o.host, what);
        std::size_t points = 0;
        for (std::size_t i = 0; i < o.cuda.id.size(); ++i)
            points += o.cuda.isPoint(i) ? 1 : 0;
        EXPECT_GT(points, 500u) << what << ": the CUDA pass drew too few points to compare";
    }
};

io::MeshData torusCloud()
{
    auto mesh = io::loadMesh(std::filesystem::path(TANDEM_SOURCE_DIR) / "tests" / "data" /
                             "points" / "torus_binary_double.ply");
    EXPECT_TRUE(mesh) << mesh.error();
    return mesh ? mesh.value() : io::MeshData{};
}

TEST_F(PointsCuda, BitExactWithHostAtEverySizeWithAndWithoutAMesh)
{
    for (int withMesh = 0; withMesh < 2; ++withMesh) {
        Scene scene;
        if (withMesh)
            scene.objects.push_back({"cube", test::colouredCube()});
        scene.objects.push_back({"torus", torusCloud()});
        const GpuScene gpu(scene, "points");
        Camera camera = test::fittedCamera(gpu.bounds());
        for (float size : {1.0f, 3.0f, 8.0f}) {
            GeometryOptions options;
            options.pointSize = size;
            const std::string what =
                std::string(withMesh ? "with" : "without") + " a mesh, " + std::to_string(size);
            const Both o = renderBoth(gpu, camera, options);
            expectBitExact(o, what);
            EXPECT_EQ(o.cudaHandoffs, 1u) << what << ": points run inside the frame's handoff";
        }
    }
}

TEST_F(PointsCuda, BitExactWithWorldSizesAndRgba16F)
{
    const GpuScene gpu = test::sceneOf(torusCloud(), "torus");
    GeometryOptions options;
    options.pointWorldSize = 0.05f;
    const Camera camera = test::fittedCamera(gpu.bounds());
    expectBitExact(renderBoth(gpu, camera, options), "world size, RGBA8");
    expectBitExact(renderBoth(gpu, camera, options, ColorFormat::Rgba16F), "world size, RGBA16F");
}

TEST_F(PointsCuda, OneHandoffForPointsAndPostProcessing)
{
    const GpuScene gpu = test::sceneOf(torusCloud(), "torus");
    GeometryOptions options;
    options.pointSize = 3.0f;
    const Both o = renderBoth(gpu, test::fittedCamera(gpu.bounds()), options, ColorFormat::Rgba8,
                              "tonemap,fxaa");
    EXPECT_EQ(o.cudaHandoffs, 1u);
    expectBitExact(o, "with a chain");
}

TEST_F(PointsCuda, HeldOutCloudsAreBitExact)
{
    const std::filesystem::path dir =
        std::filesystem::path(TANDEM_SOURCE_DIR) / "tests" / "data" / "points";
    for (const char* name : {"torus_binary_double.ply", "helix_ascii_rgba.ply",
                             "box_big_endian_bare.ply", "sheet_normals_only.ply"}) {
        auto mesh = io::loadMesh(dir / name);
        ASSERT_TRUE(mesh) << name << ": " << mesh.error();
        const GpuScene gpu = test::sceneOf(mesh.value(), name);
        GeometryOptions options;
        options.pointSize = 3.0f;
        expectBitExact(renderBoth(gpu, test::fittedCamera(gpu.bounds()), options), name);
    }
}

} // namespace
} // namespace tandem::render
