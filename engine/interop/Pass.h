// What runs between a frame's GL passes on the GL resources the frame shares with CUDA: the
// intent a pass declares for each resource, the view of the mapped resources it is handed, the
// hooks it reports its stages to, and the pass interface itself. Passes never map anything: the
// frame (engine/frame) maps everything its passes declared in one call. No CUDA types here:
// surfaces are cudaSurfaceObject_t values as std::uint64_t, pointers and streams are void*.
// Render thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/EnumTable.h"

namespace tandem::gl {
class Texture;
class Buffer;
} // namespace tandem::gl

namespace tandem::interop {

class Registrations;

/// Where passes run: CUDA inside the frame's handoff, or on the host (read back, process,
/// upload) where GL↔CUDA interop cannot work.
enum class Path { Cuda, Host };

/// The paths' names (reports, the overlay).
inline constexpr EnumTable<Path, 2> Paths{
    "pass path",
    {{{Path::Cuda, "cuda", "inside the frame's GL-CUDA handoff"},
      {Path::Host, "host", "on CPU threads: read back, process, upload"}}}};

/// What CUDA does with a resource during the handoff. The registration flags follow from it.
enum class Intent {
    Read,      ///< only reads it (registered ReadOnly)
    Write,     ///< overwrites all of it (WriteDiscard: GL's old contents need not be kept)
    ReadWrite, ///< reads and writes it (no flag; a buffer so registered serves every intent)
};

/// A declared image or buffer: an index into the frame's declarations.
struct ImageRef {
    int index = -1;
};
struct BufferRef {
    int index = -1;
};

/// The resources a frame's CUDA passes declared, gathered before the one map.
class Uses {
public:
    /// One declared resource.
    struct Use {
        const gl::Texture* texture = nullptr; ///< set for images
        const gl::Buffer* buffer = nullptr;   ///< set for buffers
        Registrations* owner = nullptr; ///< holds the registration, owned beside the GL object
        Intent intent = Intent::Read;
    };

    /// Declares `texture` for CUDA with `intent`; `owner` holds its registration (declared after
    /// the texture by whoever owns both). A resource declared twice gets the union of both
    /// intents and the same reference.
    ImageRef image(const gl::Texture& texture, Registrations& owner, Intent intent);
    /// Declares `buffer` likewise.
    BufferRef buffer(const gl::Buffer& buffer, Registrations& owner, Intent intent);
    /// Forgets every declaration (keeps capacity).
    void clear() { m_uses.clear(); }

    const std::vector<Use>& all() const { return m_uses; }
    bool empty() const { return m_uses.empty(); }

private:
    int find(const void* object) const;

    std::vector<Use> m_uses;
};

/// The frame's declared resources while they are mapped: surfaces of images, device pointers
/// of buffers, and the stream every pass enqueues on. Valid only inside the handoff.
class MappedView {
public:
    /// The cudaSurfaceObject_t of a declared image (mip level 0), for surf2Dread/surf2Dwrite.
    std::uint64_t surface(ImageRef image) const;
    /// The device address of a declared buffer.
    void* pointer(BufferRef buffer) const;
    /// Its size in bytes.
    std::size_t bytes(BufferRef buffer) const;
    /// The frame's CUDA stream (a cudaStream_t).
    void* stream() const { return m_stream; }

private:
    friend class Handoff;
    std::vector<std::uint64_t> m_surfaces;
    std::vector<void*> m_pointers;
    std::vector<std::size_t> m_bytes;
    void* m_stream = nullptr;
};

/// What a pass reports while it runs, so the frame can time and name each stage (profiler
/// spans, NVTX ranges, KHR_debug groups) without the pass knowing either. Names are static
/// strings.
class PassHooks {
public:
    virtual ~PassHooks() = default;
    /// A stage starts; `stream` is the cudaStream_t it runs on, null for host work.
    virtual void beginStage(const char* name, void* stream) = 0;
    virtual void endStage(const char* name, void* stream) = 0;
};

/// A pass between the frame's GL passes. CUDA passes declare their resources and enqueue work
/// inside the frame's one handoff; host passes run on the GL side (they read back and upload,
/// and may block).
class Pass {
public:
    virtual ~Pass() = default;
    /// Its name in timings, traces and captures (static storage).
    virtual const char* name() const = 0;
    /// Whether it runs this frame.
    virtual bool isEnabled() const = 0;
    /// Which side it runs on.
    virtual Path path() const = 0;
    /// CUDA passes: declares what it reads and writes this frame. Called before the map.
    virtual void declare(Uses& uses) { (void)uses; }
    /// CUDA passes: enqueues work on view->stream(); must not block. Host passes: `view` is
    /// null; runs on the render thread with the GL context current.
    virtual void run(const MappedView* view, PassHooks& hooks) = 0;
};

} // namespace tandem::interop
