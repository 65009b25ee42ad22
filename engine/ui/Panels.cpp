#include "engine/ui/Panels.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include <imgui.h>

#include "engine/ui/EnumCombo.h"
#include "engine/ui/LabelLayout.h"

namespace tandem::ui {

namespace {

ImU32 colorFor(std::string_view name)
{
    // A stable colour per stage name.
    std::uint32_t h = 2166136261u;
    for (char c : name)
        h = (h ^ static_cast<std::uint8_t>(c)) * 16777619u;
    return IM_COL32(90 + (h & 127), 90 + ((h >> 8) & 127), 90 + ((h >> 16) & 127), 255);
}

} // namespace

void timingsPanel(const profile::Profiler& profiler,
                  const std::deque<profile::FrameRecord>& history)
{
    if (!profiler.isEnabled()) {
        ImGui::TextDisabled("profiler off (--no-profile, or compiled out)");
        return;
    }
    const profile::Summary gpuFrame = profiler.gpuStats().summary("frame");
    const profile::Summary cpuFrame = profiler.cpuStats().summary("frame");
    ImGui::Text("frame: GPU %.2f ms, CPU %.2f ms (p99 %.2f / %.2f)", gpuFrame.mean, cpuFrame.mean,
                gpuFrame.p99, cpuFrame.p99);
    ImGui::Text("handoffs/frame %.1f   stalls/frame %.1f   dropped %llu",
                profiler.counters().summary("handoffs").mean,
                profiler.counters().summary("stalls").mean,
                static_cast<unsigned long long>(profiler.framesDropped()));
    const double gpuFrameMean = std::max(1e-9, profiler.gpuStats().summary("frame").mean);
    if (ImGui::BeginTable("stages", 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn("stage");
        ImGui::TableSetupColumn("GPU ms");
        ImGui::TableSetupColumn("CPU ms");
        ImGui::TableSetupColumn("share");
        ImGui::TableSetupColumn("p99 ms");
        ImGui::TableHeadersRow();
        std::vector<std::string> names = profiler.gpuStats().names();
        for (const auto& name : profiler.cpuStats().names())
            if (std::find(names.begin(), names.end(), name) == names.end())
                names.push_back(name);
        for (const auto& name : names) {
            if (name == "frame")
                continue;
            const profile::Summary gpu = profiler.gpuStats().summary(name);
            const profile::Summary cpu = profiler.cpuStats().summary(name);
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colorFor(name)), "%s", name.c_str());
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
    if (history.empty())
        return;
    // Frame-time plot with 16.7 and 33.3 ms lines.
    std::vector<float> times;
    float maxMs = 34.0f;
    for (const auto& frame : history) {
        times.push_back(static_cast<float>(frame.gpuEndMs - frame.gpuStartMs));
        maxMs = std::max(maxMs, times.back() * 1.1f);
    }
    // As wide as the overlay's window leaves (ui::overlayBounds()).
    const float plotWidth = std::max(60.0f, ImGui::GetContentRegionAvail().x);
    const ImVec2 plotSize(plotWidth, 70);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::PlotLines("##frame", times.data(), static_cast<int>(times.size()), 0, "GPU frame ms",
                     0.0f, maxMs, plotSize);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const std::array<float, 2> lineMs{16.7f, 33.3f};
    const std::array<const char*, 2> labels{"16.7", "33.3"};
    std::array<float, 2> lineY{}, widths{};
    for (std::size_t i = 0; i < lineMs.size(); ++i) {
        lineY[i] = plotSize.y * (1.0f - lineMs[i] / maxMs);
        widths[i] = ImGui::CalcTextSize(labels[i]).x;
    }
    const std::vector<LabelBox> boxes =
        placeLineLabels(lineY, widths, ImGui::GetTextLineHeight(), plotSize.y);
    for (std::size_t i = 0; i < lineMs.size(); ++i) {
        const float y = origin.y + lineY[i];
        draw->AddLine(ImVec2(origin.x, y), ImVec2(origin.x + plotSize.x, y),
                      IM_COL32(255, 200, 60, 160));
        draw->AddText(ImVec2(origin.x + boxes[i].x, origin.y + boxes[i].y),
                      IM_COL32(255, 200, 60, 200), labels[i]);
    }
    // Stacked bars: each frame's GPU stages.
    const ImVec2 barOrigin = ImGui::GetCursorScreenPos();
    const ImVec2 barSize(plotWidth, 60);
    ImGui::Dummy(barSize);
    const float barWidth = barSize.x / static_cast<float>(TimingHistoryFrames);
    float i = 0;
    for (const auto& frame : history) {
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

void interopPanel(const interop::InteropStatus& status, const FramePaths& paths)
{
    ImGui::Text("passes run on: %s; memory: %s; meshes drawn by: %s; points drawn by: %s",
                paths.passes.c_str(), paths.memory.c_str(), paths.meshes.c_str(),
                paths.points.c_str());
    if (status.handoffMicroseconds >= 0)
        ImGui::SameLine(), ImGui::Text("(handoff %.0f us)", status.handoffMicroseconds);
    ImGui::TextWrapped("%s", status.reason.c_str());
    ImGui::TextWrapped("memory: %s", paths.memoryWhy.c_str());
    ImGui::TextWrapped("meshes: %s", paths.meshesWhy.c_str());
}

bool channelCombo(frame::Channel& channel)
{
    ImGui::SetNextItemWidth(150);
    return enumCombo("channel (C)", channel, frame::Channels);
}

bool chainPanel(postfx::Chain& chain)
{
    bool changed = false;
    auto& stages = chain.stages;
    for (std::size_t i = 0; i < stages.size(); ++i) {
        postfx::Stage& stage = stages[i];
        ImGui::PushID(static_cast<int>(i));
        changed |= ImGui::Checkbox("##on", &stage.enabled);
        ImGui::SameLine();
        if (ImGui::ArrowButton("##up", ImGuiDir_Up) && i > 0) {
            std::swap(stages[i], stages[i - 1]);
            changed = true;
        }
        ImGui::SameLine();
        if (ImGui::ArrowButton("##down", ImGuiDir_Down) && i + 1 < stages.size()) {
            std::swap(stages[i], stages[i + 1]);
            changed = true;
        }
        ImGui::SameLine();
        const bool remove = ImGui::SmallButton("x");
        ImGui::SameLine();
        const postfx::StageDescriptor& d = stage.descriptor();
        if (ImGui::TreeNode("##params", "%s", d.name)) {
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("%s", d.help);
            if (d.paramCount == 0)
                ImGui::TextDisabled("no parameters");
            for (int p = 0; p < d.paramCount; ++p) {
                const postfx::ParamDescriptor& param = d.params[static_cast<std::size_t>(p)];
                float& value = stage.params[static_cast<std::size_t>(p)];
                if (param.integer) {
                    int v = static_cast<int>(value);
                    if (ImGui::SliderInt(param.name, &v, static_cast<int>(param.min),
                                         static_cast<int>(param.max))) {
                        value = static_cast<float>(v);
                        changed = true;
                    }
                } else {
                    // Wide ranges (ssao's radius, 1e-4..1e4) get a logarithmic slider.
                    const bool wide = param.min > 0.0f && param.max / param.min > 1e3f;
                    if (ImGui::SliderFloat(param.name, &value, param.min, param.max, "%.4g",
                                           wide ? ImGuiSliderFlags_Logarithmic : 0))
                        changed = true;
                }
                if (ImGui::IsItemHovered())
                    ImGui::SetTooltip("%s", param.help);
            }
            ImGui::TreePop();
        }
        ImGui::PopID();
        if (remove) {
            stages.erase(stages.begin() + static_cast<std::ptrdiff_t>(i));
            changed = true;
            break;
        }
    }
    // The stage to add, kept per overlay (in its ImGui context's storage, not in a static).
    int& toAdd = *ImGui::GetStateStorage()->GetIntRef(ImGui::GetID("##add-choice"), 0);
    std::string items;
    for (const postfx::StageDescriptor& d : postfx::stageDescriptors()) {
        items += d.name;
        items += '\0';
    }
    ImGui::SetNextItemWidth(150);
    ImGui::Combo("##add", &toAdd, items.c_str());
    ImGui::SameLine();
    if (ImGui::Button("add stage")) {
        stages.push_back(postfx::Stage::make(toAdd));
        changed = true;
    }
    return changed;
}

std::optional<std::array<float, 2>> capturePanel(const std::vector<std::string>& captures,
                                                 bool& requested)
{
    if (ImGui::Button("capture next frame (F12)"))
        requested = true;
    const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
    for (const auto& path : captures)
        ImGui::TextWrapped("%s", path.c_str());
    return std::array<float, 2>{0.5f * (min.x + max.x), 0.5f * (min.y + max.y)};
}

} // namespace tandem::ui
