// Headless GL 4.5 core on the EGL device platform (EGL_EXT_platform_device). libEGL is loaded
// at run time by glad, so a machine without it still runs windowed.
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <glad/egl.h>
#include <glad/gl.h>

#include "engine/core/Log.h"
#include "engine/platform/Context.h"

namespace tandem::platform {

namespace {

/// Contexts alive per EGL display. A device's display is one handle for the whole process and
/// eglInitialize does not count: terminating it for one context would break every other
/// context on that device (the Python package's renderer beside a viewer), so the last one out
/// terminates it.
struct DisplayUsers {
    std::mutex mutex;
    std::map<EGLDisplay, int> count;
};

DisplayUsers& displayUsers()
{
    static DisplayUsers users; // counts only: no GL or EGL object lives here
    return users;
}

void retainDisplay(EGLDisplay display)
{
    DisplayUsers& users = displayUsers();
    std::lock_guard lock(users.mutex);
    ++users.count[display];
}

void releaseDisplay(EGLDisplay display)
{
    DisplayUsers& users = displayUsers();
    std::lock_guard lock(users.mutex);
    if (--users.count[display] > 0)
        return;
    users.count.erase(display);
    eglTerminate(display);
}

const char* eglErrorName(EGLint error)
{
    switch (error) {
    case EGL_SUCCESS:
        return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED:
        return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS:
        return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC:
        return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE:
        return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG:
        return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT:
        return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY:
        return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH:
        return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER:
        return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE:
        return "EGL_BAD_SURFACE";
    default:
        return "EGL error";
    }
}

std::string lastEglError(const char* call)
{
    return fmt::format("{} failed: {}", call, eglErrorName(eglGetError()));
}

bool hasExtension(const char* list, const char* name)
{
    if (!list)
        return false;
    const std::size_t length = std::strlen(name);
    for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += length) {
        const bool startOk = p == list || p[-1] == ' ';
        const bool endOk = p[length] == ' ' || p[length] == '\0';
        if (startOk && endOk)
            return true;
    }
    return false;
}

class EglContext final : public Context {
public:
    EglContext(EGLDisplay display, EGLContext context, int width, int height, std::string what,
               int cudaDevice)
        : m_display(display), m_context(context), m_width(width), m_height(height),
          m_description(std::move(what)), m_cudaDevice(cudaDevice)
    {}
    ~EglContext() override
    {
        eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(m_display, m_context);
        releaseDisplay(m_display);
    }
    EglContext(const EglContext&) = delete;
    EglContext& operator=(const EglContext&) = delete;

    bool isHeadless() const override { return true; }
    void makeCurrent() override
    {
        // Callers that may run on another thread call this every time (the Python package).
        if (eglGetCurrentContext() == m_context)
            return;
        if (!eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, m_context))
            throw Error(lastEglError("eglMakeCurrent"), "eglMakeCurrent");
    }
    void swapBuffers() override {}
    void pollEvents() override {}
    bool shouldClose() const override { return false; }
    int framebufferWidth() const override { return m_width; }
    int framebufferHeight() const override { return m_height; }
    std::string description() const override { return m_description; }
    int cudaDevice() const override { return m_cudaDevice; }

private:
    EGLDisplay m_display;
    EGLContext m_context;
    int m_width;
    int m_height;
    std::string m_description;
    int m_cudaDevice;
};

struct DeviceChoice {
    EGLDisplay display = EGL_NO_DISPLAY;
    int index = -1;
    int cudaDevice = -1;
    std::string name;
};

std::string deviceName(EGLDeviceEXT device)
{
    const char* extensions = eglQueryDeviceStringEXT(device, EGL_EXTENSIONS);
    if (hasExtension(extensions, "EGL_EXT_device_drm")) {
        if (const char* file = eglQueryDeviceStringEXT(device, EGL_DRM_DEVICE_FILE_EXT))
            return file;
    }
    if (hasExtension(extensions, "EGL_MESA_device_software"))
        return "software device";
    if (hasExtension(extensions, "EGL_NV_device_cuda"))
        return "NVIDIA device";
    return "device";
}

int cudaIdOf(EGLDeviceEXT device)
{
    const char* extensions = eglQueryDeviceStringEXT(device, EGL_EXTENSIONS);
    if (!hasExtension(extensions, "EGL_NV_device_cuda"))
        return -1;
    EGLAttrib value = -1;
    if (!eglQueryDeviceAttribEXT(device, EGL_CUDA_DEVICE_NV, &value))
        return -1;
    return static_cast<int>(value);
}

