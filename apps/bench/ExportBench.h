// tandem-bench export.
#pragma once

#include <string>

#include "BenchCommon.h"

namespace tandem::bench {

struct ExportSettings {
    int triangles = 2'000'000;            ///< the generated mesh
    std::string sizes = "1080p,4K";       ///< as parseSizes() reads them
    std::string formats = "none,pam,png"; ///< output formats, each a row
    std::string outDir;                   ///< where frames go (default: a temporary folder)
    bool keep = false;                    ///< keep the frames written
    unsigned threads = 0;                 ///< writer threads (0: the session's default)
};

/// Runs the export benchmark; returns the process exit code.
int runExportBench(const Settings& settings, const ExportSettings& exportSettings);

} // namespace tandem::bench
