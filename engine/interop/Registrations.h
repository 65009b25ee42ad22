// The CUDA side of one owner's GL textures and buffers (a G-buffer, a scene's vertex buffers):
// their registrations, and the CUDA-resident copies a frame without a handoff uses instead (a
// CUDA array or device buffer of the same format and size each, made on first such use, kept
// coherent with GL's by interop/Coherence.h's rules). The owner declares it after the GL
// objects, so it dies first, and calls clear() in the same function that reallocates them: a
// registration never outlives its GL object and no app orders teardown by hand; it tells it
// when GL writes them (wroteByGl(), wroteFromHost()). The frame's handoff fills it (registering
// each resource once, with flags from the intent passes declare) and maps it. No CUDA types
// here. Render thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/cuda/DeviceMemory.h"
#include "engine/interop/Coherence.h"

struct cudaGraphicsResource;
struct cudaArray;

namespace tandem::gl {
class Buffer;
}

namespace tandem::interop {

class Registrations {
public:
    Registrations() = default;
    /// Unregisters everything (see clear()).
    ~Registrations();
    Registrations(Registrations&& other) noexcept;
    Registrations& operator=(Registrations&& other) noexcept;
    Registrations(const Registrations&) = delete;
    Registrations& operator=(const Registrations&) = delete;

    /// Unregisters every resource (cudaGraphicsUnregisterResource, which waits for CUDA work
    /// on them) and frees their CUDA-resident copies (after the device's work on them). Call
    /// before the GL objects are reallocated or destroyed. Expects them unmapped. Never throws;
    /// failures are logged.
    void clear() noexcept;

    /// GL drew into (or otherwise wrote) these objects: their CUDA-resident copies, if any, are
    /// stale until a frame resident on CUDA reads them (then brought up to date in one map).
    void wroteByGl() noexcept;
    /// GL's copy of `buffer` was just written from host memory (`bytes` at `offset`): its
    /// CUDA-resident copy, if any, gets the same bytes, kept here until CUDA next uses it (a
    /// stream-ordered copy then, not a map). Objects without a CUDA-resident copy: nothing.
    void wroteFromHost(const gl::Buffer& buffer, std::size_t offset, const void* data,
                       std::size_t bytes);
    /// Whether a CUDA-resident copy is newer than GL's (GL must not draw from it before a map
    /// brings it over).
    bool cudaIsNewer() const noexcept;
    /// Whether `buffer`'s CUDA-resident copy is newer than GL's.
    bool cudaIsNewer(const gl::Buffer& buffer) const noexcept;
    /// CUDA-resident copies held now (tests).
    std::size_t residentCopies() const noexcept { return m_twins.size(); }

    /// Whether any of these resources is mapped into CUDA now (GL must not touch them then).
    bool isMapped() const noexcept;
    /// Resources registered now.
    std::size_t size() const noexcept { return m_entries.size(); }
    /// Registrations made since construction (a registration again after clear() counts).
    std::uint64_t registrationsMade() const noexcept { return m_made; }

private:
    friend class Handoff;
    struct Entry {
        std::uint32_t id = 0;                     ///< GL name
        bool isBuffer = false;                    ///< a buffer, else a 2D texture
        unsigned flags = 0;                       ///< cudaGraphicsRegisterFlags*
        cudaGraphicsResource* resource = nullptr; ///< the registration
        cudaArray* array = nullptr;               ///< images: the array last mapped
        std::uint64_t surface = 0;                ///< images: a surface object over it
        bool mapped = false;
    };
    /// Host bytes GL's copy got that the CUDA copy has yet to.
    struct HostWrite {
        std::size_t offset = 0;
        std::vector<std::uint8_t> bytes;
    };
    /// The CUDA-resident copy of one GL object.
    struct Twin {
        std::uint32_t id = 0; ///< GL name
        bool isBuffer = false;
        cuda::DeviceMemory memory; ///< buffers: device memory
        void* pointer = nullptr;   ///< memory's, null for an empty buffer
        std::size_t bytes = 0;
        cudaArray* array = nullptr; ///< images: a surface load/store array
        std::uint64_t surface = 0;
        int width = 0, height = 0, bytesPerPixel = 0;
        Newer newer = Newer::Gl; ///< a new copy holds nothing yet
        std::vector<HostWrite> pending;
    };
    /// Unregisters one entry (and destroys its surface object).
    static void release(Entry& entry) noexcept;
    /// Frees one CUDA-resident copy.
    static void release(Twin& twin) noexcept;
    Twin* findTwin(std::uint32_t id, bool isBuffer) noexcept;

    std::vector<Entry> m_entries;
    std::vector<Twin> m_twins;
    std::uint64_t m_made = 0;
};

} // namespace tandem::interop
