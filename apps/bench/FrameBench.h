// tandem-bench frame.
#pragma once

#include <string>

#include "BenchCommon.h"

namespace tandem::bench {

struct FrameBenchSettings {
    int grid = 1024;                ///< vertices per side of the sheet (1024: 2.09 M triangles)
    std::string points = "1M";      ///< points of the cloud (a number, with k or M)
    std::string sizes = "1080p,4K"; ///< sizes, comma separated
    std::string scenes = "mesh,points,mesh+points";
};

/// Runs the frame benchmark; returns the process exit code.
int runFrameBench(const Settings& settings, const FrameBenchSettings& frame);

} // namespace tandem::bench
