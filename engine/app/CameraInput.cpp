#include "engine/app/CameraInput.h"

#include <cmath>

namespace tandem::app {

using platform::InputEvent;

bool CameraInput::handle(const InputEvent& event, render::OrbitController& camera, int viewHeight)
{
    switch (event.type) {
    case InputEvent::Type::MouseButton:
        if (event.button >= 0 && event.button < 3)
            m_buttons[event.button] = event.pressed;
        return false;
    case InputEvent::Type::MouseMove: {
        const double dx = m_hasCursor ? event.x - m_lastX : 0.0;
        const double dy = m_hasCursor ? event.y - m_lastY : 0.0;
        m_lastX = event.x;
        m_lastY = event.y;
        m_hasCursor = true;
        if (m_buttons[0]) {
            camera.orbit(static_cast<float>(-dx * 0.3), static_cast<float>(dy * 0.3));
            return true;
        }
        if (m_buttons[1] || m_buttons[2]) {
            const float h = static_cast<float>(viewHeight > 0 ? viewHeight : 1);
            camera.pan(static_cast<float>(dx) / h, static_cast<float>(dy) / h);
            return true;
        }
        return false;
    }
    case InputEvent::Type::Scroll:
        camera.zoom(std::pow(0.9f, static_cast<float>(event.y)));
        return event.y != 0.0;
    default:
        return false;
    }
}

} // namespace tandem::app
