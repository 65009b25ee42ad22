#include "engine/profile/Profiler.h"

#include <algorithm>
#include <chrono>

#include <glad/gl.h>

#include "engine/gl/Query.h"

#ifdef TANDEM_HAS_CUDA
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

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

} // namespace

const char* apiName(Api api)
{
    switch (api) {
    case Api::Cpu:
        return "CPU";
    case Api::Gl:
        return "GL";
    case Api::Cuda:
        return "CUDA";
    }
    return "?";
}

/// One frame in flight: its queries, events and CPU times, reused ring-wise.
struct Profiler::Slot {
    struct GlSpan {
        std::string name;
        std::size_t begin, end; ///< query indices
    };
    struct CudaSpan {
        std::string name;
        std::size_t begin, end; ///< event indices
        std::size_t handoff;
    };
    struct Handoff {
        std::size_t glBegin = 0, glEnd = 0;   ///< query indices
        std::size_t anchor = ~std::size_t{0}; ///< event index
    };

    bool pending = false;
    std::uint64_t frame = 0;
    /// The last recorded event ended a CUDA scope (or anchored a handoff) on this stream: the
    /// next scope on it begins there, saving an event (no work is issued in between).
    bool lastEventIsBoundary = false;
    void* lastEventStream = nullptr;
    /// Likewise for GL: the last timestamp ended a scope (or began the frame), so the next
    /// scope begins there. Each timestamp costs GPU time (a pipeline sync point).
    bool lastStampIsBoundary = false;
    std::vector<gl::Query> queries; ///< pool, grown on demand
    std::size_t queriesUsed = 0;
#ifdef TANDEM_HAS_CUDA
    std::vector<cuda::Event> events;
#endif
    std::size_t eventsUsed = 0;
    std::vector<GlSpan> glSpans;
    std::vector<CudaSpan> cudaSpans;
    std::vector<Handoff> handoffs;
    std::vector<Span> cpuSpans;
    std::size_t frameBegin = 0, frameEnd = 0;
    double cpuStart = 0, cpuEnd = 0;
    std::array<std::uint64_t, StallCauseCount> stallsAtStart{};
    std::array<std::uint64_t, StallCauseCount> stalls{};

