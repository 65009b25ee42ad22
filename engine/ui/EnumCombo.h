// An ImGui combo over an enumerated choice (core/EnumTable.h): its items are the table's names
// and each item's tooltip its help, so the overlay offers exactly what the command line takes.
// Render thread, inside Overlay::draw().
#pragma once

#include <imgui.h>

#include "engine/core/EnumTable.h"

namespace tandem::ui {

/// Draws combo `label` showing `value`; returns whether the user picked another value.
template <class E, std::size_t N>
bool enumCombo(const char* label, E& value, const EnumTable<E, N>& table)
{
    bool changed = false;
    if (ImGui::BeginCombo(label, table.name(value).data())) {
        for (const auto& entry : table.entries()) {
            const bool selected = entry.value == value;
            if (ImGui::Selectable(entry.name.data(), selected) && !selected) {
                value = entry.value;
                changed = true;
            }
            if (!entry.help.empty() && ImGui::IsItemHovered())
                ImGui::SetTooltip("%.*s", static_cast<int>(entry.help.size()), entry.help.data());
            if (selected)
                ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    return changed;
}

} // namespace tandem::ui
