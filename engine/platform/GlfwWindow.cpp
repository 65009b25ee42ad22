// A GLFW window with a GL 4.5 core context. Events are turned into platform::InputEvent so
// nothing outside platform/ (and ui/) includes GLFW.
#include <cstdlib>
#include <string>

#include <fmt/format.h>
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "engine/core/Log.h"
#include "engine/platform/Context.h"

namespace tandem::platform {

namespace {

std::string g_lastGlfwError;
/// Windows open: GLFW is initialised once for the process and terminated with the last one
/// (terminating it with one window would end the others).
int g_windows = 0;

void onGlfwError(int code, const char* description)
{
    g_lastGlfwError = fmt::format("{} (GLFW error 0x{:x})", description ? description : "?", code);
}

Key toKey(int key)
{
    switch (key) {
    case GLFW_KEY_ESCAPE:
        return Key::Escape;
    case GLFW_KEY_SPACE:
        return Key::Space;
    case GLFW_KEY_C:
        return Key::C;
    case GLFW_KEY_S:
        return Key::S;
    case GLFW_KEY_R:
        return Key::R;
    case GLFW_KEY_Q:
        return Key::Q;
    case GLFW_KEY_F1:
        return Key::F1;
    case GLFW_KEY_F2:
        return Key::F2;
    case GLFW_KEY_F12:
        return Key::F12;
    case GLFW_KEY_LEFT:
        return Key::Left;
    case GLFW_KEY_RIGHT:
        return Key::Right;
    case GLFW_KEY_UP:
        return Key::Up;
    case GLFW_KEY_DOWN:
        return Key::Down;
    case GLFW_KEY_L:
        return Key::L;
    case GLFW_KEY_K:
        return Key::K;
    case GLFW_KEY_P:
        return Key::P;
    case GLFW_KEY_HOME:
        return Key::Home;
    case GLFW_KEY_END:
        return Key::End;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD:
        return Key::Plus;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT:
        return Key::Minus;
    default:
        return Key::Other;
    }
}

class GlfwWindow final : public Context {
public:
    GlfwWindow(GLFWwindow* window, std::string what)
        : m_window(window), m_description(std::move(what))
    {
        glfwSetWindowUserPointer(window, this);
        glfwSetCursorPosCallback(window, [](GLFWwindow* w, double x, double y) {
            InputEvent event;
            event.type = InputEvent::Type::MouseMove;
            event.x = x;
            event.y = y;
            self(w)->m_events.push_back(event);
        });
        glfwSetMouseButtonCallback(window, [](GLFWwindow* w, int button, int action, int mods) {
            InputEvent event;
            event.type = InputEvent::Type::MouseButton;
            event.button = button == GLFW_MOUSE_BUTTON_LEFT    ? 0
                           : button == GLFW_MOUSE_BUTTON_RIGHT ? 1
                                                               : 2;
            event.pressed = action == GLFW_PRESS;
            event.nativeCode = button;
            event.modifiers = mods;
            self(w)->m_events.push_back(event);
        });
        glfwSetScrollCallback(window, [](GLFWwindow* w, double dx, double dy) {
            InputEvent event;
            event.type = InputEvent::Type::Scroll;
            event.x = dx;
            event.y = dy;
            self(w)->m_events.push_back(event);
        });
        glfwSetKeyCallback(window, [](GLFWwindow* w, int key, int scancode, int action, int mods) {
            if (action == GLFW_REPEAT)
                return;
            InputEvent event;
            event.type = InputEvent::Type::Key;
            event.key = toKey(key);
            event.pressed = action == GLFW_PRESS;
            event.nativeCode = key;
            event.scancode = scancode;
            event.modifiers = mods;
            self(w)->m_events.push_back(event);
        });
        glfwSetCharCallback(window, [](GLFWwindow* w, unsigned codepoint) {
            InputEvent event;
            event.type = InputEvent::Type::Char;
            event.codepoint = codepoint;
            self(w)->m_events.push_back(event);
        });
        glfwSetWindowFocusCallback(window, [](GLFWwindow* w, int focused) {
            InputEvent event;
            event.type = InputEvent::Type::Focus;
            event.pressed = focused != 0;
            self(w)->m_events.push_back(event);
        });
        glfwSetCursorEnterCallback(window, [](GLFWwindow* w, int entered) {
            InputEvent event;
            event.type = InputEvent::Type::CursorEnter;
            event.pressed = entered != 0;
            self(w)->m_events.push_back(event);
        });
        glfwSetDropCallback(window, [](GLFWwindow* w, int count, const char** paths) {
            for (int i = 0; i < count; ++i) {
                InputEvent event;
                event.type = InputEvent::Type::Drop;
                event.path = paths[i];
                self(w)->m_events.push_back(event);
            }
        });
        glfwSetFramebufferSizeCallback(window, [](GLFWwindow* w, int width, int height) {
            InputEvent event;
            event.type = InputEvent::Type::Resize;
            event.width = width;
            event.height = height;
            self(w)->m_events.push_back(event);
        });
    }
    ~GlfwWindow() override
    {
        glfwDestroyWindow(m_window);
        if (--g_windows == 0)
            glfwTerminate();
    }
    GlfwWindow(const GlfwWindow&) = delete;
    GlfwWindow& operator=(const GlfwWindow&) = delete;

    bool isHeadless() const override { return false; }
    void makeCurrent() override { glfwMakeContextCurrent(m_window); }
    void swapBuffers() override { glfwSwapBuffers(m_window); }
    void pollEvents() override { glfwPollEvents(); }
    bool shouldClose() const override { return glfwWindowShouldClose(m_window) != 0; }
    int framebufferWidth() const override
    {
        int width = 0, height = 0;
        glfwGetFramebufferSize(m_window, &width, &height);
        return width;
    }
    int framebufferHeight() const override
    {
        int width = 0, height = 0;
        glfwGetFramebufferSize(m_window, &width, &height);
        return height;
    }
    std::string description() const override { return m_description; }
    void* nativeWindow() const override { return m_window; }

private:
    static GlfwWindow* self(GLFWwindow* window)
    {
        return static_cast<GlfwWindow*>(glfwGetWindowUserPointer(window));
    }

    GLFWwindow* m_window;
    std::string m_description;
};

} // namespace

Result<std::unique_ptr<Context>> tryCreateWindow(const ContextOptions& options)
{
    glfwSetErrorCallback(onGlfwError);
    g_lastGlfwError.clear();
    if (g_windows == 0 && !glfwInit())
        return fail("cannot open a window: " + g_lastGlfwError);
    // Counted from here; every failure below gives it back (terminating GLFW with the last).
    ++g_windows;
    auto giveBack = [] {
        if (--g_windows == 0)
            glfwTerminate();
    };
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, options.debug ? GLFW_TRUE : GLFW_FALSE);
    GLFWwindow* window =
        glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
    if (!window) {
        const std::string reason = g_lastGlfwError;
        giveBack();
        return fail("cannot create a window with GL 4.5 core: " + reason);
    }
    glfwMakeContextCurrent(window);
    if (!gladLoadGL(glfwGetProcAddress)) {
        glfwDestroyWindow(window);
        giveBack();
        return fail("cannot load GL 4.5 functions through GLFW");
    }
    glfwSwapInterval(options.vsync ? 1 : 0);
    const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    std::unique_ptr<Context> result(
        new GlfwWindow(window, fmt::format("window (GLFW {}), {}", glfwGetVersionString(),
                                           renderer ? renderer : "unknown renderer")));
    initializeGl(options, *result);
    return result;
}

} // namespace tandem::platform
