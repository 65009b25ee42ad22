// Move-only owner of a GL framebuffer object (glCreateFramebuffers), with attachment and
// completeness checks. Needs the owning context current.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "engine/gl/Object.h"

namespace tandem::gl {

class Texture;

/// A framebuffer object. Does not own its attachments.
class Framebuffer {
public:
    explicit Framebuffer(NoCreateT) noexcept {}
    /// Creates an empty framebuffer. Throws GlError on failure.
    explicit Framebuffer(std::string_view label);

    static Framebuffer wrap(GLuint id) noexcept;
    GLuint release() noexcept;

    Framebuffer(Framebuffer&&) noexcept = default;
    Framebuffer& operator=(Framebuffer&&) noexcept = default;

    GLuint id() const noexcept { return m_id.get(); }

    /// Attaches `texture` at `attachment` (GL_COLOR_ATTACHMENTi, GL_DEPTH_ATTACHMENT).
    void attach(GLenum attachment, const Texture& texture);
    /// Sets the draw buffers (glNamedFramebufferDrawBuffers).
    void setDrawBuffers(std::initializer_list<GLenum> buffers);
    /// Throws GlError naming the status (GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT, ...) unless the
    /// framebuffer is complete for drawing.
    void checkComplete() const;

    /// The symbolic name of a framebuffer status.
    static std::string statusName(GLenum status);

private:
    struct Deleter {
        void operator()(GLuint id) const noexcept { glDeleteFramebuffers(1, &id); }
    };
    detail::OwnedId<Deleter> m_id;
    std::string m_label;
};

} // namespace tandem::gl
