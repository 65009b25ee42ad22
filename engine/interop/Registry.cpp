#include "engine/interop/Registry.h"

#include <glad/gl.h>
// After glad: cuda_gl_interop.h includes GL/gl.h, which glad's guard then leaves empty.
#include <cuda_gl_interop.h>

#include "engine/core/Log.h"
#include "engine/cuda/CudaCheck.h"
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
    if (isRegistered() && t.generation == m_generation)
        return false;
    clear();
    m_images.reserve(static_cast<std::size_t>(Slot::Count));
    m_images.emplace_back(*t.color, cudaGraphicsRegisterFlagsReadOnly);
    m_images.emplace_back(*t.depth, cudaGraphicsRegisterFlagsReadOnly);
    // Read through a surface (raw half bits): on an H200 a texture fetch of RGBA16F reached 64 %
    // of copy bandwidth where 32-bit formats reached 97 % (2026-11).
    m_images.emplace_back(*t.normal, cudaGraphicsRegisterFlagsReadOnly |
                                         cudaGraphicsRegisterFlagsSurfaceLoadStore);
    m_images.emplace_back(*t.id, cudaGraphicsRegisterFlagsReadOnly);
    m_images.emplace_back(*t.output, cudaGraphicsRegisterFlagsWriteDiscard |
                                         cudaGraphicsRegisterFlagsSurfaceLoadStore);
    m_generation = t.generation;
    ++m_registrations;
    return true;
}

Registry::~Registry() { clear(); }

void Registry::clear()
{
    destroyViews();
    m_images.clear();
    m_generation = ~std::uint64_t{0};
}

void Registry::destroyViews() noexcept
{
    for (int i = 0; i < static_cast<int>(Slot::Count); ++i) {
        if (m_views[i]) {
            if (usesSurface(static_cast<Slot>(i)))
                cudaDestroySurfaceObject(m_views[i]);
            else
                cudaDestroyTextureObject(m_views[i]);
        }
        m_views[i] = 0;
        m_arrays[i] = nullptr;
    }
    cudaGetLastError();
}

unsigned long long Registry::viewOf(Slot slot, cudaArray_t array)
{
    const int i = static_cast<int>(slot);
    // Creating texture and surface objects costs driver time every frame; the mapped array of
    // a GL texture normally stays the same between maps, so keep the object while it does.
    if (m_views[i] && m_arrays[i] == array)
        return m_views[i];
    if (m_views[i]) {
        if (usesSurface(slot))
            cudaDestroySurfaceObject(m_views[i]);
        else
            cudaDestroyTextureObject(m_views[i]);
        m_views[i] = 0;
    }
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    if (usesSurface(slot)) {
        cudaSurfaceObject_t surface = 0;
        TANDEM_CUDA_CHECK(cudaCreateSurfaceObject(&surface, &resource));
        m_views[i] = surface;
    } else {
        cudaTextureDesc desc{};
        desc.addressMode[0] = cudaAddressModeClamp;
        desc.addressMode[1] = cudaAddressModeClamp;
        desc.filterMode = cudaFilterModePoint;
        desc.readMode = cudaReadModeElementType;
        desc.normalizedCoords = 0;
        cudaTextureObject_t texture = 0;
        TANDEM_CUDA_CHECK(cudaCreateTextureObject(&texture, &resource, &desc, nullptr));
        m_views[i] = texture;
    }
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
    TANDEM_CUDA_CHECK(cudaGraphicsMapResources(static_cast<int>(m_resources.size()),
                                               m_resources.data(), stream));
    m_active = true;
    try {
        for (int i = 0; i < static_cast<int>(Slot::Count); ++i) {
            RegisteredImage& image = registry.image(static_cast<Slot>(i));
            image.texture().setExternallyMapped(true);
            cudaArray_t array = nullptr;
            TANDEM_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, image.resource(), 0, 0));
            m_views[i] = registry.viewOf(static_cast<Slot>(i), array);
        }
    } catch (...) {
        unmapAll();
        throw;
    }
}

Handoff::~Handoff() { unmapAll(); }

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

bool usesSurface(Slot slot) { return slot == Slot::Output || slot == Slot::Normal; }

cudaTextureObject_t Handoff::texture(Slot slot) const
{
    TANDEM_ASSERT(m_active, "interop::Handoff::texture(): used outside the handoff");
    TANDEM_ASSERT(!usesSurface(slot), "interop::Handoff::texture(): slot is read through a surface");
    return m_views[static_cast<int>(slot)];
}

cudaSurfaceObject_t Handoff::surface(Slot slot) const
{
    TANDEM_ASSERT(m_active, "interop::Handoff::surface(): used outside the handoff");
    TANDEM_ASSERT(usesSurface(slot), "interop::Handoff::surface(): slot is read through a texture");
    return m_views[static_cast<int>(slot)];
}

} // namespace tandem::interop
