// The ImGui overlay: one window ("tandem") whose sections are panels an app composes — free
// functions that draw with ImGui (ui/Panels.h has the engine's), added with addPanel(), so a
// new app adds its own panel without editing ui/. Draws into the window or, headless, into any
// bound framebuffer (no platform backend: the display size is set by hand). Render thread; the
// GL context current.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <glad/gl.h>

#include "engine/platform/Context.h"

namespace tandem::ui {

/// A section of the overlay: a collapsing header with `title` (none when empty) and what
/// `draw` draws with ImGui.
struct Panel {
    std::string title;
    bool openByDefault = true;
    std::function<void()> draw;
};

class Overlay {
public:
    /// Sets up Dear ImGui with its OpenGL3 backend, and GLFW input when `context` is a window.
    /// Throws tandem::Error when the backend cannot initialise.
    explicit Overlay(platform::Context& context);
    ~Overlay();
    Overlay(const Overlay&) = delete;
    Overlay& operator=(const Overlay&) = delete;

    /// Adds a panel below the ones added before.
    void addPanel(Panel panel);

    /// Builds the panels and renders them into `framebuffer` (0: the window) of size
    /// `width`×`height`, in debug group "overlay". Nothing while hidden.
    void draw(GLuint framebuffer, int width, int height);

    bool isVisible() const { return m_visible; }
    void setVisible(bool visible) { m_visible = visible; }
    void toggle() { m_visible = !m_visible; }
    /// Whether ImGui wants the mouse or keyboard (the camera should not react then).
    bool wantsMouse() const;
    bool wantsKeyboard() const;

private:
    bool m_window = false;
    bool m_visible = true;
    bool m_fontLabelled = false;
    double m_lastTime = 0;
    std::vector<Panel> m_panels;
};

} // namespace tandem::ui
