// Frame output that never stalls the GPU: each frame's image is read into the next slot of a
// ring of persistent-mapped pixel-pack buffers (glReadPixels / glGetTextureSubImage into the
// buffer, then a fence), or, from a frame resident on CUDA, copied into the slot's pinned memory
// on a copy stream (then a CUDA event), and handed on frames later, once its fence or event has
// signalled, without waiting. Whoever takes a frame (frame::FrameWriter's workers) copies it out
// (or writes it straight from the slot: raw PAM) and releases the slot from its own thread. Render
// thread (release(): any thread).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include <memory>

#include "engine/core/Yuv.h"
#include "engine/gl/Buffer.h"
#include "engine/gl/Fence.h"
#include "engine/interop/Handoff.h"

namespace tandem::gl {
class Texture;
}
namespace tandem::interop {
class ResidentReadback;
}

namespace tandem::frame {

/// Pixel layout of a read-back frame.
enum class PixelFormat {
    Rgba8,  ///< 4 bytes per pixel
    Rgba16, ///< 4 × 16-bit unorm per pixel (from an RGBA16F colour target, linear, clamped to
            ///< [0, 1])
    Yuv420, ///< YCbCr 4:2:0 planes as a JPEG encoder takes them (core/Yuv.h's Yuv420Layout,
            ///< rows top to bottom), converted on the GPU (readResident() only)
};

/// A frame the GPU has finished reading back: valid until its slot is released.
struct ReadyFrame {
    std::uint64_t index = 0; ///< the number given to read*()
    int width = 0;
    int height = 0;
    PixelFormat format = PixelFormat::Rgba8;
    const std::uint8_t* pixels = nullptr; ///< rows bottom to top (GL's order), tightly packed;
                                          ///< Yuv420: the planes
    int slot = -1;

    /// A row's bytes (RGBA formats).
    std::size_t rowBytes() const
    {
        return static_cast<std::size_t>(width) * (format == PixelFormat::Rgba8 ? 4 : 8);
    }
    /// The frame's bytes.
    std::size_t bytes() const
    {
        return format == PixelFormat::Yuv420 ? Yuv420Layout{width, height}.bytes()
                                             : rowBytes() * static_cast<std::size_t>(height);
    }
};

class OutputRing {
public:
    /// Called with each frame ready, oldest first; it must call release(frame.slot) once it is
    /// done with the pixels (from any thread, any time).
    using Sink = std::function<void(const ReadyFrame&)>;

    /// A ring of `depth` slots (at least 2); buffers are allocated on first use and grown when a
    /// frame is larger.
    explicit OutputRing(int depth);
    /// Expects every slot released (drain() first); waits for ones that are not.
    ~OutputRing();
    OutputRing(const OutputRing&) = delete;
    OutputRing& operator=(const OutputRing&) = delete;

    /// Queues the read-back of the RGBA8 colour of `framebuffer` (0: the window's back buffer),
    /// region `width`×`height` from the bottom left, as frame `index`. Frames that became ready
    /// meanwhile go to `sink` first. Never waits for the GPU unless all slots are still being
    /// read (the CPU a full ring ahead: it waits for the oldest, counted as a throttle, not a
    /// stall: the GPU still has the newer frames queued); waits for a slot whose frame a
    /// consumer has not released yet (counted in consumerWaits(): CPU work, not the GPU).
    void readFramebuffer(GLuint framebuffer, int width, int height, std::uint64_t index,
                         const Sink& sink);
    /// The same for a texture's region, as RGBA8 or RGBA16 (the texture's format converted by
    /// GL).
    void readTexture(const gl::Texture& texture, int width, int height, PixelFormat format,
                     std::uint64_t index, const Sink& sink);
    /// The same for the RGBA8 CUDA-resident copy `image` of a frame resident on CUDA, written on
    /// `stream` (a cudaStream_t): a copy on the ring's copy stream into the slot's pinned
    /// memory, ordered by CUDA events (the first such read makes the stream, CUDA builds
    /// only). Frames of either kind come out in the order they were read. As Yuv420 (`format`),
    /// the image crosses as the YCbCr planes a CUDA pass makes of it.
    void readResident(const interop::ResidentImage& image, void* stream, int width, int height,
                      std::uint64_t index, const Sink& sink,
                      PixelFormat format = PixelFormat::Rgba8);
    /// The copy stream of readResident() (a cudaStream_t), null before the first.
    void* copyStream() const;
    /// Hands every frame whose read-back has finished to `sink`, oldest first. Never waits.
    void collect(const Sink& sink);
    /// Waits for every queued read-back (a counted finish stall, if it had to wait) and hands
    /// them to `sink`: the end of a run.
    void drain(const Sink& sink);
    /// Hands on what has finished (collect()) and says whether the next read would start at
    /// once: its slot neither still being read nor held by a consumer. For a consumer that
    /// would rather skip a frame than wait (the browser view). Never waits.
    bool hasFreeSlot(const Sink& sink);
    /// Gives slot `slot` back once its pixels are copied. Thread-safe.
    void release(int slot);

    int depth() const { return static_cast<int>(m_slots.size()); }
    /// Frames read back so far.
    std::uint64_t framesRead() const { return m_read; }
    /// Times read*() waited for a consumer to release a slot.
    std::uint64_t consumerWaits() const { return m_consumerWaits; }

private:
    enum class State { Free, Reading, Handed };
    struct Slot {
        gl::Buffer buffer{gl::NoCreate};
        gl::Fence fence;
        void* pinned = nullptr; ///< readResident()'s memory
        std::size_t pinnedBytes = 0;
        bool resident = false; ///< read by readResident(): done when its CUDA event is
        State state = State::Free;
        ReadyFrame frame;
    };
    /// Whether the slot's read-back is done (never waits).
    bool isDone(const Slot& slot) const;
    /// Waits for the slot's read-back, counted as `cause` if it had to.
    void wait(Slot& slot, StallCause cause);
    /// The slot for the next read: every older frame handed on, the slot free.
    Slot& acquire(const Sink& sink);
    void hand(Slot& slot, const Sink& sink);
    void prepare(Slot& slot, std::size_t bytes);

    std::vector<Slot> m_slots;
    std::unique_ptr<interop::ResidentReadback> m_resident;
    std::size_t m_next = 0;   ///< the slot the next read goes into
    std::size_t m_oldest = 0; ///< the oldest slot still reading
    std::uint64_t m_read = 0;
    std::uint64_t m_consumerWaits = 0;
    std::mutex m_mutex;
    std::condition_variable m_released;
};

} // namespace tandem::frame
