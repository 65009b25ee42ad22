// Move-only owner of a 2D GL texture with immutable storage (glCreateTextures +
// glTextureStorage2D). Needs the owning context current for every call but the getters.
#pragma once

#include <string_view>

#include "engine/gl/Object.h"

namespace tandem::gl {

/// A 2D texture with one mip level and immutable storage.
class Texture {
public:
    /// An empty texture (id 0) to assign to later.
    explicit Texture(NoCreateT) noexcept {}
    /// Creates a `width`×`height` texture of `internalFormat` (GL_RGBA8, GL_DEPTH_COMPONENT32F,
    /// ...), nearest filtering, clamped. Expects a positive size. Throws GlError on failure.
    Texture(GLenum internalFormat, int width, int height, std::string_view label);

    /// Adopts an existing texture name; the wrapper deletes it when it dies.
    static Texture wrap(GLuint id, GLenum internalFormat, int width, int height) noexcept;
    /// Gives up ownership: returns the name and leaves this empty (no size, no format).
    GLuint release() noexcept;

    /// Moves leave the source empty: id 0, size 0×0, format 0.
    Texture(Texture&& other) noexcept;
    Texture& operator=(Texture&& other) noexcept;
    Texture(const Texture&) = delete;
    Texture& operator=(const Texture&) = delete;

    GLuint id() const noexcept { return m_id.get(); }
    GLenum internalFormat() const noexcept { return m_internalFormat; }
    int width() const noexcept { return m_width; }
    int height() const noexcept { return m_height; }

    /// Uploads a full image of `format`/`type` (glTextureSubImage2D) from tightly packed rows.
    void upload(GLenum format, GLenum type, const void* pixels);

private:
    struct Deleter {
        void operator()(GLuint id) const noexcept { glDeleteTextures(1, &id); }
    };
    detail::OwnedId<Deleter> m_id;
    GLenum m_internalFormat = 0;
    int m_width = 0;
    int m_height = 0;
};

/// How GL transfers pixels of an internal format to and from client memory: the format and type
/// for glGetTextureSubImage/glTextureSubImage2D, and bytes per pixel. Expects a colour format
/// the engine uses (RGBA8, RGBA16F, RGBA16, R32F, R32UI); throws GlError for others.
struct PixelTransfer {
    GLenum format;
    GLenum type;
    int bytesPerPixel;
};
PixelTransfer pixelTransferOf(GLenum internalFormat);

} // namespace tandem::gl
