#include "engine/ui/FramePipeline.h"

#include "engine/ui/PostfxWiring.h"

namespace tandem::ui {

void ProfilerHooks::beginStage(const char* name, void* stream)
{
    m_tokens.push_back(stream ? m_profiler.beginCuda(name, stream) : m_profiler.beginCpu(name));
}

void ProfilerHooks::endStage(const char*, void* stream)
{
    const std::size_t token = m_tokens.back();
    m_tokens.pop_back();
    if (stream)
        m_profiler.endCuda(token, stream);
    else
        m_profiler.endCpu(token);
}

void FramePipeline::render(const render::GpuMesh& mesh, const render::OrbitCamera& camera,
                           const postfx::Chain& chain, render::Channel channel,
                           const render::GeometryOptions& options)
{
    render::GBuffer& gbuffer = m_renderer.gbuffer();
    if (m_geometryDetail) {
        {
            profile::GlScope scope(m_profiler, "geometry.visibility");
            m_renderer.geometry().drawVisibility(gbuffer, mesh, camera, options);
        }
        profile::GlScope scope(m_profiler, "geometry.resolve");
        m_renderer.geometry().resolve(gbuffer, mesh);
    } else {
        profile::GlScope scope(m_profiler, "geometry");
        m_renderer.geometry().draw(gbuffer, mesh, camera, options);
    }
    if (chain.enabledCount() > 0) {
        profile::CpuScope scope(m_profiler, "postfx");
        m_processor.run(chain, frameInfo(camera, gbuffer.width(), gbuffer.height()),
                        frameTextures(gbuffer), m_profiler.isEnabled() ? &m_hooks : nullptr);
    }
    profile::GlScope scope(m_profiler, "present");
    m_renderer.present(camera, channel);
}

io::Image FramePipeline::readback()
{
    profile::CpuScope scope(m_profiler, "readback");
    return m_renderer.readPresented();
}

} // namespace tandem::ui
