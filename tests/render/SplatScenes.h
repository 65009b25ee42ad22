// Gaussian scenes the splat tests share: a camera in front of the origin, Gaussians of a given
// colour, and dense random scenes with SH of any degree.
#pragma once

#include <random>

#include <glm/gtc/quaternion.hpp>

#include "engine/io/GaussianData.h"
#include "engine/render/Camera.h"

namespace tandem::test {

inline render::Camera frontCamera()
{
    render::Camera c;
    c.eye = {0.0f, 0.0f, 5.0f};
    c.target = {0.0f, 0.0f, 0.0f};
    c.fovY = 50.0f;
    return c;
}

/// One Gaussian: position, scales, rotation, opacity and a DC colour (linear SH 0 offsets).
inline void add(io::GaussianData& g, glm::vec3 position, glm::vec3 scale, glm::quat rotation,
                float opacity, glm::vec3 rgb)
{
    g.positions.push_back(position);
    g.scales.push_back(scale);
    g.rotations.push_back(glm::normalize(rotation));
    g.opacities.push_back(opacity);
    const int n = io::shCoefficients(g.shDegree);
    for (int k = 0; k < n; ++k)
        for (int c = 0; c < 3; ++c)
            g.sh.push_back(k == 0 ? (rgb[c] - 0.5f) / static_cast<float>(io::ShC0) : 0.0f);
}

/// `count` Gaussians of SH `degree` scattered in front of the camera, with random SH.
inline io::GaussianData randomScene(int count, int degree, unsigned seed)
{
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f), signedUnit(-1.0f, 1.0f);
    io::GaussianData g;
    g.shDegree = degree;
    const int n = io::shCoefficients(degree);
    for (int i = 0; i < count; ++i) {
        g.positions.push_back(
            {signedUnit(random) * 2.0f, signedUnit(random) * 1.4f, signedUnit(random) * 1.5f});
        g.scales.push_back({0.02f + 0.12f * unit(random), 0.02f + 0.12f * unit(random),
                            0.01f + 0.05f * unit(random)});
        g.rotations.push_back(glm::normalize(glm::quat(signedUnit(random), signedUnit(random),
                                                       signedUnit(random), signedUnit(random))));
        g.opacities.push_back(0.05f + 0.95f * unit(random));
        for (int k = 0; k < n; ++k)
            for (int c = 0; c < 3; ++c)
                g.sh.push_back(k == 0 ? signedUnit(random) * 1.5f : signedUnit(random) * 0.4f);
    }
    return g;
}

} // namespace tandem::test
