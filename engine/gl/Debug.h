// KHR_debug output routed to the log with GL errors counted per context (the callback's
// userParam is that context's counter, so one context's error never shows in another's count),
// debug groups named after passes, and object labels. Needs a current context (GL 4.3+ or
// KHR_debug).
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "engine/gl/Gl.h"

namespace tandem::gl {

/// Installs the debug message callback on the current context: errors are logged and counted
/// in `errors` (the context's own counter: platform::Context::glErrorCount(); it must live as
/// long as the context), other high/medium messages logged as warnings, low ones at debug
/// level, notifications dropped. `synchronous` makes the driver report inside the failing call
/// (slower; use for debugging).
void enableDebugOutput(bool synchronous, std::atomic<std::uint64_t>& errors);

/// Whether GL debug output should be on: debug builds, or TANDEM_GL_DEBUG=1 in the environment.
bool debugOutputRequested();

/// Scope that names a pass for RenderDoc, Nsight and debug output (glPushDebugGroup on
/// construction, glPopDebugGroup on destruction).
class DebugGroup {
public:
    explicit DebugGroup(std::string_view name);
    ~DebugGroup();
    DebugGroup(const DebugGroup&) = delete;
    DebugGroup& operator=(const DebugGroup&) = delete;
};

} // namespace tandem::gl
