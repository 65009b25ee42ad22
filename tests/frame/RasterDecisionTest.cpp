// Who draws meshes and points: --raster and --points squared with where the passes run, and
// --raster auto's decision from the times it is fed (the frame measures them on a GPU).
#include <gtest/gtest.h>

#include "engine/frame/RasterDecision.h"

namespace tandem::frame {
namespace {

using render::PointChoice;
using render::PointPath;
using render::RasterChoice;
using render::RasterPath;

const Residence onCuda{interop::Path::Cuda, "CUDA backend"};
const Residence onHost{interop::Path::Host, "host backend: no CUDA driver"};

TEST(RasterDecision, AutoTakesTheFasterByMedian)
{
    // CUDA faster: chosen, and the reason gives both medians.
    RasterDecision d = decideRaster({{3.1, 4.3, 3.2, 3.3, 3.0}, {0.15, 0.14, 0.9, 0.16, 0.15}, {}});
    EXPECT_EQ(d.path, RasterPath::Cuda);
    EXPECT_TRUE(d.measured);
    EXPECT_DOUBLE_EQ(d.glMs, 3.2);
    EXPECT_DOUBLE_EQ(d.cudaMs, 0.15); // one slow frame (0.9) does not move the median
    EXPECT_EQ(d.reason, "CUDA rasterizer: 0.150 ms a frame against GL's 3.200 ms (medians of 5 "
                        "frames each, --raster auto)");
    // GL faster (a desktop GPU's raster hardware): GL.
    d = decideRaster({{0.20, 0.21, 0.19}, {0.35, 0.30, 0.40}, {}});
    EXPECT_EQ(d.path, RasterPath::Gl);
    EXPECT_DOUBLE_EQ(d.glMs, 0.20);
    EXPECT_DOUBLE_EQ(d.cudaMs, 0.35);
    EXPECT_EQ(d.reason, "GL's hardware rasterizer: 0.200 ms a frame against CUDA's 0.350 ms "
                        "(medians of 3 frames each, --raster auto)");
    // Even counts take the middle two; a tie stays on GL.
    d = decideRaster({{1.0, 2.0}, {1.5, 1.5}, {}});
    EXPECT_EQ(d.path, RasterPath::Gl);
    EXPECT_DOUBLE_EQ(d.glMs, 1.5);
    // Where CUDA meshes would add the frame's only handoff, its cost counts against them.
    d = decideRaster({{0.45, 0.46, 0.44}, {0.15, 0.16, 0.14}, {0.33, 0.35, 0.34}});
    EXPECT_EQ(d.path, RasterPath::Gl);
    EXPECT_DOUBLE_EQ(d.cudaMs, 0.15 + 0.34);
    EXPECT_EQ(d.reason, "GL's hardware rasterizer: 0.450 ms a frame against CUDA's 0.490 ms "
                        "(medians of 3 frames each, CUDA's with the handoff it adds (0.340 ms), "
                        "--raster auto)");
    d = decideRaster({{3.1, 3.2, 3.3}, {0.15, 0.16, 0.14}, {0.33, 0.35, 0.34}});
    EXPECT_EQ(d.path, RasterPath::Cuda);
    // One side unmeasured: GL, said so.
    d = decideRaster({{}, {0.1}, {}});
    EXPECT_EQ(d.path, RasterPath::Gl);
    EXPECT_FALSE(d.measured);
    EXPECT_EQ(d.reason, "GL's hardware rasterizer (--raster auto: no times measured)");
}

TEST(RasterDecision, AskedForPathsAreKept)
{
    auto p = chooseDrawPaths(RasterChoice::Cuda, PointChoice::Auto, onCuda);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p.value().raster, RasterChoice::Cuda);
    EXPECT_EQ(p.value().points, PointPath::Cuda);
    EXPECT_EQ(p.value().rasterReason, "asked for with --raster cuda");
    p = chooseDrawPaths(RasterChoice::Host, PointChoice::Auto, onHost);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p.value().raster, RasterChoice::Host);
    EXPECT_EQ(p.value().points, PointPath::Host) << "meshes off GL take the points along";
    p = chooseDrawPaths(RasterChoice::Host, PointChoice::Cuda, onCuda);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p.value().points, PointPath::Cuda);
    p = chooseDrawPaths(RasterChoice::Gl, PointChoice::Gl, onCuda);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p.value().raster, RasterChoice::Gl);
    EXPECT_EQ(p.value().points, PointPath::Gl);
}

TEST(RasterDecision, AutoMeasuresOnlyWhereCudaCanDrawTheMeshes)
{
    auto p = chooseDrawPaths(RasterChoice::Auto, PointChoice::Auto, onCuda);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p.value().raster, RasterChoice::Auto);
    EXPECT_EQ(p.value().points, PointPath::Cuda);
    p = chooseDrawPaths(RasterChoice::Auto, PointChoice::Auto, onHost);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p.value().raster, RasterChoice::Gl);
    EXPECT_EQ(p.value().points, PointPath::Gl);
    EXPECT_EQ(p.value().rasterReason, "--raster auto: GL, as the passes do not run on CUDA");
    p = chooseDrawPaths(RasterChoice::Auto, PointChoice::Gl, onCuda);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p.value().raster, RasterChoice::Gl);
    EXPECT_EQ(p.value().rasterReason, "--raster auto: GL, as GL draws the points (--points gl)");
}

TEST(RasterDecision, ImpossiblePairsAreInputErrors)
{
    auto p = chooseDrawPaths(RasterChoice::Cuda, PointChoice::Auto, onHost);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error(), "--raster cuda needs the passes on CUDA, and they run on the host: "
                         "host backend: no CUDA driver");
    // Python names the choice as its argument.
    p = chooseDrawPaths(RasterChoice::Cuda, PointChoice::Auto, onHost, "raster=");
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().rfind("raster=cuda needs the passes on CUDA", 0), 0u) << p.error();
    p = chooseDrawPaths(RasterChoice::Auto, PointChoice::Cuda, onHost);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().rfind("--points cuda needs the passes on CUDA", 0), 0u) << p.error();
    for (const RasterChoice raster : {RasterChoice::Cuda, RasterChoice::Host}) {
        p = chooseDrawPaths(raster, PointChoice::Gl, onCuda);
        ASSERT_FALSE(p);
        EXPECT_EQ(p.error(), "--raster " + std::string(render::RasterChoices.name(raster)) +
                                 " draws meshes outside GL's geometry pass, where --points gl "
                                 "would draw the points: use --points auto, cuda or host");
    }
}

} // namespace
} // namespace tandem::frame
