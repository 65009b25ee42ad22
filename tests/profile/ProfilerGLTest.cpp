// gl tier: the profiler on a real context. Headless rendering yields timings for every stage,
// spans sit inside their frames in pipeline order, the trace is well formed, steady-state
// frames never stall, frame output through the read-back ring included, and spans other threads
// record on their tracks join the frames and the trace under their tracks' names. Tests that need
// timed frames skip in a build with the profiler compiled out (TANDEM_PROFILER=OFF).
#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include <gtest/gtest.h>

#include "engine/frame/OutputRing.h"
#include "engine/profile/Trace.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GlTestContext.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::profile {
namespace {

#define TANDEM_SKIP_IF_COMPILED_OUT()                                                              \
    if (!CompiledIn)                                                                               \
    GTEST_SKIP() << "the profiler is compiled out (TANDEM_PROFILER=OFF): no frames are timed"

class ProfilerGL : public test::GlTest {
protected:
    /// Renders `frames` frames of the test scene with `chainText` (showing its output, or the
    /// colour when it is empty) through the frame, reading each back through the output ring
    /// when asked, as headless output does.
    std::vector<FrameRecord> run(Profiler& profiler, int frames, const std::string& chainText,
                                 bool readback, bool detail = true)
    {
        auto chain = postfx::parseChain(chainText);
        EXPECT_TRUE(chain);
        const render::GpuScene scene = test::sceneOf(test::cubeOnFloor(), "scene");
        render::SceneRenderer renderer(96, 64, render::ColorFormat::Rgba8, true);
        render::OrbitController camera;
        camera.fit(scene.bounds());
        frame::Frame pipeline(renderer, frame::Residence{}, profiler);
        pipeline.setGeometryDetail(detail);
        const frame::Channel channel =
            chain.value().enabledCount() > 0 ? frame::Channel::Output : frame::Channel::Color;
        frame::OutputRing ring(4);
        auto sink = [&](const frame::ReadyFrame& ready) {
            ring.release(ready.slot);
        };
        std::vector<FrameRecord> records;
        for (int i = 0; i < frames; ++i) {
            profiler.beginFrame();
            camera.orbit(5.0f, 0.0f);
            pipeline.render(scene, camera.camera(), chain.value(), channel,
                            render::GeometryOptions{});
            if (readback)
                ring.readFramebuffer(renderer.presentFramebuffer(), 96, 64,
                                     static_cast<std::uint64_t>(i), sink);
            profiler.endFrame();
            for (auto& r : profiler.takeFrames())
                records.push_back(std::move(r));
        }
        profiler.flush();
        ring.drain(sink);
        for (auto& r : profiler.takeFrames())
            records.push_back(std::move(r));
        return records;
    }
};

const Span* find(const FrameRecord& frame, const std::string& name)
{
    for (const auto& span : frame.spans)
        if (span.name == name)
            return &span;
    return nullptr;
}

TEST_F(ProfilerGL, EveryStageIsTimedInsideItsFrameInPipelineOrder)
{
    TANDEM_SKIP_IF_COMPILED_OUT();
    Profiler profiler;
    const auto frames = run(profiler, 6, "tonemap,fxaa", false);
    ASSERT_EQ(frames.size(), 6u) << "every frame collected, none dropped";
    EXPECT_EQ(profiler.framesDropped(), 0u);
    for (const auto& frame : frames) {
        for (const char* name : {"geometry.visibility", "geometry.resolve", "handoff", "present",
                                 "tonemap", "fxaa", "encode", "postfx"})
            ASSERT_NE(find(frame, name), nullptr) << name << " missing in frame " << frame.index;
        EXPECT_EQ(frame.handoffs, 1);
        for (const auto& span : frame.spans) {
            EXPECT_GE(span.endMs, span.startMs) << span.name;
            const double start = span.api == Api::Cpu ? frame.cpuStartMs : frame.gpuStartMs;
            const double end = span.api == Api::Cpu ? frame.cpuEndMs : frame.gpuEndMs;
            EXPECT_GE(span.startMs, start) << span.name << " starts before its frame";
            EXPECT_LE(span.endMs, end) << span.name << " ends after its frame";
        }
        // GL stages in pipeline order.
        EXPECT_LE(find(frame, "geometry.visibility")->endMs,
                  find(frame, "geometry.resolve")->startMs);
        EXPECT_LE(find(frame, "geometry.resolve")->endMs, find(frame, "handoff")->startMs);
        EXPECT_LE(find(frame, "handoff")->endMs, find(frame, "present")->startMs);
        // Host stages in chain order.
        EXPECT_LE(find(frame, "tonemap")->endMs, find(frame, "fxaa")->startMs);
        EXPECT_LE(find(frame, "fxaa")->endMs, find(frame, "encode")->startMs);
    }
    for (const char* name : {"frame", "geometry.visibility", "geometry.resolve", "present"}) {
        const Summary s = profiler.gpuStats().summary(name);
        EXPECT_EQ(s.count, 6u) << name;
        EXPECT_GT(s.mean, 0.0) << name;
        EXPECT_LE(s.p50, s.p99) << name;
    }
    EXPECT_GT(profiler.cpuStats().summary("tonemap").mean, 0.0);
}

TEST_F(ProfilerGL, CoarseGeometrySpanByDefault)
{
    TANDEM_SKIP_IF_COMPILED_OUT();
    Profiler profiler;
    const auto frames = run(profiler, 3, "tonemap", false, false);
    ASSERT_EQ(frames.size(), 3u);
    for (const auto& frame : frames) {
        ASSERT_NE(find(frame, "geometry"), nullptr);
        EXPECT_EQ(find(frame, "geometry.visibility"), nullptr);
        EXPECT_LE(find(frame, "geometry")->endMs, find(frame, "handoff")->startMs);
    }
}

TEST_F(ProfilerGL, SteadyStateFramesNeverStallWithOutputOn)
{
    TANDEM_SKIP_IF_COMPILED_OUT();
    // The G-buffer alone, no read-back: zero stalls in every frame.
    Profiler quiet;
    for (const auto& frame : run(quiet, 8, "none", false))
        for (std::size_t i = 0; i < StallCauseCount; ++i)
            EXPECT_EQ(frame.stalls[i], 0u)
                << "frame " << frame.index
                << " stalled: " << StallCauses.name(static_cast<StallCause>(i));
    // Headless output reads each frame back through the ring: still no stall (a throttle, the
    // CPU a full ring ahead waiting for the oldest frame, would not drain the GPU).
    Profiler reading;
    const auto frames = run(reading, 12, "none", true);
    ASSERT_EQ(frames.size(), 12u);
    for (const auto& frame : frames)
        for (std::size_t i = 0; i < StallCauseCount; ++i) {
            if (isStall(static_cast<StallCause>(i))) {
                EXPECT_EQ(frame.stalls[i], 0u) << "frame " << frame.index << ": "
                                               << StallCauses.name(static_cast<StallCause>(i));
            }
        }
    EXPECT_EQ(reading.counters().summary("stalls").max, 0.0);
    // The host backend's read-back of the G-buffer is the one stall by design of that path.
    Profiler host;
    for (const auto& frame : run(host, 4, "tonemap", true))
        EXPECT_EQ(frame.stalls[static_cast<std::size_t>(StallCause::Readback)], 1u);
}

TEST_F(ProfilerGL, WarmupFramesStayOutOfStatistics)
{
    TANDEM_SKIP_IF_COMPILED_OUT();
    ProfilerOptions options;
    options.warmupFrames = 3;
    Profiler profiler(options);
    const auto frames = run(profiler, 7, "none", false);
    EXPECT_EQ(frames.size(), 4u);
    EXPECT_EQ(frames.front().index, 3u);
    EXPECT_EQ(profiler.gpuStats().summary("frame").count, 4u);
    EXPECT_EQ(profiler.framesMeasured(), 4u);
}

TEST_F(ProfilerGL, DisabledProfilerRecordsNothing)
{
    ProfilerOptions options;
    options.enabled = false;
    Profiler profiler(options);
    EXPECT_TRUE(run(profiler, 3, "tonemap", false).empty());
    EXPECT_EQ(profiler.calibrations(), 0u);
}

TEST_F(ProfilerGL, TraceIsWellFormed)
{
    TANDEM_SKIP_IF_COMPILED_OUT();
    Profiler profiler;
    Trace trace(4);
    trace.add(run(profiler, 6, "tonemap,fxaa", true));
    EXPECT_TRUE(trace.isFull());
    const nlohmann::json json = trace.toJson();
    ASSERT_TRUE(json.contains("traceEvents"));
    std::set<std::string> processes;
    int complete = 0;
    for (const auto& event : json["traceEvents"]) {
        ASSERT_TRUE(event.contains("ph"));
        ASSERT_TRUE(event.contains("pid"));
        if (event["ph"] == "M" && event["name"] == "process_name")
            processes.insert(event["args"]["name"].get<std::string>());
        if (event["ph"] == "X") {
            ++complete;
            EXPECT_GE(event["dur"].get<double>(), 0.0) << event.dump();
            EXPECT_GE(event["ts"].get<double>(), 0.0) << event.dump();
            EXPECT_TRUE(event.contains("tid"));
        }
    }
    EXPECT_EQ(processes, (std::set<std::string>{"CPU", "GL", "CUDA"}));
    EXPECT_GT(complete, 4 * 8);
}

/// The frames `profiler` finished so far, flushed.
std::vector<FrameRecord> flushed(Profiler& profiler)
{
    profiler.flush();
    return profiler.takeFrames();
}

std::uint64_t stallsOf(const FrameRecord& frame, StallCause cause)
{
    return frame.stalls[static_cast<std::size_t>(cause)];
}

TEST_F(ProfilerGL, TwoProfilersInOneProcessCountTheirOwnStalls)
{
    // Two sessions in one process (two Python Viewers): a wait one of them makes, or another
    // thread makes, is not a stall of the other's frame.
    TANDEM_SKIP_IF_COMPILED_OUT();
    ProfilerOptions options;
    options.depth = 8;
    Profiler a(options), b(options);

    // b's frame inside a's (a hook of one viewer rendering the other): b's wait is b's alone.
    a.beginFrame();
    recordStall(StallCause::Readback);
    b.beginFrame();
    recordStall(StallCause::QueryWait);
    recordStall(StallCause::QueryWait);
    b.endFrame();
    a.endFrame();
    // Another thread waits while a's frame is open: not a's either.
    a.beginFrame();
    std::thread([] { recordStall(StallCause::StreamSync); }).join();
    a.endFrame();

    const std::vector<FrameRecord> framesA = flushed(a), framesB = flushed(b);
    ASSERT_EQ(framesA.size(), 2u);
    ASSERT_EQ(framesB.size(), 1u);
    EXPECT_EQ(stallsOf(framesA[0], StallCause::Readback), 1u);
    EXPECT_EQ(stallsOf(framesA[0], StallCause::QueryWait), 0u) << "b's wait counted in a's frame";
    EXPECT_EQ(stallsOf(framesA[1], StallCause::StreamSync), 0u)
        << "another thread's wait counted in a's frame";
    EXPECT_EQ(stallsOf(framesB[0], StallCause::QueryWait), 2u);
    EXPECT_EQ(stallsOf(framesB[0], StallCause::Readback), 0u);
    EXPECT_EQ(a.stallTotals()[static_cast<std::size_t>(StallCause::QueryWait)], 0u);
    EXPECT_EQ(b.stallTotals()[static_cast<std::size_t>(StallCause::QueryWait)], 2u);
    // Between frames nothing reports to either.
    recordStall(StallCause::Finish);
    EXPECT_EQ(currentStallCounter(), nullptr);
}

TEST_F(ProfilerGL, ThreadTracksJoinTheFramesAndTheTraceByName)
{
    TANDEM_SKIP_IF_COMPILED_OUT();
    ProfilerOptions options;
    options.depth = 8; // more slots than frames: none is dropped, however slow the GL queue
    Profiler profiler(options);
    CpuTrack& encoder0 = profiler.threadTrack("encoder 0");
    CpuTrack* encoder1 = nullptr;
    std::thread([&] { encoder1 = &profiler.threadTrack("encoder 1"); }).join(); // any thread
    ASSERT_NE(encoder1, nullptr);
    EXPECT_EQ(encoder0.index(), 1);
    EXPECT_EQ(encoder1->index(), 2);
    EXPECT_EQ(&profiler.threadTrack("encoder 0"), &encoder0) << "one track per name";

    constexpr int Frames = 5, ScopesPerFrame = 3;
    std::vector<FrameRecord> frames;
    for (int f = 0; f < Frames; ++f) {
        profiler.beginFrame();
        {
            GlScope gl(profiler, "gl-frame");
        }
        // The workers finish inside the frame, so their spans are drained into it.
        auto work = [](CpuTrack& track, const char* name) {
            for (int i = 0; i < ScopesPerFrame; ++i) {
                ThreadScope scope(track, name);
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
        };
        std::thread a(work, std::ref(encoder0), "encode");
        std::thread b(work, std::ref(*encoder1), "write");
        {
            CpuScope scope(profiler, "wait-workers");
            a.join();
            b.join();
        }
        profiler.endFrame();
        for (auto& r : profiler.takeFrames())
            frames.push_back(std::move(r));
    }
    profiler.flush();
    for (auto& r : profiler.takeFrames())
        frames.push_back(std::move(r));
    ASSERT_EQ(frames.size(), static_cast<std::size_t>(Frames));

    for (const auto& frame : frames) {
        std::map<std::string, int> count;
        for (const auto& span : frame.spans) {
            if (span.api != Api::Cpu)
                continue;
            const std::string name = span.name;
            ++count[name];
            const int track = name == "encode" ? 1 : name == "write" ? 2 : 0;
            EXPECT_EQ(span.track, track) << name;
            EXPECT_GT(span.endMs, span.startMs) << name;
            EXPECT_GE(span.startMs, frame.cpuStartMs) << name << " before its frame";
            EXPECT_LE(span.endMs, frame.cpuEndMs) << name << " after its frame";
            if (track != 0) { // inside the render thread's wait for the workers
                EXPECT_LE(span.endMs, find(frame, "wait-workers")->endMs) << name;
            }
        }
        EXPECT_EQ(count["encode"], ScopesPerFrame) << "frame " << frame.index;
        EXPECT_EQ(count["write"], ScopesPerFrame) << "frame " << frame.index;
        EXPECT_EQ(count["wait-workers"], 1);
        ASSERT_NE(find(frame, "gl-frame"), nullptr);
    }
    EXPECT_EQ(profiler.cpuStats().summary("encode").count,
              static_cast<std::size_t>(Frames * ScopesPerFrame));

    std::vector<std::tuple<Api, int, std::string>> tracks;
    for (const auto& track : profiler.tracks())
        tracks.emplace_back(track.api, track.index, track.name);
    EXPECT_EQ(tracks,
              (std::vector<std::tuple<Api, int, std::string>>{{Api::Cpu, 0, "main (render thread)"},
                                                              {Api::Cpu, 1, "encoder 0"},
                                                              {Api::Cpu, 2, "encoder 1"},
                                                              {Api::Gl, 0, "GL queue"}}));

    Trace trace(Frames);
    trace.add(frames);
    trace.setTracks(profiler.tracks());
    const nlohmann::json json = trace.toJson();
    std::map<std::pair<int, int>, std::string> threads;
    std::map<std::string, std::set<int>> tids;
    std::map<std::string, int> complete;
    for (const auto& event : json["traceEvents"]) {
        if (event["ph"] == "M" && event["name"] == "thread_name")
            threads[{event["pid"].get<int>(), event["tid"].get<int>()}] =
                event["args"]["name"].get<std::string>();
        if (event["ph"] == "X" && event["pid"] == 1) {
            const std::string name = event["name"].get<std::string>();
            tids[name].insert(event["tid"].get<int>());
            ++complete[name];
        }
    }
    EXPECT_EQ(threads, (std::map<std::pair<int, int>, std::string>{{{1, 1}, "main (render thread)"},
                                                                   {{1, 2}, "encoder 0"},
                                                                   {{1, 3}, "encoder 1"},
                                                                   {{2, 1}, "GL queue"}}));
    EXPECT_EQ(tids["encode"], std::set<int>{2});
    EXPECT_EQ(tids["write"], std::set<int>{3});
    EXPECT_EQ(tids["wait-workers"], std::set<int>{1});
    EXPECT_EQ(complete["encode"], Frames * ScopesPerFrame);
    EXPECT_EQ(complete["write"], Frames * ScopesPerFrame);
}

TEST_F(ProfilerGL, ThreadSpansRecordedWhileFramesEndAreNeitherLostNorDuplicated)
{
    TANDEM_SKIP_IF_COMPILED_OUT();
    constexpr int Frames = 30;
    ProfilerOptions options;
    options.depth = Frames + 1; // no slot is reused: a dropped frame would lose its spans
    Profiler profiler(options);
    std::atomic<bool> stop{false};
    std::array<std::atomic<int>, 2> recorded{};
    std::array<std::atomic<int>, 2> trackOf{}; // which worker made its track first is a race
    auto worker = [&](int i, const char* trackName) {
        CpuTrack& track = profiler.threadTrack(trackName);
        trackOf[static_cast<std::size_t>(i)] = track.index();
        while (!stop.load()) {
            {
                ThreadScope scope(track, "chunk");
            }
            recorded[static_cast<std::size_t>(i)].fetch_add(1);
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    };
    std::thread a(worker, 0, "loader 0");
    std::thread b(worker, 1, "loader 1");
    std::vector<FrameRecord> frames;
    for (int f = 0; f < Frames; ++f) {
        profiler.beginFrame();
        {
            GlScope gl(profiler, "gl-frame");
        }
        // Frames that take a while, so the workers record while frames begin and end.
        std::this_thread::sleep_for(std::chrono::microseconds(300));
        if (f == Frames - 1) {
            // Both workers have been at it (however the threads were scheduled); the last
            // frame drains whatever is left.
            while (recorded[0].load() < 10 || recorded[1].load() < 10)
                std::this_thread::sleep_for(std::chrono::microseconds(100));
            stop = true;
            a.join();
            b.join();
        }
        profiler.endFrame();
        for (auto& r : profiler.takeFrames())
            frames.push_back(std::move(r));
    }
    profiler.flush();
    for (auto& r : profiler.takeFrames())
        frames.push_back(std::move(r));
    ASSERT_EQ(profiler.framesDropped(), 0u) << "a dropped frame loses its spans";
    ASSERT_EQ(frames.size(), static_cast<std::size_t>(Frames));
    EXPECT_EQ((std::set<int>{trackOf[0].load(), trackOf[1].load()}), (std::set<int>{1, 2}));
    std::map<int, int> chunks; // by track
    int framesWithChunks = 0;
    for (const auto& frame : frames) {
        bool any = false;
        for (const auto& span : frame.spans)
            if (std::string(span.name) == "chunk") {
                ++chunks[span.track];
                any = true;
            }
        framesWithChunks += any ? 1 : 0;
    }
    EXPECT_EQ(chunks.size(), 2u);
    EXPECT_EQ(chunks[trackOf[0].load()], recorded[0].load()) << "loader 0";
    EXPECT_EQ(chunks[trackOf[1].load()], recorded[1].load()) << "loader 1";
    EXPECT_GT(framesWithChunks, 1) << "drained frame by frame, not all at the end";
}

} // namespace
} // namespace tandem::profile
