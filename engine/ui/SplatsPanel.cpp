#include "engine/ui/SplatsPanel.h"

#include <algorithm>

#include <imgui.h>

namespace tandem::ui {

bool splatsPanel(const SplatsShown& shown, int& shDegree, float& scale)
{
    if (shown.count == 0) {
        ImGui::TextDisabled("no Gaussians in this frame");
        return false;
    }
    ImGui::Text("%llu Gaussians, SH degree %d, drawn by %s",
                static_cast<unsigned long long>(shown.count), shown.storedDegree,
                shown.path.c_str());
    bool changed = false;
    int degree = std::min(shDegree, shown.storedDegree);
    if (shown.storedDegree > 0 && ImGui::SliderInt("SH degree", &degree, 0, shown.storedDegree,
                                                   "%d", ImGuiSliderFlags_AlwaysClamp)) {
        shDegree = degree;
        changed = true;
    }
    if (ImGui::SliderFloat("scale", &scale, 0.01f, 100.0f, "%.3g",
                           ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
        changed = true;
    if (shown.counts.visible > 0 || shown.counts.entries > 0) {
        ImGui::Text("%llu reach a tile, %llu tile entries",
                    static_cast<unsigned long long>(shown.counts.visible),
                    static_cast<unsigned long long>(shown.counts.entries));
        if (shown.counts.slowFrames > 0)
            ImGui::TextWrapped("%llu frames had more entries than planned (drawn the slow way)",
                               static_cast<unsigned long long>(shown.counts.slowFrames));
    }
    return changed;
}

} // namespace tandem::ui
