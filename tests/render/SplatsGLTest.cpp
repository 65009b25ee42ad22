// gl tier: Gaussian splats in the frame (render::SplatPass on the host path, the CUDA pass's
// twin): a scene of splats alone is the rasterizer's image over the background in every target;
// a cube in front of the splats hides them exactly where it is, one behind them is seen through
// what transmittance they leave, and either way the frame equals the rasterizer run over the
// G-buffer the cube alone leaves; files of splats load into the scene and frame it.
#include <cstring>
#include <filesystem>

#include <glm/gtc/quaternion.hpp>
#include <gtest/gtest.h>

#include "engine/app/SceneFiles.h"
#include "engine/render/SplatRaster.h"
#include "engine/render/detail/HostTargets.h"
#include "tests/render/SplatScenes.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GBufferPixels.h"
#include "tests/support/GlTestContext.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::render {
namespace {

class SplatsGL : public test::GlTest {};

constexpr int Width = 128;
constexpr int Height = 96;

/// A slab of Gaussians across the view at depth 5 ± 0.3 (the test camera's).
io::GaussianData slab()
{
    io::GaussianData g = test::randomScene(2500, 2, 17u);
    for (glm::vec3& p : g.positions)
        p.z *= 0.2f;
    return g;
}

/// The colouredCube() at `scale`, moved to `offset`.
io::MeshData cubeAt(float scale, glm::vec3 offset)
{
    io::MeshData cube = test::colouredCube();
    for (glm::vec3& p : cube.positions)
        p = p * scale + offset;
    return cube;
}

test::GBufferPixels renderFrame(const Scene& scene)
{
    const GpuScene gpu(scene, "splat test");
    test::FrameStack stack(Width, Height);
    stack.render(gpu, test::frontCamera(), postfx::Chain{}, frame::Channel::Color);
    return test::readGBuffer(stack.renderer.gbuffer());
}

/// The host rasterizer over `under` (or nothing), as the pass should have run it.
detail::HostTargets expected(const io::GaussianData& g, const test::GBufferPixels* under)
{
    const SplatArrays arrays = splatArrays(g);
    SplatLook look;
    look.storedDegree = g.shDegree;
    detail::HostTargets t;
    if (under) {
        t.color = under->color;
        t.depth = under->depth;
        t.normal = under->normal;
        t.id = under->id;
    }
    renderSplatsHost(
        arrays.scene(),
        makeSplatFrame(test::frontCamera(), Width, Height, false, look, under != nullptr), t);
    return t;
}

void expectTargets(const test::GBufferPixels& got, const detail::HostTargets& want,
                   const std::string& what)
{
    EXPECT_EQ(test::differingElements(got.color, want.color), 0u) << what << ": colour";
    EXPECT_EQ(test::differingElements(got.depth, want.depth), 0u) << what << ": depth";
    EXPECT_EQ(test::differingElements(got.id, want.id), 0u) << what << ": id";
    EXPECT_EQ(test::differingElements(got.normal, want.normal), 0u) << what << ": normal";
}

TEST_F(SplatsGL, SplatsAloneAreTheRasterizersImageOverTheBackground)
{
    Scene scene;
    scene.splats.push_back({"slab", slab()});
    const test::GBufferPixels got = renderFrame(scene);
    expectTargets(got, expected(scene.splats[0].gaussians, nullptr), "splats alone");
    std::size_t splatIds = 0;
    for (const std::uint32_t id : got.id)
        splatIds += (id & splats::SplatIdBit) ? 1 : 0;
    EXPECT_GT(splatIds, got.id.size() / 10) << "the slab covers the view";
}

TEST_F(SplatsGL, ACubeInFrontHidesThemAndOneBehindShowsThrough)
{
    for (const float z : {1.5f, -1.5f}) {
        const std::string what = z > 0.0f ? "cube in front" : "cube behind";
        Scene cubeOnly;
        cubeOnly.objects.push_back({"cube", cubeAt(0.5f, {0.0f, 0.0f, z})});
        const test::GBufferPixels under = renderFrame(cubeOnly);
        Scene both = cubeOnly;
        both.splats.push_back({"slab", slab()});
        const test::GBufferPixels got = renderFrame(both);
        expectTargets(got, expected(both.splats[0].gaussians, &under), what);
        // Where the cube is: untouched in front, blended over behind.
        std::size_t cubePixels = 0, changed = 0;
        for (std::size_t p = 0; p < under.depth.size(); ++p) {
            if (under.id[p] == 0u)
                continue;
            ++cubePixels;
            changed += std::memcmp(&got.color[p * 4], &under.color[p * 4], 4) != 0 ? 1 : 0;
        }
        ASSERT_GT(cubePixels, 200u) << what;
        if (z > 0.0f)
            EXPECT_EQ(changed, 0u) << what << ": a splat behind the cube showed on it";
        else
            EXPECT_GT(changed, cubePixels / 2) << what << ": the splats in front did not show";
    }
}

TEST_F(SplatsGL, SplatFilesLoadIntoTheSceneAndFrameIt)
{
    const auto file = std::filesystem::path(TANDEM_SOURCE_DIR) / "tests" / "data" / "splats" /
                      "ring.ply"; // made by make_ring.py beside it
    auto loaded = app::loadSceneFiles({file.string()});
    ASSERT_TRUE(loaded) << loaded.error();
    ASSERT_EQ(loaded.value().scene.splats.size(), 1u);
    EXPECT_TRUE(loaded.value().scene.objects.empty());
    EXPECT_GT(loaded.value().scene.gaussianCount(), 0u);
    EXPECT_FALSE(loaded.value().scene.bounds().isEmpty());
}

} // namespace
} // namespace tandem::render
