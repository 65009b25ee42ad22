// An independent float64 reference of the 3DGS reference rasterizer's equations (REFERENCES.md),
// for tests: the 3D covariance R S Sᵀ Rᵀ formed first and carried through J W Σ Wᵀ Jᵀ (the
// rasterizer under test goes through A Aᵀ), the mean through the full projection matrix, every
// pixel blending every Gaussian sorted by depth (no tiles). Its one deliberate rule beyond the
// reference's: a Gaussian reaches every pixel where its α is at least 1/255 (SplatMath.h).
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "engine/io/GaussianData.h"
#include "engine/render/Camera.h"

namespace tandem::test {

/// What lies under the splats: per pixel (rows from the bottom) a view depth (0: nothing) and
/// a colour with alpha in training space; empty: the background everywhere.
struct ReferenceSurface {
    std::vector<double> depth;
    std::vector<double> rgba;
};

struct ReferenceImage {
    int width = 0, height = 0;
    std::vector<double> rgba;  ///< per pixel, training space, unclamped
    std::vector<double> depth; ///< the median depth (where T first reaches 0.5), else 0
    std::vector<std::uint32_t> count;
};

ReferenceImage renderSplatsReference(const io::GaussianData& gaussians,
                                     const render::Camera& camera, const glm::mat4& model,
                                     int width, int height, double scaleModifier, int shDegree,
                                     const double background[4],
                                     const ReferenceSurface& surface = {});

} // namespace tandem::test
