#include "engine/gl/Buffer.h"

#include <utility>

namespace tandem::gl {

Buffer::Buffer(std::size_t size, const void* data, GLbitfield flags, std::string_view label)
    : m_size(size), m_storageFlags(flags)
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

Buffer::~Buffer()
{
    unmap();
}

Buffer::Buffer(Buffer&& other) noexcept
    : m_id(std::move(other.m_id)), m_size(std::exchange(other.m_size, 0)),
      m_storageFlags(std::exchange(other.m_storageFlags, 0)),
      m_mapped(std::exchange(other.m_mapped, nullptr))
{}

Buffer& Buffer::operator=(Buffer&& other) noexcept
{
    if (this != &other) {
        unmap();
        m_id = std::move(other.m_id);
        m_size = std::exchange(other.m_size, 0);
        m_storageFlags = std::exchange(other.m_storageFlags, 0);
        m_mapped = std::exchange(other.m_mapped, nullptr);
    }
    return *this;
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
    unmap();
    m_size = 0;
    m_storageFlags = 0;
    return m_id.release();
}

void Buffer::write(std::size_t offset, const void* data, std::size_t bytes)
{
    TANDEM_ASSERT(id() != 0, "gl::Buffer::write(): empty buffer");
    TANDEM_ASSERT(offset + bytes <= m_size, "gl::Buffer::write(): range exceeds size");
    glNamedBufferSubData(id(), static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes), data);
}

std::uint8_t* Buffer::map(std::size_t offset, std::size_t bytes, GLbitfield access)
{
    TANDEM_ASSERT(id() != 0, "gl::Buffer::map(): empty buffer");
    TANDEM_ASSERT(!m_mapped, "gl::Buffer::map(): already mapped");
    TANDEM_ASSERT(offset + bytes <= m_size, "gl::Buffer::map(): range exceeds size");
    void* pointer = glMapNamedBufferRange(id(), static_cast<GLintptr>(offset),
                                          static_cast<GLsizeiptr>(bytes), access);
    check("glMapNamedBufferRange");
    if (!pointer)
        throw GlError("the driver returned no mapping", "glMapNamedBufferRange");
    m_mapped = static_cast<std::uint8_t*>(pointer);
    return m_mapped;
}

void Buffer::unmap() noexcept
{
    if (!m_mapped)
        return;
    glUnmapNamedBuffer(id());
    m_mapped = nullptr;
}

} // namespace tandem::gl
