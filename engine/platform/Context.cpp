#include "engine/platform/Context.h"

#include <cstdlib>

#include <glad/gl.h>

#include "engine/core/Log.h"
#include "engine/gl/Debug.h"

namespace tandem::platform {

void initializeGl(const ContextOptions& options, Context& context)
{
    auto text = [](GLenum name) {
        const auto* s = reinterpret_cast<const char*>(glGetString(name));
        return s ? s : "?";
    };
    log::debug("GL_VENDOR {}, GL_RENDERER {}, GL_VERSION {}", text(GL_VENDOR), text(GL_RENDERER),
               text(GL_VERSION));
    if (options.debug)
        gl::enableDebugOutput(true, context.m_glErrors);
}

Result<std::unique_ptr<Context>> createContext(ContextMode mode, const ContextOptions& options)
{
    if (mode == ContextMode::Headless)
        return tryCreateHeadless(options);
    const char* display = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    const bool hasDisplay = (display && *display) || (wayland && *wayland);
    if (mode == ContextMode::Window) {
        if (!hasDisplay)
            return fail("no display (DISPLAY and WAYLAND_DISPLAY unset); use --headless");
        return tryCreateWindow(options);
    }
    std::string why = "no display (DISPLAY and WAYLAND_DISPLAY unset)";
    if (hasDisplay) {
        auto window = tryCreateWindow(options);
        if (window)
            return window;
        why = window.error();
    }
    // Said once: quietly when there is no display at all, as a warning when a window failed.
    if (hasDisplay)
        log::warning("{}: rendering headless instead", why);
    else
        log::info("{}: rendering headless instead", why);
    auto headless = tryCreateHeadless(options);
    if (!headless)
        return fail(why + "; headless EGL also failed: " + headless.error());
    return headless;
}

} // namespace tandem::platform
