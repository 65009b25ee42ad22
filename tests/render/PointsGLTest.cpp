// Points through the frame on headless EGL (llvmpipe in CI): the point pass's host twin (the
// same per-point functions as the CUDA pass) against GL_POINTS, both writing the same G-buffer;
// compositing with a mesh both ways; ties broken by index whatever the threads do; ids of points
// told from triangles'; held-out PLY clouds of other layouts through both paths.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/io/MeshLoader.h"
#include "engine/render/PointPass.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GBufferPixels.h"
#include "tests/support/GlTestContext.h"
#include "tests/support/ImageCompare.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::render {
namespace {

using frame::Channel;

using Targets = test::GBufferPixels;

/// Looking down -z at the origin from `distance`.
Camera frontCamera(float distance = 6.0f)
{
    Camera c;
    c.eye = glm::vec3(0.0f, 0.0f, distance);
    return c;
}

class Points : public test::GlTest {
protected:
    Targets render(const GpuScene& scene, const Camera& camera, PointPath path,
                   GeometryOptions options = {}, int width = 160, int height = 120)
    {
        test::FrameStack stack(width, height);
        stack.frame.setPointPath(path);
        stack.render(scene, camera, postfx::Chain{}, Channel::Color, options);
        EXPECT_EQ(stack.frame.pointPath(), path);
        return test::readGBuffer(stack.renderer.gbuffer());
    }
};

/// How two renders of one scene agree: pixels where either drew a point, and among them those
/// where both did with the same winning point; the largest colour difference there.
struct Agreement {
    std::size_t either = 0, sameWinner = 0;
    int worstColour = 0;
    double fraction() const { return either ? double(sameWinner) / double(either) : 1.0; }
};

Agreement compare(const Targets& a, const Targets& b)
{
    Agreement out;
    for (std::size_t i = 0; i < a.id.size(); ++i) {
        if (!a.isPoint(i) && !b.isPoint(i))
            continue;
        ++out.either;
        if (a.id[i] != b.id[i])
            continue;
        ++out.sameWinner;
        for (int c = 0; c < 4; ++c)
            out.worstColour = std::max(out.worstColour,
                                       std::abs(int(a.color[i * 4 + c]) - int(b.color[i * 4 + c])));
    }
    return out;
}

std::size_t countPoints(const Targets& t)
{
    std::size_t n = 0;
    for (std::size_t i = 0; i < t.id.size(); ++i)
        n += t.isPoint(i) ? 1 : 0;
    return n;
}

TEST_F(Points, HostPassMatchesGlPointsAtEverySize)
{
    const GpuScene scene = test::sceneOf(test::pointGrid(), "grid");
    const Camera camera = test::fittedCamera(scene.bounds());
    for (float size : {1.0f, 3.0f, 8.0f}) {
        GeometryOptions options;
        options.pointSize = size;
        const Targets gl = render(scene, camera, PointPath::Gl, options);
        const Targets host = render(scene, camera, PointPath::Host, options);
        const Agreement a = compare(gl, host);
        // Both draw about as many pixels (GL's point rules and ours differ on a pixel's edge).
        EXPECT_NEAR(double(countPoints(host)), double(countPoints(gl)), 0.02 * countPoints(gl))
            << size << " px";
        EXPECT_GT(a.fraction(), 0.97) << size << " px: " << a.sameWinner << " of " << a.either;
        EXPECT_LE(a.worstColour, 1) << size << " px";
        EXPECT_GT(countPoints(host), 400u * (size > 1.0f ? 2u : 1u) / 2u) << size << " px";
    }
}

TEST_F(Points, SplatSizesAndWorldSizes)
{
    // One point on the centre of a pixel next to the image's middle: 1, 3 and 8 px wide
    // footprints of 1, 9 and ~50 pixels, round.
    const float pixel = 2.0f * 6.0f * std::tan(glm::radians(45.0f) * 0.5f) / 120.0f;
    io::MeshData one;
    one.positions.emplace_back(0.5f * pixel, 0.5f * pixel, 0.0f);
    const GpuScene scene = test::sceneOf(one, "one point");
    for (PointPath path : {PointPath::Host, PointPath::Gl}) {
        std::vector<std::size_t> counts;
        for (float size : {1.0f, 3.0f, 8.0f}) {
            GeometryOptions options;
            options.pointSize = size;
            counts.push_back(countPoints(render(scene, frontCamera(), path, options)));
        }
        EXPECT_EQ(counts[0], 1u) << PointPaths.name(path);
        EXPECT_EQ(counts[1], 9u) << PointPaths.name(path);
        EXPECT_GE(counts[2], 44u) << PointPaths.name(path) << ": a disc of radius 4";
        EXPECT_LE(counts[2], 56u) << PointPaths.name(path) << ": not its 64-pixel square";
    }
    // World size: the same point nearer the camera is wider.
    GeometryOptions world;
    world.pointWorldSize = 0.2f;
    const std::size_t nearCount =
        countPoints(render(scene, frontCamera(3.0f), PointPath::Host, world));
    const std::size_t farCount =
        countPoints(render(scene, frontCamera(9.0f), PointPath::Host, world));
    const std::size_t glNear = countPoints(render(scene, frontCamera(3.0f), PointPath::Gl, world));
    EXPECT_GT(nearCount, 4 * farCount);
    EXPECT_NEAR(double(glNear), double(nearCount), 0.25 * nearCount);
}

TEST_F(Points, CompositeWithAMeshBothWays)
{
    // A cube (half-size 1) with a sheet of points in front of it (z = 1.5) or behind it
    // (z = -1.5), seen from +z: in front, the points cover the cube; behind, the cube hides them
    // and they show only around it.
    const GpuScene cubeOnly = test::sceneOf(test::colouredCube(), "cube");
    for (PointPath path : {PointPath::Host, PointPath::Gl}) {
        const Targets cube = render(cubeOnly, frontCamera(), path);
        for (float z : {1.5f, -1.5f}) {
            Scene scene;
            scene.objects.push_back({"cube", test::colouredCube()});
            scene.objects.push_back({"sheet", test::pointSheet(60, 2.0f, z, {255, 0, 0, 255})});
            const GpuScene gpu(scene, "cube and sheet");
            GeometryOptions options;
            options.pointSize = 3.0f;
            const Targets both = render(gpu, frontCamera(), path, options);
            std::size_t cubePixels = 0, pointsOverCube = 0, pointsOutside = 0;
            for (std::size_t i = 0; i < both.id.size(); ++i) {
                const bool onCube = cube.id[i] != 0;
                cubePixels += onCube ? 1 : 0;
                if (both.isPoint(i)) {
                    (onCube ? pointsOverCube : pointsOutside) += 1;
                    if (onCube) {
                        EXPECT_LT(both.depth[i], cube.depth[i]) << "a point won behind the cube";
                    }
                } else if (onCube) {
                    EXPECT_EQ(both.id[i], cube.id[i]) << "a cube pixel changed without a point";
                }
            }
            ASSERT_GT(cubePixels, 1000u);
            EXPECT_GT(pointsOutside, 1000u) << PointPaths.name(path) << " z " << z;
            if (z > 0)
                EXPECT_GT(pointsOverCube, cubePixels / 2) << PointPaths.name(path);
            else
                EXPECT_EQ(pointsOverCube, 0u) << PointPaths.name(path);
        }
    }
}

TEST_F(Points, TiesGoToTheLowerIndexEveryRun)
{
    // Two copies of one sheet at the same place: red first, blue second. Every pixel's points
    // tie on depth, so the lower index wins: all red; with the copies swapped, all blue. Many
    // threads draw them in whatever order they run.
    auto sheets = [](glm::u8vec4 first, glm::u8vec4 second) {
        io::MeshData mesh = test::pointSheet(120, 2.0f, 0.0f, first);
        const io::MeshData other = test::pointSheet(120, 2.0f, 0.0f, second);
        mesh.positions.insert(mesh.positions.end(), other.positions.begin(), other.positions.end());
        mesh.colors.insert(mesh.colors.end(), other.colors.begin(), other.colors.end());
        return mesh;
    };
    const glm::u8vec4 red{255, 0, 0, 255}, blue{0, 0, 255, 255};
    GeometryOptions options;
    options.pointSize = 8.0f;
    for (int swap = 0; swap < 2; ++swap) {
        const GpuScene scene =
            test::sceneOf(swap ? sheets(blue, red) : sheets(red, blue), "two sheets");
        const Targets first = render(scene, frontCamera(), PointPath::Host, options);
        std::size_t drawn = 0;
        for (std::size_t i = 0; i < first.id.size(); ++i) {
            if (!first.isPoint(i))
                continue;
            ++drawn;
            ASSERT_LE(first.id[i] & ~PointIdBit, 120u * 120u) << "the second copy won a tie";
            EXPECT_EQ(first.color[i * 4 + (swap ? 2 : 0)], 255);
        }
        EXPECT_GT(drawn, 5000u);
        for (int run = 0; run < 3; ++run) {
            const Targets again = render(scene, frontCamera(), PointPath::Host, options);
            EXPECT_EQ(again.id, first.id) << "run " << run;
            EXPECT_EQ(again.color, first.color) << "run " << run;
        }
    }
}

TEST_F(Points, IdsOfPointsAreToldFromTriangles)
{
    Scene scene;
    scene.objects.push_back({"cube", test::colouredCube()});
    scene.objects.push_back({"sheet", test::pointSheet(40, 2.0f, 1.5f, {0, 255, 0, 255})});
    const GpuScene gpu(scene, "cube and sheet");
    for (PointPath path : {PointPath::Host, PointPath::Gl}) {
        const Targets t = render(gpu, frontCamera(), path);
        std::size_t triangles = 0, points = 0;
        for (std::size_t i = 0; i < t.id.size(); ++i) {
            if (t.id[i] == 0)
                continue;
            if (t.isPoint(i)) {
                ++points;
                const std::uint32_t primitive = (t.id[i] & ~PointIdBit) - 1;
                EXPECT_GE(primitive, 12u) << "points are numbered after the 12 triangles";
                EXPECT_LT(primitive, 12u + 40u * 40u);
            } else {
                ++triangles;
                EXPECT_LE(t.id[i], 12u);
            }
        }
        EXPECT_GT(triangles, 100u) << PointPaths.name(path);
        EXPECT_GT(points, 500u) << PointPaths.name(path);
    }
}

TEST_F(Points, PostProcessingRunsOnHostPoints)
{
    const GpuScene scene =
        test::sceneOf(test::pointSheet(60, 2.0f, 0.0f, {200, 120, 40, 255}), "sheet");
    test::FrameStack stack(160, 120);
    stack.frame.setPointPath(PointPath::Host);
    auto chain = postfx::parseChain("tonemap,fxaa");
    ASSERT_TRUE(chain) << chain.error();
    GeometryOptions options;
    options.pointSize = 3.0f;
    const io::Image output =
        stack.render(scene, frontCamera(), chain.value(), Channel::Output, options);
    const io::Image colour =
        stack.render(scene, frontCamera(), postfx::Chain{}, Channel::Color, options);
    EXPECT_GT(test::nonBackgroundFraction(colour), 0.2);
    EXPECT_NE(output.pixels, colour.pixels) << "the chain ran on the points' G-buffer";
}

TEST_F(Points, HeldOutCloudsMatchThroughBothPaths)
{
    const std::filesystem::path dir =
        std::filesystem::path(TANDEM_SOURCE_DIR) / "tests" / "data" / "points";
    int clouds = 0;
    for (const char* name : {"torus_binary_double.ply", "helix_ascii_rgba.ply",
                             "box_big_endian_bare.ply", "sheet_normals_only.ply"}) {
        auto mesh = io::loadMesh(dir / name);
        ASSERT_TRUE(mesh) << name << ": " << mesh.error();
        ASSERT_TRUE(mesh.value().isPointCloud()) << name;
        const GpuScene scene = test::sceneOf(mesh.value(), name);
        const Camera camera = test::fittedCamera(scene.bounds());
        GeometryOptions options;
        options.pointSize = 3.0f;
        const Targets gl = render(scene, camera, PointPath::Gl, options, 320, 240);
        const Targets host = render(scene, camera, PointPath::Host, options, 320, 240);
        const Agreement a = compare(gl, host);
        EXPECT_GT(countPoints(host), 2000u) << name;
        EXPECT_NEAR(double(countPoints(host)), double(countPoints(gl)), 0.05 * countPoints(gl))
            << name;
        EXPECT_GT(a.fraction(), 0.9) << name << ": " << a.sameWinner << " of " << a.either;
        EXPECT_LE(a.worstColour, 1) << name;
        ++clouds;
    }
    EXPECT_EQ(clouds, 4);
}

} // namespace
} // namespace tandem::render
