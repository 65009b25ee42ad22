// The CUDA half of the profiler: for each frame slot, one pool of timing events per stream (a
// stream's last event answers for its pool: events on one stream complete in order); the clock
// that places events recorded outside any handoff on the timeline; NVTX ranges. Plain types
// only (streams as void*, events by pool and index): CudaTimeline.cpp is the CUDA side,
// CudaTimelineStub.cpp the build without CUDA, where nothing is recorded. Private to profile/.
// Render thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace tandem::profile::detail {

/// One event of a slot: its stream's track (which pool) and its index there.
struct EventRef {
    int track = -1;
    std::size_t index = 0;
};

class CudaTimeline {
public:
    /// `slots` frame slots on a timeline that started at `startNs` (steady clock).
    CudaTimeline(std::size_t slots, std::int64_t startNs);
    ~CudaTimeline();
    CudaTimeline(const CudaTimeline&) = delete;
    CudaTimeline& operator=(const CudaTimeline&) = delete;

    /// Whether this build records CUDA events; without, every call below is a no-op.
    static bool isAvailable();

    /// A new frame in `slot`: its pools are reused from their start.
    void resetSlot(std::size_t slot);
    /// A handoff begins: no scope after this begins at an event recorded before it (the stream
    /// may have idled since).
    void breakBoundaries(std::size_t slot);
    /// An event where a scope begins on `stream` (`track`): the last one of the track when it
    /// ended a scope with nothing issued since and `shareBoundary`, else a new one recorded now.
    EventRef begin(std::size_t slot, int track, void* stream, bool shareBoundary);
    /// Records an event on `stream` that ends a scope or anchors a handoff: the next scope on
    /// the track may begin there.
    EventRef boundary(std::size_t slot, int track, void* stream);
    /// Whether every event recorded in `slot` has completed (cudaEventQuery; never waits).
    bool isComplete(std::size_t slot) const;
    /// Milliseconds from `from` to `to`, both of `slot` and complete; 0, said in the log, if
    /// CUDA refuses.
    float elapsedMs(std::size_t slot, EventRef from, EventRef to) const;

    /// For a scope outside any handoff on `stream`: measures the clock on first use (waits for
    /// the device to drain: returns true, and the caller counts a calibration) and records the
    /// clock's next reference event about once a second. `nowMs`: the timeline's time.
    bool prepareClock(void* stream, double nowMs);
    /// The timeline time of `event` (complete) through the clock, ms. Moves the clock's
    /// reference on when its next one has completed; never waits.
    double clockTime(std::size_t slot, EventRef event);

    /// An NVTX range of `name` (nvtxRangePushA) and its end.
    void pushRange(const char* name);
    void popRange();
    /// Waits for the device to finish (flush); a failure is logged. Blocks.
    void synchronizeDevice();

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace tandem::profile::detail
