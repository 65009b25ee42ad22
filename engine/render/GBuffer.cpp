#include "engine/render/GBuffer.h"

#include "engine/render/Bindings.h"

namespace tandem::render {

GBuffer::GBuffer(int width, int height, ColorFormat colorFormat) : m_colorFormat(colorFormat)
{
    create(width, height);
}

bool GBuffer::resize(int width, int height)
{
    if (width == this->width() && height == this->height())
        return false;
    create(width, height);
    return true;
}

void GBuffer::create(int width, int height)
{
    m_color = gl::Texture(m_colorFormat == ColorFormat::Rgba8 ? GL_RGBA8 : GL_RGBA16F, width,
                          height, "gbuffer.color");
    m_depth = gl::Texture(GL_DEPTH_COMPONENT32F, width, height, "gbuffer.depth");
    m_normal = gl::Texture(GL_RGBA16F, width, height, "gbuffer.normal");
    m_id = gl::Texture(GL_R32UI, width, height, "gbuffer.id");
    m_framebuffer = gl::Framebuffer("gbuffer");
    m_framebuffer.attach(GL_COLOR_ATTACHMENT0 + binding::OutColor, m_color);
    m_framebuffer.attach(GL_COLOR_ATTACHMENT0 + binding::OutNormal, m_normal);
    m_framebuffer.attach(GL_COLOR_ATTACHMENT0 + binding::OutId, m_id);
    m_framebuffer.attach(GL_DEPTH_ATTACHMENT, m_depth);
    m_framebuffer.setDrawBuffers({GL_COLOR_ATTACHMENT0 + binding::OutColor,
                                  GL_COLOR_ATTACHMENT0 + binding::OutNormal,
                                  GL_COLOR_ATTACHMENT0 + binding::OutId});
    m_framebuffer.checkComplete();
}

void GBuffer::clear(const float background[4])
{
    const GLuint fb = m_framebuffer.id();
    const float zero[4] = {0, 0, 0, 0};
    const GLuint zeroId[4] = {0, 0, 0, 0};
    const float far = 1.0f;
    glClearNamedFramebufferfv(fb, GL_COLOR, static_cast<GLint>(binding::OutColor), background);
    glClearNamedFramebufferfv(fb, GL_COLOR, static_cast<GLint>(binding::OutNormal), zero);
    glClearNamedFramebufferuiv(fb, GL_COLOR, static_cast<GLint>(binding::OutId), zeroId);
    glClearNamedFramebufferfv(fb, GL_DEPTH, 0, &far);
}

} // namespace tandem::render
