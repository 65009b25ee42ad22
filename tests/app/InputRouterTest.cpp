// app: window input routed (app/InputRouter.h): a key binding runs when its key is pressed, in
// the order bindings were made, and never again once its handle is gone; drops reach the drop
// handlers only; drags move the camera. No window: the events are made here.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/app/InputRouter.h"

namespace tandem::app {
namespace {

using platform::InputEvent;
using platform::Key;

InputEvent press(Key key, bool pressed = true)
{
    InputEvent event;
    event.type = InputEvent::Type::Key;
    event.key = key;
    event.pressed = pressed;
    return event;
}

TEST(InputRouter, KeyBindingsRunInOrderUntilTheirHandleGoes)
{
    InputRouter router;
    render::OrbitController camera;
    std::vector<std::string> calls;
    Registration first = router.onKey(Key::L, [&] { calls.push_back("first"); });
    const Registration second = router.onKey(Key::L, [&] { calls.push_back("second"); });
    const Registration other = router.onKey(Key::K, [&] { calls.push_back("K"); });
    router.route({press(Key::L), press(Key::L, false), press(Key::Space)}, nullptr, camera, 100);
    EXPECT_EQ(calls, (std::vector<std::string>{"first", "second"}))
        << "pressed only, in binding order, nothing for an unbound key";
    first.reset();
    router.route({press(Key::L), press(Key::K)}, nullptr, camera, 100);
    EXPECT_EQ(calls, (std::vector<std::string>{"first", "second", "second", "K"}))
        << "a binding whose handle is gone is not called";
}

TEST(InputRouter, DropsGoToTheDropHandlersOnly)
{
    InputRouter router;
    render::OrbitController camera;
    std::vector<std::string> dropped;
    Registration handler = router.onDrop([&](const std::string& path) { dropped.push_back(path); });
    InputEvent drop;
    drop.type = InputEvent::Type::Drop;
    drop.path = "/data/frames";
    router.route({drop}, nullptr, camera, 100);
    EXPECT_EQ(dropped, std::vector<std::string>{"/data/frames"});
    handler.reset();
    router.route({drop}, nullptr, camera, 100);
    EXPECT_EQ(dropped.size(), 1u);
}

TEST(InputRouter, ALeftDragOrbitsTheCamera)
{
    InputRouter router;
    render::OrbitController camera;
    const float yaw = camera.yaw();
    InputEvent down;
    down.type = InputEvent::Type::MouseButton;
    down.button = 0;
    down.pressed = true;
    InputEvent from, to;
    from.type = to.type = InputEvent::Type::MouseMove;
    from.x = 10;
    to.x = 110;
    router.route({from, down, to}, nullptr, camera, 100);
    EXPECT_FLOAT_EQ(camera.yaw(), yaw - 30.0f) << "0.3 degrees a pixel";
}

} // namespace
} // namespace tandem::app
