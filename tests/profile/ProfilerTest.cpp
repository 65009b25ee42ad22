// unit tier (no GL): the build switch — with TANDEM_PROFILER=OFF the scopes are empty types and a
// Profiler (made without a context) never yields a frame; with it on they hold state. The trace
// names one thread per track with tid = track + 1, from records made by hand.
#include "engine/profile/Profiler.h"

#include <map>
#include <set>
#include <type_traits>
#include <utility>

#include <gtest/gtest.h>

#include "engine/profile/Trace.h"

namespace tandem::profile {
namespace {

#if TANDEM_PROFILER_ENABLED

TEST(ProfilerBuild, ScopesHoldStateWhenCompiledIn)
{
    EXPECT_TRUE(CompiledIn);
    EXPECT_FALSE(std::is_empty_v<GlScope>);
    EXPECT_FALSE(std::is_empty_v<CpuScope>);
    EXPECT_FALSE(std::is_empty_v<ThreadScope>);
    EXPECT_FALSE(std::is_empty_v<CudaScope>);
}

#else

TEST(ProfilerBuild, ScopesAreEmptyWhenCompiledOut)
{
    EXPECT_FALSE(CompiledIn);
    EXPECT_TRUE(std::is_empty_v<GlScope>);
    EXPECT_TRUE(std::is_empty_v<CpuScope>);
    EXPECT_TRUE(std::is_empty_v<ThreadScope>);
    EXPECT_TRUE(std::is_empty_v<CudaScope>);
}

TEST(ProfilerBuild, CompiledOutProfilerNeverYieldsFrames)
{
    // No GL context in this tier: a compiled-out profiler must not need one.
    Profiler profiler;
    EXPECT_FALSE(profiler.isEnabled());
    CpuTrack& worker = profiler.threadTrack("worker");
    EXPECT_FALSE(worker.isRecording());
    int sink = 0;
    for (int frame = 0; frame < 8; ++frame) {
        profiler.beginFrame();
        {
            GlScope gl(profiler, "gl");
            CpuScope cpu(profiler, "cpu");
            ThreadScope thread(worker, "thread");
            profiler.beginHandoff();
            profiler.anchorHandoff(&sink);
            profiler.nameStream(&sink, "frame");
            profiler.endCuda(profiler.beginCuda("cuda", &sink), &sink);
            CudaScope cuda(profiler, "cuda scope", &sink);
            profiler.endHandoff();
            profiler.endCpu(profiler.beginCpu("cpu2"));
            profiler.endGl(profiler.beginGl("gl2"));
        }
        profiler.endFrame();
        EXPECT_TRUE(profiler.takeFrames().empty());
    }
    profiler.flush();
    EXPECT_TRUE(profiler.takeFrames().empty());
    EXPECT_EQ(profiler.framesFinished(), 0u);
    EXPECT_EQ(profiler.framesMeasured(), 0u);
    EXPECT_EQ(profiler.calibrations(), 0u);
    EXPECT_EQ(profiler.gpuStats().summary("frame").count, 0u);
    EXPECT_EQ(profiler.cpuStats().summary("cpu").count, 0u);
}

#endif

TEST(Trace, OneThreadNamePerTrackAndTidIsTrackPlusOne)
{
    FrameRecord frame;
    frame.index = 7;
    frame.cpuStartMs = 1;
    frame.cpuEndMs = 9;
    frame.gpuStartMs = 2;
    frame.gpuEndMs = 8;
    frame.spans = {{"input", Api::Cpu, 0, 1, 2},     {"encode", Api::Cpu, 2, 3, 5},
                   {"geometry", Api::Gl, 0, 2, 4},   {"tonemap", Api::Cuda, 0, 4, 5},
                   {"upload", Api::Cuda, 1, 4.5, 6}, {"load", Api::Cpu, 3, 2, 3}};
    Trace trace(4);
    trace.add({frame});
    trace.setTracks({{Api::Cpu, 0, "main (render thread)"},
                     {Api::Cpu, 1, "loader"},
                     {Api::Cpu, 2, "encoder"},
                     {Api::Gl, 0, "GL queue"},
                     {Api::Cuda, 0, "frame"},
                     {Api::Cuda, 1, "copy"}});
    const nlohmann::json json = trace.toJson();

    // (pid, tid) -> thread name; a track named twice would fail the count below.
    std::map<std::pair<int, int>, std::string> threads;
    int threadNames = 0;
    std::map<std::string, std::pair<int, int>> spans;
    for (const auto& event : json["traceEvents"]) {
        if (event["ph"] == "M" && event["name"] == "thread_name") {
            ++threadNames;
            threads[{event["pid"].get<int>(), event["tid"].get<int>()}] =
                event["args"]["name"].get<std::string>();
        }
        if (event["ph"] == "X")
            spans[event["name"].get<std::string>()] = {event["pid"].get<int>(),
                                                       event["tid"].get<int>()};
    }
    const std::map<std::pair<int, int>, std::string> expected = {
        {{1, 1}, "main (render thread)"},
        {{1, 2}, "loader"}, // named, though without spans in these frames
        {{1, 3}, "encoder"},
        {{1, 4}, "thread 3"}, // spans, no name given: a default
        {{2, 1}, "GL queue"},
        {{3, 1}, "frame"},
        {{3, 2}, "copy"}};
    EXPECT_EQ(threads, expected);
    EXPECT_EQ(threadNames, static_cast<int>(expected.size()));
    EXPECT_EQ(spans["input"], std::make_pair(1, 1));
    EXPECT_EQ(spans["encode"], std::make_pair(1, 3));
    EXPECT_EQ(spans["load"], std::make_pair(1, 4));
    EXPECT_EQ(spans["geometry"], std::make_pair(2, 1));
    EXPECT_EQ(spans["tonemap"], std::make_pair(3, 1));
    EXPECT_EQ(spans["upload"], std::make_pair(3, 2));
}

TEST(Trace, UnnamedTracksGetDefaultNames)
{
    FrameRecord frame;
    frame.spans = {{"stage", Api::Cuda, 2, 0, 1}};
    Trace trace(1);
    trace.add({frame});
    const nlohmann::json json = trace.toJson();
    std::set<std::string> names;
    for (const auto& event : json["traceEvents"])
        if (event["ph"] == "M" && event["name"] == "thread_name")
            names.insert(event["args"]["name"].get<std::string>());
    EXPECT_EQ(names, (std::set<std::string>{"main (render thread)", "GL queue", "stream 2"}));
}

TEST(Trace, CountersBecomeCounterTracks)
{
    FrameRecord a, b;
    a.index = 1;
    a.cpuStartMs = 2;
    a.counters = {{"stream: staged frames", 3}, {"stream: late frames", 0}};
    b.index = 2;
    b.cpuStartMs = 5;
    b.counters = {{"stream: staged frames", 7}};
    Trace trace(4);
    trace.add({a, b});
    std::vector<std::pair<double, double>> staged; // (ts µs, value)
    int late = 0;
    const nlohmann::json json = trace.toJson();
    for (const auto& event : json["traceEvents"]) {
        if (event["ph"] != "C")
            continue;
        if (event["name"] == "stream: staged frames")
            staged.emplace_back(event["ts"].get<double>(), event["args"]["value"].get<double>());
        late += event["name"] == "stream: late frames" ? 1 : 0;
    }
    EXPECT_EQ(staged, (std::vector<std::pair<double, double>>{{2000, 3}, {5000, 7}}));
    EXPECT_EQ(late, 1);
}

} // namespace
} // namespace tandem::profile
