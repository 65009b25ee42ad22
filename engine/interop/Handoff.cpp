#include "engine/interop/Handoff.h"

#include <algorithm>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <glad/gl.h>
// After glad: cuda_gl_interop.h includes GL/gl.h, which glad's guard then leaves empty.
#include <cuda_gl_interop.h>

#include "engine/core/Error.h"
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

void Registrations::release(Twin& twin) noexcept
{
    if (twin.surface)
        cuda::clearError("cudaDestroySurfaceObject", cudaDestroySurfaceObject(twin.surface));
    if (twin.array)
        cuda::clearError("cudaFreeArray", cudaFreeArray(twin.array));
    twin = Twin{}; // frees the buffer's memory
}

Registrations::~Registrations()
{
    clear();
}

Registrations::Registrations(Registrations&& other) noexcept
    : m_entries(std::move(other.m_entries)), m_twins(std::move(other.m_twins)),
      m_made(std::exchange(other.m_made, 0))
{
    other.m_entries.clear();
    other.m_twins.clear();
}

Registrations& Registrations::operator=(Registrations&& other) noexcept
{
    if (this != &other) {
        clear();
        m_entries = std::move(other.m_entries);
        other.m_entries.clear();
        m_twins = std::move(other.m_twins);
        other.m_twins.clear();
        m_made = std::exchange(other.m_made, 0);
    }
    return *this;
}

void Registrations::clear() noexcept
{
    TANDEM_ASSERT(!isMapped(), "interop::Registrations::clear(): resources still mapped");
    if (!m_twins.empty()) {
        // Kernels and copies in flight on any stream may still use the CUDA-resident copies
        // (surface objects and arrays are not documented to wait): reallocation and teardown
        // only, counted.
        recordStall(StallCause::DeviceSync);
        cuda::clearError("cudaDeviceSynchronize", cudaDeviceSynchronize());
    }
    for (Entry& entry : m_entries)
        release(entry);
    m_entries.clear();
    for (Twin& twin : m_twins)
        release(twin);
    m_twins.clear();
}

Registrations::Twin* Registrations::findTwin(std::uint32_t id, bool isBuffer) noexcept
{
    for (Twin& twin : m_twins)
        if (twin.id == id && twin.isBuffer == isBuffer)
            return &twin;
    return nullptr;
}

void Registrations::wroteByGl() noexcept
{
    for (Twin& twin : m_twins) {
        twin.newer = Newer::Gl;
        twin.pending.clear();
    }
}

void Registrations::wroteFromHost(const gl::Buffer& buffer, std::size_t offset, const void* data,
                                  std::size_t bytes)
{
    Twin* twin = findTwin(buffer.id(), true);
    if (!twin || twin->newer == Newer::Gl || bytes == 0)
        return; // no copy, or one brought up to date from GL's whole contents anyway
    TANDEM_ASSERT(offset + bytes <= twin->bytes,
                  "interop::Registrations::wroteFromHost(): past the end of the buffer");
    std::size_t held = bytes;
    for (const HostWrite& write : twin->pending)
        held += write.bytes.size();
    if (twin->newer == Newer::Neither && held > twin->bytes) {
        // More than the whole buffer kept: bring GL's whole contents over instead, in one map.
        twin->newer = Newer::Gl;
        twin->pending.clear();
        return;
    }
    const auto* from = static_cast<const std::uint8_t*>(data);
    twin->pending.push_back({offset, std::vector<std::uint8_t>(from, from + bytes)});
}

bool Registrations::cudaIsNewer() const noexcept
{
    for (const Twin& twin : m_twins)
        if (twin.newer == Newer::Cuda)
            return true;
    return false;
}

