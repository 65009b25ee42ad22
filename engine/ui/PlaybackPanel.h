// The viewer's playback panel: play/pause, step, jump, the timeline slider that scrubs (frame
// number and time shown), speed, every frame, loop mode, the streaming state (cache fill,
// loaded, late, dropped and skipped frames, the last warnings) and the keyboard shortcuts.
// Render thread, inside Overlay::draw().
#pragma once

#include <span>
#include <string>
#include <vector>

#include "engine/render/ComparePass.h"
#include "engine/stream/Playback.h"
#include "engine/stream/SequencePlayer.h"
#include "engine/stream/Streamer.h"
#include "engine/ui/Controls.h"

namespace tandem::ui {

/// Draws the panel and applies what the user did to `playback`; `warnings` wrap to the
/// overlay's width, `keys` are listed under "keys".
void playbackPanel(stream::Playback& playback, const stream::PlayerStats& player,
                   const stream::StreamStats& streaming, const std::vector<std::string>& warnings,
                   const std::string& source, int shownFrame, std::span<const Control> keys);

/// Compare mode's controls: `mode` (the names --compare-mode takes) and the split's `divider`
/// (0..1 of the width, a slider to drag); `second` names the other sequence.
void comparePanel(render::CompareMode& mode, float& divider, const std::string& second);

} // namespace tandem::ui
