#include "engine/gl/Fence.h"

#include <utility>

namespace tandem::gl {

Fence Fence::insert()
{
    Fence fence;
    fence.m_sync = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    if (!fence.m_sync)
        throw GlError("glFenceSync returned no fence", "glFenceSync");
    // Submit the commands before the fence, so polling it from now on cannot wait forever.
    glFlush();
    return fence;
}

Fence::~Fence()
{
    if (m_sync)
        glDeleteSync(m_sync);
}

Fence::Fence(Fence&& other) noexcept : m_sync(std::exchange(other.m_sync, nullptr)) {}

Fence& Fence::operator=(Fence&& other) noexcept
{
    if (this != &other) {
        if (m_sync)
            glDeleteSync(m_sync);
        m_sync = std::exchange(other.m_sync, nullptr);
    }
    return *this;
}

bool Fence::isSignaled() const
{
    if (!m_sync)
        return true;
    const GLenum status = glClientWaitSync(m_sync, 0, 0);
    if (status == GL_WAIT_FAILED)
        throw GlError("glClientWaitSync failed", "glClientWaitSync");
    return status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED;
}

void Fence::wait(StallCause cause) const
{
    if (isSignaled())
        return;
    recordStall(cause);
    for (;;) {
        // One second at a time: a lost GPU shows up as repeated waits, not a silent hang.
        const GLenum status = glClientWaitSync(m_sync, 0, 1'000'000'000ull);
        if (status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED)
            return;
        if (status == GL_WAIT_FAILED)
            throw GlError("glClientWaitSync failed", "glClientWaitSync");
    }
}

} // namespace tandem::gl
