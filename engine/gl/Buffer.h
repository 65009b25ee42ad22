// Move-only owner of a GL buffer object with immutable storage (glCreateBuffers +
// glNamedBufferStorage). Needs the owning context current for every call but id().
#pragma once

#include <cstddef>
#include <string_view>

#include "engine/gl/Object.h"

namespace tandem::gl {

/// A GL buffer with immutable storage.
class Buffer {
public:
    /// An empty buffer (id 0) to assign to later.
    explicit Buffer(NoCreateT) noexcept {}
    /// Creates a buffer of `size` bytes, filled from `data` if not null, with `flags` as for
    /// glNamedBufferStorage (GL_DYNAMIC_STORAGE_BIT to allow write()). Throws GlError on failure.
    Buffer(std::size_t size, const void* data, GLbitfield flags, std::string_view label);

    /// Adopts an existing buffer name of `size` bytes; the wrapper deletes it when it dies.
    static Buffer wrap(GLuint id, std::size_t size) noexcept;
    /// Gives up ownership: returns the name and leaves this empty.
    GLuint release() noexcept;

    Buffer(Buffer&&) noexcept = default;
    Buffer& operator=(Buffer&&) noexcept = default;

    /// The GL name; 0 when empty or moved from.
    GLuint id() const noexcept { return m_id.get(); }
    /// Size in bytes.
    std::size_t size() const noexcept { return m_size; }

    /// Copies `bytes` bytes from `data` to `offset` (glNamedBufferSubData). Expects the range to
    /// lie inside the buffer and the storage to be dynamic.
    void write(std::size_t offset, const void* data, std::size_t bytes);

private:
    struct Deleter {
        void operator()(GLuint id) const noexcept { glDeleteBuffers(1, &id); }
    };
    detail::OwnedId<Deleter> m_id;
    std::size_t m_size = 0;
};

} // namespace tandem::gl
