// Orbit camera: fitting frames the bounds, orbit/zoom/pan behave and stay bounded.
#include "engine/render/OrbitCamera.h"

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

namespace tandem::render {
namespace {

io::Bounds box(glm::vec3 min, glm::vec3 max)
{
    io::Bounds b;
    b.extend(min);
    b.extend(max);
    return b;
}

void expectCornersVisible(const OrbitCamera& camera, const io::Bounds& b, float aspect)
{
    const glm::mat4 viewProjection = camera.projection(aspect) * camera.view();
    for (int i = 0; i < 8; ++i) {
        const glm::vec3 corner((i & 1) ? b.max.x : b.min.x, (i & 2) ? b.max.y : b.min.y,
                               (i & 4) ? b.max.z : b.min.z);
        const glm::vec4 clip = viewProjection * glm::vec4(corner, 1.0f);
        ASSERT_GT(clip.w, 0.0f);
        const glm::vec3 ndc = glm::vec3(clip) / clip.w;
        EXPECT_LE(std::abs(ndc.x), 1.0f) << "corner " << i;
        EXPECT_LE(std::abs(ndc.y), 1.0f) << "corner " << i;
        EXPECT_GE(ndc.z, -1.0f) << "corner " << i << " behind near plane";
        EXPECT_LE(ndc.z, 1.0f) << "corner " << i << " beyond far plane";
    }
}

TEST(OrbitCamera, FitFramesTheBoundsFromAnyAngle)
{
    const io::Bounds b = box({100, -3, 20}, {104, 5, 21});
    OrbitCamera camera;
    camera.fit(b);
    EXPECT_EQ(camera.target(), b.center());
    expectCornersVisible(camera, b, 16.0f / 9.0f);
    camera.orbit(137.0f, -40.0f);
    expectCornersVisible(camera, b, 1.0f);
}

TEST(OrbitCamera, PitchIsClampedShortOfThePoles)
{
    OrbitCamera camera;
    camera.orbit(0.0f, 500.0f);
    EXPECT_FLOAT_EQ(camera.pitch(), 89.0f);
    camera.orbit(0.0f, -1000.0f);
    EXPECT_FLOAT_EQ(camera.pitch(), -89.0f);
}

TEST(OrbitCamera, ZoomAndPan)
{
    OrbitCamera camera;
    camera.fit(box({-1, -1, -1}, {1, 1, 1}));
    const float d = camera.distance();
    camera.zoom(0.5f);
    EXPECT_FLOAT_EQ(camera.distance(), d * 0.5f);
    camera.zoom(1e-9f);
    EXPECT_GT(camera.distance(), 0.0f) << "zoom is bounded";
    const glm::vec3 before = camera.target();
    camera.pan(0.1f, 0.0f);
    EXPECT_GT(glm::length(camera.target() - before), 0.0f);
    EXPECT_LT(camera.nearPlane(), camera.farPlane());
    EXPECT_GT(camera.nearPlane(), 0.0f);
}

TEST(OrbitCamera, EmptyBoundsGiveAUsableCamera)
{
    OrbitCamera camera;
    camera.fit(io::Bounds{});
    EXPECT_GT(camera.distance(), 0.0f);
    EXPECT_LT(camera.nearPlane(), camera.farPlane());
}

} // namespace
} // namespace tandem::render
