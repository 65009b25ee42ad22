// tandem-bench overhead.
#pragma once

#include "BenchCommon.h"

namespace tandem::bench {

/// Runs the profiler-overhead benchmark; returns the process exit code.
int runOverheadBench(const Settings& settings);

} // namespace tandem::bench
