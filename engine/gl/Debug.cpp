#include "engine/gl/Debug.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include "engine/core/Log.h"
#include "engine/gl/Object.h"

namespace tandem::gl {

namespace {

const char* sourceName(GLenum source)
{
    switch (source) {
    case GL_DEBUG_SOURCE_API:
        return "api";
    case GL_DEBUG_SOURCE_WINDOW_SYSTEM:
        return "window system";
    case GL_DEBUG_SOURCE_SHADER_COMPILER:
        return "shader compiler";
    case GL_DEBUG_SOURCE_THIRD_PARTY:
        return "third party";
    case GL_DEBUG_SOURCE_APPLICATION:
        return "application";
    default:
        return "other";
    }
}

void GLAD_API_PTR onDebugMessage(GLenum source, GLenum type, GLuint id, GLenum severity,
                                 GLsizei length, const GLchar* message, const void* errors)
{
    const std::string_view text(message, length >= 0 ? static_cast<std::size_t>(length)
                                                     : std::char_traits<char>::length(message));
    // Compile and link failures are reported by gl::Program with file:line; the driver's copy
    // of the same text is noise here, and not a GL error.
    if (source == GL_DEBUG_SOURCE_SHADER_COMPILER) {
        log::debug("GL shader compiler: {}", text);
        return;
    }
    if (type == GL_DEBUG_TYPE_ERROR) {
        // The counter of the context that reported it (a const void* by the API's signature).
        static_cast<std::atomic<std::uint64_t>*>(const_cast<void*>(errors))
            ->fetch_add(1, std::memory_order_relaxed);
        log::error("GL error ({}, id {}): {}", sourceName(source), id, text);
        return;
    }
    if (type == GL_DEBUG_TYPE_PUSH_GROUP || type == GL_DEBUG_TYPE_POP_GROUP ||
        severity == GL_DEBUG_SEVERITY_NOTIFICATION)
        return;
    if (severity == GL_DEBUG_SEVERITY_HIGH || severity == GL_DEBUG_SEVERITY_MEDIUM)
        log::warning("GL ({}, id {}): {}", sourceName(source), id, text);
    else
        log::debug("GL ({}, id {}): {}", sourceName(source), id, text);
}

} // namespace

void enableDebugOutput(bool synchronous, std::atomic<std::uint64_t>& errors)
{
    glEnable(GL_DEBUG_OUTPUT);
    if (synchronous)
        glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    else
        glDisable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(onDebugMessage, &errors);
    glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
    check("glDebugMessageCallback");
}

bool debugOutputRequested()
{
#ifdef TANDEM_DEBUG
    return true;
#else
    const char* env = std::getenv("TANDEM_GL_DEBUG");
    return env && std::string_view(env) != "0" && *env;
#endif
}

DebugGroup::DebugGroup(std::string_view name)
{
    glPushDebugGroup(GL_DEBUG_SOURCE_APPLICATION, 0, static_cast<GLsizei>(name.size()),
                     name.data());
}

DebugGroup::~DebugGroup()
{
    glPopDebugGroup();
}

void setLabel(GLenum identifier, GLuint id, std::string_view label)
{
    if (label.empty() || id == 0)
        return;
    glObjectLabel(identifier, id, static_cast<GLsizei>(label.size()), label.data());
}

} // namespace tandem::gl
