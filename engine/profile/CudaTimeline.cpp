#include "engine/profile/detail/CudaTimeline.h"

#include <utility>
#include <vector>

#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include "engine/core/Log.h"
#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/Stream.h"
#include "engine/profile/Tracks.h"

namespace tandem::profile::detail {

namespace {

/// Milliseconds from `from` to `to` (both complete); 0, said in the log, if CUDA refuses.
float elapsedBetween(cudaEvent_t from, cudaEvent_t to)
{
    float ms = 0;
    if (const cudaError_t error = cudaEventElapsedTime(&ms, from, to); error != cudaSuccess) {
        log::warning("profile: cudaEventElapsedTime: {}", cudaGetErrorString(error));
        cuda::clearError("cudaEventElapsedTime", error);
    }
    return ms;
}

/// One stream's events in one frame slot: its own pool, so the stream's last event answers
/// for all of them (events on one stream complete in order). Pools keep their events across
/// frames: steady-state scopes create nothing.
struct StreamEvents {
    std::vector<cuda::Event> events; ///< pool, grown on demand
    std::size_t used = 0;
    /// The last recorded event ended a scope (or anchored a handoff) on this stream: the next
    /// scope on it begins there, saving an event (no work is issued in between).
    bool lastIsBoundary = false;
};

/// The time of a CUDA event on the timeline, for spans outside any handoff: `reference`
/// completed at `referenceMs`; `next`, recorded about a second later, becomes the reference
/// once complete (its time from the reference's), so elapsed times stay short and precise.
struct Clock {
    cudaEvent_t reference = nullptr;
    cudaEvent_t next = nullptr;
    double referenceMs = 0;
    bool nextRecorded = false;

    Clock()
    {
        TANDEM_CUDA_CHECK(cudaEventCreate(&reference));
        TANDEM_CUDA_CHECK(cudaEventCreate(&next));
    }
    ~Clock()
    {
        // A failure is logged; the driver unloading at exit is not one.
        for (cudaEvent_t event : {reference, next}) {
            const cudaError_t result = cudaEventDestroy(event);
            cuda::clearError("cudaEventDestroy(profile clock)",
                             result == cudaErrorCudartUnloading ? result : cudaSuccess);
        }
    }
    Clock(const Clock&) = delete;
    Clock& operator=(const Clock&) = delete;

    /// Promotes `next` once complete; never waits.
    void advance()
    {
        if (!nextRecorded)
            return;
        const cudaError_t status = cudaEventQuery(next);
        if (status == cudaErrorNotReady)
            return;
        cuda::check(status, "cudaEventQuery(profile clock)");
        referenceMs += static_cast<double>(elapsedBetween(reference, next));
        std::swap(reference, next);
        nextRecorded = false;
    }
};

} // namespace

struct CudaTimeline::State {
    std::int64_t startNs = 0;
    std::vector<std::vector<StreamEvents>> slots; ///< by slot, by CUDA track
    std::unique_ptr<Clock> clock;                 ///< made on first use outside a handoff