bool Registrations::cudaIsNewer(const gl::Buffer& buffer) const noexcept
{
    for (const Twin& twin : m_twins)
        if (twin.id == buffer.id() && twin.isBuffer)
            return twin.newer == Newer::Cuda;
    return false;
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

/// A CUDA array of `texture`'s format for its CUDA-resident copy.
struct ArrayFormat {
    cudaChannelFormatDesc desc;
    int bytesPerPixel;
};
ArrayFormat arrayFormatOf(const gl::Texture& texture)
{
    switch (texture.internalFormat()) {
    case GL_RGBA8:
    case GL_SRGB8_ALPHA8:
        return {cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned), 4};
    case GL_RGBA16F:
        return {cudaCreateChannelDesc(16, 16, 16, 16, cudaChannelFormatKindFloat), 8};
    case GL_R32F:
        return {cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat), 4};
    case GL_R32UI:
        return {cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindUnsigned), 4};
    default:
        break;
    }
    throw Error(fmt::format("no CUDA-resident copy for GL format 0x{:x}", texture.internalFormat()),
                "interop::Handoff::resident");
}

/// Copies a whole `width`×`height` image between two CUDA arrays of one format, on `stream`.
void copyArray(cudaArray_t to, cudaArray_const_t from, int width, int height, cudaStream_t stream)
{
    cudaMemcpy3DParms copy{};
    copy.srcArray = const_cast<cudaArray_t>(from);
    copy.dstArray = to;
    copy.extent = cudaExtent{static_cast<std::size_t>(width), static_cast<std::size_t>(height), 1};
    copy.kind = cudaMemcpyDeviceToDevice;
    TANDEM_CUDA_CHECK(cudaMemcpy3DAsync(&copy, stream));
}

GLuint idOf(const Uses::Use& use)
{
    return use.texture ? use.texture->id() : use.buffer->id();
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
    std::uint64_t syncMaps = 0;
    bool mapped = false;
    /// pace()'s frame ends, a ring.
    std::vector<cuda::Event> frameEnds;
    std::size_t nextEnd = 0;
    /// resident()'s uses that need GL's contents first, and their indices.
    Uses sync;
    std::vector<std::size_t> syncIndex;

    /// `use`'s CUDA-resident copy, made now (the GL object's format and size) if it has none.
    static Registrations::Twin& twinOf(const Uses::Use& use);
    /// Gives `twin` the host writes GL's copy got since, on `stream`.
    static void applyPending(Registrations::Twin& twin, cudaStream_t stream);
    /// Copies between a CUDA-resident copy and the mapped GL object (its view entry `i`).
    void copy(Registrations::Twin& twin, std::size_t i, bool toGl, cudaStream_t stream);
};

Registrations::Twin& Handoff::State::twinOf(const Uses::Use& use)
{
    Registrations& owner = *use.owner;
    const bool isBuffer = use.texture == nullptr;
    if (Registrations::Twin* twin = owner.findTwin(idOf(use), isBuffer))
        return *twin;
    Registrations::Twin twin;
    twin.id = idOf(use);
    twin.isBuffer = isBuffer;
    try {
        if (isBuffer) {
            twin.bytes = use.buffer->size();
            if (twin.bytes > 0) {
                twin.memory = cuda::DeviceMemory(twin.bytes, "a buffer's CUDA-resident copy");
                twin.pointer = twin.memory.data();
            }
        } else {
            const ArrayFormat format = arrayFormatOf(*use.texture);
            twin.width = use.texture->width();
            twin.height = use.texture->height();
            twin.bytesPerPixel = format.bytesPerPixel;
            TANDEM_CUDA_CHECK(
                cudaMallocArray(&twin.array, &format.desc, static_cast<std::size_t>(twin.width),
                                static_cast<std::size_t>(twin.height), cudaArraySurfaceLoadStore));
            cudaResourceDesc resource{};
            resource.resType = cudaResourceTypeArray;
            resource.res.array.array = twin.array;
            cudaSurfaceObject_t surface = 0;
            TANDEM_CUDA_CHECK(cudaCreateSurfaceObject(&surface, &resource));
            twin.surface = surface;
        }
    } catch (...) {
        Registrations::release(twin);
        throw;
    }
    owner.m_twins.push_back(std::move(twin));
    return owner.m_twins.back();
}

