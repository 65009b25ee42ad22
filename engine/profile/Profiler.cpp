#include "engine/profile/Profiler.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <glad/gl.h>

#include "engine/core/Error.h"
#include "engine/core/Log.h"
#include "engine/gl/Query.h"
#include "engine/profile/detail/CudaTimeline.h"

namespace tandem::profile {

namespace {

constexpr std::size_t NoHandoff = ~std::size_t{0};

} // namespace

/// One frame in flight: its queries, CUDA spans and CPU times, reused ring-wise (its CUDA
/// events live in the CUDA timeline under the same slot index). Every vector keeps its capacity
/// across frames (clear(), not reallocation), so steady-state scopes only write into storage
/// that exists.
struct Profiler::Slot {
    struct GlSpan {
        const char* name;
        std::size_t begin, end; ///< query indices
    };
    struct CudaSpan {
        const char* name;
        detail::EventRef begin, end;
        std::size_t handoff; ///< the handoff whose anchor places it (NoHandoff: none)
    };
    struct Handoff {
        std::size_t glBegin = 0, glEnd = 0; ///< query indices
        bool anchored = false;              ///< a CUDA anchor was recorded
        detail::EventRef anchor;
    };

    explicit Slot(std::size_t slotIndex) : index(slotIndex) {}

    const std::size_t index; ///< in the ring (and in the CUDA timeline)
    bool pending = false;
    std::uint64_t frame = 0;
    /// The last timestamp ended a scope (or began the frame), so the next scope begins there.
    /// Each timestamp costs GPU time (a pipeline sync point).
    bool lastStampIsBoundary = false;
    std::vector<gl::Query> queries; ///< pool, grown on demand
    std::size_t queriesUsed = 0;
    std::vector<GlSpan> glSpans;
    std::vector<CudaSpan> cudaSpans;
    std::vector<Handoff> handoffs;
    std::vector<Span> cpuSpans; ///< the render thread's, then the thread tracks' at the end
    std::vector<std::pair<const char*, double>> counters;
    std::size_t frameBegin = 0, frameEnd = 0;
    double cpuStart = 0, cpuEnd = 0;
    std::array<std::uint64_t, StallCauseCount> stallsAtStart{};
    std::array<std::uint64_t, StallCauseCount> stalls{};

