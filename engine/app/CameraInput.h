// Mouse input that moves the camera, from window input events: left drag orbits, right or
// middle drag pans, the wheel zooms. Render thread.
#pragma once

#include "engine/platform/Input.h"
#include "engine/render/OrbitController.h"

namespace tandem::app {

class CameraInput {
public:
    /// Applies one event to `controller`; `viewHeight` is the framebuffer height in pixels.
    /// Returns whether the camera changed.
    bool handle(const platform::InputEvent& event, render::OrbitController& controller,
                int viewHeight);

private:
    bool m_buttons[3] = {false, false, false};
    bool m_hasCursor = false;
    double m_lastX = 0;
    double m_lastY = 0;
};

} // namespace tandem::app
