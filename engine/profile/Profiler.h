// Per-stage GPU and CPU timing that never stalls the pipeline: GL timestamp query pairs and
// CUDA event pairs (one event pool and one track per stream) kept in a ring of frame slots
// (depth ≥ 3), collected only once the GPU has produced them (GL_QUERY_RESULT_AVAILABLE,
// cudaEventQuery), never by waiting; a slot still pending when its turn comes again is counted
// and dropped. CPU spans from the render thread and from other threads' tracks. All spans land
// on one timeline (the CPU's steady clock): GL times through a rarely re-read GL_TIMESTAMP
// offset, CUDA times relative to an anchor event recorded inside each handoff. Span names are
// static strings: a scope allocates nothing once the frame slots have grown. The Profiler is
// render-thread only with the GL context current, except threadTrack(), tracks() and
// ThreadScope. Stalls are counted per profiler: its frames count the waits of the thread that
// runs them (core/Stall.h). No CUDA types here: streams are passed as void*; the CUDA half
// lives in its own file (detail/CudaTimeline.h). Built with TANDEM_PROFILER=OFF
// (TANDEM_PROFILER_ENABLED=0) every scope is an empty inline no-op.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/EnumTable.h"
#include "engine/core/Stall.h"
#include "engine/profile/Stats.h"
#include "engine/profile/Tracks.h"

namespace tandem::profile {

namespace detail {
class CudaTimeline;
}

/// A finished frame: its spans, handoffs and stalls (those its thread counted between
/// beginFrame() and endFrame()).
struct FrameRecord {
    std::uint64_t index = 0;
    double cpuStartMs = 0, cpuEndMs = 0; ///< the CPU's frame
    double gpuStartMs = 0, gpuEndMs = 0; ///< the GL queue's frame (first to last timestamp)
    /// By start time. Spans of other threads' tracks are those drained when the frame ended:
    /// they keep their own times, which may begin before the frame's start but end before its
    /// end.
    std::vector<Span> spans;
    int handoffs = 0;
    std::array<std::uint64_t, StallCauseCount> stalls{};
    /// Values sampled during the frame (Profiler::counter()): counter tracks of the trace.
    std::vector<std::pair<const char*, double>> counters;
};

struct ProfilerOptions {
    bool enabled = true;
    int depth = 4;                  ///< frame slots in flight (at least 3)
    int calibrateEvery = 1000;      ///< frames between GL clock re-alignments (each one stalls)
    std::size_t window = 240;       ///< frames in the statistics window
    std::uint64_t warmupFrames = 0; ///< first frames left out of the statistics
    bool glScopes = true;   ///< GL stage scopes and the handoff window (frames are always timed)
    bool cudaScopes = true; ///< CUDA stage events
};

class Profiler {
public:
    /// Aligns the GL clock once (a counted stall). Expects a current GL context (none needed
    /// when compiled out).
    explicit Profiler(ProfilerOptions options = {});
    ~Profiler();
    Profiler(const Profiler&) = delete;
    Profiler& operator=(const Profiler&) = delete;

    /// Whether frames are timed: on at run time and compiled in.
    bool isEnabled() const { return CompiledIn && m_options.enabled; }

#if TANDEM_PROFILER_ENABLED
    /// Starts frame N: takes the next slot (dropping it if still pending), stamps the frame's
    /// start on the CPU and the GL queue, and makes this profiler's stall counter the one the
    /// calling thread reports to until endFrame() (a StallScope).
    void beginFrame();
    /// Stamps the frame's end, attaches the spans every thread track recorded since the last
    /// frame and the stalls counted since beginFrame(), then collects every finished frame
    /// without waiting.
    void endFrame();

    /// GL scope: a timestamp now and one at end (glQueryCounter). Returns a token for end.
    /// Scopes that follow each other directly share the timestamp between them (each costs
    /// GPU time): GL work issued between one scope's end and the next's begin counts in the
    /// next. `name` in static storage.
    std::size_t beginGl(const char* name);
    void endGl(std::size_t token);

