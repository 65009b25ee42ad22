#include "engine/ui/Overlay.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include <backends/imgui_impl_opengl3.h>
#include <fmt/format.h>
#include <imgui.h>
#ifdef TANDEM_HAS_WINDOW
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

Overlay::Overlay(platform::Context& context)
{
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr; // never write imgui.ini next to the user's files
    io.LogFilename = nullptr;
    ImGui::StyleColorsDark();
    ImGui::GetStyle().Alpha = 0.92f;
#ifdef TANDEM_HAS_WINDOW
    if (!context.isHeadless() && context.nativeWindow()) {
        if (!ImGui_ImplGlfw_InitForOpenGL(static_cast<GLFWwindow*>(context.nativeWindow()), true))
            throw Error("the ImGui GLFW backend failed to initialise",
                        "ImGui_ImplGlfw_InitForOpenGL");
        m_window = true;
    }
#else
    (void)context;
#endif
    if (!ImGui_ImplOpenGL3_Init("#version 450 core")) {
#ifdef TANDEM_HAS_WINDOW
        if (m_window)
            ImGui_ImplGlfw_Shutdown();
#endif
        ImGui::DestroyContext();
        throw Error("the ImGui OpenGL3 backend failed to initialise (it loads libGL.so.1 itself)",
                    "ImGui_ImplOpenGL3_Init");
    }
    m_lastTime = seconds();
}

Overlay::~Overlay()
{
    ImGui_ImplOpenGL3_Shutdown();
#ifdef TANDEM_HAS_WINDOW
    if (m_window)
        ImGui_ImplGlfw_Shutdown();
#endif
    ImGui::DestroyContext();
}

bool Overlay::wantsMouse() const
{
    return m_visible && ImGui::GetIO().WantCaptureMouse;
}

bool Overlay::wantsKeyboard() const
{
    return m_visible && ImGui::GetIO().WantCaptureKeyboard;
}

void Overlay::addPanel(Panel panel)
{
    m_panels.push_back(std::move(panel));
}

void Overlay::draw(GLuint framebuffer, int width, int height)
{
    if (!m_visible)
        return;
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
    ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(430, 0), ImGuiCond_FirstUseEver);
    ImGui::Begin("tandem", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
    for (const Panel& panel : m_panels) {
        ImGui::PushID(&panel);
        if (panel.title.empty() ||
            ImGui::CollapsingHeader(panel.title.c_str(),
                                    panel.openByDefault ? ImGuiTreeNodeFlags_DefaultOpen : 0))
            panel.draw();
        ImGui::PopID();
    }
    ImGui::TextDisabled("F1 hides this overlay");
    ImGui::End();
    ImGui::Render();
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glViewport(0, 0, width, height);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

} // namespace tandem::ui
