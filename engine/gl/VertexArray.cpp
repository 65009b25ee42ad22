#include "engine/gl/VertexArray.h"

#include "engine/gl/Buffer.h"

namespace tandem::gl {

VertexArray::VertexArray(std::string_view label)
{
    GLuint id = 0;
    glCreateVertexArrays(1, &id);
    m_id.reset(id);
    check("glCreateVertexArrays");
    setLabel(GL_VERTEX_ARRAY, id, label);
}

VertexArray VertexArray::wrap(GLuint id) noexcept
{
    VertexArray vertexArray{NoCreate};
    vertexArray.m_id.reset(id);
    return vertexArray;
}

GLuint VertexArray::release() noexcept
{
    return m_id.release();
}

void VertexArray::setVertexBuffer(GLuint binding, const Buffer& buffer, std::size_t offset,
                                  int stride)
{
    glVertexArrayVertexBuffer(id(), binding, buffer.id(), static_cast<GLintptr>(offset), stride);
}

void VertexArray::setIndexBuffer(const Buffer& buffer)
{
    glVertexArrayElementBuffer(id(), buffer.id());
}

void VertexArray::setAttribute(GLuint location, GLuint binding, int components, GLenum type,
                               bool normalized, GLuint offset)
{
    glEnableVertexArrayAttrib(id(), location);
    glVertexArrayAttribFormat(id(), location, components, type, normalized ? GL_TRUE : GL_FALSE,
                              offset);
    glVertexArrayAttribBinding(id(), location, binding);
    check("glVertexArrayAttribFormat");
}

} // namespace tandem::gl
