// Move-only owner of a GL vertex array object set up with DSA (glCreateVertexArrays,
// glVertexArrayVertexBuffer, glVertexArrayAttribFormat). Needs the owning context current.
#pragma once

#include <cstddef>
#include <string_view>

#include "engine/gl/Object.h"

namespace tandem::gl {

class Buffer;

/// A vertex array object. Does not own the buffers bound to it.
class VertexArray {
public:
    explicit VertexArray(NoCreateT) noexcept {}
    /// Creates an empty vertex array. Throws GlError on failure.
    explicit VertexArray(std::string_view label);

    static VertexArray wrap(GLuint id) noexcept;
    GLuint release() noexcept;

    VertexArray(VertexArray&&) noexcept = default;
    VertexArray& operator=(VertexArray&&) noexcept = default;

    GLuint id() const noexcept { return m_id.get(); }

    /// Binds `buffer` at vertex binding `binding` with `stride` bytes between vertices.
    void setVertexBuffer(GLuint binding, const Buffer& buffer, std::size_t offset, int stride);
    /// Sets the element (index) buffer.
    void setIndexBuffer(const Buffer& buffer);
    /// Enables float attribute `location` reading `components` of `type` at `offset` within
    /// vertices of `binding`; `normalized` maps integers to [0,1].
    void setAttribute(GLuint location, GLuint binding, int components, GLenum type, bool normalized,
                      GLuint offset);

private:
    struct Deleter {
        void operator()(GLuint id) const noexcept { glDeleteVertexArrays(1, &id); }
    };
    detail::OwnedId<Deleter> m_id;
};

} // namespace tandem::gl
