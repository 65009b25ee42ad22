#include "engine/interop/HostTransfer.h"

#include "engine/core/Stall.h"
#include "engine/gl/Debug.h"
#include "engine/gl/Texture.h"

namespace tandem::interop {

namespace {

struct Plan {
    std::size_t colorOffset, depthOffset, normalOffset, idOffset, total;
};

Plan planFor(int width, int height, bool colorIsHalf)
{
    const std::size_t pixels = static_cast<std::size_t>(width) * height;
    Plan plan{};
    plan.colorOffset = 0;
    plan.depthOffset = pixels * (colorIsHalf ? 8 : 4);
    plan.normalOffset = plan.depthOffset + pixels * 4;
    plan.idOffset = plan.normalOffset + pixels * 8;
    plan.total = plan.idOffset + pixels * 4;
    return plan;
}

} // namespace

HostFrame HostTransfer::download(const FrameTextures& t)
{
    gl::DebugGroup group("handoff.host.download");
    TANDEM_ASSERT(!m_mapped, "interop::HostTransfer::download(): previous frame still mapped");
    const bool half = t.colorIsHalf;
    const Plan plan = planFor(t.width, t.height, half);
    if (m_pack.size() < plan.total)
        m_pack = gl::Buffer(plan.total, nullptr, GL_MAP_READ_BIT, "handoff.host.pack");
    glBindBuffer(GL_PIXEL_PACK_BUFFER, m_pack.id());
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    auto read = [&](const gl::Texture& texture, GLenum format, GLenum type, std::size_t offset,
                    std::size_t bytes) {
        glGetTextureSubImage(texture.id(), 0, 0, 0, 0, t.width, t.height, 1, format, type,
                             static_cast<GLsizei>(bytes),
                             reinterpret_cast<void*>(static_cast<std::uintptr_t>(offset)));
    };
    read(*t.color, GL_RGBA, half ? GL_HALF_FLOAT : GL_UNSIGNED_BYTE, plan.colorOffset,
         plan.depthOffset - plan.colorOffset);
    read(*t.depth, GL_RED, GL_FLOAT, plan.depthOffset, plan.normalOffset - plan.depthOffset);
    read(*t.normal, GL_RGBA, GL_HALF_FLOAT, plan.normalOffset, plan.idOffset - plan.normalOffset);
    read(*t.id, GL_RED_INTEGER, GL_UNSIGNED_INT, plan.idOffset, plan.total - plan.idOffset);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    recordStall(StallCause::Readback); // the map waits for the G-buffer to be drawn
    const auto* base = static_cast<const std::uint8_t*>(glMapNamedBufferRange(
        m_pack.id(), 0, static_cast<GLsizeiptr>(plan.total), GL_MAP_READ_BIT));
    gl::check("glMapNamedBufferRange(pixel pack)");
    m_mapped = true;
    HostFrame frame;
    frame.color = base + plan.colorOffset;
    frame.colorIsHalf = half;
    frame.depth = reinterpret_cast<const float*>(base + plan.depthOffset);
    frame.normal = reinterpret_cast<const std::uint16_t*>(base + plan.normalOffset);
    frame.id = reinterpret_cast<const std::uint32_t*>(base + plan.idOffset);
    frame.width = t.width;
    frame.height = t.height;
    return frame;
}

void HostTransfer::release()
{
    if (m_mapped) {
        glUnmapNamedBuffer(m_pack.id());
        m_mapped = false;
    }
}

void HostTransfer::upload(const FrameTextures& t, const std::uint8_t* rgba8)
{
    gl::DebugGroup group("handoff.host.upload");
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTextureSubImage2D(t.output->id(), 0, 0, 0, t.width, t.height, GL_RGBA, GL_UNSIGNED_BYTE,
                        rgba8);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    gl::check("glTextureSubImage2D(postfx output)");
}

} // namespace tandem::interop
