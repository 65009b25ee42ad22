#include "engine/gl/Buffer.h"

namespace tandem::gl {

Buffer::Buffer(std::size_t size, const void* data, GLbitfield flags, std::string_view label)
    : m_size(size)
{
    GLuint id = 0;
    glCreateBuffers(1, &id);
    m_id.reset(id);
    // A zero-sized store is legal in GL but useless and trips some drivers: keep one byte.
    glNamedBufferStorage(id, static_cast<GLsizeiptr>(size > 0 ? size : 1),
                         size > 0 ? data : nullptr, flags);
    check("glNamedBufferStorage");
    setLabel(GL_BUFFER, id, label);
}

Buffer Buffer::wrap(GLuint id, std::size_t size) noexcept
{
    Buffer buffer{NoCreate};
    buffer.m_id.reset(id);
    buffer.m_size = size;
    return buffer;
}

GLuint Buffer::release() noexcept
{
    m_size = 0;
    return m_id.release();
}

void Buffer::write(std::size_t offset, const void* data, std::size_t bytes)
{
    TANDEM_ASSERT(id() != 0, "gl::Buffer::write(): empty buffer");
    TANDEM_ASSERT(offset + bytes <= m_size, "gl::Buffer::write(): range exceeds size");
    glNamedBufferSubData(id(), static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes), data);
}

} // namespace tandem::gl
