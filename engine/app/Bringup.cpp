#include "engine/app/Bringup.h"

#include "engine/capture/FrameCapture.h"
#include "engine/core/Log.h"
#include "engine/cuda/Device.h"
#include "engine/gl/Debug.h"
#include "engine/gl/Program.h"
#include "engine/platform/Context.h"

namespace tandem::app {

Bringup::Bringup() = default;
Bringup::Bringup(Bringup&&) noexcept = default;
Bringup& Bringup::operator=(Bringup&&) noexcept = default;
Bringup::~Bringup() = default;

Result<Bringup> bringUp(const AppInfo& app, const SessionSettings& s)
{
    Bringup up;
    // --- RenderDoc must be in the process before any GL library loads ---
    capture::CaptureSettings captureSettings = s.capture;
    captureSettings.name = app.name;
    auto opened = capture::FrameCapture::open(captureSettings, app.argv);
    if (!opened)
        return fail(opened.error());
    for (const std::string& warning : opened.warnings())
        log::warning("{}", warning);
    up.capture = std::move(opened.value());
    if (up.capture)
        log::info("{}", up.capture->describe());

    // --- CUDA first, so headless EGL can pick the EGL device of the same GPU ---
    int cudaDevice = -1;
    std::string cudaError = "host backend asked for";
    if (s.backend != postfx::BackendChoice::Host) {
        auto device = cuda::selectDevice(s.cudaDevice.value_or(-1));
        if (device)
            cudaDevice = device.value().index;
        else
            cudaError = device.error();
    }
    if (s.backend == postfx::BackendChoice::Cuda && cudaDevice < 0)
        return fail("--backend cuda cannot be used: " + cudaError);

    platform::ContextOptions options;
    options.width = s.size.width;
    options.height = s.size.height;
    options.title = app.name;
    options.debug = s.glDebug || gl::debugOutputRequested();
    options.vsync = s.vsync;
    options.eglDevice = s.eglDevice.value_or(-1);
    options.cudaDevice = cudaDevice;
    auto context = platform::createContext(
        s.headless ? platform::ContextMode::Headless : platform::ContextMode::Auto, options);
    if (!context)
        return fail(context.error());
    up.context = std::move(context.value());
    log::info("rendering with {}", up.context->description());
    log::info("{}", gl::describeShaderRoot());

    up.doctor = interop::diagnose(cudaDevice, cudaError, up.context->cudaDevice());
    auto residence = frame::chooseResidence(s.backend, up.doctor);
    if (!residence)
        return fail(residence.error());
    up.residence = residence.value();
    auto paths = frame::chooseDrawPaths(s.raster, s.points, up.residence);
    if (!paths)
        return fail(paths.error());
    up.paths = paths.value();
    return up;
}

} // namespace tandem::app
