#include "engine/interop/Handoff.h"

#include <string>
#include <utility>

#include <glad/gl.h>
// After glad: cuda_gl_interop.h includes GL/gl.h, which glad's guard then leaves empty.
#include <cuda_gl_interop.h>

#include "engine/core/Log.h"
#include "engine/core/Stall.h"
#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/Stream.h"
#include "engine/gl/Buffer.h"
#include "engine/gl/Object.h"
#include "engine/gl/Texture.h"
#include "engine/interop/Registrations.h"

namespace tandem::interop {

// --- Registrations ------------------------------------------------------------------------

void Registrations::release(Entry& entry) noexcept
{
    if (entry.surface) {
        cuda::clearError("cudaDestroySurfaceObject", cudaDestroySurfaceObject(entry.surface));
        entry.surface = 0;
    }
    if (entry.resource) {
        const cudaError_t result = cudaGraphicsUnregisterResource(entry.resource);
        if (result != cudaSuccess && result != cudaErrorCudartUnloading)
            log::warning("cudaGraphicsUnregisterResource failed: {}", cudaGetErrorString(result));
        cuda::clearError("cudaGraphicsUnregisterResource", result);
        entry.resource = nullptr;
    }
    entry.array = nullptr;
}

Registrations::~Registrations()
{
    clear();
}

Registrations::Registrations(Registrations&& other) noexcept
    : m_entries(std::move(other.m_entries)), m_made(std::exchange(other.m_made, 0))
{
    other.m_entries.clear();
}

Registrations& Registrations::operator=(Registrations&& other) noexcept
{
    if (this != &other) {
        clear();
        m_entries = std::move(other.m_entries);
        other.m_entries.clear();
        m_made = std::exchange(other.m_made, 0);
    }
    return *this;
}

void Registrations::clear() noexcept
{
    TANDEM_ASSERT(!isMapped(), "interop::Registrations::clear(): resources still mapped");
    for (Entry& entry : m_entries)
        release(entry);
    m_entries.clear();
}

bool Registrations::isMapped() const noexcept
{
    for (const Entry& entry : m_entries)
        if (entry.mapped)
            return true;
    return false;
}

// --- Handoff -------------------------------------------------------------------------------

namespace {

unsigned flagsFor(Intent intent, bool image)
{
    // Images are read and written through surfaces: on an H200 (driver 580.159, 2026-11) a kernel
    // reading RGBA16F normals reached 64 % of copy bandwidth through a texture object and 103 %
    // through a surface.
    const unsigned surface =
        image ? static_cast<unsigned>(cudaGraphicsRegisterFlagsSurfaceLoadStore) : 0u;
    switch (intent) {
    case Intent::Read:
        return cudaGraphicsRegisterFlagsReadOnly | surface;
    case Intent::Write:
        return cudaGraphicsRegisterFlagsWriteDiscard | surface;
    case Intent::ReadWrite:
        break;
    }
    return cudaGraphicsRegisterFlagsNone | surface;
}

std::string labelOf(GLenum identifier, GLuint id)
{
    char label[256] = {};
    GLsizei length = 0;
    glGetObjectLabel(identifier, id, sizeof label, &length, label);
    return std::string(label, static_cast<std::size_t>(length));
}

} // namespace

struct Handoff::State {
    cuda::Stream stream;
    /// The stream of the current mapping (the frame's own or its caller's).
    cudaStream_t mappedOn = nullptr;
    /// Orders an unmap on another stream after the mapping stream's work.
    cuda::Event order{false};
    MappedView view;
    /// The entries mapped now, in the order of the declarations.
    std::vector<Registrations::Entry*> entries;
    std::vector<cudaGraphicsResource*> resources;
    std::uint64_t made = 0;
    bool mapped = false;
};

Handoff::Handoff() : m_state(std::make_unique<State>())
{
    m_state->view.m_stream = m_state->stream.get();
    m_state->mappedOn = m_state->stream.get();
}

Handoff::~Handoff()
{
    unmap();
}

const MappedView& Handoff::map(const Uses& uses)
{
    return map(uses, m_state->stream.get());
}

const MappedView& Handoff::map(const Uses& uses, void* callerStream)
{
    State& s = *m_state;
    TANDEM_ASSERT(!s.mapped, "interop::Handoff::map(): already mapped");
    s.entries.clear();
    s.resources.clear();
    for (const Uses::Use& use : uses.all()) {
        const bool image = use.texture != nullptr;
        const GLuint id = image ? use.texture->id() : use.buffer->id();
        const unsigned flags = flagsFor(use.intent, image);
        Registrations& owner = *use.owner;
        Registrations::Entry* entry = nullptr;
        for (auto& candidate : owner.m_entries)
            if (candidate.id == id && candidate.isBuffer == !image)
                entry = &candidate;
        // A buffer registered without a hint serves every intent: buffers that alternate
        // between being written and read (a streamed sequence's ping-ponged buffers) keep one
        // registration instead of one a frame.
        const bool serves = entry && (entry->flags == flags ||
                                      (!image && entry->flags == cudaGraphicsRegisterFlagsNone));
        if (serves) {
            s.entries.push_back(entry);
            s.resources.push_back(entry->resource);
            continue;
        }
        // New, or another intent than last time (a pass started writing what it read): register
        // (again; the old registration goes first), and keep the entry only if the driver accepts.
        if (entry) {
            Registrations::release(*entry);
            owner.m_entries.erase(owner.m_entries.begin() + (entry - owner.m_entries.data()));
        }
        cudaGraphicsResource* resource = nullptr;
        if (image)
            TANDEM_CUDA_CHECK(cudaGraphicsGLRegisterImage(&resource, id, GL_TEXTURE_2D, flags));
        else
            TANDEM_CUDA_CHECK(cudaGraphicsGLRegisterBuffer(&resource, id, flags));
        // Entries may move here: the pointers gathered so far are re-found below.
        owner.m_entries.emplace_back();
        entry = &owner.m_entries.back();
        entry->id = id;
        entry->isBuffer = !image;
        entry->flags = flags;
        entry->resource = resource;
        ++owner.m_made;
        ++s.made;
        if (use.intent != Intent::Read) {
            const GLenum kind = image ? GL_TEXTURE : GL_BUFFER;
            const std::string label = labelOf(kind, id);
            if (label.find("[written by CUDA]") == std::string::npos)
                gl::setLabel(kind, id, label + " [written by CUDA]");
        }
        s.entries.push_back(nullptr); // resolved below
        s.resources.push_back(entry->resource);
    }
    // Resolve entry pointers now that every owner's vector has its final size.
    for (std::size_t i = 0; i < uses.all().size(); ++i) {
        const Uses::Use& use = uses.all()[i];
        const GLuint id = use.texture ? use.texture->id() : use.buffer->id();
        for (auto& candidate : use.owner->m_entries)
            if (candidate.id == id && candidate.isBuffer == (use.texture == nullptr))
                s.entries[i] = &candidate;
    }
    const auto stream = static_cast<cudaStream_t>(callerStream);
    if (!s.resources.empty())
        TANDEM_CUDA_CHECK(cudaGraphicsMapResources(static_cast<int>(s.resources.size()),
                                                   s.resources.data(), stream));
    s.mapped = true;
    s.mappedOn = stream;
    s.view.m_stream = stream;
    for (Registrations::Entry* entry : s.entries)
        entry->mapped = true;
    MappedView& view = s.view;
    const std::size_t n = s.entries.size();
    view.m_surfaces.assign(n, 0);
    view.m_pointers.assign(n, nullptr);
    view.m_bytes.assign(n, 0);
    try {
        for (std::size_t i = 0; i < n; ++i) {
            Registrations::Entry& entry = *s.entries[i];
            if (entry.isBuffer) {
                void* pointer = nullptr;
                std::size_t bytes = 0;
                TANDEM_CUDA_CHECK(
                    cudaGraphicsResourceGetMappedPointer(&pointer, &bytes, entry.resource));
                view.m_pointers[i] = pointer;
                view.m_bytes[i] = bytes;
                continue;
            }
            cudaArray_t array = nullptr;
            TANDEM_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, entry.resource, 0, 0));
            // Creating surface objects costs driver time every frame; the mapped array of a GL
            // texture normally stays the same between maps, so keep the object while it does.
            if (!entry.surface || entry.array != array) {
                if (entry.surface)
                    cuda::clearError("cudaDestroySurfaceObject",
                                     cudaDestroySurfaceObject(entry.surface));
                entry.surface = 0;
                cudaResourceDesc resource{};
                resource.resType = cudaResourceTypeArray;
                resource.res.array.array = array;
                cudaSurfaceObject_t surface = 0;
                TANDEM_CUDA_CHECK(cudaCreateSurfaceObject(&surface, &resource));
                entry.surface = surface;
                entry.array = array;
            }
            view.m_surfaces[i] = entry.surface;
        }
    } catch (...) {
        unmap();
        throw;
    }
    return view;
}

