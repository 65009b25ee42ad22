// Wiring shared by the apps between rendering and post-processing: choosing the CUDA device
// before the context exists, running the interop doctor and picking the backend after, and
// describing a frame (its textures and camera) to the post-process chain. Render thread.
#pragma once

#include <memory>
#include <string>

#include "engine/core/Result.h"
#include "engine/interop/Doctor.h"
#include "engine/interop/FrameTextures.h"
#include "engine/platform/Context.h"
#include "engine/postfx/PostProcessor.h"
#include "engine/render/GBuffer.h"
#include "engine/render/OrbitCamera.h"

namespace tandem::ui {

/// The CUDA device chosen before creating the GL context, or why there is none.
struct CudaChoice {
    int device = -1;
    std::string error;
};

/// Selects CUDA device `requested` (-1: the first) unless `choice` is Host. Never fails: a
/// missing CUDA is recorded in `error` for the doctor to report.
CudaChoice chooseCudaDevice(postfx::BackendChoice choice, int requested);

/// Post-processing set up for a context.
struct PostfxSetup {
    interop::InteropStatus doctor;
    std::unique_ptr<postfx::PostProcessor> processor;
};

/// Runs the interop doctor on the current context and creates the post-processor. Fails (an
/// input error for the app) only when `choice` is Cuda and interop cannot work.
Result<PostfxSetup> setUpPostfx(postfx::BackendChoice choice, const CudaChoice& cuda,
                                const platform::Context& context);

/// The G-buffer as post-processing sees it.
interop::FrameTextures frameTextures(render::GBuffer& gbuffer);

/// The camera as post-processing sees it.
postfx::FrameInfo frameInfo(const render::OrbitCamera& camera, int width, int height);

} // namespace tandem::ui
