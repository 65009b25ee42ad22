#include "engine/gl/Query.h"

namespace tandem::gl {

Query::Query(GLenum target, std::string_view label) : m_target(target)
{
    GLuint id = 0;
    glCreateQueries(target, 1, &id);
    m_id.reset(id);
    check("glCreateQueries");
    setLabel(GL_QUERY, id, label);
}

Query Query::wrap(GLuint id, GLenum target) noexcept
{
    Query query{NoCreate};
    query.m_id.reset(id);
    query.m_target = target;
    return query;
}

GLuint Query::release() noexcept
{
    m_target = 0;
    return m_id.release();
}

void Query::timestamp()
{
    TANDEM_ASSERT(m_target == GL_TIMESTAMP, "gl::Query::timestamp(): not a GL_TIMESTAMP query");
    glQueryCounter(id(), GL_TIMESTAMP);
}

std::optional<std::uint64_t> Query::tryResult() const
{
    GLint available = GL_FALSE;
    glGetQueryObjectiv(id(), GL_QUERY_RESULT_AVAILABLE, &available);
    if (available != GL_TRUE)
        return std::nullopt;
    GLuint64 value = 0;
    glGetQueryObjectui64v(id(), GL_QUERY_RESULT, &value);
    return value;
}

std::optional<std::uint64_t> Query::tryResultNoWait() const
{
    // NO_WAIT leaves the value untouched when the result is not ready: start from a sentinel
    // no timestamp or count reaches.
    constexpr GLuint64 notReady = ~GLuint64{0};
    GLuint64 value = notReady;
    glGetQueryObjectui64v(id(), GL_QUERY_RESULT_NO_WAIT, &value);
    if (value == notReady)
        return std::nullopt;
    return value;
}

} // namespace tandem::gl
