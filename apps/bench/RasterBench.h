// tandem-bench raster.
#pragma once

#include "BenchCommon.h"

namespace tandem::bench {

/// Runs the raster benchmark; returns the process exit code.
int runRasterBench(const Settings& settings, int triangles);

} // namespace tandem::bench
