// The ImGui overlay: one window ("tandem") whose sections are panels an app composes — free
// functions that draw with ImGui (ui/Panels.h has the engine's), added with addPanel(), so a
// new app adds its own panel without editing ui/. Draws into the window or, headless, into any
// bound framebuffer (no platform backend: the display size is set by hand). Each overlay owns
// its ImGui context (made current around each use and the one before put back), so several
// overlays live in one process (two viewers, a notebook cell run twice); a window's input
// reaches it through handle(), from the events the window gathered, never through callbacks
// that would go to whichever overlay is current. Render thread; the GL context current.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <glad/gl.h>

#include "engine/core/Registration.h"
#include "engine/platform/Context.h"

struct ImGuiContext;

namespace tandem::ui {

/// A section of the overlay: a collapsing header with `title` (none when empty) and what
/// `draw` draws with ImGui.
struct Panel {
    std::string title;
    bool openByDefault = true;
    std::function<void()> draw;
};

/// Where the overlay's window may be in a target of `width` × `height` pixels: `margin` from
/// its top left corner, `width` wide (the timings plot and its padding, 430 px; less in a
/// narrower target) and at most `maxHeight` high (the target's height less the margins; taller
/// content scrolls). Long text wraps to that width rather than widening the window.
struct OverlayBounds {
    float margin = 8;
    float width = 430;
    float maxHeight = 0;
};
/// The bounds in a target of `width` × `height` pixels.
OverlayBounds overlayBounds(int width, int height);

class Overlay {
public:
    /// Makes an ImGui context with its OpenGL3 backend (and the GLFW one when `context` is a
    /// window: its input then comes through handle()). Throws tandem::Error when the backend
    /// cannot initialise. `context` must outlive the overlay.
    explicit Overlay(platform::Context& context);
    ~Overlay();
    Overlay(const Overlay&) = delete;
    Overlay& operator=(const Overlay&) = delete;

    /// Adds a panel below the ones added before; the handle removes it (the overlay may die
    /// first).
    Registration addPanel(Panel panel);

    /// Builds the panels and renders them into `framebuffer` (0: the window) of size
    /// `width`×`height`, within overlayBounds(width, height), in debug group "overlay".
    /// Nothing while hidden.
    void draw(GLuint framebuffer, int width, int height);
    /// Gives a window event to ImGui (mouse buttons, wheel, keys, text, focus); call before the
    /// draw() that should see it. Nothing headless.
    void handle(const platform::InputEvent& event);

    bool isVisible() const { return m_visible; }
    void setVisible(bool visible) { m_visible = visible; }
    void toggle() { m_visible = !m_visible; }
    /// Whether ImGui wants the mouse or keyboard (the camera should not react then).
    bool wantsMouse() const;
    bool wantsKeyboard() const;
    /// Panels added and not removed.
    std::size_t panelCount() const { return m_panels.size(); }
    /// Their titles, in the order they are drawn.
    std::vector<std::string> panelTitles() const;

    /// Makes an overlay's ImGui context current for a scope and puts the previous one back
    /// after (for code that talks to ImGui directly: tests feeding input).
    class Current {
    public:
        explicit Current(const Overlay& overlay);
        ~Current();
        Current(const Current&) = delete;
        Current& operator=(const Current&) = delete;

    private:
        explicit Current(ImGuiContext* context);
        friend class Overlay;
        ImGuiContext* m_previous;
    };

private:
    platform::Context& m_context;
    ImGuiContext* m_imgui = nullptr;
    bool m_window = false;
    bool m_visible = true;
    bool m_fontLabelled = false;
    double m_lastTime = 0;
    Registry<Panel> m_panels;
};

} // namespace tandem::ui
