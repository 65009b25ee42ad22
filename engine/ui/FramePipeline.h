// One frame of the raster pipeline with every stage timed: the geometry pass (visibility and
// resolve), the post-process chain through its backend (handoff and stages), present and the
// read-back, each a profiler scope named as its debug group. Shared by the apps. Render
// thread; the GL context current.
#pragma once

#include <string>
#include <vector>

#include "engine/postfx/PostProcessor.h"
#include "engine/postfx/StageHooks.h"
#include "engine/profile/Profiler.h"
#include "engine/render/SceneRenderer.h"

namespace tandem::ui {

/// Forwards a backend's handoff and stage events to the profiler: CUDA stages as event pairs
/// on their stream, host stages as CPU scopes.
class ProfilerHooks final : public postfx::StageHooks {
public:
    explicit ProfilerHooks(profile::Profiler& profiler) : m_profiler(profiler) {}
    void beginHandoff() override { m_profiler.beginHandoff(); }
    void anchorHandoff(void* stream) override
    {
        m_profiler.nameStream(stream, "post-process");
        m_profiler.anchorHandoff(stream);
    }
    void endHandoff() override { m_profiler.endHandoff(); }
    void beginStage(const char* name, void* stream) override;
    void endStage(const char* name, void* stream) override;

private:
    profile::Profiler& m_profiler;
    std::vector<std::size_t> m_tokens;
};

class FramePipeline {
public:
    FramePipeline(render::SceneRenderer& renderer, postfx::PostProcessor& processor,
                  profile::Profiler& profiler)
        : m_renderer(renderer), m_processor(processor), m_profiler(profiler), m_hooks(profiler)
    {}

    /// Times the geometry pass as two spans (geometry.visibility, geometry.resolve) instead of
    /// one (geometry). Each GL timestamp between passes is a sync point that stops the GPU from
    /// overlapping them, so the finer split costs frame time (measured on an H200: the whole
    /// profiler cost 1.06 % of the frame with it).
    void setGeometryDetail(bool detail) { m_geometryDetail = detail; }

    /// Geometry, then (if `chain` has enabled stages) post-processing, then present `channel`.
    void render(const render::GpuMesh& mesh, const render::OrbitCamera& camera,
                const postfx::Chain& chain, render::Channel channel,
                const render::GeometryOptions& options);
    /// Reads the presented image back (a counted stall), timed as "readback".
    io::Image readback();

private:
    render::SceneRenderer& m_renderer;
    postfx::PostProcessor& m_processor;
    profile::Profiler& m_profiler;
    ProfilerHooks m_hooks;
    bool m_geometryDetail = false;
};

} // namespace tandem::ui
