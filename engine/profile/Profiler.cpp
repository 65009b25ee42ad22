#include "engine/profile/Profiler.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <glad/gl.h>

#include "engine/core/Error.h"
#include "engine/core/Log.h"
#include "engine/gl/Query.h"

#ifdef TANDEM_HAS_CUDA
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/Stream.h"
#endif

namespace tandem::profile {

namespace {

std::int64_t steadyNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

#ifdef TANDEM_HAS_CUDA
constexpr std::size_t NoHandoff = ~std::size_t{0};

/// Milliseconds from `from` to `to` (both complete); 0, said in the log, if CUDA refuses.
float elapsedMs(cudaEvent_t from, cudaEvent_t to)
{
    float ms = 0;
    if (const cudaError_t error = cudaEventElapsedTime(&ms, from, to); error != cudaSuccess) {
        log::warning("profile: cudaEventElapsedTime: {}", cudaGetErrorString(error));
        cuda::clearError("cudaEventElapsedTime", error);
    }
    return ms;
}
#endif

} // namespace

CpuTrack::CpuTrack(int index, const char* name, std::int64_t startNs, bool recording)
    : m_index(index), m_name(name), m_startNs(startNs), m_recording(recording)
{}

double CpuTrack::nowMs() const
{
    return static_cast<double>(steadyNs() - m_startNs) * 1e-6;
}

void CpuTrack::record(const char* name, double startMs, double endMs)
{
    const std::lock_guard lock(m_mutex);
    m_pending.push_back({name, Api::Cpu, m_index, startMs, endMs});
}

void CpuTrack::drainInto(std::vector<Span>& out)
{
    {
        // Swapping keeps both buffers' capacity: recording stays allocation-free.
        const std::lock_guard lock(m_mutex);
        if (m_pending.empty())
            return;
        m_pending.swap(m_draining);
    }
    out.insert(out.end(), m_draining.begin(), m_draining.end());
    m_draining.clear();
}

/// One frame in flight: its queries, events and CPU times, reused ring-wise. Every vector
/// keeps its capacity across frames (clear(), not reallocation), so steady-state scopes only
/// write into storage that exists.
struct Profiler::Slot {
    struct GlSpan {
        const char* name;
        std::size_t begin, end; ///< query indices
    };
    struct CudaSpan {
        const char* name;
        int track;              ///< the stream's track: which pool the indices point into
        std::size_t begin, end; ///< event indices in that pool
        std::size_t handoff;    ///< the handoff whose anchor places it (NoHandoff: none)
    };
    struct Handoff {
        std::size_t glBegin = 0, glEnd = 0; ///< query indices
        int anchorTrack = -1;               ///< the anchor's stream track (-1: no anchor)
        std::size_t anchor = 0;             ///< event index in that stream's pool
    };

    bool pending = false;
    std::uint64_t frame = 0;
    /// The last timestamp ended a scope (or began the frame), so the next scope begins there.
    /// Each timestamp costs GPU time (a pipeline sync point).
    bool lastStampIsBoundary = false;
    std::vector<gl::Query> queries; ///< pool, grown on demand
    std::size_t queriesUsed = 0;
#ifdef TANDEM_HAS_CUDA
    /// One stream's events in this frame: its own pool, so the stream's last event answers
    /// for all of them (events on one stream complete in order).
    struct StreamEvents {
        std::vector<cuda::Event> events; ///< pool, grown on demand
        std::size_t used = 0;
        /// The last recorded event ended a scope (or anchored a handoff) on this stream: the
        /// next scope on it begins there, saving an event (no work is issued in between).
        bool lastIsBoundary = false;
    };
    std::vector<StreamEvents> streams; ///< by CUDA track, grown when a stream first appears
#endif
    std::vector<GlSpan> glSpans;
    std::vector<CudaSpan> cudaSpans;
    std::vector<Handoff> handoffs;
    std::vector<Span> cpuSpans; ///< the render thread's, then the thread tracks' at the end
    std::vector<std::pair<const char*, double>> counters;
    std::size_t frameBegin = 0, frameEnd = 0;
    double cpuStart = 0, cpuEnd = 0;
    std::array<std::uint64_t, StallCauseCount> stallsAtStart{};
    std::array<std::uint64_t, StallCauseCount> stalls{};

