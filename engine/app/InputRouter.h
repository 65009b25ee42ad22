// Window input routed to where it belongs: files dropped on the window to the drop handlers,
// every other event to the overlay first (it takes what it wants: the mouse over its window, the
// keyboard in a text field), then to the camera (drag, wheel) and to the key bindings, in the
// order they were bound. Bindings and drop handlers are registrations: their handles unbind
// them. Render thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/app/CameraInput.h"
#include "engine/core/Registration.h"
#include "engine/platform/Input.h"
#include "engine/render/OrbitController.h"

namespace tandem::ui {
class Overlay;
}

namespace tandem::app {

class InputRouter {
public:
    /// Calls `action` when `key` is pressed (after the bindings made before it); the handle
    /// unbinds it.
    Registration onKey(platform::Key key, std::function<void()> action);
    /// Calls `action` with each file or folder dropped on the window; the handle removes it.
    Registration onDrop(std::function<void(const std::string&)> action);

    /// Routes `events` (from platform::Context::takeEvents()). `overlay` may be null;
    /// `viewHeight` is the framebuffer's height in pixels (the camera pans by it).
    void route(const std::vector<platform::InputEvent>& events, ui::Overlay* overlay,
               render::OrbitController& camera, int viewHeight);

private:
    struct Binding {
        platform::Key key;
        std::function<void()> action;
    };
    CameraInput m_camera;
    Registry<Binding> m_keys;
    Registry<std::function<void(const std::string&)>> m_drops;
};

} // namespace tandem::app
