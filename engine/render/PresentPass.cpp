#include "engine/render/PresentPass.h"

#include <glm/glm.hpp>

#include "engine/core/Stall.h"
#include "engine/gl/Debug.h"
#include "engine/render/Bindings.h"
#include "engine/render/GBuffer.h"

namespace tandem::render {

namespace {

/// std140 layout of the Present block in Present.frag.glsl.
struct PresentBlock {
    glm::ivec4 mode; ///< x: 0 colour, 1 output; y: 1 the colour is linear floats (encode)
};

} // namespace

OffscreenTarget::OffscreenTarget(int width, int height)
{
    resize(width, height);
}

void OffscreenTarget::resize(int width, int height)
{
    if (m_color.id() != 0 && width == m_color.width() && height == m_color.height())
        return;
    m_color = gl::Texture(GL_RGBA8, width, height, "present.output");
    m_framebuffer = gl::Framebuffer("present.output");
    m_framebuffer.attach(GL_COLOR_ATTACHMENT0, m_color);
    m_framebuffer.setDrawBuffers({GL_COLOR_ATTACHMENT0});
    m_framebuffer.checkComplete();
}

PresentPass::PresentPass()
    : m_program({{GL_VERTEX_SHADER, "render/Present.vert.glsl"},
                 {GL_FRAGMENT_SHADER, "render/Present.frag.glsl"}},
                "present"),
      m_block(sizeof(PresentBlock), nullptr, GL_DYNAMIC_STORAGE_BIT, "present.params"),
      m_emptyVertexArray("present.fullscreen")
{}

void PresentPass::draw(const GBuffer& source, PresentSource what, GLuint target)
{
    gl::DebugGroup group("present");
    TANDEM_ASSERT(!source.isMappedByCuda(), "render::PresentPass::draw(): G-buffer mapped by CUDA");
    PresentBlock block{glm::ivec4(what == PresentSource::Output ? 1 : 0,
                                  source.colorFormat() == ColorFormat::Rgba16F ? 1 : 0, 0, 0)};
    m_block.write(0, &block, sizeof block);
    glBindFramebuffer(GL_FRAMEBUFFER, target);
    glViewport(0, 0, source.width(), source.height());
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_BLEND);
    glBindBufferBase(GL_UNIFORM_BUFFER, binding::UboPresent, m_block.id());
    glBindTextureUnit(binding::TexGBufferColor, source.color().id());
    glBindTextureUnit(binding::TexOutput, source.output().id());
    m_program.use();
    glBindVertexArray(m_emptyVertexArray.id());
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    for (GLuint unit : {binding::TexGBufferColor, binding::TexOutput})
        glBindTextureUnit(unit, 0);
}

io::Image readPixels(GLuint framebuffer, int width, int height)
{
    gl::DebugGroup group("readback");
    io::Image image;
    image.width = width;
    image.height = height;
    image.pixels.resize(static_cast<std::size_t>(width) * height * 4);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
    glReadBuffer(framebuffer == 0 ? GL_BACK : GL_COLOR_ATTACHMENT0);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    recordStall(StallCause::Readback);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, image.pixels.data());
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    gl::check("glReadPixels");
    image.flipVertically();
    return image;
}

} // namespace tandem::render
