// tandem-bench points.
#pragma once

#include <string>

#include "BenchCommon.h"

namespace tandem::bench {

struct PointsSettings {
    std::string counts = "1M,10M,100M"; ///< cloud sizes: a number, with k or M
    std::string sizes = "1080p,4K";     ///< resolutions
    std::string splats = "1,3,8";       ///< splat diameters, pixels
    int glFrames = 5;                   ///< timed frames of the (slow) GL_POINTS variants
};

/// Runs the points benchmark; returns the process exit code.
int runPointsBench(const Settings& settings, const PointsSettings& points);

} // namespace tandem::bench
