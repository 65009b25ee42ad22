// Move-only owner of a GL query object (glCreateQueries): timestamps, elapsed time, samples.
// Needs the owning context current.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/gl/Object.h"

namespace tandem::gl {

/// A query object of a fixed target (GL_TIMESTAMP, GL_TIME_ELAPSED, GL_SAMPLES_PASSED, ...).
class Query {
public:
    explicit Query(NoCreateT) noexcept {}
    /// Creates a query of `target`. Throws GlError on failure.
    Query(GLenum target, std::string_view label);

    static Query wrap(GLuint id, GLenum target) noexcept;
    GLuint release() noexcept;

    Query(Query&&) noexcept = default;
    Query& operator=(Query&&) noexcept = default;

    GLuint id() const noexcept { return m_id.get(); }
    GLenum target() const noexcept { return m_target; }

    /// Records the GPU time when the preceding commands complete (glQueryCounter). Expects a
    /// GL_TIMESTAMP query.
    void timestamp();
    /// The result if the GPU has produced it, without waiting (GL_QUERY_RESULT_AVAILABLE).
    std::optional<std::uint64_t> tryResult() const;
    /// The same in one call (GL_QUERY_RESULT_NO_WAIT); for polling many queries cheaply.
    std::optional<std::uint64_t> tryResultNoWait() const;

private:
    struct Deleter {
        void operator()(GLuint id) const noexcept { glDeleteQueries(1, &id); }
    };
    detail::OwnedId<Deleter> m_id;
    GLenum m_target = 0;
};

} // namespace tandem::gl
