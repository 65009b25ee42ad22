// CUDA registrations of a frame's GL textures and the per-frame handoff that maps them all in
// one cudaGraphicsMapResources call and unmaps them in one call. CUDA builds only; include
// only from interop/ and the CUDA side of postfx/. Render thread (the GL context current).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "engine/interop/FrameTextures.h"

struct cudaGraphicsResource;

namespace tandem::interop {

/// One GL texture registered with CUDA (cudaGraphicsGLRegisterImage). Move-only; unregisters in
/// its destructor, which must run before the GL texture dies (declare it after the texture).
class RegisteredImage {
public:
    /// Registers `texture` with `flags` (cudaGraphicsRegisterFlags*). Throws CudaError when the
    /// driver refuses.
    RegisteredImage(gl::Texture& texture, unsigned flags);
    ~RegisteredImage();
    RegisteredImage(const RegisteredImage&) = delete;
    RegisteredImage& operator=(const RegisteredImage&) = delete;
    RegisteredImage(RegisteredImage&& other) noexcept
        : m_resource(std::exchange(other.m_resource, nullptr)),
          m_texture(std::exchange(other.m_texture, nullptr)), m_flags(other.m_flags)
    {}
    RegisteredImage& operator=(RegisteredImage&& other) noexcept;

    cudaGraphicsResource* resource() const { return m_resource; }
    gl::Texture& texture() const { return *m_texture; }
    unsigned flags() const { return m_flags; }

private:
    cudaGraphicsResource* m_resource = nullptr;
    gl::Texture* m_texture = nullptr;
    unsigned m_flags = 0;
};

/// Which texture of FrameTextures a registration stands for.
enum class Slot { Color = 0, Depth, Normal, Id, Output, Count };

/// The registrations of a frame's textures: ReadOnly + SurfaceLoadStore for the G-buffer
/// targets CUDA only reads (through surfaces), WriteDiscard + SurfaceLoadStore for the output it
/// fully overwrites. Registered once and
/// again only when the textures' generation changes.
class Registry {
public:
    /// Registers `textures` unless already registered at this generation. Returns whether it
    /// (re-)registered. Throws CudaError when registration fails.
    bool update(const FrameTextures& textures);
    /// Drops every registration (before the textures are destroyed).
    void clear();

    bool isRegistered() const { return !m_images.empty(); }
    ~Registry();
    Registry() = default;
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;
    std::uint64_t registrations() const { return m_registrations; }
    RegisteredImage& image(Slot slot) { return m_images[static_cast<std::size_t>(slot)]; }
    std::vector<cudaGraphicsResource*> resources() const;

    /// The surface object of `slot` over `array`, created once per mapped array and reused
    /// while the driver keeps mapping the same array.
    cudaSurfaceObject_t viewOf(Slot slot, cudaArray_t array);

private:
    void destroyViews() noexcept;

    std::vector<RegisteredImage> m_images;
    std::uint64_t m_generation = ~std::uint64_t{0};
    std::uint64_t m_registrations = 0;
    cudaArray_t m_arrays[static_cast<int>(Slot::Count)] = {};
    cudaSurfaceObject_t m_views[static_cast<int>(Slot::Count)] = {};
};

/// One frame's CUDA access to the registered textures: maps all of them in ONE
/// cudaGraphicsMapResources call on `stream`, and unmaps them in ONE call in its destructor, on
/// the same stream. While it lives, GL must not touch the textures (debug builds assert).
class Handoff {
public:
    Handoff(Registry& registry, cudaStream_t stream);
    ~Handoff();
    Handoff(const Handoff&) = delete;
    Handoff& operator=(const Handoff&) = delete;

    /// A surface object for `slot`: reading the G-buffer targets, writing the output.
    cudaSurfaceObject_t surface(Slot slot) const;
    /// Whether the resources are mapped (until destruction).
    bool isActive() const { return m_active; }
    cudaStream_t stream() const { return m_stream; }

private:
    void unmapAll() noexcept;

    Registry& m_registry;
    cudaStream_t m_stream;
    bool m_active = false;
    std::vector<cudaGraphicsResource*> m_resources;
    cudaSurfaceObject_t m_views[static_cast<int>(Slot::Count)] = {};
};

} // namespace tandem::interop
