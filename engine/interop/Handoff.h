// The frame's one GL↔CUDA window: registers what the frame's CUDA passes declared (once per
// resource, again only after its owner reallocated it), maps everything in ONE
// cudaGraphicsMapResources call on the frame's stream, hands out the mapped view, and unmaps
// in ONE call. Only engine/frame creates one. Why one: on an H200 (driver 580.159, 2026-11) a
// map+unmap round trip cost ~325 µs of GPU time whatever the image size; four separate pairs
// cost 3.8× one batched pair. CUDA builds only (a stub elsewhere throws). Render thread, the GL
// context current.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/interop/Pass.h"

namespace tandem::gl {
class Texture;
}

namespace tandem::interop {

class Registrations;

/// The CUDA-resident copy of an image, for copies out of it (frame output read back on a copy
/// stream): a cudaArray_t, its size and pixel size. Null `array`: there is none.
struct ResidentImage {
    const void* array = nullptr;
    std::uint64_t surface = 0; ///< a cudaSurfaceObject_t of `array`
    int width = 0;
    int height = 0;
    int bytesPerPixel = 0;
};

class Handoff {
public:
    /// Creates the frame's CUDA stream on the current device. Throws CudaError, or Error in a
    /// build without CUDA.
    Handoff();
    /// Unmaps if still mapped.
    ~Handoff();
    Handoff(const Handoff&) = delete;
    Handoff& operator=(const Handoff&) = delete;

    /// Registers each declared resource that its owner does not hold registered with the flags
    /// its intent needs, then maps all of them in one call on the frame's stream. Written images
    /// get " [written by CUDA]" appended to their GL label, for tools that do not see CUDA.
    /// Expects nothing mapped. Throws CudaError. Does not block.
    const MappedView& map(const Uses& uses);
    /// The same on `stream` (a cudaStream_t as given: null is the legacy default stream), for
    /// work that runs on its caller's stream (a PyTorch stream): the view hands out that stream.
    const MappedView& map(const Uses& uses, void* stream);
    /// Copies a mapped image (the whole texture, GL's row order) to host memory and waits for
    /// it: a counted stall, for frames a capture tool records (it does not see CUDA's writes).
    void copyToHost(const Uses& uses, ImageRef image, std::vector<std::uint8_t>& out);
    /// Unmaps everything in one call on the frame's stream. Never throws; failures are logged.
    void unmap() noexcept;
    /// Unmaps on `stream` (as given: null is the legacy default stream) after the work queued
    /// on the stream it was mapped on (an event between the two when they differ): a handoff
    /// kept mapped between calls whose callers use different streams. Never throws; failures
    /// are logged.
    void unmap(void* stream) noexcept;

    /// A frame without a handoff: the view holds each declared resource's CUDA-resident copy
    /// (made on first use with the GL object's format and size, kept by its owner's
    /// Registrations) instead of GL's, on the frame's stream; nothing is mapped and GL keeps
    /// working meanwhile. Copies whose GL side is newer and that a pass reads are brought up to
    /// date first: host writes GL got as a stream-ordered copy, GL's own contents in one map of
    /// those resources (counted in syncMaps(); once after GL drew them, never in steady state).
    /// Expects nothing mapped. Throws CudaError.
    const MappedView& resident(const Uses& uses);
    /// Ends a frame resident on CUDA that nothing else paces (headless, not presented, nothing
    /// read back): marks its end on the frame's stream and waits until the frame
    /// `framesAhead` back has finished, counted as a throttle (not a stall: the GPU keeps the
    /// newer frames queued), so the CPU never runs unboundedly ahead of the GPU.
    void pace(int framesAhead);
    /// Whether resident(`uses`) would map to bring GL's contents over first.
    bool needsGlContents(const Uses& uses) const;
    /// Copies the CUDA-resident copies of `uses` into GL's objects in one map on the frame's
    /// stream (GL then shows them: a window's present); counts as a handoff for the caller.
    /// Expects each to have a CUDA-resident copy. Throws CudaError.
    void publish(const Uses& uses);
    /// The CUDA-resident copy of `texture` under `owner` (null array: none).
    static ResidentImage residentImage(const gl::Texture& texture, Registrations& owner);
    /// Maps resident() made to bring CUDA-resident copies up to date from GL.
    std::uint64_t syncMaps() const;

    bool isMapped() const;
    /// The frame's stream (a cudaStream_t).
    void* stream() const;
    /// Waits for the frame's stream. Blocks (counted as a stall).
    void synchronize();
    /// Registrations this handoff made (re-registrations included).
    std::uint64_t registrationsMade() const;

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace tandem::interop
