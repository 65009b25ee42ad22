// Mouse control of an orbit camera from window input events: left drag orbits, right or
// middle drag pans, the wheel zooms. Render thread.
#pragma once

#include "engine/platform/Input.h"
#include "engine/render/OrbitCamera.h"

namespace tandem::ui {

class CameraControl {
public:
    /// Applies one event to `camera`; `viewHeight` is the framebuffer height in pixels.
    /// Returns whether the camera changed.
    bool handle(const platform::InputEvent& event, render::OrbitCamera& camera, int viewHeight);

private:
    bool m_buttons[3] = {false, false, false};
    bool m_hasCursor = false;
    double m_lastX = 0;
    double m_lastY = 0;
};

} // namespace tandem::ui
