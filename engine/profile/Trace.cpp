#include "engine/profile/Trace.h"

#include <map>
#include <utility>

#include <fmt/format.h>

#include "engine/core/File.h"

namespace tandem::profile {

namespace {

int pidOf(Api api)
{
    return static_cast<int>(api) + 1;
}

nlohmann::json metadata(const char* what, int pid, int tid, const std::string& name)
{
    nlohmann::json event = {{"name", what}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}};
    if (tid >= 0)
        event["tid"] = tid;
    return event;
}

/// The name of a track nobody named.
std::string defaultTrackName(Api api, int track)
{
    switch (api) {
    case Api::Cpu:
        return track == 0 ? "main (render thread)" : fmt::format("thread {}", track);
    case Api::Gl:
        return "GL queue";
    case Api::Cuda:
        return fmt::format("stream {}", track);
    }
    return "?";
}

nlohmann::json complete(const char* name, Api api, int track, double startMs, double endMs,
                        std::uint64_t frame)
{
    return {{"name", name},
            {"cat", Apis.name(api)},
            {"ph", "X"},
            {"pid", pidOf(api)},
            {"tid", track + 1},
            {"ts", startMs * 1000.0},
            {"dur", std::max(0.0, endMs - startMs) * 1000.0},
            {"args", {{"frame", frame}}}};
}

} // namespace

bool Trace::add(const std::vector<FrameRecord>& frames)
{
    for (const auto& frame : frames) {
        if (isFull())
            break;
        m_frames.push_back(frame);
    }
    return isFull();
}

nlohmann::json Trace::toJson() const
{
    nlohmann::json events = nlohmann::json::array();
    events.push_back(metadata("process_name", pidOf(Api::Cpu), -1, "CPU"));
    events.push_back(metadata("process_name", pidOf(Api::Gl), -1, "GL"));
    events.push_back(metadata("process_name", pidOf(Api::Cuda), -1, "CUDA"));
    // One thread_name per track: every named track, and every track a span sits on.
    std::map<std::pair<Api, int>, std::string> threads;
    threads[{Api::Cpu, 0}] = defaultTrackName(Api::Cpu, 0);
    threads[{Api::Gl, 0}] = defaultTrackName(Api::Gl, 0);
    for (const auto& frame : m_frames)
        for (const auto& span : frame.spans)
            threads.try_emplace({span.api, span.track}, defaultTrackName(span.api, span.track));
    for (const auto& track : m_tracks)
        threads[{track.api, track.index}] = track.name;
    for (const auto& [key, name] : threads)
        events.push_back(metadata("thread_name", pidOf(key.first), key.second + 1, name));
    for (const auto& frame : m_frames) {
        const std::string name = fmt::format("frame {}", frame.index);
        events.push_back(
            complete(name.c_str(), Api::Cpu, 0, frame.cpuStartMs, frame.cpuEndMs, frame.index));
        events.push_back(
            complete(name.c_str(), Api::Gl, 0, frame.gpuStartMs, frame.gpuEndMs, frame.index));
        for (const auto& span : frame.spans)
            events.push_back(
                complete(span.name, span.api, span.track, span.startMs, span.endMs, frame.index));
        std::uint64_t stalls = 0;
        for (auto count : frame.stalls)
            stalls += count;
        events.push_back({{"name", "frame stats"},
                          {"ph", "C"},
                          {"pid", pidOf(Api::Cpu)},
                          {"ts", frame.cpuStartMs * 1000.0},
                          {"args", {{"handoffs", frame.handoffs}, {"stalls", stalls}}}});
        for (const auto& [counter, value] : frame.counters)
            events.push_back({{"name", counter},
                              {"ph", "C"},
                              {"pid", pidOf(Api::Cpu)},
                              {"ts", frame.cpuStartMs * 1000.0},
                              {"args", {{"value", value}}}});
    }
    return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

Result<bool> Trace::write(const std::filesystem::path& path, bool overwrite) const
{
    // Names that are not UTF-8 are written with U+FFFD rather than losing the trace.
    return writeTextFile(
        path, toJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
        overwrite);
}

} // namespace tandem::profile
