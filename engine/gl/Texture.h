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
    /// Gives up ownership: returns the name and leaves this empty.
    GLuint release() noexcept;

    Texture(Texture&&) noexcept = default;
    Texture& operator=(Texture&&) noexcept = default;

    GLuint id() const noexcept { return m_id.get(); }
    GLenum internalFormat() const noexcept { return m_internalFormat; }
    int width() const noexcept { return m_width; }
    int height() const noexcept { return m_height; }

    /// Uploads a full image of `format`/`type` (glTextureSubImage2D) from tightly packed rows.
    void upload(GLenum format, GLenum type, const void* pixels);

    /// Whether CUDA has this texture mapped right now (set by interop's handoff; GL must not
    /// use the texture then). Checked by the render passes in debug builds.
    bool isExternallyMapped() const noexcept { return m_externallyMapped; }
    void setExternallyMapped(bool mapped) noexcept { m_externallyMapped = mapped; }

private:
    struct Deleter {
        void operator()(GLuint id) const noexcept { glDeleteTextures(1, &id); }
    };
    detail::OwnedId<Deleter> m_id;
    GLenum m_internalFormat = 0;
    int m_width = 0;
    int m_height = 0;
    bool m_externallyMapped = false;
};

} // namespace tandem::gl
