// The interop doctor: at start-up, decides whether GL↔CUDA interop can work here and, when it
// cannot, names the cause in one sentence (GL on a software renderer or another GPU, no CUDA
// driver, no GPU, registration refused), clearing CUDA's error state so the host fallback runs.
// Render thread, GL context current.
#pragma once

#include <string>
#include <vector>

#include "engine/interop/Pass.h"

namespace tandem::interop {

/// What the doctor found.
struct InteropStatus {
    Path path = Path::Host;
    std::string reason;  ///< one sentence: why this path
    int cudaDevice = -1; ///< the CUDA device in use, or -1
    std::string cudaDeviceName;
    std::string glVendor;
    std::string glRenderer;
    int eglCudaDevice = -1;          ///< the EGL device's CUDA id (EGL_NV_device_cuda), or -1
    std::vector<int> glCudaDevices;  ///< cudaGLGetDevices for the current context
    double handoffMicroseconds = -1; ///< one map+unmap round trip, measured at start-up
};

/// Checks whether CUDA device `cudaDevice` (already selected; -1 when selection failed with
/// `cudaError`) can share the current GL context's textures. Never throws for a missing
/// capability; clears CUDA's sticky error state on failure.
InteropStatus diagnose(int cudaDevice, const std::string& cudaError, int eglCudaDevice);

} // namespace tandem::interop
