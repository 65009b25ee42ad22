// The one include for GL declarations (glad 2, GL 4.5 core), plus the error check used on setup
// paths. Requires a current context for every call except names.
#pragma once

#include <cstddef>
#include <source_location>
#include <string>

#include <glad/gl.h>

#include "engine/core/Error.h"

namespace tandem::gl {

/// A GL setup failure: a glGetError code after a call, an incomplete framebuffer, a compile or
/// link error.
class GlError : public Error {
public:
    GlError(const std::string& what, const std::string& call = {},
            std::source_location where = std::source_location::current())
        : Error(what, call, where)
    {}
};

/// The symbolic name of a GL error code ("GL_INVALID_OPERATION").
const char* errorName(GLenum error);

/// Throws GlError naming `call` and the call site if glGetError reports an error (all pending
/// errors are drained). Used after setup calls; the frame loop relies on the debug callback.
void check(const char* call, std::source_location where = std::source_location::current());

/// Discards pending glGetError flags raised by someone else's GL calls (a capture tool's);
/// returns how many there were.
int drainErrors();

/// Whether a GL context is current on this thread and its functions are loaded.
bool isLoaded();

/// Video memory free for new allocations, in bytes, where the driver says
/// (GL_NVX_gpu_memory_info, GL_ATI_meminfo); 0 where it does not (Mesa's software renderer).
std::size_t freeVideoMemory();

} // namespace tandem::gl