    /// CUDA scope on `stream` (a cudaStream_t): an event pair from that stream's pool, on that
    /// stream's track, plus an NVTX range of the same name (nvtxRangePushA). Inside a handoff
    /// of this frame the spans of every stream are placed through the last handoff's anchor;
    /// outside one (CUDA work with no GL around it), through a reference event whose time was
    /// measured once (the first such scope waits for `stream` to drain: a calibration, counted)
    /// and carried forward from event to event since, re-based every second. No-op without
    /// CUDA. Back-to-back scopes on one stream share their
    /// boundary event: work issued on the stream between one scope's end and the next's begin
    /// counts in the next. `name` in static storage.
    std::size_t beginCuda(const char* name, void* stream);
    void endCuda(std::size_t token, void* stream);
    /// Names `stream`'s track ("frame", "copy"); a stream never named is "stream N" (N its
    /// track, in order of first use). Before or after its first scope. `name` in static
    /// storage.
    void nameStream(void* stream, const char* name);

    /// The GL↔CUDA handoff: a GL timestamp before the map (beginHandoff), a CUDA anchor event
    /// right after it on `stream` (anchorHandoff), a GL timestamp after the unmap (endHandoff).
    /// CUDA spans of every stream begun from beginHandoff on are placed through the anchor.
    /// Counts one handoff.
    void beginHandoff();
    void anchorHandoff(void* stream);
    void endHandoff();

    /// CPU scope on the render thread's track (steady clock). `name` in static storage.
    std::size_t beginCpu(const char* name);
    void endCpu(std::size_t token);
    /// Samples `value` for counter `name` in this frame (a streaming cache's fill, say): a
    /// counter track in the trace. Render thread; `name` in static storage.
    void counter(const char* name, double value);
#else
    // Compiled out: the same calls, empty and inline, so call sites cost nothing.
    void beginFrame() {}
    void endFrame() {}
    std::size_t beginGl(const char*)
    {
        return 0;
    }
    void endGl(std::size_t) {}
    std::size_t beginCuda(const char*, void*)
    {
        return 0;
    }
    void endCuda(std::size_t, void*) {}
    void nameStream(void*, const char*) {}
    void beginHandoff() {}
    void anchorHandoff(void*) {}
    void endHandoff() {}
    std::size_t beginCpu(const char*)
    {
        return 0;
    }
    void endCpu(std::size_t) {}
    void counter(const char*, double) {}
#endif

    /// The track named `name` for another thread's CPU spans, created on first call (a second
    /// call with an equal name returns the same track). Any thread; the track lives as long
    /// as the profiler. `name` in static storage.
    CpuTrack& threadTrack(const char* name)
    {
        return m_threads.track(name);
    }
    /// Every thread's track, for code that records CPU spans only (the streamer's loaders).
    ThreadTracks& threadTracks()
    {
        return m_threads;
    }
    /// This profiler's stall counter: what its frames count. Waits the profiler itself makes
    /// (clock calibrations, flush) are counted here too.
    StallCounter& stalls()
    {
        return m_stalls;
    }
    /// Every track: CPU threads (0 "main (render thread)", then thread tracks in order of
    /// creation), the GL queue ("GL queue"), CUDA streams by track. Any thread.
    std::vector<Track> tracks() const;

    /// Waits for the GPU (glFinish, and the CUDA device) and collects every frame in flight.
    /// Blocks (counted as a stall): call after the last frame, not in the loop.
    void flush();

    /// Frames finished since the last call, oldest first.
    std::vector<FrameRecord> takeFrames();

    /// Statistics over the window: GPU spans (GL and CUDA) and CPU spans by name, plus "frame".
    const Window& gpuStats() const
    {
        return m_gpuStats;
    }
    const Window& cpuStats() const
    {
        return m_cpuStats;
    }
    /// Handoffs and stalls (sum of causes) per finished frame, over the window.
    const Window& counters() const
    {
        return m_counters;
    }

    /// Stalls by cause, summed over the frames in the statistics (warm-up excluded).
    const std::array<std::uint64_t, StallCauseCount>& stallTotals() const
    {
        return m_stallTotals;
    }
    /// Frames that entered the statistics.
    std::uint64_t framesMeasured() const
    {
        return m_measured;
    }
    std::uint64_t framesDropped() const
    {
        return m_dropped;
    }
    std::uint64_t calibrations() const
    {
        return m_calibrations;
    }
    std::uint64_t framesFinished() const
    {
        return m_finished;
    }

