#include "engine/interop/Doctor.h"

#include <cstdlib>

#include <chrono>

#include <fmt/format.h>
#include <glad/gl.h>
// After glad: cuda_gl_interop.h includes GL/gl.h, which glad's guard then leaves empty.
#include <cuda_gl_interop.h>

#include "engine/core/Log.h"
#include "engine/core/Stall.h"
#include "engine/cuda/CudaCheck.h"
#include "engine/gl/Texture.h"

namespace tandem::interop {

namespace {

bool isSoftwareRenderer(const std::string& renderer)
{
    for (const char* name : {"llvmpipe", "softpipe", "SVGA3D", "swrast", "Software Rasterizer"})
        if (renderer.find(name) != std::string::npos)
            return true;
    return false;
}

/// Registers a small texture, maps and unmaps it `rounds` times; returns the mean round trip in
/// microseconds, or the error. Blocks: start-up only.
double probeRegistration(std::string& error, int rounds)
{
    gl::Texture probe(GL_RGBA8, 16, 16, "interop.doctor.probe");
    cudaGraphicsResource* resource = nullptr;
    cudaError_t status = cudaGraphicsGLRegisterImage(&resource, probe.id(), GL_TEXTURE_2D,
                                                     cudaGraphicsRegisterFlagsWriteDiscard |
                                                         cudaGraphicsRegisterFlagsSurfaceLoadStore);
    if (status != cudaSuccess) {
        error = fmt::format("registering a GL texture with CUDA was refused: {}",
                            cudaGetErrorString(status));
        cuda::clearError("cudaGraphicsGLRegisterImage", status);
        return -1;
    }
    recordStall(StallCause::Finish); // start-up measurement only
    glFinish();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < rounds && status == cudaSuccess; ++i) {
        status = cudaGraphicsMapResources(1, &resource, nullptr);
        if (status == cudaSuccess)
            status = cudaGraphicsUnmapResources(1, &resource, nullptr);
    }
    if (status == cudaSuccess) {
        recordStall(StallCause::DeviceSync);
        status = cudaDeviceSynchronize();
    }
    const auto end = std::chrono::steady_clock::now();
    const cudaError_t unregistered = cudaGraphicsUnregisterResource(resource);
    if (status != cudaSuccess) {
        error =
            fmt::format("mapping a registered GL texture failed: {}", cudaGetErrorString(status));
        cuda::clearError("interop doctor probe", status);
        return -1;
    }
    if (unregistered != cudaSuccess)
        log::warning("interop doctor: cudaGraphicsUnregisterResource failed: {}",
                     cudaGetErrorString(unregistered));
    cuda::clearError("cudaGraphicsUnregisterResource", unregistered);
    return std::chrono::duration<double, std::micro>(end - start).count() / rounds;
}

} // namespace

InteropStatus diagnose(int cudaDevice, const std::string& cudaError, int eglCudaDevice)
{
    InteropStatus status;
    auto text = [](GLenum name) {
        const auto* s = reinterpret_cast<const char*>(glGetString(name));
        return std::string(s ? s : "?");
    };
    status.glVendor = text(GL_VENDOR);
    status.glRenderer = text(GL_RENDERER);
    status.eglCudaDevice = eglCudaDevice;
    status.cudaDevice = cudaDevice;
    if (cudaDevice < 0) {
        status.reason = cudaError;
        return status;
    }
    cudaDeviceProp props{};
    const cudaError_t described = cudaGetDeviceProperties(&props, cudaDevice);
    if (described == cudaSuccess)
        status.cudaDeviceName = props.name;
    cuda::clearError("cudaGetDeviceProperties", described);
    if (isSoftwareRenderer(status.glRenderer)) {
        status.reason = fmt::format("GL runs on a software renderer ({}), not on CUDA device {}",
                                    status.glRenderer, cudaDevice);
        return status;
    }
    unsigned int count = 0;
    int devices[16] = {};
    const cudaError_t listed = cudaGLGetDevices(&count, devices, 16, cudaGLDeviceListAll);
    // Refused on a context CUDA does not know: an answer, reported below.
    cuda::clearError("cudaGLGetDevices", listed);
    if (listed != cudaSuccess || count == 0) {
        status.reason = fmt::format(
            "the GL context ({}) is not on any CUDA device{}", status.glRenderer,
            listed != cudaSuccess ? std::string(": ") + cudaGetErrorString(listed) : std::string{});
        return status;
    }
    status.glCudaDevices.assign(devices, devices + count);
    // Tests simulate a GL context on another GPU than CUDA's (a machine with two GPUs and the
    // display on the other one) on a single GPU: TANDEM_SIMULATE_GL_DEVICE=N says GL is on N.
    if (const char* simulated = std::getenv("TANDEM_SIMULATE_GL_DEVICE"); simulated && *simulated)
        status.glCudaDevices.assign(1, std::atoi(simulated));
    bool found = false;
    for (int d : status.glCudaDevices)
        found = found || d == cudaDevice;
    if (!found) {
        status.reason =
            fmt::format("GL runs on CUDA device {} but CUDA uses device {}; pick the "
                        "same GPU (--device {})",
                        status.glCudaDevices.front(), cudaDevice, status.glCudaDevices.front());
        return status;
    }
    if (eglCudaDevice >= 0 && eglCudaDevice != cudaDevice) {
        status.reason = fmt::format("the EGL device is CUDA device {} but CUDA uses device {}",
                                    eglCudaDevice, cudaDevice);
        return status;
    }
    std::string error;
    const double micros = probeRegistration(error, 20);
    if (micros < 0) {
        status.reason = error;
        return status;
    }
    status.path = Path::Cuda;
    status.handoffMicroseconds = micros;
    status.reason =
        fmt::format("GL and CUDA share device {} ({})", cudaDevice, status.cudaDeviceName);
    return status;
}

} // namespace tandem::interop
