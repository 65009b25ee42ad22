// What every splat reader shares once it has a Gaussian's stored values: checking them, applying
// the trained activations, appending to io::GaussianData, and counting what could not be drawn
// for the one warning. Internal to engine/io. Any thread.
#pragma once

#include <cstddef>
#include <string>

#include <glm/glm.hpp>

#include "engine/io/GaussianData.h"

namespace tandem::io::detail {

/// What was dropped while reading, for the one warning.
struct Dropped {
    std::size_t nonFinite = 0;  ///< a value that is NaN or infinite
    std::size_t far = 0;        ///< a position beyond ±MaxCoordinate
    std::size_t degenerate = 0; ///< a scale that overflows or is 0, a zero or huge rotation
    std::size_t before = 0;

    std::size_t total() const { return nonFinite + far + degenerate; }
};

/// The warning for `d` ("name: dropped 3 of 10 Gaussians (...)").
std::string droppedGaussians(const std::string& name, const Dropped& d);

/// Appends one Gaussian from its stored values, or counts why it cannot be drawn. `sh` holds its
/// shCoefficients(out.shDegree) × 3 coefficients, coefficient by coefficient; `wxyz` a rotation
/// (normalized here); `logScale`: the scales are logs (exp applied); `logitOpacity`: the opacity
/// is a logit (sigmoid applied), else already in 0..1.
void append(GaussianData& out, Dropped& dropped, const glm::dvec3& position,
            const glm::dvec3& scale, double opacity, const glm::dvec4& wxyz, const double* sh,
            bool logScale, bool logitOpacity);

/// Reserves room for `count` Gaussians of out.shDegree.
void reserve(GaussianData& out, std::size_t count);

} // namespace tandem::io::detail
