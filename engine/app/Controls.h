// The window controls of the apps, each listed once: the session's (the orbit camera's mouse,
// app/CameraInput.cpp, and the keys app/SessionControls.cpp binds) and a played sequence's
// (app/SequenceRun.cpp). The apps' --help, the start-up "controls:" line, the overlay's
// "controls" panel and the playback panel's keys are made from these tables (ui/Controls.h).
#pragma once

#include <array>

#include "engine/ui/Controls.h"

namespace tandem::app {

/// Every session's window: the camera and the session's keys.
inline constexpr std::array<ui::Control, 9> WindowControls{{
    {"left drag", "orbit"},
    {"right/middle drag", "pan"},
    {"wheel", "zoom"},
    {"C", "cycle channel"},
    {"S or F2", "screenshot (into --out)"},
    {"R", "reset view"},
    {"F1", "overlay"},
    {"F12", "RenderDoc capture"},
    {"Esc or Q", "quit"},
}};

/// A played sequence's window (tandem-viewer), besides WindowControls.
inline constexpr std::array<ui::Control, 8> SequenceControls{{
    {"Space", "play/pause"},
    {"Left/Right", "step one frame (pauses)"},
    {"Home/End", "first/last frame"},
    {"+/-", "speed (0.1x-8x)"},
    {"L", "loop mode (loop, ping-pong, once)"},
    {"K", "add a camera key at this frame from the current view"},
    {"P", "save the camera path (JSON, into --out; --camera-path loads one; while playing the "
          "camera follows it, paused it is free)"},
    {"drop", "a file or folder on the window opens it in place of the sequence"},
}};

} // namespace tandem::app
