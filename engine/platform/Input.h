// Window input as plain events, so apps and the engine need no GLFW include. Produced by the
// window on the render thread in pollEvents().
#pragma once

#include <string>

namespace tandem::platform {

/// Keys the apps use; everything else arrives as Key::Other.
enum class Key {
    Other,
    Escape,
    Space,
    C,
    S,
    R,
    Q,
    L,
    K,
    P,
    F1,
    F2,
    F12,
    Left,
    Right,
    Up,
    Down,
    Home,
    End,
    Plus,  ///< + or = (the same key on US layouts), keypad +
    Minus, ///< - and keypad -
};

/// One input event.
struct InputEvent {
    /// Char, Focus and CursorEnter are for the overlay (text fields, focus, hover); the camera
    /// and key bindings ignore them.
    enum class Type { MouseMove, MouseButton, Scroll, Key, Char, Focus, CursorEnter, Resize, Drop };
    Type type = Type::MouseMove;
    double x = 0;         ///< MouseMove: cursor x in pixels; Scroll: horizontal offset
    double y = 0;         ///< MouseMove: cursor y in pixels; Scroll: vertical offset
    int button = 0;       ///< MouseButton: 0 left, 1 right, 2 middle
    bool pressed = false; ///< MouseButton/Key: pressed; Focus: gained; CursorEnter: entered
    Key key = Key::Other; ///< Key
    /// The window system's own codes (GLFW's), for the overlay's ImGui backend: Key: the key,
    /// MouseButton: the button; -1 when unknown.
    int nativeCode = -1;
    int scancode = 0;       ///< Key: the window system's scancode
    int modifiers = 0;      ///< Key/MouseButton: the window system's modifier bits
    unsigned codepoint = 0; ///< Char: a Unicode code point typed
    int width = 0;          ///< Resize: framebuffer width
    int height = 0;         ///< Resize: framebuffer height
    std::string path;       ///< Drop: a file or folder dropped on the window (one event each)
};

} // namespace tandem::platform
