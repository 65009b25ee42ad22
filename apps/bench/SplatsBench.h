// tandem-bench splats.
#pragma once

#include <string>

#include "BenchCommon.h"

namespace tandem::bench {

struct SplatsSettings {
    std::string counts = "1M,6M";   ///< Gaussians: a number, with k or M
    std::string degrees = "0,3";    ///< SH degrees
    std::string sizes = "1080p,4K"; ///< resolutions
};

/// Runs the splats benchmark; returns the process exit code.
int runSplatsBench(const Settings& settings, const SplatsSettings& splats);

} // namespace tandem::bench
