#include "engine/render/SceneRenderer.h"

#include "engine/render/OrbitCamera.h"

namespace tandem::render {

SceneRenderer::SceneRenderer(int width, int height, ColorFormat colorFormat, bool headless)
    : m_gbuffer(width, height, colorFormat, headless ? Headroom::Exact : Headroom::Grow)
{
    if (headless)
        m_offscreen.emplace(width, height);
}

void SceneRenderer::resize(int width, int height)
{
    if (width <= 0 || height <= 0)
        return; // minimised window: keep the old targets
    m_gbuffer.resize(width, height);
    if (m_offscreen)
        m_offscreen->resize(width, height);
}

void SceneRenderer::render(const GpuMesh& mesh, const OrbitCamera& camera, Channel channel,
                           const GeometryOptions& options)
{
    drawGeometry(mesh, camera, options);
    present(camera, channel);
}

void SceneRenderer::drawGeometry(const GpuMesh& mesh, const OrbitCamera& camera,
                                 const GeometryOptions& options)
{
    m_geometry.draw(m_gbuffer, mesh, camera, options);
}

void SceneRenderer::present(const OrbitCamera& camera, Channel channel)
{
    m_present.draw(m_gbuffer, channel, camera.nearPlane(), camera.farPlane(),
                   m_offscreen ? m_offscreen->framebuffer().id() : 0);
}

io::Image SceneRenderer::readPresented() const
{
    return readPixels(m_offscreen ? m_offscreen->framebuffer().id() : 0, width(), height());
}

} // namespace tandem::render
