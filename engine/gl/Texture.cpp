#include "engine/gl/Texture.h"

#include <utility>

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

Texture::Texture(Texture&& other) noexcept
    : m_id(std::move(other.m_id)), m_internalFormat(std::exchange(other.m_internalFormat, 0)),
      m_width(std::exchange(other.m_width, 0)), m_height(std::exchange(other.m_height, 0))
{}

Texture& Texture::operator=(Texture&& other) noexcept
{
    if (this != &other) {
        m_id = std::move(other.m_id);
        m_internalFormat = std::exchange(other.m_internalFormat, 0);
        m_width = std::exchange(other.m_width, 0);
        m_height = std::exchange(other.m_height, 0);
    }
    return *this;
}

GLuint Texture::release() noexcept
{
    m_width = m_height = 0;
    m_internalFormat = 0;
    return m_id.release();
}

PixelTransfer pixelTransferOf(GLenum internalFormat)
{
    switch (internalFormat) {
    case GL_RGBA8:
        return {GL_RGBA, GL_UNSIGNED_BYTE, 4};
    case GL_RGBA16F:
        return {GL_RGBA, GL_HALF_FLOAT, 8};
    case GL_RGBA16:
        return {GL_RGBA, GL_UNSIGNED_SHORT, 8};
    case GL_R32F:
        return {GL_RED, GL_FLOAT, 4};
    case GL_R32UI:
        return {GL_RED_INTEGER, GL_UNSIGNED_INT, 4};
    default:
        throw GlError("no pixel transfer known for this internal format", "pixelTransferOf");
    }
}

void Texture::upload(GLenum format, GLenum type, const void* pixels)
{
    TANDEM_ASSERT(id() != 0, "gl::Texture::upload(): empty texture");
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTextureSubImage2D(id(), 0, 0, 0, m_width, m_height, format, type, pixels);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
}

} // namespace tandem::gl
