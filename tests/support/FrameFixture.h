// A frame to render tests through, as the apps do: the renderer's targets (headless), the host
// post-processing backend (or CUDA where asked and possible), a profiler (off unless asked) and
// the frame; the same on the CUDA path with CUDA meshes and points (gpu tier); a one-object scene
// from host mesh data; a chain from text. Needs a current GL context.
#pragma once

#include <memory>

#include <gtest/gtest.h>

#include "engine/frame/Frame.h"
#include "engine/postfx/Chain.h"
#include "engine/postfx/PostProcessor.h"
#include "engine/profile/Profiler.h"
#include "engine/render/GpuScene.h"
#include "engine/render/OrbitController.h"
#include "engine/render/SceneRenderer.h"

namespace tandem::test {

/// A scene of one object.
inline render::GpuScene sceneOf(const io::MeshData& mesh, const char* name = "test mesh")
{
    render::Scene scene;
    scene.objects.push_back({name, mesh});
    return render::GpuScene(scene, name);
}

/// The camera fitted to `bounds` from the default pose.
inline render::Camera fittedCamera(const io::Bounds& bounds)
{
    render::OrbitController controller;
    controller.fit(bounds);
    return controller.camera();
}

struct FrameStack {
    render::SceneRenderer renderer;
    profile::Profiler profiler;
    frame::Frame frame;

    /// `doctor` decides the path (default: host only).
    FrameStack(int width, int height, render::ColorFormat format = render::ColorFormat::Rgba8,
               bool profile = false, const interop::InteropStatus& doctor = {},
               postfx::BackendChoice choice = postfx::BackendChoice::Host)
        : renderer(width, height, format, true), profiler(options(profile)),
          frame(renderer, residence(choice, doctor), profiler)
    {}

    /// Renders one frame and reads the presented image back (blocking: tests only).
    io::Image render(const render::GpuScene& scene, const render::Camera& camera,
                     const postfx::Chain& chain, frame::Channel channel,
                     const render::GeometryOptions& options = {})
    {
        frame.render(scene, camera, chain, channel, options);
        return renderer.readPresented();
    }

private:
    static frame::Residence residence(postfx::BackendChoice choice, const interop::InteropStatus& d)
    {
        auto chosen = frame::chooseResidence(choice, d);
        if (!chosen)
            ADD_FAILURE() << chosen.error();
        return chosen ? chosen.value() : frame::Residence{};
    }
    static profile::ProfilerOptions options(bool profile)
    {
        profile::ProfilerOptions o;
        o.enabled = profile;
        return o;
    }
};

/// A chain parsed from `text`; a parse error fails the test (and gives the empty chain).
inline postfx::Chain chainOf(const char* text)
{
    auto chain = postfx::parseChain(text);
    EXPECT_TRUE(chain) << chain.error();
    return chain ? chain.value() : postfx::Chain{};
}

/// A frame stack on the CUDA path (`doctor`: the GPU's) with CUDA meshes and points: its frames
/// run resident on CUDA unless told to present or run on GL's memory.
inline std::unique_ptr<FrameStack>
cudaStack(int width, int height, const interop::InteropStatus& doctor,
          render::ColorFormat format = render::ColorFormat::Rgba8, bool profile = false)
{
    auto s = std::make_unique<FrameStack>(width, height, format, profile, doctor,
                                          postfx::BackendChoice::Cuda);
    s->frame.setPointPath(render::PointPath::Cuda);
    s->frame.setRaster(render::RasterChoice::Cuda, "test");
    return s;
}

} // namespace tandem::test
