// Per-stage GPU and CPU timing that never stalls the pipeline: GL timestamp query pairs and
// CUDA event pairs kept in a ring of frame slots (depth ≥ 3), collected only once the GPU has
// produced them (GL_QUERY_RESULT_AVAILABLE, cudaEventQuery), never by waiting; a slot still
// pending when its turn comes again is counted and dropped. All spans land on one timeline
// (the CPU's steady clock): GL times through a rarely re-read GL_TIMESTAMP offset, CUDA times
// relative to an anchor event recorded inside each handoff. Render thread only; the GL context
// current. No CUDA types here: streams are passed as void*.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/Stall.h"
#include "engine/profile/Stats.h"

namespace tandem::profile {

/// Which clock and queue a span was measured on.
enum class Api { Cpu, Gl, Cuda };
/// "CPU", "GL", "CUDA".
const char* apiName(Api api);

/// One timed interval on the common timeline (ms since the profiler started).
struct Span {
    std::string name;
    Api api = Api::Cpu;
    int track = 0; ///< CPU: thread (0 main); GL: 0; CUDA: stream slot
    double startMs = 0;
    double endMs = 0;
};

/// A finished frame: its spans, handoffs and stalls.
struct FrameRecord {
    std::uint64_t index = 0;
    double cpuStartMs = 0, cpuEndMs = 0; ///< the CPU's frame
    double gpuStartMs = 0, gpuEndMs = 0; ///< the GL queue's frame (first to last timestamp)
    std::vector<Span> spans;
    int handoffs = 0;
    std::array<std::uint64_t, StallCauseCount> stalls{};
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
    /// Aligns the GL clock once (a counted stall). Expects a current GL context.
    explicit Profiler(ProfilerOptions options = {});
    ~Profiler();
    Profiler(const Profiler&) = delete;
    Profiler& operator=(const Profiler&) = delete;

    bool isEnabled() const { return m_options.enabled; }

    /// Starts frame N: takes the next slot (dropping it if still pending) and stamps the
    /// frame's start on the CPU and the GL queue.
    void beginFrame();
    /// Stamps the frame's end, then collects every finished frame without waiting.
    void endFrame();

    /// GL scope: a timestamp now and one at end (glQueryCounter). Returns a token for end.
    /// Scopes that follow each other directly share the timestamp between them (each costs
    /// GPU time): GL work issued between one scope's end and the next's begin counts in the
    /// next.
    std::size_t beginGl(std::string_view name);
    void endGl(std::size_t token);

    /// CUDA scope on `stream` (a cudaStream_t): an event pair, plus an NVTX range of the same
    /// name. Only between beginHandoff/anchorHandoff and endHandoff; no-op without CUDA.
    /// Back-to-back scopes share their boundary event: work issued on the stream between one
    /// scope's end and the next's begin counts in the next.
    std::size_t beginCuda(std::string_view name, void* stream);
    void endCuda(std::size_t token, void* stream);

    /// The GL↔CUDA handoff: a GL timestamp before the map (beginHandoff), a CUDA anchor event
    /// right after it (anchorHandoff), a GL timestamp after the unmap (endHandoff). CUDA spans
    /// are placed inside that window. Counts one handoff.
    void beginHandoff();
    void anchorHandoff(void* stream);
    void endHandoff();

    /// CPU scope (steady clock).
    std::size_t beginCpu(std::string_view name);
    void endCpu(std::size_t token);

    /// Waits for the GPU (glFinish, and the CUDA device) and collects every frame in flight.
    /// Blocks (counted as a stall): call after the last frame, not in the loop.
    void flush();

    /// Frames finished since the last call, oldest first.
    std::vector<FrameRecord> takeFrames();

    /// Statistics over the window: GPU spans (GL and CUDA) and CPU spans by name, plus "frame".
    const Window& gpuStats() const { return m_gpuStats; }
    const Window& cpuStats() const { return m_cpuStats; }
    /// Handoffs and stalls (sum of causes) per finished frame, over the window.
    const Window& counters() const { return m_counters; }

    /// Stalls by cause, summed over the frames in the statistics (warm-up excluded).
    const std::array<std::uint64_t, StallCauseCount>& stallTotals() const { return m_stallTotals; }
    /// Frames that entered the statistics.
    std::uint64_t framesMeasured() const { return m_measured; }
    std::uint64_t framesDropped() const { return m_dropped; }
    std::uint64_t calibrations() const { return m_calibrations; }
    std::uint64_t framesFinished() const { return m_finished; }

    /// Milliseconds since the profiler started (steady clock).
    double nowMs() const;

private:
    struct Slot;
    void calibrate();
    bool tryCollect(Slot& slot);
    void record(FrameRecord&& frame);

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
    Window m_gpuStats;
    Window m_cpuStats;
    Window m_counters;
    std::vector<FrameRecord> m_done;
};

/// RAII GL scope.
class GlScope {
public:
    GlScope(Profiler& profiler, std::string_view name)
        : m_profiler(profiler), m_token(profiler.beginGl(name))
    {}
    ~GlScope() { m_profiler.endGl(m_token); }
    GlScope(const GlScope&) = delete;
    GlScope& operator=(const GlScope&) = delete;

private:
    Profiler& m_profiler;
    std::size_t m_token;
};

/// RAII CPU scope.
class CpuScope {
public:
    CpuScope(Profiler& profiler, std::string_view name)
        : m_profiler(profiler), m_token(profiler.beginCpu(name))
    {}
    ~CpuScope() { m_profiler.endCpu(m_token); }
    CpuScope(const CpuScope&) = delete;
    CpuScope& operator=(const CpuScope&) = delete;

private:
    Profiler& m_profiler;
    std::size_t m_token;
};

} // namespace tandem::profile
