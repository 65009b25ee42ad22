// Frame output read back from a frame resident on CUDA: each frame's image copied from its
// CUDA-resident copy into pinned host memory on a copy stream of its own, ordered after the
// frame's stream by an event, with one completion event per slot (frame::OutputRing's CUDA
// slots; no GL fence, no map). The frame's stream then waits, on the GPU, for the copy before
// anything after it writes the image again. No CUDA types here. CUDA builds only (the stub's
// constructor throws). Render thread.
#pragma once

#include <memory>

#include "engine/interop/Handoff.h"

namespace tandem::interop {

class ResidentReadback {
public:
    /// A copy stream and `slots` completion events. Throws CudaError, or Error without CUDA.
    explicit ResidentReadback(int slots);
    /// Waits for the copies in flight. Never throws.
    ~ResidentReadback();
    ResidentReadback(const ResidentReadback&) = delete;
    ResidentReadback& operator=(const ResidentReadback&) = delete;

    /// Copies the `width`×`height` region from the bottom left of `image` (rows bottom to top,
    /// as GL's) into `destination` (pinned, rows tightly packed) as slot `slot`'s copy, once
    /// `stream` (the cudaStream_t that wrote the image) has reached this point. Throws CudaError.
    void copy(int slot, const ResidentImage& image, int width, int height, void* destination,
              void* stream);
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