void Handoff::State::applyPending(Registrations::Twin& twin, cudaStream_t stream)
{
    // From pageable memory: the runtime stages the bytes before the call returns, so they may
    // go; the copy itself stays in the stream's order.
    for (const Registrations::HostWrite& write : twin.pending)
        TANDEM_CUDA_CHECK(cudaMemcpyAsync(static_cast<std::uint8_t*>(twin.pointer) + write.offset,
                                          write.bytes.data(), write.bytes.size(),
                                          cudaMemcpyHostToDevice, stream));
    twin.pending.clear();
}

void Handoff::State::copy(Registrations::Twin& twin, std::size_t i, bool toGl, cudaStream_t stream)
{
    if (twin.isBuffer) {
        const std::size_t bytes = std::min(twin.bytes, view.m_bytes[i]);
        void* mapped = view.m_pointers[i];
        if (bytes > 0)
            TANDEM_CUDA_CHECK(cudaMemcpyAsync(toGl ? mapped : twin.pointer,
                                              toGl ? twin.pointer : mapped, bytes,
                                              cudaMemcpyDeviceToDevice, stream));
        return;
    }
    cudaArray_t mapped = entries[i]->array;
    if (toGl)
        copyArray(mapped, twin.array, twin.width, twin.height, stream);
    else
        copyArray(twin.array, mapped, twin.width, twin.height, stream);
}

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
        // A read of GL's copy that first gets the CUDA-resident copy's newer contents writes it:
        // registered to be written too.
        const Registrations::Twin* twin = use.owner->findTwin(id, !image);
        const bool copiedIn = twin && mappedUse(twin->newer, use.intent).copyToGl;
        const unsigned flags = flagsFor(
            copiedIn && use.intent == Intent::Read ? Intent::ReadWrite : use.intent, image);
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
        // CUDA-resident copies newer than GL's go over before the passes read GL's.
        for (std::size_t i = 0; i < n; ++i) {
            const Uses::Use& use = uses.all()[i];
            Registrations::Twin* twin = use.owner->findTwin(idOf(use), use.texture == nullptr);
            if (!twin)
                continue;
            const Step step = mappedUse(twin->newer, use.intent);
            if (step.copyToGl) {
                // The frame's stream wrote the CUDA copy: a caller's stream waits for it.
                if (stream != s.stream.get()) {
                    s.order.record(s.stream.get());
                    TANDEM_CUDA_CHECK(cudaStreamWaitEvent(stream, s.order.get(), 0));
                }
                if (twin->isBuffer)
                    State::applyPending(*twin, stream);
                s.copy(*twin, i, true, stream);
            }
            twin->newer = step.after;
            // Host writes GL got while frames ran on GL are not kept on: the CUDA copy is
            // brought over whole when a frame resident on CUDA next reads it.
            if (step.after == Newer::Neither && !twin->pending.empty())
                twin->newer = Newer::Gl;
            if (twin->newer == Newer::Gl)
                twin->pending.clear();
        }
    } catch (...) {
        unmap();
        throw;
    }
    return view;
}

