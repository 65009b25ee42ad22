// tandem-bench splats.
#pragma once

#include <string>

#include "BenchCommon.h"

namespace tandem::bench {

struct SplatsSettings {
    std::string counts = "1M,6M";   ///< Gaussians: a number, with k or M
    std::string degrees = "0,3";    ///< SH degrees
    std::string sizes = "1080p,4K"; ///< resolutions
    /// Gaussians a frame of the sequences streamed from a pack (comma separated; empty: none),
    /// each SH degree and size above
    std::string streamed = "1M";
    int streamedFrames = 24; ///< frames of each streamed pack (played four times at least)
    std::string workDir;     ///< where the packs go (default: a temporary folder)
    bool keep = false;       ///< keep them
};

/// Runs the splats benchmark; returns the process exit code.
int runSplatsBench(const Settings& settings, const SplatsSettings& splats);

} // namespace tandem::bench
