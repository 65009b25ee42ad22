#include "engine/ui/Overlay.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include <backends/imgui_impl_opengl3.h>
#include <fmt/format.h>
#include <imgui.h>
#ifdef TANDEM_HAS_WINDOW
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#endif

#include "engine/core/Error.h"
#include "engine/gl/Debug.h"
#include "engine/gl/Object.h"

namespace tandem::ui {

namespace {

double seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

OverlayBounds overlayBounds(int width, int height)
{
    OverlayBounds bounds;
    bounds.width = std::min(bounds.width, std::max(1.0f, width - 2 * bounds.margin));
    bounds.maxHeight = std::max(1.0f, height - 2 * bounds.margin);
    return bounds;
}

// Debian's Dear ImGui 1.86 keeps each backend's state in the current context's
// io.BackendRendererUserData / BackendPlatformUserData (imgui_impl_opengl3.cpp and
// imgui_impl_glfw.cpp: "to allow support for multiple Dear ImGui contexts"), so with the
// context set around every call each overlay has its own shaders, buffers and font texture,
// made in its own GL context at its first draw. Only the GL function pointers the OpenGL3
// backend loads (imgl3wInit, at each Init) are process-wide, and they are the same for every
// context of the process.
Overlay::Current::Current(ImGuiContext* context) : m_previous(ImGui::GetCurrentContext())
{
    ImGui::SetCurrentContext(context);
}

Overlay::Current::Current(const Overlay& overlay) : Current(overlay.m_imgui) {}

Overlay::Current::~Current()
{
    ImGui::SetCurrentContext(m_previous);
}

Overlay::Overlay(platform::Context& context) : m_context(context)
{
    IMGUI_CHECKVERSION();
    ImGuiContext* const previous = ImGui::GetCurrentContext();
    m_imgui = ImGui::CreateContext();
    ImGui::SetCurrentContext(previous); // CreateContext leaves the new one current if none was
    const Current current(m_imgui);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr; // never write imgui.ini next to the user's files
    io.LogFilename = nullptr;
    ImGui::StyleColorsDark();
    ImGui::GetStyle().Alpha = 0.92f;
    auto undo = [this] {
        ImGui::DestroyContext(m_imgui);
    }; // `current` puts the previous back
#ifdef TANDEM_HAS_WINDOW
    if (!context.isHeadless() && context.nativeWindow()) {
        // No callbacks of its own: GLFW calls one set per window, and they would feed whichever
        // ImGui context is current; the window's events come through handle() instead.
        if (!ImGui_ImplGlfw_InitForOpenGL(static_cast<GLFWwindow*>(context.nativeWindow()),
                                          false)) {
            undo();
            throw Error("the ImGui GLFW backend failed to initialise",
                        "ImGui_ImplGlfw_InitForOpenGL");
        }
        m_window = true;
    }
#endif
    if (!ImGui_ImplOpenGL3_Init("#version 450 core")) {
#ifdef TANDEM_HAS_WINDOW
        if (m_window)
            ImGui_ImplGlfw_Shutdown();
#endif
        undo();
        throw Error("the ImGui OpenGL3 backend failed to initialise (it loads libGL.so.1 itself)",
                    "ImGui_ImplOpenGL3_Init");
    }
    m_lastTime = seconds();
}

Overlay::~Overlay()
{
    {
        const Current current(m_imgui);
        ImGui_ImplOpenGL3_Shutdown();
#ifdef TANDEM_HAS_WINDOW
        if (m_window)
            ImGui_ImplGlfw_Shutdown();
#endif
    }
    // DestroyContext clears the current context only when it is this one.
    ImGui::DestroyContext(m_imgui);
}

bool Overlay::wantsMouse() const
{
    const Current current(m_imgui);
    return m_visible && ImGui::GetIO().WantCaptureMouse;
}

bool Overlay::wantsKeyboard() const
{
    const Current current(m_imgui);
    return m_visible && ImGui::GetIO().WantCaptureKeyboard;
}

Registration Overlay::addPanel(Panel panel)
{
    return m_panels.add(std::move(panel));
}

std::vector<std::string> Overlay::panelTitles() const
{
    std::vector<std::string> titles;
    m_panels.forEach([&titles](const Panel& panel) { titles.push_back(panel.title); });
    return titles;
}

void Overlay::handle(const platform::InputEvent& event)
{
#ifdef TANDEM_HAS_WINDOW
    if (!m_window)
        return;
    const Current current(m_imgui);
    auto* window = static_cast<GLFWwindow*>(m_context.nativeWindow());
    using Type = platform::InputEvent::Type;
    switch (event.type) {
    case Type::MouseButton:
        if (event.nativeCode >= 0)
            ImGui_ImplGlfw_MouseButtonCallback(window, event.nativeCode,
                                               event.pressed ? GLFW_PRESS : GLFW_RELEASE,
                                               event.modifiers);
        break;
    case Type::Scroll:
        ImGui_ImplGlfw_ScrollCallback(window, event.x, event.y);
        break;
    case Type::Key:
        if (event.nativeCode >= 0)
            ImGui_ImplGlfw_KeyCallback(window, event.nativeCode, event.scancode,
                                       event.pressed ? GLFW_PRESS : GLFW_RELEASE, event.modifiers);
        break;
    case Type::Char:
        ImGui_ImplGlfw_CharCallback(window, event.codepoint);
        break;
    case Type::Focus:
        ImGui_ImplGlfw_WindowFocusCallback(window, event.pressed ? 1 : 0);
        break;
    case Type::CursorEnter:
        ImGui_ImplGlfw_CursorEnterCallback(window, event.pressed ? 1 : 0);
        break;
    default: // the cursor position is read by the backend itself each frame
        break;
    }
#else
    (void)event;
#endif
}

void Overlay::draw(GLuint framebuffer, int width, int height)
{
    if (!m_visible)
        return;
    const Current current(m_imgui);
    gl::DebugGroup group("overlay");
    ImGuiIO& io = ImGui::GetIO();
    const double now = seconds();
    io.DeltaTime = static_cast<float>(std::max(1e-4, now - m_lastTime));
    m_lastTime = now;
    ImGui_ImplOpenGL3_NewFrame();
    if (!m_fontLabelled) { // ImGui makes its font texture in the first NewFrame
        const auto font = static_cast<GLuint>(reinterpret_cast<std::uintptr_t>(io.Fonts->TexID));
        if (font != 0)
            gl::setLabel(GL_TEXTURE, font, "overlay.font");
        m_fontLabelled = true;
    }
#ifdef TANDEM_HAS_WINDOW
    if (m_window)
        ImGui_ImplGlfw_NewFrame();
#endif
    io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    ImGui::NewFrame();
    // Sized to its content (AlwaysAutoResize) within the bounds: fixed width, so that text
    // wraps to it, and a height that scrolls beyond the target's.
    const OverlayBounds bounds = overlayBounds(width, height);
    ImGui::SetNextWindowPos(ImVec2(bounds.margin, bounds.margin), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSizeConstraints(ImVec2(bounds.width, 0.0f),
                                        ImVec2(bounds.width, bounds.maxHeight));
    ImGui::Begin("tandem", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
    int id = 0;
    m_panels.forEach([&id](const Panel& panel) {
        ImGui::PushID(id++);
        if (panel.title.empty() ||
            ImGui::CollapsingHeader(panel.title.c_str(),
                                    panel.openByDefault ? ImGuiTreeNodeFlags_DefaultOpen : 0))
            panel.draw();
        ImGui::PopID();
    });
    ImGui::TextDisabled("F1 hides this overlay");
    ImGui::End();
    ImGui::Render();
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glViewport(0, 0, width, height);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

} // namespace tandem::ui
