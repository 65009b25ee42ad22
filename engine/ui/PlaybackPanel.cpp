#include "engine/ui/PlaybackPanel.h"

#include <array>
#include <cstdio>

#include <imgui.h>

#include "engine/core/Log.h"
#include "engine/ui/Controls.h"
#include "engine/ui/EnumCombo.h"

namespace tandem::ui {

void playbackPanel(stream::Playback& playback, const stream::PlayerStats& player,
                   const stream::StreamStats& streaming, const std::vector<std::string>& warnings,
                   const std::string& source, int shownFrame, std::span<const Control> keys)
{
    ImGui::TextWrapped("%s", source.c_str());
    if (ImGui::Button("|<"))
        playback.toStart();
    ImGui::SameLine();
    if (ImGui::Button("<"))
        playback.step(-1);
    ImGui::SameLine();
    if (ImGui::Button(playback.isPlaying() ? "pause" : "play"))
        playback.togglePlay();
    ImGui::SameLine();
    if (ImGui::Button(">"))
        playback.step(1);
    ImGui::SameLine();
    if (ImGui::Button(">|"))
        playback.toEnd();

    int frame = playback.frame();
    const int last = playback.frameCount() - 1;
    const float sliderWidth = ImGui::CalcItemWidth(); // the bar, without its label
    if (ImGui::SliderInt("frame", &frame, 0, last, "%d"))
        playback.seek(frame);
    // Where the timeline is, in window pixels, for scripts that drive the window (the window
    // tier scrubs with xdotool): logged at debug level each time it moves.
    static std::array<int, 4> timeline{};
    const std::array<int, 4> rect{static_cast<int>(ImGui::GetItemRectMin().x),
                                  static_cast<int>(ImGui::GetItemRectMin().y),
                                  static_cast<int>(ImGui::GetItemRectMin().x + sliderWidth),
                                  static_cast<int>(ImGui::GetItemRectMax().y)};
    if (rect != timeline) {
        timeline = rect;
        log::debug("playback panel: timeline slider at {} {} {} {} (x0 y0 x1 y1)", rect[0], rect[1],
                   rect[2], rect[3]);
    }
    ImGui::Text("frame %d / %d   %.2f s / %.2f s   on screen: %d", playback.frame(), last,
                playback.time(), last / playback.fps(), shownFrame);

    float speed = static_cast<float>(playback.speed());
    if (ImGui::SliderFloat("speed", &speed, static_cast<float>(stream::Playback::MinSpeed),
                           static_cast<float>(stream::Playback::MaxSpeed), "%.2fx",
                           ImGuiSliderFlags_Logarithmic))
        playback.setSpeed(speed);
    bool everyFrame = playback.isEveryFrame();
    if (ImGui::Checkbox("every frame", &everyFrame))
        playback.setEveryFrame(everyFrame);
    ImGui::SameLine();
    stream::LoopMode mode = playback.loopMode();
    ImGui::SetNextItemWidth(110.0f);
    if (enumCombo("##loop", mode, stream::LoopModes))
        playback.setLoopMode(mode);

    const float fill =
        streaming.slots > 0 ? static_cast<float>(streaming.readySlots) / streaming.slots : 0.0f;
    char label[64];
    std::snprintf(label, sizeof(label), "%d/%d slots", streaming.readySlots, streaming.slots);
    ImGui::ProgressBar(fill, ImVec2(-1.0f, 0.0f), label);
    ImGui::Text("cache %.0f/%.0f MiB%s, %d loader%s", streaming.allocatedBytes / 1048576.0,
                streaming.budgetBytes / 1048576.0, streaming.pinned ? " pinned" : "",
                streaming.loaderThreads, streaming.loaderThreads == 1 ? "" : "s");
    ImGui::Text("shown %llu  late %llu  dropped %llu  skipped %llu",
                static_cast<unsigned long long>(player.shown),
                static_cast<unsigned long long>(player.late),
                static_cast<unsigned long long>(player.dropped),
                static_cast<unsigned long long>(player.skipped));
    const unsigned long long asked = streaming.hits + streaming.misses;
    ImGui::Text("loaded %llu (%.1f GiB), hits %.0f %%",
                static_cast<unsigned long long>(streaming.loaded),
                streaming.bytesLoaded / (1024.0 * 1024.0 * 1024.0),
                asked ? 100.0 * streaming.hits / asked : 0.0);
    // Wrapped to the overlay's width: a long warning (a path, a reader's message) would
    // otherwise widen the window over the whole picture.
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.7f, 0.3f, 1.0f));
    for (const std::string& warning : warnings)
        ImGui::TextWrapped("%s", warning.c_str());
    ImGui::PopStyleColor();
    if (ImGui::TreeNode("keys")) {
        controlsTable(keys);
        ImGui::TreePop();
    }
}

void comparePanel(render::CompareMode& mode, float& divider, const std::string& second)
{
    ImGui::TextWrapped("against %s", second.c_str());
    enumCombo("mode", mode, render::CompareModes);
    if (mode == render::CompareMode::Split)
        ImGui::SliderFloat("divider", &divider, 0.0f, 1.0f, "%.2f");
}

} // namespace tandem::ui
