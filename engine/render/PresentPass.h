// The present pass: draws the G-buffer's colour or the post-process output into a framebuffer:
// the window's (id 0) or an offscreen target when headless, sRGB-encoded (the encoding happens
// once: in the chain's final store, in the G-buffer's RGBA8 target, or here for an RGBA16F one;
// the framebuffer is not an sRGB one, so GL encodes nothing more, and the overlay's sRGB UI
// colours land as they are). Also the offscreen target and a blocking read-back (tests,
// captures). Render thread.
#pragma once

#include "engine/gl/Buffer.h"
#include "engine/gl/Framebuffer.h"
#include "engine/gl/Program.h"
#include "engine/gl/Texture.h"
#include "engine/gl/VertexArray.h"
#include "engine/io/Image.h"

namespace tandem::render {

class GBuffer;

/// What the present pass shows.
enum class PresentSource { Color, Output };

/// An RGBA8 colour target to present into when there is no window: sRGB-encoded bytes.
class OffscreenTarget {
public:
    OffscreenTarget(int width, int height);
    /// Re-creates the target if the size differs.
    void resize(int width, int height);
    int width() const { return m_color.width(); }
    int height() const { return m_color.height(); }
    const gl::Framebuffer& framebuffer() const { return m_framebuffer; }
    const gl::Texture& color() const { return m_color; }

private:
    gl::Texture m_color{gl::NoCreate};
    gl::Framebuffer m_framebuffer{gl::NoCreate};
};

class PresentPass {
public:
    /// Compiles the program. Throws GlError with file:line on shader errors.
    PresentPass();

    /// Draws `source` of `gbuffer` into framebuffer `target` (0: the window) at the G-buffer's
    /// size, in debug group "present".
    void draw(const GBuffer& gbuffer, PresentSource source, GLuint target);

private:
    gl::Program m_program;
    gl::Buffer m_block;
    gl::VertexArray m_emptyVertexArray;
};

/// Reads the colour of framebuffer `framebuffer` (0: the window's back buffer) into an image,
/// rows top to bottom. Blocks until the GPU has finished drawing it (glReadPixels, counted as a
/// read-back stall): for tests and one-off captures, never the frame loop.
io::Image readPixels(GLuint framebuffer, int width, int height);

} // namespace tandem::render