const MappedView& Handoff::resident(const Uses& uses)
{
    State& s = *m_state;
    TANDEM_ASSERT(!s.mapped, "interop::Handoff::resident(): mapped");
    const cudaStream_t stream = s.stream.get();
    // GL's contents first where GL wrote last and a pass reads: one map of all of those.
    s.sync.clear();
    s.syncIndex.clear();
    for (std::size_t i = 0; i < uses.all().size(); ++i) {
        const Uses::Use& use = uses.all()[i];
        const Registrations::Twin& twin = State::twinOf(use);
        if (!residentUse(twin.newer, use.intent).copyToCuda)
            continue;
        if (use.texture)
            s.sync.image(*use.texture, *use.owner, use.intent);
        else
            s.sync.buffer(*use.buffer, *use.owner, use.intent);
        s.syncIndex.push_back(i);
    }
    if (!s.sync.empty()) {
        map(s.sync);
        try {
            for (std::size_t k = 0; k < s.syncIndex.size(); ++k) {
                Registrations::Twin& twin = State::twinOf(uses.all()[s.syncIndex[k]]);
                s.copy(twin, k, false, stream);
                twin.pending.clear(); // GL's whole contents include them
            }
        } catch (...) {
            unmap();
            throw;
        }
        unmap();
        ++s.syncMaps;
    }
    MappedView& view = s.view;
    const std::size_t n = uses.all().size();
    view.m_surfaces.assign(n, 0);
    view.m_pointers.assign(n, nullptr);
    view.m_bytes.assign(n, 0);
    view.m_stream = stream;
    for (std::size_t i = 0; i < n; ++i) {
        const Uses::Use& use = uses.all()[i];
        Registrations::Twin& twin = State::twinOf(use);
        const Step step = residentUse(twin.newer, use.intent);
        if (use.intent == Intent::Write)
            twin.pending.clear(); // overwritten whole
        else if (!twin.pending.empty())
            State::applyPending(twin, stream);
        twin.newer = step.copyToCuda ? (use.intent == Intent::Read ? Newer::Neither : Newer::Cuda)
                                     : step.after;
        view.m_surfaces[i] = twin.surface;
        view.m_pointers[i] = twin.pointer;
        view.m_bytes[i] = twin.bytes;
    }
    return view;
}

void Handoff::pace(int framesAhead)
{
    State& s = *m_state;
    const std::size_t depth = static_cast<std::size_t>(std::max(1, framesAhead));
    if (s.frameEnds.size() != depth) {
        s.frameEnds.clear();
        for (std::size_t i = 0; i < depth; ++i)
            s.frameEnds.emplace_back(false);
        s.nextEnd = 0;
    }
    cuda::Event& end = s.frameEnds[s.nextEnd];
    // Recorded `depth` frames ago (or never: done). A throttle, not a stream-sync stall.
    if (!end.isDone()) {
        recordStall(StallCause::Throttle);
        TANDEM_CUDA_CHECK(cudaEventSynchronize(end.get()));
    }
    end.record(s.stream.get());
    s.nextEnd = (s.nextEnd + 1) % depth;
}

bool Handoff::needsGlContents(const Uses& uses) const
{
    for (const Uses::Use& use : uses.all()) {
        const Registrations::Twin* twin = use.owner->findTwin(idOf(use), use.texture == nullptr);
        if (twin ? residentUse(twin->newer, use.intent).copyToCuda : use.intent != Intent::Write)
            return true;
    }
    return false;
}

void Handoff::publish(const Uses& uses)
{
    State& s = *m_state;
    const cudaStream_t stream = s.stream.get();
    for (const Uses::Use& use : uses.all()) {
        Registrations::Twin* twin = use.owner->findTwin(idOf(use), use.texture == nullptr);
        TANDEM_ASSERT(twin, "interop::Handoff::publish(): no CUDA-resident copy");
        if (twin->isBuffer)
            State::applyPending(*twin, stream); // before map() takes GL's as the newer
    }
    map(uses);
    try {
        for (std::size_t i = 0; i < uses.all().size(); ++i) {
            const Uses::Use& use = uses.all()[i];
            Registrations::Twin* twin = use.owner->findTwin(idOf(use), use.texture == nullptr);
            s.copy(*twin, i, true, stream);
            twin->newer = Newer::Neither;
        }
    } catch (...) {
        unmap();
        throw;
    }
    unmap();
}

ResidentImage Handoff::residentImage(const gl::Texture& texture, Registrations& owner)
{
    const Registrations::Twin* twin = owner.findTwin(texture.id(), false);
    if (!twin)
        return {};
    return {twin->array, twin->surface, twin->width, twin->height, twin->bytesPerPixel};
}

std::uint64_t Handoff::syncMaps() const
{
    return m_state->syncMaps;
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