Result<DeviceChoice> chooseDevice(const ContextOptions& options)
{
    const char* clientExtensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!hasExtension(clientExtensions, "EGL_EXT_platform_device") || !eglQueryDevicesEXT ||
        !eglGetPlatformDisplayEXT)
        return fail("EGL has no device platform (EGL_EXT_platform_device, "
                    "EGL_EXT_device_enumeration missing)");
    EGLint count = 0;
    if (!eglQueryDevicesEXT(0, nullptr, &count) || count <= 0)
        return fail("EGL reports no devices");
    std::vector<EGLDeviceEXT> devices(static_cast<std::size_t>(count));
    eglQueryDevicesEXT(count, devices.data(), &count);
    devices.resize(static_cast<std::size_t>(count));

    std::vector<int> order;
    if (options.eglDevice >= 0) {
        if (options.eglDevice >= count)
            return fail(fmt::format("EGL device {} asked for, but there are only {}",
                                    options.eglDevice, count));
        order.push_back(options.eglDevice);
    } else {
        // The device running the chosen CUDA device first, then the rest in EGL's order.
        for (int i = 0; i < count; ++i)
            if (options.cudaDevice >= 0 &&
                cudaIdOf(devices[static_cast<std::size_t>(i)]) == options.cudaDevice)
                order.push_back(i);
        for (int i = 0; i < count; ++i)
            if (order.empty() || order.front() != i)
                order.push_back(i);
    }
    std::string tried;
    for (int i : order) {
        EGLDeviceEXT device = devices[static_cast<std::size_t>(i)];
        EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, device, nullptr);
        EGLint major = 0, minor = 0;
        if (display != EGL_NO_DISPLAY && eglInitialize(display, &major, &minor)) {
            retainDisplay(display);
            return DeviceChoice{display, i, cudaIdOf(device), deviceName(device)};
        }
        tried += fmt::format("{}device {} ({}): {}", tried.empty() ? "" : "; ", i,
                             deviceName(device), lastEglError("eglInitialize"));
    }
    return fail("no EGL device initializes: " + tried);
}

} // namespace

Result<std::unique_ptr<Context>> tryCreateHeadless(const ContextOptions& options)
{
    if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
        return fail("cannot load libEGL.so.1 (install libegl1, or put glvnd's libEGL.so.1 on "
                    "LD_LIBRARY_PATH)");
    auto choice = chooseDevice(options);
    if (!choice)
        return fail(choice.error());
    EGLDisplay display = choice.value().display;
    // Reload now that a display exists, to get its extension entry points.
    if (!gladLoaderLoadEGL(display)) {
        releaseDisplay(display);
        return fail("cannot load EGL display functions");
    }
    auto failAndTerminate = [&](std::string message) {
        releaseDisplay(display);
        return fail(std::move(message));
    };
    if (!eglBindAPI(EGL_OPENGL_API))
        return failAndTerminate(lastEglError("eglBindAPI(EGL_OPENGL_API)"));

    // Surfaceless rendering needs no config where EGL_KHR_no_config_context is offered (Mesa's
    // software device exposes no configs at all); otherwise take any desktop-GL config.
    EGLConfig config = EGL_NO_CONFIG_KHR;
    const char* displayExtensions = eglQueryString(display, EGL_EXTENSIONS);
    if (!hasExtension(displayExtensions, "EGL_KHR_no_config_context") &&
        !hasExtension(displayExtensions, "EGL_MESA_configless_context")) {
        const EGLint configAttributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
        EGLint configCount = 0;
        if (!eglChooseConfig(display, configAttributes, &config, 1, &configCount) ||
            configCount < 1)
            return failAndTerminate("no EGL config for desktop OpenGL on " + choice.value().name);
    }
    if (!hasExtension(displayExtensions, "EGL_KHR_surfaceless_context"))
        return failAndTerminate("EGL device " + choice.value().name +
                                " lacks EGL_KHR_surfaceless_context");

    std::vector<EGLint> contextAttributes = {
        EGL_CONTEXT_MAJOR_VERSION,       4,
        EGL_CONTEXT_MINOR_VERSION,       5,
        EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT};
    if (options.debug) {
        contextAttributes.push_back(EGL_CONTEXT_OPENGL_DEBUG);
        contextAttributes.push_back(EGL_TRUE);
    }
    contextAttributes.push_back(EGL_NONE);
    EGLContext context =
        eglCreateContext(display, config, EGL_NO_CONTEXT, contextAttributes.data());
    if (context == EGL_NO_CONTEXT)
        return failAndTerminate(lastEglError("eglCreateContext(GL 4.5 core)"));
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
        const std::string message = lastEglError("eglMakeCurrent (surfaceless)");
        eglDestroyContext(display, context);
        return failAndTerminate(message);
    }
    if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) {
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(display, context);
        return failAndTerminate("cannot load GL 4.5 functions through eglGetProcAddress");
    }
    const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    std::string description = fmt::format(
        "headless EGL, device {} ({}{}), {}", choice.value().index, choice.value().name,
        choice.value().cudaDevice >= 0 ? fmt::format(", CUDA device {}", choice.value().cudaDevice)
                                       : std::string{},
        renderer ? renderer : "unknown renderer");
    std::unique_ptr<Context> result(new EglContext(display, context, options.width, options.height,
                                                   std::move(description),
                                                   choice.value().cudaDevice));
    initializeGl(options, *result);
    return result;
}

} // namespace tandem::platform