    void reset(std::uint64_t index)
    {
        pending = false;
        frame = index;
        queriesUsed = 0;
        eventsUsed = 0;
        lastEventIsBoundary = false;
        lastEventStream = nullptr;
        lastStampIsBoundary = false;
        glSpans.clear();
        cudaSpans.clear();
        handoffs.clear();
        cpuSpans.clear();
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
    std::size_t event(void* stream)
    {
        if (eventsUsed == events.size())
            events.emplace_back(true);
        events[eventsUsed].record(static_cast<cudaStream_t>(stream));
        lastEventStream = stream;
        return eventsUsed++;
    }
#endif
};

Profiler::Profiler(ProfilerOptions options)
    : m_options(options), m_startNs(steadyNs()), m_gpuStats(options.window),
      m_cpuStats(options.window), m_counters(options.window)
{
#ifdef TANDEM_PROFILER_DISABLED
    m_options.enabled = false;
#endif
    if (!m_options.enabled)
        return;
    m_options.depth = std::max(3, m_options.depth);
    for (int i = 0; i < m_options.depth; ++i)
        m_slots.push_back(std::make_unique<Slot>());
    calibrate();
}

Profiler::~Profiler() = default;

double Profiler::nowMs() const
{
    return static_cast<double>(steadyNs() - m_startNs) * 1e-6;
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
    slot.pending = true;
    ++m_frame;
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

std::size_t Profiler::beginGl(std::string_view name)
{
    if (!m_options.enabled || !m_options.glScopes)
        return 0;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    slot.glSpans.push_back({std::string(name), slot.beginStamp(), 0});
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
}

void Profiler::anchorHandoff([[maybe_unused]] void* stream)
{
#ifdef TANDEM_HAS_CUDA
    if (!m_options.enabled || !m_options.glScopes || !m_options.cudaScopes)
        return;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    TANDEM_ASSERT(!slot.handoffs.empty(), "profile::Profiler::anchorHandoff(): no handoff begun");
    slot.handoffs.back().anchor = slot.event(stream);
    slot.lastEventIsBoundary = true;
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

std::size_t Profiler::beginCuda([[maybe_unused]] std::string_view name,
                                [[maybe_unused]] void* stream)
{
#ifdef TANDEM_HAS_CUDA
    if (!m_options.enabled || !m_options.glScopes || !m_options.cudaScopes)
        return 0;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    TANDEM_ASSERT(!slot.handoffs.empty(), "profile::Profiler::beginCuda(): outside a handoff");
    const std::string text(name);
    nvtxRangePushA(text.c_str());
    // Back-to-back scopes share their boundary: the previous end (or the anchor) is this begin.
    const std::size_t begin = slot.lastEventIsBoundary && slot.lastEventStream == stream
                                  ? slot.eventsUsed - 1
                                  : slot.event(stream);
    slot.lastEventIsBoundary = false;
    slot.cudaSpans.push_back({text, begin, 0, slot.handoffs.size() - 1});
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
    slot.cudaSpans[token].end = slot.event(stream);
    slot.lastEventIsBoundary = true;
    nvtxRangePop();
#endif
}

std::size_t Profiler::beginCpu(std::string_view name)
{
    if (!m_options.enabled)
        return 0;
    Slot& slot = *m_slots[m_frame % m_slots.size()];
    Span span;
    span.name = std::string(name);
    span.api = Api::Cpu;
    span.startMs = nowMs();
    slot.cpuSpans.push_back(std::move(span));
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
    std::vector<double> glMs(slot.queriesUsed);
    for (std::size_t i = 0; i < slot.queriesUsed; ++i) {
        const auto value = slot.queries[i].tryResultNoWait();
        if (!value)
            return false;
        glMs[i] = static_cast<double>(*value) * 1e-6 + m_glOffsetMs;
    }
#ifdef TANDEM_HAS_CUDA
    // Events on one stream complete in order: the last one recorded answers for all.
    if (slot.eventsUsed > 0 && !slot.events[slot.eventsUsed - 1].isDone())
        return false;
#endif
    FrameRecord frame;
    frame.index = slot.frame;
    frame.cpuStartMs = slot.cpuStart;
    frame.cpuEndMs = slot.cpuEnd;
    frame.gpuStartMs = glMs[slot.frameBegin];
    frame.gpuEndMs = glMs[slot.frameEnd];
    frame.handoffs = static_cast<int>(slot.handoffs.size());
    frame.stalls = slot.stalls;
    frame.spans = slot.cpuSpans;
    for (const auto& span : slot.glSpans)
        frame.spans.push_back({span.name, Api::Gl, 0, glMs[span.begin], glMs[span.end]});
    for (const auto& handoff : slot.handoffs)
        frame.spans.push_back({"handoff", Api::Gl, 0, glMs[handoff.glBegin], glMs[handoff.glEnd]});
#ifdef TANDEM_HAS_CUDA
    for (std::size_t h = 0; h < slot.handoffs.size(); ++h) {
        const auto& handoff = slot.handoffs[h];
        if (handoff.anchor == ~std::size_t{0})
            continue;
        const cudaEvent_t anchor = slot.events[handoff.anchor].get();
        // Each event's time after the anchor, asked once.
        std::vector<float> sinceAnchor(slot.eventsUsed, 0.0f);
        float lastMs = 0;
        for (std::size_t e = handoff.anchor + 1; e < slot.eventsUsed; ++e) {
            cudaEventElapsedTime(&sinceAnchor[e], anchor, slot.events[e].get());
            lastMs = std::max(lastMs, sinceAnchor[e]);
        }
        // CUDA events have no absolute time: place the anchor so the CUDA work sits in the
        // middle of the handoff's GL window (the map's and unmap's switching costs split
        // evenly), keeping the stages' true order and gaps.
        const double window = glMs[handoff.glEnd] - glMs[handoff.glBegin];
        const double anchorMs = glMs[handoff.glBegin] + std::max(0.0, 0.5 * (window - lastMs));
        for (const auto& span : slot.cudaSpans)
            if (span.handoff == h)
                frame.spans.push_back({span.name, Api::Cuda, 0, anchorMs + sinceAnchor[span.begin],
                                       anchorMs + sinceAnchor[span.end]});
    }
    cudaGetLastError();
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
    std::uint64_t stalls = 0;
    for (std::size_t i = 0; i < StallCauseCount; ++i) {
        stalls += frame.stalls[i];
        m_stallTotals[i] += frame.stalls[i];
    }
    ++m_measured;
    m_counters.add("handoffs", frame.handoffs);
    m_counters.add("stalls", static_cast<double>(stalls));
    m_done.push_back(std::move(frame));
}

void Profiler::flush()
{
    if (!m_options.enabled)
        return;
    recordStall(StallCause::Finish);
    glFinish();
#ifdef TANDEM_HAS_CUDA
    cudaDeviceSynchronize();
    cudaGetLastError();
#endif
    while (m_nextToCollect < m_frame) {
        Slot& next = *m_slots[m_nextToCollect % m_slots.size()];
        if (next.pending && next.frame == m_nextToCollect && tryCollect(next))
            next.pending = false;
        ++m_nextToCollect;
    }
}

std::vector<FrameRecord> Profiler::takeFrames()
{
    return std::exchange(m_done, {});
}

} // namespace tandem::profile
