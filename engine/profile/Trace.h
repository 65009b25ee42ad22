// Chrome trace export (Trace Event Format JSON, opens in chrome://tracing and Perfetto): one
// process per API (CPU, GL, CUDA), one thread per track (CPU thread, GL queue, CUDA stream) with
// tid = track + 1 and a thread_name for each, stage names as event names, complete ("X")
// events in microseconds on the profiler's timeline. Any thread (one owner).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/Result.h"
#include "engine/profile/Profiler.h"

namespace tandem::profile {

class Trace {
public:
    /// Keeps at most `maxFrames` frames (the first ones offered).
    explicit Trace(std::size_t maxFrames) : m_maxFrames(maxFrames) {}

    /// Adds finished frames until the limit is reached; returns whether it is full.
    bool add(const std::vector<FrameRecord>& frames);
    bool isFull() const { return m_frames.size() >= m_maxFrames; }
    /// Names the tracks (Profiler::tracks()); a track left unnamed that has spans gets a
    /// default name ("thread N", "stream N").
    void setTracks(std::vector<Track> tracks) { m_tracks = std::move(tracks); }
    std::size_t frameCount() const { return m_frames.size(); }

    /// The trace as JSON ({"traceEvents": [...], "displayTimeUnit": "ms"}).
    nlohmann::json toJson() const;
    /// Writes the JSON; refuses to replace a file unless `overwrite`.
    Result<bool> write(const std::filesystem::path& path, bool overwrite) const;

private:
    std::size_t m_maxFrames;
    std::vector<FrameRecord> m_frames;
    std::vector<Track> m_tracks;
};

} // namespace tandem::profile
