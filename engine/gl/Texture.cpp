#include "engine/gl/Texture.h"

namespace tandem::gl {

Texture::Texture(GLenum internalFormat, int width, int height, std::string_view label)
    : m_internalFormat(internalFormat), m_width(width), m_height(height)
{
    TANDEM_ASSERT(width > 0 && height > 0, "gl::Texture::Texture(): expects a positive size");
    GLuint id = 0;
    glCreateTextures(GL_TEXTURE_2D, 1, &id);
    m_id.reset(id);
    glTextureStorage2D(id, 1, internalFormat, width, height);
    check("glTextureStorage2D");
    glTextureParameteri(id, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(id, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTextureParameteri(id, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTextureParameteri(id, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    setLabel(GL_TEXTURE, id, label);
}

Texture Texture::wrap(GLuint id, GLenum internalFormat, int width, int height) noexcept
{
    Texture texture{NoCreate};
    texture.m_id.reset(id);
    texture.m_internalFormat = internalFormat;
    texture.m_width = width;
    texture.m_height = height;
    return texture;
}

GLuint Texture::release() noexcept
{
    m_width = m_height = 0;
    m_internalFormat = 0;
    m_externallyMapped = false;
    return m_id.release();
}

void Texture::upload(GLenum format, GLenum type, const void* pixels)
{
    TANDEM_ASSERT(id() != 0, "gl::Texture::upload(): empty texture");
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTextureSubImage2D(id(), 0, 0, 0, m_width, m_height, format, type, pixels);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
}

} // namespace tandem::gl
