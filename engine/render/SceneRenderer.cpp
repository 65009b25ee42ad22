#include "engine/render/SceneRenderer.h"

#include "engine/render/Camera.h"

namespace tandem::render {

SceneRenderer::SceneRenderer(int width, int height, ColorFormat colorFormat, bool headless,
                             std::optional<Headroom> headroom)
    : m_gbuffer(width, height, colorFormat,
                headroom.value_or(headless ? Headroom::Exact : Headroom::Grow))
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

void SceneRenderer::drawGeometry(const GpuScene& scene, const Camera& camera,
                                 const GeometryOptions& options)
{
    m_geometry.draw(m_gbuffer, scene, camera, options);
}

void SceneRenderer::present(PresentSource source)
{
    m_present.draw(m_gbuffer, source, presentFramebuffer());
}

io::Image SceneRenderer::readPresented() const
{
    return readPixels(presentFramebuffer(), width(), height());
}

} // namespace tandem::render
