// The geometry pass's render targets: colour (RGBA8 or RGBA16F), depth 32F, world normal
// (RGBA16F, w = 1 where covered) and primitive id (R32UI, 0 = background), all owned by GL.
// Render thread only.
#pragma once

#include "engine/gl/Framebuffer.h"
#include "engine/gl/Texture.h"

namespace tandem::render {

/// Storage format of the colour target.
enum class ColorFormat { Rgba8, Rgba16F };

/// The G-buffer textures and the framebuffer that binds them.
class GBuffer {
public:
    /// Creates targets of `width`×`height`. Throws GlError if the framebuffer is incomplete.
    GBuffer(int width, int height, ColorFormat colorFormat);

    /// Re-creates the targets if the size differs; returns whether it did.
    bool resize(int width, int height);
    /// Clears colour to `background`, depth to 1, normals and ids to 0.
    void clear(const float background[4]);

    int width() const { return m_color.width(); }
    int height() const { return m_color.height(); }
    ColorFormat colorFormat() const { return m_colorFormat; }
    const gl::Texture& color() const { return m_color; }
    const gl::Texture& depth() const { return m_depth; }
    const gl::Texture& normal() const { return m_normal; }
    const gl::Texture& id() const { return m_id; }
    const gl::Framebuffer& framebuffer() const { return m_framebuffer; }

private:
    void create(int width, int height);

    ColorFormat m_colorFormat;
    gl::Texture m_color{gl::NoCreate};
    gl::Texture m_depth{gl::NoCreate};
    gl::Texture m_normal{gl::NoCreate};
    gl::Texture m_id{gl::NoCreate};
    gl::Framebuffer m_framebuffer{gl::NoCreate};
};

} // namespace tandem::render
