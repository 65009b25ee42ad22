#include "engine/postfx/HookPass.h"

#include <cstdint>

#include "engine/core/Error.h"
#include "engine/core/Stall.h"
#include "engine/gl/Debug.h"
#include "engine/gl/Gl.h"
#include "engine/gl/Texture.h"
#ifdef TANDEM_HAS_CUDA
#include <cuda_runtime_api.h>

#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/DeviceBuffer.h"
#endif

namespace tandem::postfx {
namespace {

/// How a G-buffer texture is handed over.
struct Layout {
    const char* name;
    int channels;
    HookType type;
    std::size_t elementBytes;
    GLenum format; ///< for host read-back and upload
    GLenum glType;
};

Layout layoutOf(const char* name, const gl::Texture& texture)
{
    switch (texture.internalFormat()) {
    case GL_RGBA8:
        return {name, 4, HookType::UInt8, 1, GL_RGBA, GL_UNSIGNED_BYTE};
    case GL_RGBA16F:
        return {name, 4, HookType::Float16, 2, GL_RGBA, GL_HALF_FLOAT};
    case GL_R32F:
        return {name, 1, HookType::Float32, 4, GL_RED, GL_FLOAT};
    case GL_R32UI:
        return {name, 1, HookType::Int32, 4, GL_RED_INTEGER, GL_UNSIGNED_INT};
    default:
        throw Error(std::string("postfx::HookPass: unexpected format of ") + name);
    }
}

} // namespace

struct HookPass::Staging {
    std::vector<std::vector<std::uint8_t>> host;
#ifdef TANDEM_HAS_CUDA
    std::vector<cuda::DeviceBuffer<std::uint8_t>> device;
#endif
};

HookPass::HookPass(Function function, interop::Path path)
    : m_function(std::move(function)), m_path(path), m_staging(std::make_unique<Staging>())
{}

HookPass::~HookPass() = default;

void HookPass::declare(interop::Uses& uses)
{
    interop::Registrations& owner = *m_textures.registrations;
    m_refs = {uses.image(*m_textures.color, owner, interop::Intent::Read),
              uses.image(*m_textures.depth, owner, interop::Intent::Read),
              uses.image(*m_textures.normal, owner, interop::Intent::Read),
              uses.image(*m_textures.id, owner, interop::Intent::Read),
              // Read (the chain's result) and written (the hook's): one registration for both.
              uses.image(*m_textures.output, owner, interop::Intent::ReadWrite)};
}

void HookPass::run(const interop::MappedView* view, interop::PassHooks& hooks)
{
    if (view)
        runCuda(*view, hooks);
    else
        runHost(hooks);
}

void HookPass::runHost(interop::PassHooks& hooks)
{
    const gl::Texture* textures[] = {m_textures.color, m_textures.depth, m_textures.normal,
                                     m_textures.id, m_textures.output};
    const char* names[] = {"color", "depth", "normal", "id", "output"};
    const int w = m_textures.width, h = m_textures.height;
    m_staging->host.resize(5);
    std::vector<HookImage> images;
    // The frame times host passes itself (a CPU span named after the pass); the debug group
    // names the read-back and upload in captures.
    (void)hooks;
    gl::DebugGroup group("hook");
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    for (int i = 0; i < 5; ++i) {
        const Layout layout = layoutOf(names[i], *textures[i]);
        auto& pixels = m_staging->host[static_cast<std::size_t>(i)];
        pixels.resize(static_cast<std::size_t>(w) * h * layout.channels * layout.elementBytes);
        recordStall(StallCause::Readback); // the host path reads back by design
        glGetTextureSubImage(textures[i]->id(), 0, 0, 0, 0, w, h, 1, layout.format, layout.glType,
                             static_cast<GLsizei>(pixels.size()), pixels.data());
        images.push_back(
            {names[i], pixels.data(), w, h, layout.channels, layout.type, false, i == 4});
    }
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    gl::check("postfx::HookPass read-back");
    m_function(images, nullptr);
    const Layout output = layoutOf("output", *m_textures.output);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTextureSubImage2D(m_textures.output->id(), 0, 0, 0, w, h, output.format, output.glType,
                        m_staging->host[4].data());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    gl::check("postfx::HookPass upload");
}

void HookPass::runCuda([[maybe_unused]] const interop::MappedView& view,
                       [[maybe_unused]] interop::PassHooks& hooks)
{
#ifdef TANDEM_HAS_CUDA
    const gl::Texture* textures[] = {m_textures.color, m_textures.depth, m_textures.normal,
                                     m_textures.id, m_textures.output};
    const char* names[] = {"color", "depth", "normal", "id", "output"};
    const int w = m_textures.width, h = m_textures.height;
    const auto stream = static_cast<cudaStream_t>(view.stream());
    m_staging->device.resize(5);
    std::vector<HookImage> images;
    cudaArray_t arrays[5] = {};
    hooks.beginStage("hook", view.stream());
    for (int i = 0; i < 5; ++i) {
        const Layout layout = layoutOf(names[i], *textures[i]);
        const std::size_t row = static_cast<std::size_t>(w) * layout.channels * layout.elementBytes;
        auto& buffer = m_staging->device[static_cast<std::size_t>(i)];
        if (buffer.size() < row * static_cast<std::size_t>(h))
            buffer = cuda::DeviceBuffer<std::uint8_t>(row * static_cast<std::size_t>(h));
        // The mapped array behind the frame's surface object.
        cudaResourceDesc resource{};
        TANDEM_CUDA_CHECK(cudaGetSurfaceObjectResourceDesc(
            &resource, static_cast<cudaSurfaceObject_t>(view.surface(m_refs[i]))));
        arrays[i] = resource.res.array.array;
        TANDEM_CUDA_CHECK(cudaMemcpy2DFromArrayAsync(buffer.data(), row, arrays[i], 0, 0, row,
                                                     static_cast<std::size_t>(h),
                                                     cudaMemcpyDeviceToDevice, stream));
        images.push_back(
            {names[i], buffer.data(), w, h, layout.channels, layout.type, true, i == 4});
    }
    try {
        m_function(images, view.stream());
    } catch (...) {
        hooks.endStage("hook", view.stream());
        throw;
    }
    const std::size_t outputRow = static_cast<std::size_t>(w) * 4;
    TANDEM_CUDA_CHECK(cudaMemcpy2DToArrayAsync(arrays[4], 0, 0, m_staging->device[4].data(),
                                               outputRow, outputRow, static_cast<std::size_t>(h),
                                               cudaMemcpyDeviceToDevice, stream));
    hooks.endStage("hook", view.stream());
#else
    throw Error("postfx::HookPass: this build has no CUDA");
#endif
}

} // namespace tandem::postfx
