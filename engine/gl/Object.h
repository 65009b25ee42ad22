// Shared ownership rules of the GL wrappers: the NoCreate tag and the move-only id holder each
// wrapper builds on. Not a public base: wrappers expose their own API.
#pragma once

#include <string_view>
#include <utility>

#include "engine/gl/Gl.h"

namespace tandem::gl {

/// Tag for building an empty wrapper (id 0) to fill later by assignment.
struct NoCreateT {
    explicit constexpr NoCreateT() = default;
};
inline constexpr NoCreateT NoCreate{};

/// Gives a GL object a debug label (glObjectLabel), shown by RenderDoc, Nsight and debug output.
/// Expects a current context; `identifier` is GL_BUFFER, GL_TEXTURE, ...
void setLabel(GLenum identifier, GLuint id, std::string_view label);

namespace detail {

/// A move-only owned GL name. `Deleter` is a function object deleting one name. A moved-from
/// holder has id 0; destruction of id 0 does nothing.
template <class Deleter> class OwnedId {
public:
    OwnedId() noexcept = default;
    explicit OwnedId(GLuint id) noexcept : m_id(id) {}
    OwnedId(const OwnedId&) = delete;
    OwnedId& operator=(const OwnedId&) = delete;
    OwnedId(OwnedId&& other) noexcept : m_id(std::exchange(other.m_id, 0)) {}
    OwnedId& operator=(OwnedId&& other) noexcept
    {
        if (this != &other) {
            reset();
            m_id = std::exchange(other.m_id, 0);
        }
        return *this;
    }
    ~OwnedId() { reset(); }

    GLuint get() const noexcept { return m_id; }
    GLuint release() noexcept { return std::exchange(m_id, 0); }
    void reset(GLuint id = 0) noexcept
    {
        if (m_id != 0)
            Deleter{}(m_id);
        m_id = id;
    }

private:
    GLuint m_id = 0;
};

} // namespace detail
} // namespace tandem::gl