    void reset(std::uint64_t frameIndex)
    {
        pending = false;
        frame = frameIndex;
        queriesUsed = 0;
        lastStampIsBoundary = false;
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
        const std::size_t stampIndex = stamp();
        lastStampIsBoundary = true;
        return stampIndex;
    }
    std::size_t stamp()
    {
        lastStampIsBoundary = false;
        if (queriesUsed == queries.size())
            queries.emplace_back(GL_TIMESTAMP, "profile.timestamp");
        queries[queriesUsed].timestamp();
        return queriesUsed++;
    }
};

Profiler::Profiler(ProfilerOptions options)
    : m_options(options), m_startNs(steadyNs()),
      m_threads(m_startNs, CompiledIn && options.enabled), m_gpuStats(options.window),
      m_cpuStats(options.window), m_counters(options.window)
{
    if (!CompiledIn)
        m_options.enabled = false;
    if (!m_options.enabled)
        return;
    m_options.depth = std::max(3, m_options.depth);
    for (int i = 0; i < m_options.depth; ++i)
        m_slots.push_back(std::make_unique<Slot>(static_cast<std::size_t>(i)));
    m_cuda = std::make_unique<detail::CudaTimeline>(m_slots.size(), m_startNs);
    calibrate();
}

Profiler::~Profiler() = default;

double Profiler::nowMs() const
{
    return static_cast<double>(steadyNs() - m_startNs) * 1e-6;
}

std::vector<Track> Profiler::tracks() const
{
    std::vector<Track> all = m_threads.list();
    all.push_back({Api::Gl, 0, "GL queue"});
    const std::lock_guard lock(m_tracksMutex);
    for (std::size_t i = 0; i < m_streams.size(); ++i)
        all.push_back({Api::Cuda, static_cast<int>(i), m_streams[i].name});
    return all;
}

void Profiler::calibrate()
{
    // Reading GL_TIMESTAMP waits for the GL server: rare, and counted.
    m_stalls.record(StallCause::Calibration);
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
    m_cuda->resetSlot(slot.index);
    slot.cpuStart = nowMs();
    // This thread's waits on the GPU count for this frame, and no other profiler's.
    m_frameStalls.reset();
    m_frameStalls.emplace(m_stalls);
    slot.stallsAtStart = m_stalls.counts();
    slot.frameBegin = slot.endStamp(); // the first scope begins where the frame does
}

void Profiler::endFrame()
{
    if (!m_options.enabled)
        return;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    slot.frameEnd = slot.lastStampIsBoundary ? slot.queriesUsed - 1 : slot.stamp();
    const auto now = m_stalls.counts();
    m_frameStalls.reset();
    for (std::size_t i = 0; i < StallCauseCount; ++i)
        slot.stalls[i] = now[i] - slot.stallsAtStart[i];
    // Other threads' spans join the frame being ended. The frame's CPU end is stamped after the
    // drain: a span is recorded once it has ended, so every span drained ends before the frame
    // does (stamped before it, a span ending between the stamp and the drain ended after it).
    m_threads.drainInto(slot.cpuSpans);
    slot.cpuEnd = nowMs();
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
    // A scope in this handoff does not begin at an event from before it: the stream may have
    // idled since (a whole frame, for a stream used once per handoff).
    m_cuda->breakBoundaries(slot.index);
}

bool Profiler::recordsCuda() const
{
    return m_options.enabled && m_options.glScopes && m_options.cudaScopes &&
           detail::CudaTimeline::isAvailable();
}

void Profiler::anchorHandoff(void* stream)
{
    if (!recordsCuda())
        return;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    TANDEM_ASSERT(!slot.handoffs.empty(), "profile::Profiler::anchorHandoff(): no handoff begun");
    Slot::Handoff& handoff = slot.handoffs.back();
    handoff.anchored = true;
    handoff.anchor = m_cuda->boundary(slot.index, streamTrack(stream), stream);
}

void Profiler::endHandoff()
{
    if (!m_options.enabled || !m_options.glScopes)
        return;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    TANDEM_ASSERT(!slot.handoffs.empty(), "profile::Profiler::endHandoff(): no handoff begun");
    slot.handoffs.back().glEnd = slot.endStamp();
}

std::size_t Profiler::beginCuda(const char* name, void* stream)
{
    if (!recordsCuda())
        return 0;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    const bool outside = slot.handoffs.empty();
    if (outside && m_cuda->prepareClock(stream, nowMs())) {
        // The clock's first measurement waited for the device to drain.
        m_stalls.record(StallCause::Calibration);
        ++m_calibrations;
    }
    m_cuda->pushRange(name);
    // Back-to-back scopes share their boundary: the previous end (or the anchor) is this begin.
    const detail::EventRef begin = m_cuda->begin(slot.index, streamTrack(stream), stream, !outside);
    slot.cudaSpans.push_back({name, begin, {}, outside ? NoHandoff : slot.handoffs.size() - 1});
    return slot.cudaSpans.size() - 1;
}

void Profiler::endCuda(std::size_t token, void* stream)
{
    if (!recordsCuda())
        return;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    Slot::CudaSpan& span = slot.cudaSpans[token];
    TANDEM_ASSERT(m_streams[static_cast<std::size_t>(span.begin.track)].stream == stream,
                  "profile::Profiler::endCuda(): not the stream the scope began on");
    span.end = m_cuda->boundary(slot.index, span.begin.track, stream);
    m_cuda->popRange();
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
    if (!m_cuda->isComplete(slot.index))
        return false;
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
    for (std::size_t h = 0; h < slot.handoffs.size(); ++h) {
        const auto& handoff = slot.handoffs[h];
        if (!handoff.anchored)
            continue;
        // Each span's times after the anchor. Events of one device share a clock, whatever
        // their stream; one recorded on another stream before the anchor comes out negative.
        m_sinceAnchor.clear();
        float firstMs = 0, lastMs = 0;
        for (const auto& span : slot.cudaSpans) {
            if (span.handoff != h)
                continue;
            const std::array<float, 2> ms = {
                m_cuda->elapsedMs(slot.index, handoff.anchor, span.begin),
                m_cuda->elapsedMs(slot.index, handoff.anchor, span.end)};
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
                frame.spans.push_back({span.name, Api::Cuda, span.begin.track,
                                       anchorMs + m_sinceAnchor[i][0],
                                       anchorMs + m_sinceAnchor[i][1]});
                ++i;
            }
    }
    // Spans outside any handoff: through the CUDA clock.
    double cudaStartMs = 0, cudaEndMs = 0;
    bool cudaOnly = slot.handoffs.empty() && slot.glSpans.empty();
    bool anyCuda = false;
    for (const auto& span : slot.cudaSpans)
        if (span.handoff == NoHandoff) {
            const double start = m_cuda->clockTime(slot.index, span.begin);
            const double end = m_cuda->clockTime(slot.index, span.end);
            frame.spans.push_back({span.name, Api::Cuda, span.begin.track, start, end});
            cudaStartMs = anyCuda ? std::min(cudaStartMs, start) : start;
            cudaEndMs = anyCuda ? std::max(cudaEndMs, end) : end;
            anyCuda = true;
        }
    // A frame resident on CUDA has no GL work: its GPU frame is its CUDA work's extent (GL's
    // two stamps sit wherever the idle GL queue ran them).
    if (cudaOnly && anyCuda) {
        frame.gpuStartMs = cudaStartMs;
        frame.gpuEndMs = cudaEndMs;
    }
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
    m_stalls.record(StallCause::Finish);
    glFinish();
    // Only where this profiler recorded events: a build with CUDA may run without a GPU.
    if (!m_streams.empty())
        m_cuda->synchronizeDevice();
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
