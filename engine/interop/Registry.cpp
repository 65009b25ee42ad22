#include "engine/interop/Registry.h"

#include <glad/gl.h>
// After glad: cuda_gl_interop.h includes GL/gl.h, which glad's guard then leaves empty.
#include <cuda_gl_interop.h>

#include "engine/core/Log.h"
#include "engine/cuda/CudaCheck.h"
#include "engine/gl/Object.h"
#include "engine/gl/Texture.h"

namespace tandem::interop {

RegisteredImage::RegisteredImage(gl::Texture& texture, unsigned flags)
    : m_texture(&texture), m_flags(flags)
{
    TANDEM_CUDA_CHECK(cudaGraphicsGLRegisterImage(&m_resource, texture.id(), GL_TEXTURE_2D, flags));
}

RegisteredImage::~RegisteredImage()
{
    if (m_resource) {
        const cudaError_t result = cudaGraphicsUnregisterResource(m_resource);
        if (result != cudaSuccess && result != cudaErrorCudartUnloading)
            log::warning("cudaGraphicsUnregisterResource failed: {}", cudaGetErrorString(result));
        cudaGetLastError();
    }
}

RegisteredImage& RegisteredImage::operator=(RegisteredImage&& other) noexcept
{
    if (this != &other) {
        if (m_resource) {
            cudaGraphicsUnregisterResource(m_resource);
            cudaGetLastError();
        }
        m_resource = std::exchange(other.m_resource, nullptr);
        m_texture = std::exchange(other.m_texture, nullptr);
        m_flags = other.m_flags;
    }
    return *this;
}

bool Registry::update(const FrameTextures& t)
{
    if (isRegistered() && t.generation == m_generation &&
        image(Slot::Color).texture().id() == t.color->id() &&
        image(Slot::Output).texture().id() == t.output->id())
        return false;
    clear();
    m_images.reserve(static_cast<std::size_t>(Slot::Count));
    // Inputs are read through surfaces: on an H200 (driver 580.159, 2026-11) a kernel reading
    // RGBA16F normals reached 64 % of copy bandwidth through a texture object and 103 % through
    // a surface.
    const unsigned read =
        cudaGraphicsRegisterFlagsReadOnly | cudaGraphicsRegisterFlagsSurfaceLoadStore;
    m_images.emplace_back(*t.color, read);
    m_images.emplace_back(*t.depth, read);
    m_images.emplace_back(*t.normal, read);
    m_images.emplace_back(*t.id, read);
    m_images.emplace_back(*t.output, cudaGraphicsRegisterFlagsWriteDiscard |
                                         cudaGraphicsRegisterFlagsSurfaceLoadStore);
    m_generation = t.generation;
    ++m_registrations;
    // Tools that do not see CUDA (RenderDoc) should say who writes this texture.
    gl::setLabel(GL_TEXTURE, t.output->id(), "postfx.output [written by CUDA]");
    return true;
}

Registry::~Registry()
{
    clear();
}

void Registry::clear()
{
    destroyViews();
    m_images.clear();
    m_generation = ~std::uint64_t{0};
}

void Registry::destroyViews() noexcept
{
    for (int i = 0; i < static_cast<int>(Slot::Count); ++i) {
        if (m_views[i])
            cudaDestroySurfaceObject(m_views[i]);
        m_views[i] = 0;
        m_arrays[i] = nullptr;
    }
    cudaGetLastError();
}

cudaSurfaceObject_t Registry::viewOf(Slot slot, cudaArray_t array)
{
    const int i = static_cast<int>(slot);
    // Creating surface objects costs driver time every frame; the mapped array of a GL texture
    // normally stays the same between maps, so keep the object while it does.
    if (m_views[i] && m_arrays[i] == array)
        return m_views[i];
    if (m_views[i])
        cudaDestroySurfaceObject(m_views[i]);
    m_views[i] = 0;
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    TANDEM_CUDA_CHECK(cudaCreateSurfaceObject(&m_views[i], &resource));
    m_arrays[i] = array;
    return m_views[i];
}

std::vector<cudaGraphicsResource*> Registry::resources() const
{
    std::vector<cudaGraphicsResource*> list;
    for (const auto& image : m_images)
        list.push_back(image.resource());
    return list;
}

Handoff::Handoff(Registry& registry, cudaStream_t stream)
    : m_registry(registry), m_stream(stream), m_resources(registry.resources())
{
    TANDEM_ASSERT(registry.isRegistered(), "interop::Handoff: nothing registered");
    TANDEM_CUDA_CHECK(
        cudaGraphicsMapResources(static_cast<int>(m_resources.size()), m_resources.data(), stream));
    m_active = true;
    try {
        for (int i = 0; i < static_cast<int>(Slot::Count); ++i) {
            RegisteredImage& image = registry.image(static_cast<Slot>(i));
            image.texture().setExternallyMapped(true);
            cudaArray_t array = nullptr;
            TANDEM_CUDA_CHECK(
                cudaGraphicsSubResourceGetMappedArray(&array, image.resource(), 0, 0));
            m_views[i] = registry.viewOf(static_cast<Slot>(i), array);
        }
    } catch (...) {
        unmapAll();
        throw;
    }
}

Handoff::~Handoff()
{
    unmapAll();
}

void Handoff::unmapAll() noexcept
{
    if (!m_active)
        return;
    const cudaError_t result = cudaGraphicsUnmapResources(static_cast<int>(m_resources.size()),
                                                          m_resources.data(), m_stream);
    if (result != cudaSuccess)
        log::error("cudaGraphicsUnmapResources failed: {}", cudaGetErrorString(result));
    cudaGetLastError();
    for (int i = 0; i < static_cast<int>(Slot::Count); ++i) {
        m_registry.image(static_cast<Slot>(i)).texture().setExternallyMapped(false);
        m_views[i] = 0;
    }
    m_active = false;
}

cudaSurfaceObject_t Handoff::surface(Slot slot) const
{
    TANDEM_ASSERT(m_active, "interop::Handoff::surface(): used outside the handoff");
    return m_views[static_cast<int>(slot)];
}

} // namespace tandem::interop
