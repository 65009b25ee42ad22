// CUDA device discovery and selection, without CUDA types in the interface, so apps can call it
// whether or not the build has CUDA (a build without it reports "not built with CUDA").
#pragma once

#include <string>
#include <vector>

#include "engine/core/Result.h"

namespace tandem::cuda {

/// What is known about one CUDA device.
struct DeviceInfo {
    int index = -1;
    std::string name;
    int computeMajor = 0;
    int computeMinor = 0;
    int multiprocessors = 0;
    std::size_t memoryBytes = 0;
    std::string pciBusId;
};

/// Whether this build includes CUDA.
bool isBuiltWithCuda();

/// The CUDA devices, or why there are none ("no CUDA driver", "no GPU", "not built with
/// CUDA"). Clears CUDA's error state when it fails.
Result<std::vector<DeviceInfo>> listDevices();

/// Makes `index` (or, with -1, device 0) the current device of the calling thread. Fails with
/// the reason when the device does not exist or cannot be used.
Result<DeviceInfo> selectDevice(int index);

/// Free memory of the current CUDA device (cudaMemGetInfo), bytes; 0 when CUDA cannot say (a
/// build without CUDA, no driver). Clears CUDA's error state when it fails.
std::size_t freeMemory();

/// The CUDA driver and runtime versions as "driver 13.0, runtime 13.0", or why unknown.
std::string versionString();

} // namespace tandem::cuda
