#include "engine/gl/Gl.h"

#include <algorithm>
#include <string>

namespace tandem::gl {

const char* errorName(GLenum error)
{
    switch (error) {
    case GL_NO_ERROR:
        return "GL_NO_ERROR";
    case GL_INVALID_ENUM:
        return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
        return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
        return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
        return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
        return "GL_OUT_OF_MEMORY";
    case GL_STACK_UNDERFLOW:
        return "GL_STACK_UNDERFLOW";
    case GL_STACK_OVERFLOW:
        return "GL_STACK_OVERFLOW";
    default:
        return "unknown GL error";
    }
}

void check(const char* call, std::source_location where)
{
    GLenum first = glGetError();
    if (first == GL_NO_ERROR)
        return;
    // Drain the rest so the next check starts clean.
    for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
    }
    throw GlError(std::string(errorName(first)), call, where);
}

int drainErrors()
{
    int count = 0;
    while (glGetError() != GL_NO_ERROR && count < 16)
        ++count;
    return count;
}

bool isLoaded()
{
    return glad_glGetError != nullptr;
}

std::size_t freeVideoMemory()
{
    GLint kib[4] = {0, 0, 0, 0};
    if (GLAD_GL_NVX_gpu_memory_info)
        glGetIntegerv(GL_GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX, kib);
    else if (GLAD_GL_ATI_meminfo)
        glGetIntegerv(GL_VBO_FREE_MEMORY_ATI, kib);
    check("glGetIntegerv (free video memory)");
    return static_cast<std::size_t>(std::max(kib[0], 0)) * 1024;
}

} // namespace tandem::gl
