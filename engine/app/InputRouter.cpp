#include "engine/app/InputRouter.h"

#include "engine/ui/Overlay.h"

namespace tandem::app {

using platform::InputEvent;

Registration InputRouter::onKey(platform::Key key, std::function<void()> action)
{
    return m_keys.add({key, std::move(action)});
}

Registration InputRouter::onDrop(std::function<void(const std::string&)> action)
{
    return m_drops.add(std::move(action));
}

void InputRouter::route(const std::vector<InputEvent>& events, ui::Overlay* overlay,
                        render::OrbitController& camera, int viewHeight)
{
    for (const InputEvent& event : events) {
        if (event.type == InputEvent::Type::Drop) {
            m_drops.forEach([&](const auto& action) { action(event.path); });
            continue;
        }
        if (overlay)
            overlay->handle(event);
        const bool isKeyboard = event.type == InputEvent::Type::Key ||
                                event.type == InputEvent::Type::Char ||
                                event.type == InputEvent::Type::Resize;
        if (!isKeyboard && overlay && overlay->wantsMouse())
            continue;
        if (isKeyboard && overlay && overlay->wantsKeyboard())
            continue;
        m_camera.handle(event, camera, viewHeight);
        if (event.type != InputEvent::Type::Key || !event.pressed)
            continue;
        m_keys.forEach([&](const Binding& binding) {
            if (binding.key == event.key)
                binding.action();
        });
    }
}

} // namespace tandem::app