    /// Milliseconds since the profiler started (steady clock).
    double nowMs() const;

private:
    struct Slot;
    struct StreamTrack {
        void* stream = nullptr;
        std::string name;
    };
    void calibrate();
    /// Whether CUDA scopes are recorded: enabled, and a build with CUDA.
    bool recordsCuda() const;
    bool tryCollect(Slot& slot);
    void record(FrameRecord&& frame);
    int streamTrack(void* stream);

    ProfilerOptions m_options;
    std::vector<std::unique_ptr<Slot>> m_slots;
    std::uint64_t m_frame = 0; ///< index of the frame being recorded
    std::uint64_t m_nextToCollect = 0;
    std::uint64_t m_dropped = 0;
    std::uint64_t m_calibrations = 0;
    std::uint64_t m_finished = 0;
    std::uint64_t m_measured = 0;
    std::array<std::uint64_t, StallCauseCount> m_stallTotals{};
    double m_glOffsetMs = 0; ///< add to a GL timestamp (ms) to get timeline ms
    std::int64_t m_startNs = 0;
    ThreadTracks m_threads;
    StallCounter m_stalls;
    std::optional<StallScope> m_frameStalls; ///< between beginFrame() and endFrame()
    /// The CUDA events of every slot and the clock of spans outside handoffs.
    std::unique_ptr<detail::CudaTimeline> m_cuda;
    Window m_gpuStats;
    Window m_cpuStats;
    Window m_counters;
    std::vector<std::pair<const char*, double>> m_counterSamples; ///< counter() since the
                                                                  ///< last frame ended
    std::vector<FrameRecord> m_done;
    std::vector<double> m_glMs; ///< collection scratch: a slot's timestamps on the timeline
    std::vector<std::array<float, 2>> m_sinceAnchor; ///< collection scratch: CUDA span times
    /// Guards the stream list's growth (tracks() from any thread; the render thread alone
    /// writes it and so reads it unlocked).
    mutable std::mutex m_tracksMutex;
    std::vector<StreamTrack> m_streams; ///< by CUDA track
};

#if TANDEM_PROFILER_ENABLED

/// RAII GL scope.
class GlScope {
public:
    GlScope(Profiler& profiler, const char* name)
        : m_profiler(profiler), m_token(profiler.beginGl(name))
    {}
    ~GlScope() { m_profiler.endGl(m_token); }
    GlScope(const GlScope&) = delete;
    GlScope& operator=(const GlScope&) = delete;

private:
    Profiler& m_profiler;
    std::size_t m_token;
};

/// RAII CPU scope on the render thread's track.
class CpuScope {
public:
    CpuScope(Profiler& profiler, const char* name)
        : m_profiler(profiler), m_token(profiler.beginCpu(name))
    {}
    ~CpuScope() { m_profiler.endCpu(m_token); }
    CpuScope(const CpuScope&) = delete;
    CpuScope& operator=(const CpuScope&) = delete;

private:
    Profiler& m_profiler;
    std::size_t m_token;
};

/// RAII CUDA scope on `stream` (a cudaStream_t): Profiler::beginCuda() now, endCuda() on the
/// same stream at the end of the scope.
class CudaScope {
public:
    CudaScope(Profiler& profiler, const char* name, void* stream)
        : m_profiler(profiler), m_stream(stream), m_token(profiler.beginCuda(name, stream))
    {}
    ~CudaScope() { m_profiler.endCuda(m_token, m_stream); }
    CudaScope(const CudaScope&) = delete;
    CudaScope& operator=(const CudaScope&) = delete;

private:
    Profiler& m_profiler;
    void* m_stream;
    std::size_t m_token;
};

#else

// Compiled out: empty classes with inline no-op constructors.
class GlScope {
public:
    GlScope(Profiler&, const char*) {}
    GlScope(const GlScope&) = delete;
    GlScope& operator=(const GlScope&) = delete;
};
class CpuScope {
public:
    CpuScope(Profiler&, const char*) {}
    CpuScope(const CpuScope&) = delete;
    CpuScope& operator=(const CpuScope&) = delete;
};
class CudaScope {
public:
    CudaScope(Profiler&, const char*, void*) {}
    CudaScope(const CudaScope&) = delete;
    CudaScope& operator=(const CudaScope&) = delete;
};

#endif

} // namespace tandem::profile
