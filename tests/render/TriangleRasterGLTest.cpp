// render::TriangleRaster's rules (its host twin, the kernels' own functions) against GL's
// rasterizer (render::ClipRaster on this context): the same pixels drawn, the same triangle in
// each, the same values; with triangles crossing the near and far planes and the guard band.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "engine/frame/TensorRaster.h"
#include "engine/render/TriangleRaster.h"
#include "engine/render/TriangleRasterMath.h"
#include "tests/render/ClipMeshes.h"
#include "tests/support/GlTestContext.h"

namespace tandem::render {
namespace {

using CudaRules = test::GlTest;
using test::Comparison;

Comparison compare(const std::vector<float>& clip, const std::vector<std::uint32_t>& indices,
                   const ClipRasterShape& shape)
{
    std::vector<float> gl(shape.outputBytes() / sizeof(float), -1.0f);
    frame::TensorRaster raster;
    raster.rasterizeHost(clip.data(), indices.data(), gl.data(), shape);
    std::vector<float> twin(gl.size(), -1.0f);
    rasterizeTrianglesHost(clip.data(), indices.data(), twin.data(), shape);
    return test::compareWithGl(gl, twin, clip, indices, shape);
}

TEST_F(CudaRules, MatchGlOnGrids)
{
    for (int n : {6, 20, 70}) {
        const io::MeshData mesh = test::wavyGrid(n);
        for (const auto& [width, height] :
             {std::pair{96, 80}, std::pair{97, 61}, std::pair{33, 130}}) {
            const auto clip = test::clipPositions(mesh, test::identityViewCamera(),
                                                  static_cast<float>(width) / height);
            const ClipRasterShape shape{1, mesh.positions.size(), mesh.indices.size() / 3, width,
                                        height};
            const Comparison c = compare(clip, mesh.indices, shape);
            EXPECT_GT(c.covered, static_cast<std::size_t>(width) * height / 4);
            // Mesa's llvmpipe: 1 pixel of 13 000 differs in these nine images (a centre 0.2
            // subpixel from an edge); the rules wrong (top-left for bottom-left) make it 121.
            EXPECT_LE(c.mismatched * 2000, c.covered) << n << " quads, " << width << "x" << height;
        }
    }
}

TEST_F(CudaRules, ClipLikeGl)
{
    const io::MeshData mesh = test::clipScene(7, 20);
    for (const auto& [width, height] : {std::pair{64, 48}, std::pair{101, 77}}) {
        Camera camera = test::identityViewCamera();
        const auto clip = test::clipPositions(mesh, camera, static_cast<float>(width) / height);
        const ClipRasterShape shape{1, mesh.positions.size(), mesh.indices.size() / 3, width,
                                    height};
        const Comparison c = compare(clip, mesh.indices, shape);
        EXPECT_GT(c.covered, static_cast<std::size_t>(width) * height / 2);
        EXPECT_LE(c.mismatched * 200, c.covered) << width << "x" << height;
    }
}

TEST_F(CudaRules, BatchesEmptyAndOutOfRangeIndices)
{
    const io::MeshData mesh = test::wavyGrid(5);
    const auto a = test::clipPositions(mesh, test::identityViewCamera(), 1.0f);
    Camera turned = test::identityViewCamera();
    turned.target = glm::vec3(0.2f, 0.1f, -1.0f);
    const auto b = test::clipPositions(mesh, turned, 1.0f);
    std::vector<float> both = a;
    both.insert(both.end(), b.begin(), b.end());
    const std::size_t v = mesh.positions.size(), t = mesh.indices.size() / 3;
    const auto run = [&](const std::vector<float>& positions,
                         const std::vector<std::uint32_t>& indices, const ClipRasterShape& shape) {
        std::vector<float> out(shape.outputBytes() / sizeof(float), -1.0f);
        rasterizeTrianglesHost(positions.data(), indices.data(), out.data(), shape);
        return out;
    };
    auto expected = run(a, mesh.indices, {1, v, t, 24, 20});
    const auto second = run(b, mesh.indices, {1, v, t, 24, 20});
    EXPECT_NE(expected, second);
    expected.insert(expected.end(), second.begin(), second.end());
    EXPECT_EQ(run(both, mesh.indices, {2, v, t, 24, 20}), expected);

    // A triangle naming a vertex past the end draws nothing; the others are unchanged.
    std::vector<std::uint32_t> bad = mesh.indices;
    bad[0] = static_cast<std::uint32_t>(v);
    const auto withBad = run(a, bad, {1, v, t, 24, 20});
    std::size_t differing = 0;
    for (std::size_t p = 0; p < withBad.size() / 4; ++p) {
        ASSERT_NE(withBad[4 * p + 3], 1.0f);
        differing += withBad[4 * p + 3] != expected[4 * p + 3];
    }
    EXPECT_GT(differing, 0u);
    for (float value : run(a, {}, {1, v, 0, 8, 8}))
        ASSERT_EQ(value, 0.0f);
    // NaN and infinite positions draw nothing; huge finite ones neither crash nor overflow.
    std::vector<float> broken = a;
    broken[0] = std::nanf("");
    broken[5] = INFINITY;
    for (float value : run(broken, {0, 1, 2}, {1, v, 1, 8, 8}))
        ASSERT_EQ(value, 0.0f);
    const std::vector<float> huge = {3e38f,  -3e38f, 1e38f, 1e-38f, -3e38f, 3e38f,  -1e38f, 3e38f,
                                     1e-30f, 1e-30f, 0.0f,  1e-30f, 0.0f,   -3e38f, 3e38f,  -3e38f};
    const auto hugeOut = run(huge, {0, 1, 2, 1, 2, 3, 0, 2, 3}, {1, 4, 3, 16, 16});
    EXPECT_EQ(hugeOut.size(), 16u * 16u * 4u);
}

} // namespace
} // namespace tandem::render
