// Frame output read back from a frame resident on CUDA: the frame's stream copies its image into
// the next of three linear device buffers (a device-to-device copy; for JPEG, a CUDA pass
// reading the image's array writes its YCbCr planes there instead) and goes on; a copy stream of
// its own, ordered after it by an event, takes the buffer into pinned host memory, with one
// completion event per slot (frame::OutputRing's CUDA slots; no GL fence, no map). So the next
// frames render while one crosses to the host; the frame's stream waits, on the GPU, only to
// refill a buffer whose crossing (three frames back) is still going. No CUDA types here. CUDA
// builds only (the stub's constructor throws). Render thread.
#pragma once

#include <memory>

#include "engine/interop/Handoff.h"

namespace tandem::interop {

class ResidentReadback {
public:
    /// A copy stream and `slots` completion events (the staging buffers come with the first
    /// copy, and grow with the image). Throws CudaError, or Error without CUDA.
    explicit ResidentReadback(int slots);
    /// Waits for the copies in flight. Never throws.
    ~ResidentReadback();
    ResidentReadback(const ResidentReadback&) = delete;
    ResidentReadback& operator=(const ResidentReadback&) = delete;

    /// Copies the `width`×`height` region from the bottom left of `image` (rows bottom to top,
    /// as GL's) into `destination` (pinned, rows tightly packed) as slot `slot`'s copy, once
    /// `stream` (the cudaStream_t that wrote the image) has reached this point; `stream` may write
    /// the image again at once. Blocks only when the image has grown past a staging buffer whose
    /// last crossing is still going (it waits for that one). With `yuv420`, an RGBA8 image
    /// crosses as its YCbCr 4:2:0 planes (interop/Yuv420.h: a tandem::Yuv420Layout, rows top to
    /// bottom), converted on the frame's stream. Throws CudaError.
    void copy(int slot, const ResidentImage& image, int width, int height, void* destination,
              void* stream, bool yuv420 = false);
    /// Whether slot `slot`'s copy is done. Never blocks.
    bool isDone(int slot) const;
    /// Waits for slot `slot`'s copy. Blocks (the caller counts it).
    void wait(int slot) const;
    /// The copy stream (a cudaStream_t), for the profiler's track name.
    void* stream() const;

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace tandem::interop
