// tandem-bench stream.
#pragma once

#include <string>

#include "BenchCommon.h"

namespace tandem::bench {

struct StreamBenchSettings {
    std::string points = "1M"; ///< points a frame (a number, with k or M)
    int sequenceFrames = 60;   ///< frames of the generated sequence
    int loadFrames = 3;        ///< frames per source kind in the load-speed table (twice each)
    std::string sizes = "1080p,4K";
    std::string workDir;   ///< where packs and PLY files go (default: a temporary folder)
    bool keep = false;     ///< keep them
    int plyFrames = 64;    ///< PLY files of the streamed PLY row, played four times (more than
                           ///< the staging slots a folder gets: two a loader, at most 24)
    bool preloaded = true; ///< the preloaded end-to-end rows
};

/// Runs the streaming benchmark; returns the process exit code.
int runStreamBench(const Settings& settings, const StreamBenchSettings& stream);

} // namespace tandem::bench
