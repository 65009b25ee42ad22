// 3D Gaussians (splats) in host memory, as the splat readers produce them: each Gaussian's
// centre, scales, rotation and opacity with their trained activations applied (exp, normalize,
// sigmoid, as the 3DGS reference rasterizer applies them) and its colour as real spherical-
// harmonic coefficients, unclamped. Per-Gaussian arrays are as long as positions. No GL, any
// thread.
#pragma once

#include <cstddef>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "engine/io/MeshData.h"

namespace tandem::io {

/// The highest spherical-harmonic degree a splat may carry (the 3DGS reference's).
inline constexpr int MaxShDegree = 3;

/// Spherical-harmonic coefficients a colour channel has at `degree`: (degree + 1)².
constexpr int shCoefficients(int degree)
{
    return (degree + 1) * (degree + 1);
}

/// The degree-0 basis constant: a Gaussian's base colour is 0.5 + ShC0 · its DC coefficient
/// (before the reference's clamp at 0).
inline constexpr double ShC0 = 0.28209479177387814;

struct GaussianData {
    std::vector<glm::vec3> positions;
    std::vector<glm::vec3> scales;    ///< standard deviations along the rotated axes, > 0
    std::vector<glm::quat> rotations; ///< unit quaternions
    std::vector<float> opacities;     ///< 0..1
    int shDegree = 0;                 ///< 0..MaxShDegree
    /// shCoefficients(shDegree) × 3 floats a Gaussian, coefficient by coefficient, red green blue
    /// within each: sh[(i · n + k) · 3 + c] is Gaussian i's coefficient k of channel c (k = 0 the
    /// DC term, n = shCoefficients(shDegree)).
    std::vector<float> sh;

    std::size_t count() const { return positions.size(); }
    /// The bounds of the centres.
    Bounds bounds() const;
};

} // namespace tandem::io
