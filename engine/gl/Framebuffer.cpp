#include "engine/gl/Framebuffer.h"

#include <vector>

#include "engine/gl/Texture.h"

namespace tandem::gl {

Framebuffer::Framebuffer(std::string_view label) : m_label(label)
{
    GLuint id = 0;
    glCreateFramebuffers(1, &id);
    m_id.reset(id);
    check("glCreateFramebuffers");
    setLabel(GL_FRAMEBUFFER, id, label);
}

Framebuffer Framebuffer::wrap(GLuint id) noexcept
{
    Framebuffer framebuffer{NoCreate};
    framebuffer.m_id.reset(id);
    return framebuffer;
}

GLuint Framebuffer::release() noexcept
{
    return m_id.release();
}

void Framebuffer::attach(GLenum attachment, const Texture& texture)
{
    TANDEM_ASSERT(id() != 0, "gl::Framebuffer::attach(): empty framebuffer");
    glNamedFramebufferTexture(id(), attachment, texture.id(), 0);
    check("glNamedFramebufferTexture");
}

void Framebuffer::setDrawBuffers(std::initializer_list<GLenum> buffers)
{
    const std::vector<GLenum> list(buffers);
    glNamedFramebufferDrawBuffers(id(), static_cast<GLsizei>(list.size()), list.data());
    check("glNamedFramebufferDrawBuffers");
}

void Framebuffer::checkComplete() const
{
    const GLenum status = glCheckNamedFramebufferStatus(id(), GL_DRAW_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE)
        throw GlError("framebuffer '" + m_label + "' is incomplete: " + statusName(status),
                      "glCheckNamedFramebufferStatus");
}

std::string Framebuffer::statusName(GLenum status)
{
    switch (status) {
    case GL_FRAMEBUFFER_COMPLETE:
        return "GL_FRAMEBUFFER_COMPLETE";
    case GL_FRAMEBUFFER_UNDEFINED:
        return "GL_FRAMEBUFFER_UNDEFINED";
    case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT:
        return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT:
        return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER:
        return "GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER";
    case GL_FRAMEBUFFER_INCOMPLETE_READ_BUFFER:
        return "GL_FRAMEBUFFER_INCOMPLETE_READ_BUFFER";
    case GL_FRAMEBUFFER_UNSUPPORTED:
        return "GL_FRAMEBUFFER_UNSUPPORTED";
    case GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE:
        return "GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE";
    case GL_FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS:
        return "GL_FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS";
    default:
        return "status " + std::to_string(status);
    }
}

} // namespace tandem::gl
