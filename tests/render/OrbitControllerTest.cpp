// Orbit controller: fitting frames the bounds, orbit/zoom/pan behave and stay bounded, and the
// camera it produces is a plain view with matrices that agree.
#include "engine/render/OrbitController.h"

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

void expectCornersVisible(const OrbitController& controller, const io::Bounds& b, float aspect)
{
    const Camera camera = controller.camera();
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

TEST(OrbitController, FitFramesTheBoundsFromAnyAngle)
{
    const io::Bounds b = box({100, -3, 20}, {104, 5, 21});
    OrbitController camera;
    camera.fit(b);
    EXPECT_EQ(camera.target(), b.center());
    expectCornersVisible(camera, b, 16.0f / 9.0f);
    camera.orbit(137.0f, -40.0f);
    expectCornersVisible(camera, b, 1.0f);
}

TEST(OrbitController, PitchIsClampedShortOfThePoles)
{
    OrbitController camera;
    camera.orbit(0.0f, 500.0f);
    EXPECT_FLOAT_EQ(camera.pitch(), 89.0f);
    camera.orbit(0.0f, -1000.0f);
    EXPECT_FLOAT_EQ(camera.pitch(), -89.0f);
}

TEST(OrbitController, ZoomAndPan)
{
    OrbitController camera;
    camera.fit(box({-1, -1, -1}, {1, 1, 1}));
    const float d = camera.distance();
    camera.zoom(0.5f);
    EXPECT_FLOAT_EQ(camera.distance(), d * 0.5f);
    camera.zoom(1e-9f);
    EXPECT_GT(camera.distance(), 0.0f) << "zoom is bounded";
    const glm::vec3 before = camera.target();
    camera.pan(0.1f, 0.0f);
    EXPECT_GT(glm::length(camera.target() - before), 0.0f);
    EXPECT_LT(camera.camera().nearPlane, camera.camera().farPlane);
    EXPECT_GT(camera.camera().nearPlane, 0.0f);
}

TEST(OrbitController, EmptyBoundsGiveAUsableCamera)
{
    OrbitController camera;
    camera.fit(io::Bounds{});
    EXPECT_GT(camera.distance(), 0.0f);
    EXPECT_LT(camera.camera().nearPlane, camera.camera().farPlane);
}

TEST(Camera, IsAViewWhoseMatricesMatchItsFields)
{
    Camera camera;
    camera.eye = {1, 2, 3};
    camera.target = {1, 2, 0};
    camera.nearPlane = 0.5f;
    camera.farPlane = 10.0f;
    // The eye maps to the origin; the target lies straight ahead, down -z, at distance 3.
    const glm::vec4 eye = camera.view() * glm::vec4(camera.eye, 1.0f);
    EXPECT_NEAR(glm::length(glm::vec3(eye)), 0.0f, 1e-6f);
    const glm::vec4 target = camera.view() * glm::vec4(camera.target, 1.0f);
    EXPECT_NEAR(target.x, 0.0f, 1e-6f);
    EXPECT_NEAR(target.y, 0.0f, 1e-6f);
    EXPECT_NEAR(target.z, -3.0f, 1e-6f);
    // Points on the near and far planes map to NDC z = -1 and +1.
    const glm::mat4 p = camera.projection(1.0f);
    const glm::vec4 nearPoint = p * glm::vec4(0, 0, -0.5f, 1);
    const glm::vec4 farPoint = p * glm::vec4(0, 0, -10.0f, 1);
    EXPECT_NEAR(nearPoint.z / nearPoint.w, -1.0f, 1e-5f);
    EXPECT_NEAR(farPoint.z / farPoint.w, 1.0f, 1e-5f);
}

TEST(OrbitController, CameraLooksAtTheTargetFromTheEye)
{
    OrbitController controller;
    controller.fit(box({-1, -1, -1}, {1, 1, 1}));
    controller.orbit(40.0f, 10.0f);
    const Camera camera = controller.camera();
    EXPECT_EQ(camera.eye, controller.eye());
    EXPECT_EQ(camera.target, controller.target());
    EXPECT_NEAR(glm::length(camera.eye - camera.target), controller.distance(), 1e-4f);
    EXPECT_EQ(camera.fovY, controller.fovY());
}

} // namespace
} // namespace tandem::render
