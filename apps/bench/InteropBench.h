// tandem-bench interop (CUDA builds).
#pragma once

#include "BenchCommon.h"

namespace tandem::bench {

/// Runs the interop benchmark; returns the process exit code.
int runInteropBench(const Settings& settings);

} // namespace tandem::bench