void Handoff::copyToHost(const Uses& uses, ImageRef image, std::vector<std::uint8_t>& out)
{
    State& s = *m_state;
    TANDEM_ASSERT(s.mapped, "interop::Handoff::copyToHost(): nothing mapped");
    const gl::Texture& texture = *uses.all()[static_cast<std::size_t>(image.index)].texture;
    const gl::PixelTransfer transfer = gl::pixelTransferOf(texture.internalFormat());
    const std::size_t row = static_cast<std::size_t>(texture.width()) * transfer.bytesPerPixel;
    out.resize(row * static_cast<std::size_t>(texture.height()));
    Registrations::Entry& entry = *s.entries[static_cast<std::size_t>(image.index)];
    TANDEM_CUDA_CHECK(cudaMemcpy2DFromArrayAsync(out.data(), row, entry.array, 0, 0, row,
                                                 static_cast<std::size_t>(texture.height()),
                                                 cudaMemcpyDeviceToHost, s.stream.get()));
    s.stream.synchronize(); // counted: captured frames only
}

void Handoff::unmap() noexcept
{
    unmap(m_state->mappedOn);
}

void Handoff::unmap(void* callerStream) noexcept
{
    State& s = *m_state;
    if (!s.mapped)
        return;
    const auto stream = static_cast<cudaStream_t>(callerStream);
    if (stream != s.mappedOn) {
        cudaError_t result = cudaEventRecord(s.order.get(), s.mappedOn);
        if (result == cudaSuccess)
            result = cudaStreamWaitEvent(stream, s.order.get(), 0);
        if (result != cudaSuccess)
            log::error("ordering the unmap after the mapping stream failed: {}",
                       cudaGetErrorString(result));
        cuda::clearError("cudaStreamWaitEvent", result);
    }
    if (!s.resources.empty()) {
        const cudaError_t result = cudaGraphicsUnmapResources(static_cast<int>(s.resources.size()),
                                                              s.resources.data(), stream);
        if (result != cudaSuccess)
            log::error("cudaGraphicsUnmapResources failed: {}", cudaGetErrorString(result));
        cuda::clearError("cudaGraphicsUnmapResources", result);
    }
    for (Registrations::Entry* entry : s.entries)
        entry->mapped = false;
    s.entries.clear();
    s.mapped = false;
    s.view.m_stream = s.stream.get();
}

bool Handoff::isMapped() const
{
    return m_state->mapped;
}

void* Handoff::stream() const
{
    return m_state->stream.get();
}

void Handoff::synchronize()
{
    m_state->stream.synchronize();
}

std::uint64_t Handoff::registrationsMade() const
{
    return m_state->made;
}

} // namespace tandem::interop
