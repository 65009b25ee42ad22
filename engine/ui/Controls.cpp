#include "engine/ui/Controls.h"

#include <imgui.h>

namespace tandem::ui {

std::string controlsHelp(std::span<const Control> controls)
{
    std::string help;
    for (const Control& control : controls) {
        if (!help.empty())
            help += ", ";
        help.append(control.input).append(" ").append(control.action);
    }
    return help;
}

void controlsTable(std::span<const Control> controls)
{
    if (!ImGui::BeginTable("controls", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit))
        return;
    ImGui::TableSetupColumn("input", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("action", ImGuiTableColumnFlags_WidthStretch);
    for (const Control& control : controls) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(control.input.data(), control.input.data() + control.input.size());
        ImGui::TableNextColumn();
        ImGui::PushTextWrapPos(0.0f); // the column's right edge
        ImGui::TextUnformatted(control.action.data(),
                               control.action.data() + control.action.size());
        ImGui::PopTextWrapPos();
    }
    ImGui::EndTable();
}

} // namespace tandem::ui
