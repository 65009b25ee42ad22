// What a session runs on, brought up in the one order that works: RenderDoc (in the process
// before any GL library loads), the CUDA device (first, so headless EGL can pick the EGL device
// of the same GPU), the context (a window or headless), the interop doctor's verdict, and where
// the frame runs (its residence) on the path it allows, and who draws meshes and points there.
// Render thread: the context is current on it after.
#pragma once

#include <memory>

#include "engine/app/Options.h"
#include "engine/app/Settings.h"
#include "engine/core/Result.h"
#include "engine/frame/RasterDecision.h"
#include "engine/frame/Residence.h"
#include "engine/interop/Doctor.h"

namespace tandem::capture {
class FrameCapture;
}
namespace tandem::platform {
class Context;
}

namespace tandem::app {

/// Members die in reverse: the context, then RenderDoc.
struct Bringup {
    std::unique_ptr<capture::FrameCapture> capture; ///< null without RenderDoc
    std::unique_ptr<platform::Context> context;
    interop::InteropStatus doctor;
    frame::Residence residence; ///< where the frame runs, and why
    /// Who draws meshes and points (--raster, --points; frame::chooseDrawPaths()).
    frame::DrawPaths paths;

    Bringup();
    Bringup(Bringup&&) noexcept;
    Bringup& operator=(Bringup&&) noexcept;
    ~Bringup();
};

/// Brings up `settings`' device and context for `app`; fails with the reason (an input error,
/// exit 1: no context, --backend, --points or --raster cuda without CUDA, RenderDoc missing when
/// asked for).
Result<Bringup> bringUp(const AppInfo& app, const SessionSettings& settings);

} // namespace tandem::app
