// The present pass: draws one G-buffer channel (colour, depth, normals, ids in false colour)
// into a framebuffer: the window's (id 0) or an offscreen target when headless. Also the
// offscreen target and the read-back used for headless output and screenshots. Render thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/gl/Buffer.h"
#include "engine/gl/Framebuffer.h"
#include "engine/gl/Program.h"
#include "engine/gl/Texture.h"
#include "engine/gl/VertexArray.h"
#include "engine/io/Image.h"

namespace tandem::render {

class GBuffer;

/// Which G-buffer channel to show, or the post-process output.
enum class Channel { Color, Depth, Normal, Id, Output };

/// "color", "depth", "normal", "id", "output".
std::string_view channelName(Channel channel);
/// Parses a channel name; nullopt when unknown.
std::optional<Channel> parseChannel(std::string_view name);
/// The next channel in the cycle color → depth → normal → id → output → color.
Channel nextChannel(Channel channel);

/// An RGBA8 colour target to present into when there is no window.
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

    /// Draws `channel` of `source` into framebuffer `target` (0: the window) at the G-buffer's
    /// size, in debug group "present". `near`/`far` linearise depth.
    void draw(const GBuffer& source, Channel channel, float near, float far, GLuint target);

private:
    gl::Program m_program;
    gl::Buffer m_block;
    gl::VertexArray m_emptyVertexArray;
};

/// Reads the colour of framebuffer `framebuffer` (0: the window's back buffer) into an image,
/// rows top to bottom. Blocks until the GPU has finished drawing it (glReadPixels).
io::Image readPixels(GLuint framebuffer, int width, int height);

} // namespace tandem::render