    void reset(std::uint64_t index)
    {
        pending = false;
        frame = index;
        queriesUsed = 0;
        lastStampIsBoundary = false;
#ifdef TANDEM_HAS_CUDA
        for (auto& stream : streams) {
            stream.used = 0;
            stream.lastIsBoundary = false;
        }
#endif
        glSpans.clear();
        cudaSpans.clear();
        handoffs.clear();
        cpuSpans.clear();
        counters.clear();
    }
    /// A timestamp where a scope begins: the previous boundary if nothing came between.
    std::size_t beginStamp()
    {
        if (lastStampIsBoundary && queriesUsed > 0) {
            lastStampIsBoundary = false;
            return queriesUsed - 1;
        }
        return stamp();
    }
    /// A timestamp where a scope ends (the next scope may begin at it).
    std::size_t endStamp()
    {
        const std::size_t index = stamp();
        lastStampIsBoundary = true;
        return index;
    }
    std::size_t stamp()
    {
        lastStampIsBoundary = false;
        if (queriesUsed == queries.size())
            queries.emplace_back(GL_TIMESTAMP, "profile.timestamp");
        queries[queriesUsed].timestamp();
        return queriesUsed++;
    }
#ifdef TANDEM_HAS_CUDA
    StreamEvents& streamEvents(int track)
    {
        if (static_cast<std::size_t>(track) >= streams.size())
            streams.resize(static_cast<std::size_t>(track) + 1);
        return streams[static_cast<std::size_t>(track)];
    }
    /// Records the next event of `track`'s pool on `stream`; returns its index.
    std::size_t event(int track, void* stream)
    {
        StreamEvents& s = streamEvents(track);
        if (s.used == s.events.size())
            s.events.emplace_back(true);
        s.events[s.used].record(static_cast<cudaStream_t>(stream));
        s.lastIsBoundary = false;
        return s.used++;
    }
    cudaEvent_t eventAt(int track, std::size_t index) const
    {
        return streams[static_cast<std::size_t>(track)].events[index].get();
    }
#endif
};

Profiler::Profiler(ProfilerOptions options)
    : m_options(options), m_startNs(steadyNs()), m_gpuStats(options.window),
      m_cpuStats(options.window), m_counters(options.window)
{
    if (!CompiledIn)
        m_options.enabled = false;
    m_cpuTracks.push_back(std::unique_ptr<CpuTrack>(
        new CpuTrack(0, "main (render thread)", m_startNs, m_options.enabled)));
    if (!m_options.enabled)
        return;
    m_options.depth = std::max(3, m_options.depth);
    for (int i = 0; i < m_options.depth; ++i)
        m_slots.push_back(std::make_unique<Slot>());
    calibrate();
}

#ifdef TANDEM_HAS_CUDA
/// The time of a CUDA event on the timeline, for spans outside any handoff: `reference`
/// completed at `referenceMs`; `next`, recorded about a second later, becomes the reference
/// once complete (its time from the reference's), so elapsed times stay short and precise.
struct Profiler::CudaClock {
    cudaEvent_t reference = nullptr;
    cudaEvent_t next = nullptr;
    double referenceMs = 0;
    bool nextRecorded = false;

    CudaClock()
    {
        TANDEM_CUDA_CHECK(cudaEventCreate(&reference));
        TANDEM_CUDA_CHECK(cudaEventCreate(&next));
    }
    ~CudaClock()
    {
        // A failure is logged; the driver unloading at exit is not one.
        for (cudaEvent_t event : {reference, next}) {
            const cudaError_t result = cudaEventDestroy(event);
            cuda::clearError("cudaEventDestroy(profile clock)",
                             result == cudaErrorCudartUnloading ? result : cudaSuccess);
        }
    }
    CudaClock(const CudaClock&) = delete;
    CudaClock& operator=(const CudaClock&) = delete;

