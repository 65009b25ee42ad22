// The engine's overlay panels, as free functions that draw with ImGui inside the overlay's
// window: per-stage timings and recent frames, the interop path, the post-process chain's
// controls (from the stages' descriptors: the same names and ranges as the command line), and
// RenderDoc captures. An app composes them (and its own) with Overlay::addPanel(). Render
// thread, inside Overlay::draw().
#pragma once

#include <array>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "engine/frame/Channel.h"
#include "engine/interop/Doctor.h"
#include "engine/postfx/Chain.h"
#include "engine/profile/Profiler.h"

namespace tandem::ui {

/// Frames of history the timings panel plots.
inline constexpr std::size_t TimingHistoryFrames = 120;

/// Frame time summary, handoffs/stalls per frame, the stage table (GPU ms, CPU ms, share,
/// p99), a frame-time plot with 16.7/33.3 ms lines and stacked per-stage bars of `history`.
void timingsPanel(const profile::Profiler& profiler,
                  const std::deque<profile::FrameRecord>& history);

/// Where a frame runs and who draws what, and why: the passes panel's lines.
struct FramePaths {
    std::string passes;    ///< the path the passes take (cuda, host)
    std::string memory;    ///< where the targets live this frame (gl, cuda)
    std::string memoryWhy; ///< and why
    std::string meshes;    ///< who draws the meshes
    std::string meshesWhy; ///< and why
    std::string points;    ///< who draws the points
};

/// `paths`, with the interop doctor's reason and the handoff it measured at start.
void interopPanel(const interop::InteropStatus& status, const FramePaths& paths);

/// The channel shown, as a combo of the names --channel takes (C cycles through them).
/// Returns whether the user picked another.
bool channelCombo(frame::Channel& channel);

/// The chain's stages: enable, reorder, remove, edit parameters (sliders over each
/// parameter's range from its descriptor), add a stage. Returns whether anything changed.
bool chainPanel(postfx::Chain& chain);

/// "capture next frame (F12)" sets `requested`; lists `captures`. Returns where it drew the
/// button (pixels from the top left), for tests that click it.
std::optional<std::array<float, 2>> capturePanel(const std::vector<std::string>& captures,
                                                 bool& requested);

} // namespace tandem::ui
