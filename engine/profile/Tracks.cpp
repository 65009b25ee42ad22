#include "engine/profile/Tracks.h"

#include <chrono>
#include <cstring>

namespace tandem::profile {

std::int64_t steadyNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

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

ThreadTracks::ThreadTracks(std::int64_t startNs, bool recording)
    : m_startNs(startNs), m_recording(recording)
{
    m_tracks.push_back(
        std::unique_ptr<CpuTrack>(new CpuTrack(0, "main (render thread)", startNs, recording)));
}

ThreadTracks::~ThreadTracks() = default;

CpuTrack& ThreadTracks::track(const char* name)
{
    const std::lock_guard lock(m_mutex);
    for (const auto& track : m_tracks)
        if (std::strcmp(track->name(), name) == 0)
            return *track;
    m_tracks.push_back(std::unique_ptr<CpuTrack>(
        new CpuTrack(static_cast<int>(m_tracks.size()), name, m_startNs, m_recording)));
    return *m_tracks.back();
}

std::vector<Track> ThreadTracks::list() const
{
    const std::lock_guard lock(m_mutex);
    std::vector<Track> all;
    for (const auto& track : m_tracks)
        all.push_back({Api::Cpu, track->index(), track->name()});
    return all;
}

void ThreadTracks::drainInto(std::vector<Span>& out)
{
    // Track 0 is the render thread's own (ThreadScopes on it from this thread land here too).
    const std::lock_guard lock(m_mutex);
    for (const auto& track : m_tracks)
        track->drainInto(out);
}

double ThreadTracks::nowMs() const
{
    return static_cast<double>(steadyNs() - m_startNs) * 1e-6;
}

} // namespace tandem::profile