    /// Promotes `next` once complete; never waits.
    void advance()
    {
        if (!nextRecorded)
            return;
        const cudaError_t status = cudaEventQuery(next);
        if (status == cudaErrorNotReady)
            return;
        cuda::check(status, "cudaEventQuery(profile clock)");
        referenceMs += static_cast<double>(elapsedMs(reference, next));
        std::swap(reference, next);
        nextRecorded = false;
    }
    double timeOf(cudaEvent_t event) const
    {
        return referenceMs + static_cast<double>(elapsedMs(reference, event));
    }
};
#else
struct Profiler::CudaClock {};
#endif

Profiler::~Profiler() = default;

double Profiler::nowMs() const
{
    return static_cast<double>(steadyNs() - m_startNs) * 1e-6;
}

CpuTrack& Profiler::threadTrack(const char* name)
{
    const std::lock_guard lock(m_tracksMutex);
    for (const auto& track : m_cpuTracks)
        if (std::strcmp(track->name(), name) == 0)
            return *track;
    m_cpuTracks.push_back(std::unique_ptr<CpuTrack>(
        new CpuTrack(static_cast<int>(m_cpuTracks.size()), name, m_startNs, m_options.enabled)));
    return *m_cpuTracks.back();
}

std::vector<Track> Profiler::tracks() const
{
    const std::lock_guard lock(m_tracksMutex);
    std::vector<Track> all;
    for (const auto& track : m_cpuTracks)
        all.push_back({Api::Cpu, track->index(), track->name()});
    all.push_back({Api::Gl, 0, "GL queue"});
    for (std::size_t i = 0; i < m_streams.size(); ++i)
        all.push_back({Api::Cuda, static_cast<int>(i), m_streams[i].name});
    return all;
}

void Profiler::calibrateCuda([[maybe_unused]] void* stream)
{
#ifdef TANDEM_HAS_CUDA
    // The reference event must complete as soon as it is recorded: the device drained first
    // (the legacy default stream also waits for other streams).
    recordStall(StallCause::Calibration);
    m_cudaClock = std::make_unique<CudaClock>();
    const auto s = static_cast<cudaStream_t>(stream);
    // On a drained device the event completes as soon as it is submitted, within its record
    // call: the call's midpoint, from a call that returned quickly (the first ones can take
    // hundreds of microseconds; so can waking up from the synchronize).
    for (int attempt = 0; attempt < 16; ++attempt) {
        TANDEM_CUDA_CHECK(cudaDeviceSynchronize());
        const double before = nowMs();
        TANDEM_CUDA_CHECK(cudaEventRecord(m_cudaClock->reference, s));
        const double after = nowMs();
        TANDEM_CUDA_CHECK(cudaEventSynchronize(m_cudaClock->reference));
        m_cudaClock->referenceMs = 0.5 * (before + after);
        if (after - before < 0.01)
            break;
    }
    ++m_calibrations;
#endif
}

void Profiler::calibrate()
{
    // Reading GL_TIMESTAMP waits for the GL server: rare, and counted.
    recordStall(StallCause::Calibration);
    const double before = nowMs();
    GLint64 gl = 0;
    glGetInteger64v(GL_TIMESTAMP, &gl);
    const double after = nowMs();
    m_glOffsetMs = 0.5 * (before + after) - static_cast<double>(gl) * 1e-6;
    ++m_calibrations;
}

#if TANDEM_PROFILER_ENABLED

int Profiler::streamTrack(void* stream)
{
    // A handful of streams: a linear scan beats hashing. Only this thread writes m_streams.
    for (std::size_t i = 0; i < m_streams.size(); ++i)
        if (m_streams[i].stream == stream)
            return static_cast<int>(i);
    const std::lock_guard lock(m_tracksMutex);
    m_streams.push_back({stream, "stream " + std::to_string(m_streams.size())});
    return static_cast<int>(m_streams.size() - 1);
}

void Profiler::nameStream(void* stream, const char* name)
{
    if (!isEnabled())
        return;
    StreamTrack& track = m_streams[static_cast<std::size_t>(streamTrack(stream))];
    if (track.name == name)
        return; // named every frame by some callers: no work, no allocation
    const std::lock_guard lock(m_tracksMutex);
    track.name = name;
}

void Profiler::beginFrame()
{
    if (!m_options.enabled)
        return;
    if (m_frame > 0 && m_frame % static_cast<std::uint64_t>(m_options.calibrateEvery) == 0)
        calibrate();
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    if (slot.pending) {
        // Its results never came in time: drop them rather than wait.
        ++m_dropped;
        if (m_nextToCollect <= slot.frame)
            m_nextToCollect = slot.frame + 1;
    }
    slot.reset(m_frame);
    slot.cpuStart = nowMs();
    slot.stallsAtStart = stallCounts();
    slot.frameBegin = slot.endStamp(); // the first scope begins where the frame does
}

void Profiler::endFrame()
{
    if (!m_options.enabled)
        return;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    slot.frameEnd = slot.lastStampIsBoundary ? slot.queriesUsed - 1 : slot.stamp();
    slot.cpuEnd = nowMs();
    const auto now = stallCounts();
    for (std::size_t i = 0; i < StallCauseCount; ++i)
        slot.stalls[i] = now[i] - slot.stallsAtStart[i];
    {
        // Other threads' spans join the frame being ended. Track 0 is the render thread's own
        // (ThreadScopes on it from this thread land here too).
        const std::lock_guard lock(m_tracksMutex);
        for (const auto& track : m_cpuTracks)
            track->drainInto(slot.cpuSpans);
    }
    slot.counters.swap(m_counterSamples);
    m_counterSamples.clear();
    slot.pending = true;
    ++m_frame;
    // The frame's last timestamp must reach the GPU to ever be ready: a frame of CUDA work only
    // (tandem.rasterize's CUDA rasterizer) flushes nothing else. Not a wait.
    glFlush();
    // Collect finished frames in order; stop at the first that is not ready.
    while (m_nextToCollect < m_frame) {
        Slot& next = *m_slots[m_nextToCollect % m_slots.size()];
        if (!next.pending || next.frame != m_nextToCollect) {
            ++m_nextToCollect; // dropped earlier
            continue;
        }
        if (!tryCollect(next))
            break;
        next.pending = false;
        ++m_nextToCollect;
    }
}

std::size_t Profiler::beginGl(const char* name)
{
    if (!m_options.enabled || !m_options.glScopes)
        return 0;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    slot.glSpans.push_back({name, slot.beginStamp(), 0});
    return slot.glSpans.size() - 1;
}

void Profiler::endGl(std::size_t token)
{
    if (!m_options.enabled || !m_options.glScopes)
        return;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    slot.glSpans[token].end = slot.endStamp();
}

void Profiler::beginHandoff()
{
    if (!m_options.enabled || !m_options.glScopes)
        return;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    Slot::Handoff handoff;
    handoff.glBegin = slot.beginStamp();
    slot.handoffs.push_back(handoff);
#ifdef TANDEM_HAS_CUDA
    // A scope in this handoff does not begin at an event from before it: the stream may have
    // idled since (a whole frame, for a stream used once per handoff).
    for (auto& stream : slot.streams)
        stream.lastIsBoundary = false;
#endif
}

void Profiler::anchorHandoff([[maybe_unused]] void* stream)
{
#ifdef TANDEM_HAS_CUDA
    if (!m_options.enabled || !m_options.glScopes || !m_options.cudaScopes)
        return;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    TANDEM_ASSERT(!slot.handoffs.empty(), "profile::Profiler::anchorHandoff(): no handoff begun");
    const int track = streamTrack(stream);
    Slot::Handoff& handoff = slot.handoffs.back();
    handoff.anchorTrack = track;
    handoff.anchor = slot.event(track, stream);
    slot.streams[static_cast<std::size_t>(track)].lastIsBoundary = true;
#endif
}

void Profiler::endHandoff()
{
    if (!m_options.enabled || !m_options.glScopes)
        return;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    TANDEM_ASSERT(!slot.handoffs.empty(), "profile::Profiler::endHandoff(): no handoff begun");
    slot.handoffs.back().glEnd = slot.endStamp();
}

std::size_t Profiler::beginCuda([[maybe_unused]] const char* name, [[maybe_unused]] void* stream)
{
#ifdef TANDEM_HAS_CUDA
    if (!m_options.enabled || !m_options.glScopes || !m_options.cudaScopes)
        return 0;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    const bool outside = slot.handoffs.empty();
    if (outside) {
        if (!m_cudaClock)
            calibrateCuda(stream);
        if (!m_cudaClock->nextRecorded && nowMs() - m_cudaClock->referenceMs > 1000.0) {
            TANDEM_CUDA_CHECK(
                cudaEventRecord(m_cudaClock->next, static_cast<cudaStream_t>(stream)));
            m_cudaClock->nextRecorded = true;
        }
    }
    nvtxRangePushA(name);
    const int track = streamTrack(stream);
    Slot::StreamEvents& events = slot.streamEvents(track);
    // Back-to-back scopes share their boundary: the previous end (or the anchor) is this begin.
    const std::size_t begin =
        events.lastIsBoundary && !outside ? events.used - 1 : slot.event(track, stream);
    events.lastIsBoundary = false;
    slot.cudaSpans.push_back(
        {name, track, begin, 0, outside ? NoHandoff : slot.handoffs.size() - 1});
    return slot.cudaSpans.size() - 1;
#else
    return 0;
#endif
}

void Profiler::endCuda([[maybe_unused]] std::size_t token, [[maybe_unused]] void* stream)
{
#ifdef TANDEM_HAS_CUDA
    if (!m_options.enabled || !m_options.glScopes || !m_options.cudaScopes)
        return;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    Slot::CudaSpan& span = slot.cudaSpans[token];
    TANDEM_ASSERT(m_streams[static_cast<std::size_t>(span.track)].stream == stream,
                  "profile::Profiler::endCuda(): not the stream the scope began on");
    span.end = slot.event(span.track, stream);
    slot.streams[static_cast<std::size_t>(span.track)].lastIsBoundary = true;
    nvtxRangePop();
#endif
}

void Profiler::counter(const char* name, double value)
{
    if (!m_options.enabled)
        return;
    // Kept until the frame ends: a sample taken between frames belongs to the next one.
    m_counterSamples.emplace_back(name, value);
}

std::size_t Profiler::beginCpu(const char* name)
{
    if (!m_options.enabled)
        return 0;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    slot.cpuSpans.push_back({name, Api::Cpu, 0, nowMs(), 0});
    return slot.cpuSpans.size() - 1;
}

void Profiler::endCpu(std::size_t token)
{
    if (!m_options.enabled)
        return;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    slot.cpuSpans[token].endMs = nowMs();
}

bool Profiler::tryCollect(Slot& slot)
{
    // Everything the slot recorded must be available; nothing here waits.
    // The frame's last timestamp first: until it is in, nothing else is worth asking for.
    if (!slot.queries[slot.frameEnd].tryResultNoWait())
        return false;
    m_glMs.resize(slot.queriesUsed);
    for (std::size_t i = 0; i < slot.queriesUsed; ++i) {
        const auto value = slot.queries[i].tryResultNoWait();
        if (!value)
            return false;
        m_glMs[i] = static_cast<double>(*value) * 1e-6 + m_glOffsetMs;
    }
#ifdef TANDEM_HAS_CUDA
    // Events on one stream complete in order: each stream's last one answers for its pool.
    for (const auto& stream : slot.streams)
        if (stream.used > 0 && !stream.events[stream.used - 1].isDone())
            return false;
#endif
    FrameRecord frame;
    frame.index = slot.frame;
    frame.cpuStartMs = slot.cpuStart;
    frame.cpuEndMs = slot.cpuEnd;
    frame.gpuStartMs = m_glMs[slot.frameBegin];
    frame.gpuEndMs = m_glMs[slot.frameEnd];
    frame.handoffs = static_cast<int>(slot.handoffs.size());
    frame.stalls = slot.stalls;
    frame.counters = slot.counters;
    frame.spans.reserve(slot.cpuSpans.size() + slot.glSpans.size() + slot.handoffs.size() +
                        slot.cudaSpans.size());
    frame.spans.insert(frame.spans.end(), slot.cpuSpans.begin(), slot.cpuSpans.end());
    for (const auto& span : slot.glSpans)
        frame.spans.push_back({span.name, Api::Gl, 0, m_glMs[span.begin], m_glMs[span.end]});
    for (const auto& handoff : slot.handoffs)
        frame.spans.push_back(
            {"handoff", Api::Gl, 0, m_glMs[handoff.glBegin], m_glMs[handoff.glEnd]});
#ifdef TANDEM_HAS_CUDA
    for (std::size_t h = 0; h < slot.handoffs.size(); ++h) {
        const auto& handoff = slot.handoffs[h];
        if (handoff.anchorTrack < 0)
            continue;
        const cudaEvent_t anchor = slot.eventAt(handoff.anchorTrack, handoff.anchor);
        // Each span's times after the anchor. Events of one device share a clock, whatever
        // their stream; one recorded on another stream before the anchor comes out negative.
        m_sinceAnchor.clear();
        float firstMs = 0, lastMs = 0;
        for (const auto& span : slot.cudaSpans) {
            if (span.handoff != h)
                continue;
            const std::array<float, 2> ms = {
                elapsedMs(anchor, slot.eventAt(span.track, span.begin)),
                elapsedMs(anchor, slot.eventAt(span.track, span.end))};
            firstMs = std::min(firstMs, ms[0]);
            lastMs = std::max(lastMs, ms[1]);
            m_sinceAnchor.push_back(ms);
        }
        // CUDA events have no absolute time: place the anchor so the CUDA work sits in the
        // middle of the handoff's GL window (the map's and unmap's switching costs split
        // evenly), keeping the stages' true order and gaps.
        const double window = m_glMs[handoff.glEnd] - m_glMs[handoff.glBegin];
        const double extent = static_cast<double>(lastMs) - firstMs;
        const double anchorMs =
            m_glMs[handoff.glBegin] + std::max(0.0, 0.5 * (window - extent)) - firstMs;
        std::size_t i = 0;
        for (const auto& span : slot.cudaSpans)
            if (span.handoff == h) {
                frame.spans.push_back({span.name, Api::Cuda, span.track,
                                       anchorMs + m_sinceAnchor[i][0],
                                       anchorMs + m_sinceAnchor[i][1]});
                ++i;
            }
    }
    // Spans outside any handoff: through the CUDA clock.
    for (const auto& span : slot.cudaSpans)
        if (span.handoff == NoHandoff && m_cudaClock) {
            m_cudaClock->advance();
            frame.spans.push_back({span.name, Api::Cuda, span.track,
                                   m_cudaClock->timeOf(slot.eventAt(span.track, span.begin)),
                                   m_cudaClock->timeOf(slot.eventAt(span.track, span.end))});
        }
#endif
    std::stable_sort(frame.spans.begin(), frame.spans.end(),
                     [](const Span& a, const Span& b) { return a.startMs < b.startMs; });
    record(std::move(frame));
    return true;
}

void Profiler::record(FrameRecord&& frame)
{
    ++m_finished;
    if (frame.index < m_options.warmupFrames)
        return; // warm-up frames are left out of statistics and traces
    m_gpuStats.add("frame", frame.gpuEndMs - frame.gpuStartMs);
    m_cpuStats.add("frame", frame.cpuEndMs - frame.cpuStartMs);
    for (const auto& span : frame.spans)
        (span.api == Api::Cpu ? m_cpuStats : m_gpuStats).add(span.name, span.endMs - span.startMs);
    // Stalls drain the GPU; a throttle (the CPU a ring of frames ahead) does not: counted apart.
    std::uint64_t stalls = 0;
    for (std::size_t i = 0; i < StallCauseCount; ++i) {
        if (isStall(static_cast<StallCause>(i)))
            stalls += frame.stalls[i];
        m_stallTotals[i] += frame.stalls[i];
    }
    ++m_measured;
    m_counters.add("handoffs", frame.handoffs);
    m_counters.add("stalls", static_cast<double>(stalls));
    m_counters.add("throttles", static_cast<double>(
                                    frame.stalls[static_cast<std::size_t>(StallCause::Throttle)]));
    m_done.push_back(std::move(frame));
}

#endif // TANDEM_PROFILER_ENABLED

void Profiler::flush()
{
#if TANDEM_PROFILER_ENABLED
    if (!m_options.enabled)
        return;
    recordStall(StallCause::Finish);
    glFinish();
#ifdef TANDEM_HAS_CUDA
    // Only where this profiler recorded events: a build with CUDA may run without a GPU.
    if (!m_streams.empty()) {
        if (const cudaError_t error = cudaDeviceSynchronize(); error != cudaSuccess) {
            log::warning("profile: flush: cudaDeviceSynchronize: {}", cudaGetErrorString(error));
            cuda::clearError("cudaDeviceSynchronize", error);
        }
    }
#endif
    while (m_nextToCollect < m_frame) {
        Slot& next = *m_slots[m_nextToCollect % m_slots.size()];
        if (next.pending && next.frame == m_nextToCollect && tryCollect(next))
            next.pending = false;
        ++m_nextToCollect;
    }
#endif
}

std::vector<FrameRecord> Profiler::takeFrames()
{
    return std::exchange(m_done, {});
}

} // namespace tandem::profile
