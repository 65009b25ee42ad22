// A GL 4.5 core context to render with: a GLFW window or headless EGL on the EGL device
// platform. Renderer code sees only this interface. Create, use and destroy it on one thread;
// every GL object must die before the context does.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/EnumTable.h"
#include "engine/core/Result.h"
#include "engine/platform/Input.h"

namespace tandem::platform {

/// How to get a context.
enum class ContextMode {
    Auto,     ///< a window when a display is present, else headless (said once)
    Window,   ///< a window or an error
    Headless, ///< headless EGL
};
/// The modes' names (tandem.Viewer's `headless` maps to them).
inline constexpr EnumTable<ContextMode, 3> ContextModes{
    "context mode",
    {{{ContextMode::Auto, "auto", "a window when a display is present, else headless"},
      {ContextMode::Window, "window", "a window or an error"},
      {ContextMode::Headless, "headless", "headless EGL"}}}};

/// What to create.
struct ContextOptions {
    int width = 1280;             ///< window or default render size, pixels
    int height = 720;             ///< pixels
    std::string title = "tandem"; ///< window title
    bool debug = false;           ///< request a debug context (KHR_debug messages)
    bool vsync = true;            ///< windows only: swap interval 1
    int cudaDevice = -1;          ///< headless: prefer the EGL device of this CUDA device
    int eglDevice = -1;           ///< headless: force this EGL device index
};

/// A current-able GL context with an optional window.
class Context {
public:
    virtual ~Context() = default;

    /// Whether there is no window (EGL device platform).
    virtual bool isHeadless() const = 0;
    /// Makes the context current on the calling thread.
    virtual void makeCurrent() = 0;
    /// Presents the back buffer; does nothing headless.
    virtual void swapBuffers() = 0;
    /// Processes window events, appending them to the queue; does nothing headless.
    virtual void pollEvents() = 0;
    /// Whether the user asked to close the window; never headless.
    virtual bool shouldClose() const = 0;
    /// The window's framebuffer size in pixels; headless: the size asked for.
    virtual int framebufferWidth() const = 0;
    virtual int framebufferHeight() const = 0;
    /// One line saying what this context runs on (platform, device, GL renderer).
    virtual std::string description() const = 0;
    /// The window system's handle (a GLFWwindow*), or null headless.
    virtual void* nativeWindow() const { return nullptr; }
    /// The CUDA device the context's EGL device is (EGL_NV_device_cuda), or -1 if unknown.
    virtual int cudaDevice() const { return -1; }
    /// Takes the input events gathered since the last call.
    std::vector<InputEvent> takeEvents() { return std::move(m_events); }
    /// GL errors this context's debug output reported since it was made or the last reset;
    /// none are counted while debug output is off (ContextOptions::debug). Any thread.
    std::uint64_t glErrorCount() const { return m_glErrors.load(std::memory_order_relaxed); }
    void resetGlErrorCount() { m_glErrors.store(0, std::memory_order_relaxed); }

protected:
    friend void initializeGl(const ContextOptions& options, Context& context);
    std::vector<InputEvent> m_events;

private:
    /// The debug callback's userParam: it lives as long as the context.
    std::atomic<std::uint64_t> m_glErrors{0};
};

/// Creates a window (GLFW, GL 4.5 core). Fails, with the reason, when there is no display or
/// GLFW cannot make a GL 4.5 core context there.
Result<std::unique_ptr<Context>> tryCreateWindow(const ContextOptions& options);

/// Creates a headless context on the EGL device platform: the device whose CUDA id is
/// options.cudaDevice (EGL_NV_device_cuda) if any, else the first device that initializes (on
/// Mesa, llvmpipe's software device). Fails with the reason when none works.
Result<std::unique_ptr<Context>> tryCreateHeadless(const ContextOptions& options);

/// Creates a context for `mode`. Auto tries a window when $DISPLAY or $WAYLAND_DISPLAY is set
/// and falls back to headless, logging why once. Fails with the reasons when nothing works.
Result<std::unique_ptr<Context>> createContext(ContextMode mode, const ContextOptions& options);

/// Logs GL_VENDOR, GL_RENDERER and GL_VERSION and turns on debug output if asked, its errors
/// counted in `context`'s glErrorCount(). Called by both context kinds once the GL functions
/// are loaded, `context` current.
void initializeGl(const ContextOptions& options, Context& context);

} // namespace tandem::platform
