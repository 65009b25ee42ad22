#include "engine/ui/Overlay.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>

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

constexpr std::size_t HistoryFrames = 120;

double seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

ImU32 colorFor(const std::string& name)
{
    // A stable colour per stage name.
    std::uint32_t h = 2166136261u;
    for (char c : name)
        h = (h ^ static_cast<std::uint8_t>(c)) * 16777619u;
    return IM_COL32(90 + (h & 127), 90 + ((h >> 8) & 127), 90 + ((h >> 16) & 127), 255);
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

void Overlay::addFrames(const std::vector<profile::FrameRecord>& frames)
{
    for (const auto& frame : frames) {
        m_history.push_back(frame);
        if (m_history.size() > HistoryFrames)
            m_history.pop_front();
    }
}

void Overlay::draw(const OverlayView& view, GLuint framebuffer, int width, int height)
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
    buildWindow(view);
    ImGui::Render();
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glViewport(0, 0, width, height);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

void Overlay::buildWindow(const OverlayView& view)
{
    m_captureButton.reset();
    ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(430, 0), ImGuiCond_FirstUseEver);
    ImGui::Begin("tandem", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
    const profile::Profiler* profiler = view.profiler;
    if (profiler && profiler->isEnabled()) {
        const profile::Summary gpuFrame = profiler->gpuStats().summary("frame");
        const profile::Summary cpuFrame = profiler->cpuStats().summary("frame");
        ImGui::Text("frame: GPU %.2f ms, CPU %.2f ms (p99 %.2f / %.2f)", gpuFrame.mean,
                    cpuFrame.mean, gpuFrame.p99, cpuFrame.p99);
        ImGui::Text("handoffs/frame %.1f   stalls/frame %.1f   dropped %llu",
                    profiler->counters().summary("handoffs").mean,
                    profiler->counters().summary("stalls").mean,
                    static_cast<unsigned long long>(profiler->framesDropped()));
    }
    if (view.interop) {
        ImGui::Text("post-process: %s", view.backend.c_str());
        if (view.interop->handoffMicroseconds >= 0)
            ImGui::SameLine(), ImGui::Text("(handoff %.0f us)", view.interop->handoffMicroseconds);
        ImGui::TextWrapped("%s", view.interop->reason.c_str());
    }

    if (profiler && profiler->isEnabled() &&
        ImGui::CollapsingHeader("stages", ImGuiTreeNodeFlags_DefaultOpen)) {
        const double gpuFrameMean = std::max(1e-9, profiler->gpuStats().summary("frame").mean);
        if (ImGui::BeginTable("stages", 5,
                              ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
            ImGui::TableSetupColumn("stage");
            ImGui::TableSetupColumn("GPU ms");
            ImGui::TableSetupColumn("CPU ms");
            ImGui::TableSetupColumn("share");
            ImGui::TableSetupColumn("p99 ms");
            ImGui::TableHeadersRow();
            std::vector<std::string> names = profiler->gpuStats().names();
            for (const auto& name : profiler->cpuStats().names())
                if (std::find(names.begin(), names.end(), name) == names.end())
                    names.push_back(name);
            for (const auto& name : names) {
                if (name == "frame")
                    continue;
                const profile::Summary gpu = profiler->gpuStats().summary(name);
                const profile::Summary cpu = profiler->cpuStats().summary(name);
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colorFor(name)), "%s",
                                   name.c_str());
                ImGui::TableNextColumn();
                gpu.count ? ImGui::Text("%.3f", gpu.mean) : ImGui::TextDisabled("-");
                ImGui::TableNextColumn();
                cpu.count ? ImGui::Text("%.3f", cpu.mean) : ImGui::TextDisabled("-");
                ImGui::TableNextColumn();
                gpu.count ? ImGui::Text("%.0f%%", 100.0 * gpu.mean / gpuFrameMean)
                          : ImGui::TextDisabled("-");
                ImGui::TableNextColumn();
                ImGui::Text("%.3f", gpu.count ? gpu.p99 : cpu.p99);
            }
            ImGui::EndTable();
        }
    }

    if (!m_history.empty() &&
        ImGui::CollapsingHeader("recent frames", ImGuiTreeNodeFlags_DefaultOpen)) {
        // Frame-time plot with 16.7 and 33.3 ms lines.
        std::vector<float> times;
        float maxMs = 34.0f;
        for (const auto& frame : m_history) {
            times.push_back(static_cast<float>(frame.gpuEndMs - frame.gpuStartMs));
            maxMs = std::max(maxMs, times.back() * 1.1f);
        }
        const ImVec2 plotSize(410, 70);
        const ImVec2 origin = ImGui::GetCursorScreenPos();
        ImGui::PlotLines("##frame", times.data(), static_cast<int>(times.size()), 0, "GPU frame ms",
                         0.0f, maxMs, plotSize);
        ImDrawList* draw = ImGui::GetWindowDrawList();
        for (float line : {16.7f, 33.3f}) {
            const float y = origin.y + plotSize.y * (1.0f - line / maxMs);
            draw->AddLine(ImVec2(origin.x, y), ImVec2(origin.x + plotSize.x, y),
                          IM_COL32(255, 200, 60, 160));
            draw->AddText(ImVec2(origin.x + 2, y - 13), IM_COL32(255, 200, 60, 200),
                          line < 20 ? "16.7" : "33.3");
        }
        // Stacked bars: each frame's GPU stages.
        const ImVec2 barOrigin = ImGui::GetCursorScreenPos();
        const ImVec2 barSize(410, 60);
        ImGui::Dummy(barSize);
        const float barWidth = barSize.x / static_cast<float>(HistoryFrames);
        float i = 0;
        for (const auto& frame : m_history) {
            float y = barOrigin.y + barSize.y;
            for (const auto& span : frame.spans) {
                if (span.api == profile::Api::Cpu)
                    continue;
                const float h = static_cast<float>((span.endMs - span.startMs) / maxMs) * barSize.y;
                draw->AddRectFilled(ImVec2(barOrigin.x + i * barWidth, y - h),
                                    ImVec2(barOrigin.x + (i + 1) * barWidth - 1, y),
                                    colorFor(span.name));
                y -= h;
            }
            i += 1;
        }
        ImGui::Text("stacked: GPU stages per frame (GL and CUDA), scale %.0f ms", maxMs);
    }

    if (view.chain && ImGui::CollapsingHeader("post-process chain")) {
        auto& stages = view.chain->stages;
        for (std::size_t i = 0; i < stages.size(); ++i) {
            postfx::Stage& stage = stages[i];
            ImGui::PushID(static_cast<int>(i));
            ImGui::Checkbox("##on", &stage.enabled);
            ImGui::SameLine();
            if (ImGui::ArrowButton("##up", ImGuiDir_Up) && i > 0)
                std::swap(stages[i], stages[i - 1]);
            ImGui::SameLine();
            if (ImGui::ArrowButton("##down", ImGuiDir_Down) && i + 1 < stages.size())
                std::swap(stages[i], stages[i + 1]);
            ImGui::SameLine();
            const std::string name(postfx::stageName(stage.kind));
            if (ImGui::TreeNode("##params", "%s", name.c_str())) {
                switch (stage.kind) {
                case postfx::StageKind::Tonemap:
                    ImGui::SliderFloat("exposure", &stage.tonemap.exposure, -4, 4);
                    ImGui::SliderFloat("gamma", &stage.tonemap.gamma, 1, 3);
                    break;
                case postfx::StageKind::Blur:
                    ImGui::SliderInt("radius", &stage.blur.radius, 1, 16);
                    ImGui::SliderFloat("sigma", &stage.blur.sigma, 0.1f, 16);
                    break;
                case postfx::StageKind::Bilateral:
                    ImGui::SliderInt("radius", &stage.bilateral.radius, 1, 8);
                    ImGui::SliderFloat("sigma", &stage.bilateral.sigmaSpatial, 0.1f, 8);
                    ImGui::SliderFloat("depth", &stage.bilateral.sigmaDepth, 0.001f, 0.2f);
                    break;
                case postfx::StageKind::Outline:
                    ImGui::SliderFloat("depth", &stage.outline.depthThreshold, 0.001f, 0.5f);
                    ImGui::SliderFloat("normal", &stage.outline.normalThreshold, 0.01f, 2);
                    ImGui::SliderFloat("strength", &stage.outline.strength, 0, 1);
                    break;
                case postfx::StageKind::Ssao:
                    ImGui::SliderInt("samples", &stage.ssao.samples, 4, 16);
                    ImGui::SliderFloat("radius", &stage.ssao.radius, 0.01f, 5);
                    ImGui::SliderFloat("bias", &stage.ssao.bias, 0, 0.5f);
                    ImGui::SliderFloat("strength", &stage.ssao.strength, 0, 2);
                    break;
                case postfx::StageKind::Fxaa:
                    ImGui::SliderFloat("threshold", &stage.fxaa.edgeThreshold, 0.01f, 0.5f);
                    ImGui::SliderFloat("span", &stage.fxaa.span, 1, 16);
                    break;
                default:
                    ImGui::TextDisabled("no parameters");
                    break;
                }
                ImGui::TreePop();
            }
            ImGui::PopID();
        }
        static int toAdd = 0;
        std::string items;
        for (auto kind : postfx::allStageKinds()) {
            items += postfx::stageName(kind);
            items += '\0';
        }
        ImGui::SetNextItemWidth(150);
        ImGui::Combo("##add", &toAdd, items.c_str());
        ImGui::SameLine();
        if (ImGui::Button("add stage")) {
            postfx::Stage stage;
            stage.kind = postfx::allStageKinds()[static_cast<std::size_t>(toAdd)];
            stages.push_back(stage);
        }
    }
    if (view.captureRequested &&
        ImGui::CollapsingHeader("RenderDoc", ImGuiTreeNodeFlags_DefaultOpen)) {
        if (ImGui::Button("capture next frame (F12)"))
            *view.captureRequested = true;
        const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
        m_captureButton = {0.5f * (min.x + max.x), 0.5f * (min.y + max.y)};
        if (view.captures)
            for (const auto& path : *view.captures)
                ImGui::TextWrapped("%s", path.c_str());
    }
    ImGui::TextDisabled("F1 hides this overlay");
    ImGui::End();
}

} // namespace tandem::ui
