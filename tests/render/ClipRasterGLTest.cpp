// render::ClipRaster and frame::TensorRaster on headless EGL: clip-space triangles rasterized
// into nvdiffrast's layout agree with the geometry pass's own visibility (the same pixels, the
// same triangles: exact), their barycentrics and z/w with a double-precision reference (1e-5),
// batches with single calls, and both ways of naming triangles with each other.
#include <cmath>
#include <vector>

#include <glm/glm.hpp>
#include <gtest/gtest.h>

#include "engine/frame/TensorRaster.h"
#include "engine/render/Camera.h"
#include "engine/render/GBuffer.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/GpuScene.h"
#include "tests/render/ClipMeshes.h"
#include "tests/support/GlTestContext.h"

namespace tandem::render {
namespace {

using Raster = test::GlTest;
using test::clipPositions;
using test::identityViewCamera;
using test::wavyGrid;

std::vector<float> rasterize(frame::TensorRaster& raster, const std::vector<float>& positions,
                             const std::vector<std::uint32_t>& triangles,
                             const ClipRasterShape& shape)
{
    std::vector<float> out(shape.outputBytes() / sizeof(float), -1.0f);
    raster.rasterizeHost(positions.data(), triangles.data(), out.data(), shape);
    return out;
}

TEST_F(Raster, MatchesTheGeometryPassVisibility)
{
    const io::MeshData mesh = wavyGrid(20);
    Scene scene;
    scene.objects.push_back({"grid", mesh});
    const GpuScene gpu(scene, "grid");
    const Camera camera = identityViewCamera();
    const int width = 96, height = 80;
    GBuffer gbuffer(width, height, ColorFormat::Rgba8);
    GeometryPass geometry;
    geometry.drawVisibility(gbuffer, gpu, camera, GeometryOptions{});
    std::vector<std::uint32_t> visibility(static_cast<std::size_t>(width) * height);
    glGetTextureSubImage(gbuffer.visibility().id(), 0, 0, 0, 0, width, height, 1, GL_RED_INTEGER,
                         GL_UNSIGNED_INT, static_cast<GLsizei>(visibility.size() * 4),
                         visibility.data());

    frame::TensorRaster raster;
    ClipRasterShape shape{1, mesh.positions.size(), mesh.indices.size() / 3, width, height};
    const auto clip = clipPositions(mesh, camera, static_cast<float>(width) / height);
    const auto out = rasterize(raster, clip, mesh.indices, shape);

    std::size_t covered = 0;
    for (std::size_t p = 0; p < visibility.size(); ++p) {
        const auto id = static_cast<std::uint32_t>(out[4 * p + 3]);
        // The geometry pass names the triangle's last (provoking) vertex.
        const std::uint32_t expected = id == 0 ? 0 : mesh.indices[3 * (id - 1) + 2] + 1;
        ASSERT_EQ(expected, visibility[p]) << "pixel " << p % width << "," << p / width;
        covered += id != 0;
    }
    EXPECT_GT(covered, visibility.size() / 4);
}

TEST_F(Raster, BarycentricsAndDepthMatchDoublePrecision)
{
    const io::MeshData mesh = wavyGrid(12);
    const int width = 64, height = 48;
    const auto clip = clipPositions(mesh, identityViewCamera(), static_cast<float>(width) / height);
    frame::TensorRaster raster;
    ClipRasterShape shape{1, mesh.positions.size(), mesh.indices.size() / 3, width, height};
    const auto out = rasterize(raster, clip, mesh.indices, shape);
    std::size_t checked = 0;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const float* px = &out[4 * (static_cast<std::size_t>(y) * width + x)];
            if (px[3] == 0.0f) {
                EXPECT_EQ(px[0], 0.0f);
                continue;
            }
            const auto t = static_cast<std::size_t>(px[3]) - 1;
            glm::dvec4 v[3];
            for (int k = 0; k < 3; ++k) {
                const float* c = &clip[4 * mesh.indices[3 * t + k]];
                v[k] = glm::dvec4(c[0], c[1], c[2], c[3]);
            }
            const glm::dvec3 q((x + 0.5) / width * 2 - 1, (y + 0.5) / height * 2 - 1, 1);
            auto xyw = [](const glm::dvec4& c) {
                return glm::dvec3(c.x, c.y, c.w);
            };
            const double c0 = glm::dot(q, glm::cross(xyw(v[1]), xyw(v[2])));
            const double c1 = glm::dot(q, glm::cross(xyw(v[2]), xyw(v[0])));
            const double c2 = glm::dot(q, glm::cross(xyw(v[0]), xyw(v[1])));
            const double b0 = c0 / (c0 + c1 + c2), b1 = c1 / (c0 + c1 + c2), b2 = 1 - b0 - b1;
            // Inside the triangle named, up to the rasterizer's rounding at its edges.
            EXPECT_GT(std::min({b0, b1, b2}), -1e-3) << x << "," << y;
            EXPECT_NEAR(px[0], b0, 1e-5) << x << "," << y;
            EXPECT_NEAR(px[1], b1, 1e-5) << x << "," << y;
            const double z = b0 * v[0].z + b1 * v[1].z + b2 * v[2].z;
            const double w = b0 * v[0].w + b1 * v[1].w + b2 * v[2].w;
            EXPECT_NEAR(px[2], z / w, 1e-5) << x << "," << y;
            ++checked;
        }
    EXPECT_GT(checked, 500u);
}

TEST_F(Raster, BatchItemsEqualSingleCallsAndBothIdWaysAgree)
{
    const io::MeshData mesh = wavyGrid(8);
    const int width = 40, height = 30;
    const auto a = clipPositions(mesh, identityViewCamera(), 4.0f / 3.0f);
    Camera turned = identityViewCamera();
    turned.target = glm::vec3(0.2f, 0.1f, -1.0f);
    const auto b = clipPositions(mesh, turned, 4.0f / 3.0f);
    std::vector<float> both = a;
    both.insert(both.end(), b.begin(), b.end());
    const std::size_t triangles = mesh.indices.size() / 3;

    frame::TensorRaster pulled(TriangleIds::Pulled);
    const auto single0 =
        rasterize(pulled, a, mesh.indices, {1, mesh.positions.size(), triangles, width, height});
    const auto single1 =
        rasterize(pulled, b, mesh.indices, {1, mesh.positions.size(), triangles, width, height});
    const ClipRasterShape batch{2, mesh.positions.size(), triangles, width, height};
    const auto batched = rasterize(pulled, both, mesh.indices, batch);
    std::vector<float> expected = single0;
    expected.insert(expected.end(), single1.begin(), single1.end());
    EXPECT_EQ(batched, expected);
    EXPECT_NE(single0, single1);

    frame::TensorRaster primitiveIds(TriangleIds::PrimitiveId);
    EXPECT_EQ(rasterize(primitiveIds, both, mesh.indices, batch), batched);
}

TEST_F(Raster, EmptyAndBehindTheEyeGiveZeros)
{
    frame::TensorRaster raster;
    // All three vertices behind the eye (w < 0): clipped away.
    const std::vector<float> behind = {0, 0, 0, -1, 1, 0, 0, -1, 0, 1, 0, -1};
    const std::vector<std::uint32_t> triangle = {0, 1, 2};
    const auto out = rasterize(raster, behind, triangle, {1, 3, 1, 16, 8});
    for (float value : out)
        ASSERT_EQ(value, 0.0f);
    const auto none = rasterize(raster, behind, {}, {1, 3, 0, 16, 8});
    for (float value : none)
        ASSERT_EQ(value, 0.0f);
}

} // namespace
} // namespace tandem::render
