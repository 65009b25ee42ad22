// Move-only owner of a GL buffer object with immutable storage (glCreateBuffers +
// glNamedBufferStorage), with mapped ranges: persistent and coherent where the storage allows it,
// ordered with the GPU through gl::Fence. Needs the owning context current for every call but the
// getters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/gl/Object.h"

namespace tandem::gl {

/// A GL buffer with immutable storage.
class Buffer {
public:
    /// An empty buffer (id 0) to assign to later.
    explicit Buffer(NoCreateT) noexcept {}
    /// Creates a buffer of `size` bytes, filled from `data` if not null, with `flags` as for
    /// glNamedBufferStorage (GL_DYNAMIC_STORAGE_BIT to allow write(); GL_MAP_READ_BIT,
    /// GL_MAP_WRITE_BIT, GL_MAP_PERSISTENT_BIT, GL_MAP_COHERENT_BIT to allow map()). Throws
    /// GlError on failure.
    Buffer(std::size_t size, const void* data, GLbitfield flags, std::string_view label);
    /// Unmaps (if mapped) and deletes the buffer.
    ~Buffer();

    /// Adopts an existing buffer name of `size` bytes; the wrapper deletes it when it dies.
    static Buffer wrap(GLuint id, std::size_t size) noexcept;
    /// Gives up ownership: returns the name and leaves this empty (size 0, not mapped).
    GLuint release() noexcept;

    /// Moves leave the source empty: id 0, size 0, no flags, not mapped.
    Buffer(Buffer&& other) noexcept;
    Buffer& operator=(Buffer&& other) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    /// The GL name; 0 when empty or moved from.
    GLuint id() const noexcept { return m_id.get(); }
    /// Size in bytes; 0 when empty or moved from.
    std::size_t size() const noexcept { return m_size; }
    /// The storage flags it was created with; 0 when empty or wrapped.
    GLbitfield storageFlags() const noexcept { return m_storageFlags; }

    /// Copies `bytes` bytes from `data` to `offset` (glNamedBufferSubData). Expects the range to
    /// lie inside the buffer and the storage to be dynamic.
    void write(std::size_t offset, const void* data, std::size_t bytes);

    /// Maps `bytes` bytes from `offset` with `access` (glMapNamedBufferRange: GL_MAP_READ_BIT,
    /// GL_MAP_WRITE_BIT, GL_MAP_PERSISTENT_BIT, GL_MAP_COHERENT_BIT...) and returns the pointer.
    /// A persistent mapping stays valid while the GPU uses the buffer; order CPU access with a
    /// gl::Fence. Does not block by itself, but a non-persistent map of a buffer the GPU is
    /// still writing waits for it. Expects the buffer not mapped and the access allowed by the
    /// storage flags. Throws GlError when the driver refuses.
    std::uint8_t* map(std::size_t offset, std::size_t bytes, GLbitfield access);
    /// Unmaps what map() mapped (glUnmapNamedBuffer). Nothing if not mapped.
    void unmap() noexcept;
    /// The mapped pointer (at the mapped offset), or null.
    std::uint8_t* mapped() const noexcept { return m_mapped; }
    bool isMapped() const noexcept { return m_mapped != nullptr; }

private:
    struct Deleter {
        void operator()(GLuint id) const noexcept { glDeleteBuffers(1, &id); }
    };
    detail::OwnedId<Deleter> m_id;
    std::size_t m_size = 0;
    GLbitfield m_storageFlags = 0;
    std::uint8_t* m_mapped = nullptr;
};

} // namespace tandem::gl
