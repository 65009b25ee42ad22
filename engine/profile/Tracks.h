// The CPU side of the profiler's timeline, free of GL and CUDA: spans, tracks, and the tracks of
// threads other than the render thread (loader threads, frame writers), where those threads
// record their spans for the profiler to drain into its frames. What code without a GL context
// (stream's loader side) reports to. Recording is thread-safe; see each class. Built with
// TANDEM_PROFILER=OFF (TANDEM_PROFILER_ENABLED=0) ThreadScope is an empty inline no-op.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/EnumTable.h"

#ifndef TANDEM_PROFILER_ENABLED
#error "TANDEM_PROFILER_ENABLED is a compile definition of tandem_profile_tracks: link it"
#endif

namespace tandem::profile {

/// Whether this build has the profiler (CMake option TANDEM_PROFILER). Without it every scope
/// compiles to nothing, frames are never timed and takeFrames() stays empty.
inline constexpr bool CompiledIn = TANDEM_PROFILER_ENABLED != 0;

/// Which clock and queue a span was measured on.
enum class Api { Cpu, Gl, Cuda };
/// The APIs' names in traces and reports.
inline constexpr EnumTable<Api, 3> Apis{
    "profiling api", {{{Api::Cpu, "CPU", ""}, {Api::Gl, "GL", ""}, {Api::Cuda, "CUDA", ""}}}};

/// One timed interval on the common timeline (ms since the profiler started).
struct Span {
    /// Static storage (a string literal or an entry of a static table), never freed; compare
    /// as a string, not as a pointer.
    const char* name = "";
    Api api = Api::Cpu;
    int track = 0; ///< CPU: the thread's track (0 the render thread); GL: 0; CUDA: the stream's
    double startMs = 0;
    double endMs = 0;
};

/// One row of the timeline: a CPU thread, the GL queue or a CUDA stream.
struct Track {
    Api api = Api::Cpu;
    int index = 0; ///< Span::track of its spans (per API)
    std::string name;
};

/// A CPU thread's track: spans recorded there (ThreadScope) are drained by the render thread at
/// Profiler::endFrame() into the frame being ended. Owned by ThreadTracks, which it must not
/// outlive; recording is thread-safe (one mutex per track, uncontended but for the drain).
class CpuTrack {
public:
    CpuTrack(const CpuTrack&) = delete;
    CpuTrack& operator=(const CpuTrack&) = delete;

    /// Span::track of its spans; stable for the profiler's life.
    int index() const { return m_index; }
    const char* name() const { return m_name; }
    /// False when the profiler is off (at run time or compiled out): nothing is recorded.
    bool isRecording() const { return m_recording; }

    /// Milliseconds on the profiler's timeline (steady clock). Any thread.
    double nowMs() const;
    /// Records a finished span. Any thread; `name` in static storage. No allocation once the
    /// track's buffers have grown to a frame's worth of spans.
    void record(const char* name, double startMs, double endMs);

private:
    friend class ThreadTracks;
    CpuTrack(int index, const char* name, std::int64_t startNs, bool recording);
    /// Appends the spans recorded since the last drain to `out`. Render thread.
    void drainInto(std::vector<Span>& out);

    const int m_index;
    const char* const m_name;
    const std::int64_t m_startNs;
    const bool m_recording;
    std::mutex m_mutex;
    std::vector<Span> m_pending;  ///< recorded since the last drain (guarded by m_mutex)
    std::vector<Span> m_draining; ///< render thread's: swapped with m_pending, capacity kept
};

/// The CPU threads' tracks of one timeline: track 0 is the render thread's ("main (render
/// thread)"), the others are made on first use by name. A Profiler owns one; code that only
/// records CPU spans on its own threads (the streamer's loaders) is given this rather than the
/// profiler.
class ThreadTracks {
public:
    /// A timeline starting at `startNs` (steady clock); `recording` false: tracks record nothing.
    ThreadTracks(std::int64_t startNs, bool recording);
    ~ThreadTracks();
    ThreadTracks(const ThreadTracks&) = delete;
    ThreadTracks& operator=(const ThreadTracks&) = delete;

    /// The track named `name`, created on first call (a second call with an equal name returns
    /// the same track). Any thread; the track lives as long as this. `name` in static storage.
    CpuTrack& track(const char* name);
    /// Every track (index, name), in order of creation. Any thread.
    std::vector<Track> list() const;
    /// Appends every track's spans recorded since the last drain to `out`. Render thread.
    void drainInto(std::vector<Span>& out);
    /// Milliseconds on the timeline (steady clock). Any thread.
    double nowMs() const;

private:
    const std::int64_t m_startNs;
    const bool m_recording;
    mutable std::mutex m_mutex; ///< guards the list's growth
    std::vector<std::unique_ptr<CpuTrack>> m_tracks;
};

/// Nanoseconds of the steady clock: the timeline's base.
std::int64_t steadyNs();

#if TANDEM_PROFILER_ENABLED

/// RAII CPU scope on another thread's track (ThreadTracks::track()), from that thread.
class ThreadScope {
public:
    ThreadScope(CpuTrack& track, const char* name)
        : m_track(track), m_name(name), m_startMs(track.isRecording() ? track.nowMs() : 0)
    {}
    ~ThreadScope()
    {
        if (m_track.isRecording())
            m_track.record(m_name, m_startMs, m_track.nowMs());
    }
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;

private:
    CpuTrack& m_track;
    const char* m_name;
    double m_startMs;
};

#else

// Compiled out: an empty class with an inline no-op constructor.
class ThreadScope {
public:
    ThreadScope(CpuTrack&, const char*) {}
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;
};

#endif

} // namespace tandem::profile
