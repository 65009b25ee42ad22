#include "engine/render/ComparePass.h"

#include <algorithm>

#include <fmt/format.h>
#include <glm/glm.hpp>

#include "engine/gl/Debug.h"
#include "engine/render/Bindings.h"

namespace tandem::render {

namespace {

/// std140 layout of the Compare block in Compare.frag.glsl.
struct CompareBlock {
    glm::ivec4 mode;    ///< x: mode, y: width
    glm::vec4 settings; ///< x: divider, y: difference scale
};

} // namespace

ComparePass::ComparePass()
    : m_program({{GL_VERTEX_SHADER, "render/Present.vert.glsl"},
                 {GL_FRAGMENT_SHADER, "render/Compare.frag.glsl"}},
                "compare"),
      m_block(sizeof(CompareBlock), nullptr, GL_DYNAMIC_STORAGE_BIT, "compare.params"),
      m_emptyVertexArray("compare.fullscreen")
{}

void ComparePass::resize(Image& image, int width, int height, const char* label)
{
    if (image.color.id() != 0 && image.color.width() == width && image.color.height() == height)
        return;
    image.color = gl::Texture(GL_RGBA8, width, height, label);
    image.framebuffer = gl::Framebuffer(label);
    image.framebuffer.attach(GL_COLOR_ATTACHMENT0, image.color);
    image.framebuffer.setDrawBuffers({GL_COLOR_ATTACHMENT0});
    image.framebuffer.checkComplete();
}

void ComparePass::capture(GLuint source, int width, int height, bool second)
{
    gl::DebugGroup group(second ? "compare.capture-b" : "compare.capture-a");
    Image& image = second ? m_b : m_a;
    resize(image, width, height, second ? "compare.b" : "compare.a");
    if (source == 0)
        glNamedFramebufferReadBuffer(0, GL_BACK);
    glBlitNamedFramebuffer(source, image.framebuffer.id(), 0, 0, width, height, 0, 0, width, height,
                           GL_COLOR_BUFFER_BIT, GL_NEAREST);
}

void ComparePass::compose(GLuint target, int width, int height, CompareMode mode, float divider)
{
    gl::DebugGroup group("compare");
    const CompareBlock block{glm::ivec4(static_cast<int>(mode), width, 0, 0),
                             glm::vec4(std::clamp(divider, 0.0f, 1.0f), 4.0f, 0.0f, 0.0f)};
    m_block.write(0, &block, sizeof block);
    glBindFramebuffer(GL_FRAMEBUFFER, target);
    glViewport(0, 0, width, height);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_BLEND);
    glBindBufferBase(GL_UNIFORM_BUFFER, binding::UboCompare, m_block.id());
    glBindTextureUnit(binding::TexCompareA, m_a.color.id());
    glBindTextureUnit(binding::TexCompareB, m_b.color.id());
    m_program.use();
    glBindVertexArray(m_emptyVertexArray.id());
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    for (GLuint unit : {binding::TexCompareA, binding::TexCompareB})
        glBindTextureUnit(unit, 0);
}

} // namespace tandem::render
