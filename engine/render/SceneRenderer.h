// The GL side of a frame: the G-buffer and its geometry pass, the present pass, and the
// offscreen target a headless frame presents into. Keeps the targets sized to the output.
// Render thread only.
#pragma once

#include <optional>

#include "engine/render/GBuffer.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/PresentPass.h"

namespace tandem::render {

class GpuScene;
struct Camera;

class SceneRenderer {
public:
    /// Creates targets of `width`×`height`; `headless` adds an offscreen output target. The
    /// G-buffer is sized exactly headless and with headroom for resizes in a window, unless
    /// `headroom` says otherwise. Throws GlError on shader or framebuffer errors.
    SceneRenderer(int width, int height, ColorFormat colorFormat, bool headless,
                  std::optional<Headroom> headroom = std::nullopt);

    /// Resizes the G-buffer (and offscreen target) when the output size changed; a zero size
    /// (a minimised window) keeps the old targets.
    void resize(int width, int height);

    /// The geometry pass into the G-buffer.
    void drawGeometry(const GpuScene& scene, const Camera& camera, const GeometryOptions& options);
    /// The present pass into the window (framebuffer 0) or, headless, the offscreen target.
    void present(PresentSource source);

    /// Reads the presented image back. Blocks on the GPU (glReadPixels, a counted stall): tests
    /// and captures only; frame output goes through frame::OutputRing.
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