    StreamEvents& streamEvents(std::size_t slot, int track)
    {
        auto& streams = slots[slot];
        if (static_cast<std::size_t>(track) >= streams.size())
            streams.resize(static_cast<std::size_t>(track) + 1);
        return streams[static_cast<std::size_t>(track)];
    }
    EventRef record(std::size_t slot, int track, void* stream)
    {
        StreamEvents& s = streamEvents(slot, track);
        if (s.used == s.events.size())
            s.events.emplace_back(true);
        s.events[s.used].record(static_cast<cudaStream_t>(stream));
        s.lastIsBoundary = false;
        return {track, s.used++};
    }
    cudaEvent_t event(std::size_t slot, EventRef ref) const
    {
        return slots[slot][static_cast<std::size_t>(ref.track)].events[ref.index].get();
    }
    double nowMs() const { return static_cast<double>(steadyNs() - startNs) * 1e-6; }
};

CudaTimeline::CudaTimeline(std::size_t slots, std::int64_t startNs)
    : m_state(std::make_unique<State>())
{
    m_state->startNs = startNs;
    m_state->slots.resize(slots);
}

CudaTimeline::~CudaTimeline() = default;

bool CudaTimeline::isAvailable()
{
    return true;
}

void CudaTimeline::resetSlot(std::size_t slot)
{
    for (StreamEvents& stream : m_state->slots[slot]) {
        stream.used = 0;
        stream.lastIsBoundary = false;
    }
}

void CudaTimeline::breakBoundaries(std::size_t slot)
{
    for (StreamEvents& stream : m_state->slots[slot])
        stream.lastIsBoundary = false;
}

EventRef CudaTimeline::begin(std::size_t slot, int track, void* stream, bool shareBoundary)
{
    StreamEvents& events = m_state->streamEvents(slot, track);
    if (shareBoundary && events.lastIsBoundary && events.used > 0) {
        events.lastIsBoundary = false;
        return {track, events.used - 1};
    }
    return m_state->record(slot, track, stream);
}

EventRef CudaTimeline::boundary(std::size_t slot, int track, void* stream)
{
    const EventRef ref = m_state->record(slot, track, stream);
    m_state->streamEvents(slot, track).lastIsBoundary = true;
    return ref;
}

bool CudaTimeline::isComplete(std::size_t slot) const
{
    for (const StreamEvents& stream : m_state->slots[slot])
        if (stream.used > 0 && !stream.events[stream.used - 1].isDone())
            return false;
    return true;
}

float CudaTimeline::elapsedMs(std::size_t slot, EventRef from, EventRef to) const
{
    return elapsedBetween(m_state->event(slot, from), m_state->event(slot, to));
}

bool CudaTimeline::prepareClock(void* stream, double nowMs)
{
    const auto s = static_cast<cudaStream_t>(stream);
    bool calibrated = false;
    if (!m_state->clock) {
        // The reference event must complete as soon as it is recorded: the device drained
        // first (the legacy default stream also waits for other streams). On a drained device
        // the event completes as soon as it is submitted, within its record call: the call's
        // midpoint, from a call that returned quickly (the first ones can take hundreds of
        // microseconds; so can waking up from the synchronize).
        m_state->clock = std::make_unique<Clock>();
        Clock& clock = *m_state->clock;
        for (int attempt = 0; attempt < 16; ++attempt) {
            TANDEM_CUDA_CHECK(cudaDeviceSynchronize());
            const double before = m_state->nowMs();
            TANDEM_CUDA_CHECK(cudaEventRecord(clock.reference, s));
            const double after = m_state->nowMs();
            TANDEM_CUDA_CHECK(cudaEventSynchronize(clock.reference));
            clock.referenceMs = 0.5 * (before + after);
            if (after - before < 0.01)
                break;
        }
        calibrated = true;
        nowMs = m_state->nowMs();
    }
    Clock& clock = *m_state->clock;
    if (!clock.nextRecorded && nowMs - clock.referenceMs > 1000.0) {
        TANDEM_CUDA_CHECK(cudaEventRecord(clock.next, s));
        clock.nextRecorded = true;
    }
    return calibrated;
}

double CudaTimeline::clockTime(std::size_t slot, EventRef event)
{
    Clock& clock = *m_state->clock;
    clock.advance();
    return clock.referenceMs +
           static_cast<double>(elapsedBetween(clock.reference, m_state->event(slot, event)));
}

void CudaTimeline::pushRange(const char* name)
{
    nvtxRangePushA(name);
}

void CudaTimeline::popRange()
{
    nvtxRangePop();
}

void CudaTimeline::synchronizeDevice()
{
    if (const cudaError_t error = cudaDeviceSynchronize(); error != cudaSuccess) {
        log::warning("profile: flush: cudaDeviceSynchronize: {}", cudaGetErrorString(error));
        cuda::clearError("cudaDeviceSynchronize", error);
    }
}

} // namespace tandem::profile::detail
