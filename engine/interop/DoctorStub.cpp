// The interop doctor in builds without CUDA: always the host path, and says why.
#include <glad/gl.h>

#include "engine/interop/Doctor.h"

namespace tandem::interop {

InteropStatus diagnose(int, const std::string& cudaError, int eglCudaDevice)
{
    InteropStatus status;
    const auto* vendor = reinterpret_cast<const char*>(glGetString(GL_VENDOR));
    const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    status.glVendor = vendor ? vendor : "?";
    status.glRenderer = renderer ? renderer : "?";
    status.eglCudaDevice = eglCudaDevice;
    status.reason = cudaError.empty() ? "this build has no CUDA" : cudaError;
    return status;
}

} // namespace tandem::interop
