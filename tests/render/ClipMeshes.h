// Meshes and cameras for the clip-space rasterizer tests (GL's render::ClipRaster and CUDA's
// render::TriangleRaster with its host twin), and the comparison of a rasterizer's output with
// GL's.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <glm/glm.hpp>
#include <gtest/gtest.h>

#include "engine/io/MeshData.h"
#include "engine/render/Camera.h"
#include "engine/render/ClipRasterShape.h"

namespace tandem::test {

/// A wavy grid of n×n quads facing the camera at the origin, between z = -1.6 and -2.4.
inline io::MeshData wavyGrid(int n)
{
    io::MeshData mesh;
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) {
            const float x = -0.9f + 1.8f * static_cast<float>(i) / static_cast<float>(n);
            const float y = -0.9f + 1.8f * static_cast<float>(j) / static_cast<float>(n);
            mesh.positions.emplace_back(x, y,
                                        -2.0f + 0.4f * std::sin(6.0f * x) * std::cos(5.0f * y));
        }
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const auto a = static_cast<std::uint32_t>(j * (n + 1) + i);
            const auto b = a + 1, c = a + static_cast<std::uint32_t>(n + 1), d = c + 1;
            mesh.indices.insert(mesh.indices.end(), {a, b, d, a, d, c});
        }
    return mesh;
}

/// The camera whose view is the identity: clip x = P00 x, y = P11 y, w = -z are exact on the
/// host and in GL alike, so both rasterize the same coordinates.
inline render::Camera identityViewCamera()
{
    render::Camera camera;
    camera.eye = glm::vec3(0.0f);
    camera.target = glm::vec3(0.0f, 0.0f, -1.0f);
    camera.fovY = 70.0f;
    camera.nearPlane = 0.5f;
    camera.farPlane = 10.0f;
    return camera;
}

inline std::vector<float> clipPositions(const io::MeshData& mesh, const render::Camera& camera,
                                        float aspect)
{
    const glm::mat4 viewProjection = camera.projection(aspect) * camera.view();
    std::vector<float> clip;
    for (const glm::vec3& p : mesh.positions) {
        const glm::vec4 c = viewProjection * glm::vec4(p, 1.0f);
        clip.insert(clip.end(), {c.x, c.y, c.z, c.w});
    }
    return clip;
}

/// `count` random triangles through the near and far planes and behind the eye of
/// identityViewCamera() (near 0.5, far 10), and two far past the guard band (beyond 4w at every
/// depth in view), from `seed`.
inline io::MeshData clipScene(unsigned seed, int count)
{
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> across(-3.0f, 3.0f), deep(-14.0f, 1.0f);
    io::MeshData mesh;
    for (int i = 0; i < 3 * count; ++i) {
        mesh.positions.emplace_back(across(random), across(random), deep(random));
        mesh.indices.push_back(static_cast<std::uint32_t>(i));
    }
    for (const float x : {-60.0f, 60.0f}) {
        mesh.positions.emplace_back(x, -1.0f, -3.0f);
        mesh.positions.emplace_back(0.0f, 40.0f, -5.0f);
        mesh.positions.emplace_back(0.0f, -40.0f, -2.0f);
        for (std::uint32_t k = 0; k < 3; ++k)
            mesh.indices.push_back(static_cast<std::uint32_t>(mesh.positions.size()) - 3 + k);
    }
    return mesh;
}

struct Comparison {
    std::size_t covered = 0;    ///< pixels GL covers
    std::size_t mismatched = 0; ///< pixels whose triangle differs
};

/// The distance in pixels from pixel (x, y)'s centre to the nearest edge of triangle `id` - 1
/// projected in double precision; infinite for a triangle with a vertex at or behind the eye
/// (drawn clipped) or for no triangle.
inline double edgeDistance(const std::vector<float>& clip,
                           const std::vector<std::uint32_t>& indices,
                           const render::ClipRasterShape& shape, int x, int y, float id)
{
    if (id <= 0.0f)
        return INFINITY;
    const auto t = static_cast<std::size_t>(id) - 1;
    double wx[3], wy[3];
    for (int k = 0; k < 3; ++k) {
        const float* c = &clip[4 * indices[3 * t + k]];
        if (!(c[3] > 0.0f))
            return INFINITY;
        wx[k] = (static_cast<double>(c[0]) / c[3] * 0.5 + 0.5) * shape.width;
        wy[k] = (static_cast<double>(c[1]) / c[3] * 0.5 + 0.5) * shape.height;
    }
    double nearest = INFINITY;
    for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3;
        const double dx = wx[j] - wx[i], dy = wy[j] - wy[i];
        const double cross = dx * (y + 0.5 - wy[i]) - dy * (x + 0.5 - wx[i]);
        nearest = std::min(nearest, std::abs(cross) / std::hypot(dx, dy));
    }
    return nearest;
}

/// Compares another rasterizer's output with GL's for the same input: counts the pixels GL
/// covers and those whose triangle differs, and fails the test for a differing pixel that is not
/// within a subpixel of an edge, or for values that differ by more than 1e-6 where the triangle
/// is the same. Outputs may hold a batch (positions [B, V, 4] in `clip`).
inline Comparison compareWithGl(const std::vector<float>& gl, const std::vector<float>& other,
                                const std::vector<float>& clip,
                                const std::vector<std::uint32_t>& indices,
                                const render::ClipRasterShape& shape)
{
    Comparison result;
    for (std::size_t p = 0; p < gl.size() / 4; ++p) {
        result.covered += gl[4 * p + 3] != 0.0f;
        if (gl[4 * p + 3] != other[4 * p + 3]) {
            // Implementations round differently where an edge passes within a subpixel of a
            // pixel centre, or where two triangles are at the same depth (they intersect): a
            // differing pixel must be one of those (clipped triangles are only counted).
            ++result.mismatched;
            const std::size_t pixels = static_cast<std::size_t>(shape.width) * shape.height;
            const std::size_t item = p / pixels;
            const int x = static_cast<int>(p % pixels % shape.width);
            const int y = static_cast<int>(p % pixels / shape.width);
            const std::vector<float> itemClip(
                clip.begin() + static_cast<long>(item * shape.vertices * 4),
                clip.begin() + static_cast<long>((item + 1) * shape.vertices * 4));
            const double glDistance = edgeDistance(itemClip, indices, shape, x, y, gl[4 * p + 3]);
            const double otherDistance =
                edgeDistance(itemClip, indices, shape, x, y, other[4 * p + 3]);
            const double distance = std::min(glDistance, otherDistance);
            const bool clipped = (gl[4 * p + 3] > 0.0f && std::isinf(glDistance)) ||
                                 (other[4 * p + 3] > 0.0f && std::isinf(otherDistance));
            const bool depthTie = gl[4 * p + 3] > 0.0f && other[4 * p + 3] > 0.0f &&
                                  std::abs(gl[4 * p + 2] - other[4 * p + 2]) <= 1e-5f;
            EXPECT_TRUE(clipped || depthTie || distance <= 1.0 / 256.0)
                << "pixel " << x << "," << y << " of item " << item << ": GL triangle "
                << gl[4 * p + 3] << " at z/w " << gl[4 * p + 2] << ", other " << other[4 * p + 3]
                << " at " << other[4 * p + 2] << ", " << distance * 256.0
                << " subpixels from an edge";
            continue;
        }
        for (int c = 0; c < 3; ++c)
            EXPECT_NEAR(gl[4 * p + c], other[4 * p + c], 1e-6) << "pixel " << p << " channel " << c;
    }
    return result;
}

} // namespace tandem::test
