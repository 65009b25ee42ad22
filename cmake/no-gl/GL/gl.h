// Poisoned: a target built with tandem_forbid_gl() (cmake/TandemNoGl.cmake) must not include
// GL, EGL or GLFW headers. Whatever included this pulled GL into code that must build without it.
#error "a GL/EGL/GLFW header (GL/gl.h) reached a target that must build without GL"
