// The ImGui overlay: per-stage timings (GPU ms, CPU ms, share, p99), a stacked bar of recent
// frames' composition, a frame-time plot with 16.7/33.3 ms lines, handoffs and stalls per
// frame, the interop path, and the post-process chain's controls (enable, reorder,
// parameters). Draws into the window or, headless, into any bound framebuffer (no platform
// backend: display size set by hand). Render thread; the GL context current.
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <glad/gl.h>

#include "engine/interop/Doctor.h"
#include "engine/platform/Context.h"
#include "engine/postfx/Chain.h"
#include "engine/profile/Profiler.h"

namespace tandem::ui {

/// What the overlay shows and edits this frame.
struct OverlayView {
    const profile::Profiler* profiler = nullptr;
    const interop::InteropStatus* interop = nullptr;
    std::string backend;            ///< "cuda" or "host"
    std::string backendDescription; ///< why
    postfx::Chain* chain = nullptr; ///< edited in place
    /// RenderDoc: whether it is attached, the captures written so far, and where a click on
    /// "capture next frame" is reported (null: no RenderDoc section).
    const std::vector<std::string>* captures = nullptr;
    bool* captureRequested = nullptr;
};

class Overlay {
public:
    /// Sets up Dear ImGui with its OpenGL3 backend, and GLFW input when `context` is a window.
    /// Throws tandem::Error when the backend cannot initialise.
    explicit Overlay(platform::Context& context);
    ~Overlay();
    Overlay(const Overlay&) = delete;
    Overlay& operator=(const Overlay&) = delete;

    /// Keeps the finished frames for the stacked bar and the plot.
    void addFrames(const std::vector<profile::FrameRecord>& frames);
    /// Builds and renders the overlay into `framebuffer` (0: the window) of size
    /// `width`×`height`, in debug group "overlay".
    void draw(const OverlayView& view, GLuint framebuffer, int width, int height);

    bool isVisible() const { return m_visible; }
    void setVisible(bool visible) { m_visible = visible; }
    void toggle() { m_visible = !m_visible; }
    /// Whether ImGui wants the mouse or keyboard (the camera should not react then).
    bool wantsMouse() const;
    bool wantsKeyboard() const;
    /// Where the last draw put the "capture next frame" button (pixels from the top left), if
    /// it drew one.
    std::optional<std::array<float, 2>> captureButtonCenter() const { return m_captureButton; }

private:
    void buildWindow(const OverlayView& view);

    bool m_window = false;
    bool m_visible = true;
    bool m_fontLabelled = false;
    std::optional<std::array<float, 2>> m_captureButton;
    double m_lastTime = 0;
    std::deque<profile::FrameRecord> m_history;
};

} // namespace tandem::ui
