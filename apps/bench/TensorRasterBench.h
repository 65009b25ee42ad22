// tandem-bench tensor-raster.
#pragma once

#include "BenchCommon.h"

namespace tandem::bench {

/// Runs the tensor-raster benchmark on a `grid`×`grid` wavy grid; returns the exit code.
int runTensorRasterBench(const Settings& settings, int grid);

} // namespace tandem::bench
