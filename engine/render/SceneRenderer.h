// One frame of the raster pipeline as the apps run it: geometry pass into the G-buffer, then
// the present pass into the window or an offscreen target. Owns the passes and targets and
// keeps them sized to the output. Render thread only.
#pragma once

#include "engine/render/GBuffer.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/PresentPass.h"

namespace tandem::render {

class GpuMesh;
class OrbitCamera;

class SceneRenderer {
public:
    /// Creates targets of `width`×`height`; `headless` adds an offscreen output target.
    /// Throws GlError on shader or framebuffer errors.
    SceneRenderer(int width, int height, ColorFormat colorFormat, bool headless);

    /// Resizes the G-buffer (and offscreen target) when the output size changed.
    void resize(int width, int height);

    /// Renders `mesh` and presents `channel` into the window (framebuffer 0) or, headless, the
    /// offscreen target.
    void render(const GpuMesh& mesh, const OrbitCamera& camera, Channel channel,
                const GeometryOptions& options);
    /// The geometry pass alone (post-processing may run before present()).
    void drawGeometry(const GpuMesh& mesh, const OrbitCamera& camera,
                      const GeometryOptions& options);
    /// The present pass alone.
    void present(const OrbitCamera& camera, Channel channel);

    /// Reads the presented image back (window back buffer or offscreen target). Blocks on the
    /// GPU (glReadPixels); call after render() and before swapping.
    io::Image readPresented() const;

    /// The framebuffer present() draws into: 0 (the window) or the offscreen target.
    GLuint presentFramebuffer() const { return m_offscreen ? m_offscreen->framebuffer().id() : 0; }

    int width() const { return m_gbuffer.width(); }
    int height() const { return m_gbuffer.height(); }
    const GBuffer& gbuffer() const { return m_gbuffer; }
    GBuffer& gbuffer() { return m_gbuffer; }
    GeometryPass& geometry() { return m_geometry; }

private:
    GBuffer m_gbuffer;
    GeometryPass m_geometry;
    PresentPass m_present;
    std::optional<OffscreenTarget> m_offscreen;
};

} // namespace tandem::render
