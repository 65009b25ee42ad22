// The CUDA registrations of one owner's GL textures and buffers (a G-buffer, a scene's vertex
// buffers). The owner declares it after the GL objects, so it dies first, and calls clear() in
// the same function that reallocates them: a registration never outlives its GL object and no
// app orders teardown by hand. The frame's handoff fills it (registering each resource once,
// with flags from the intent passes declare) and maps it. No CUDA types here. Render thread.
#pragma once

#include <cstdint>
#include <vector>

struct cudaGraphicsResource;
struct cudaArray;

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
    /// on them). Call before the GL objects are reallocated or destroyed. Expects them unmapped.
    /// Never throws; failures are logged.
    void clear() noexcept;

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
    /// Unregisters one entry (and destroys its surface object).
    static void release(Entry& entry) noexcept;

    std::vector<Entry> m_entries;
    std::uint64_t m_made = 0;
};

} // namespace tandem::interop
