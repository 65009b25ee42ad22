// gl tier: the profiler on a real context. Headless rendering yields timings for every stage,
// spans sit inside their frames in pipeline order, the trace is well formed, and steady-state
// frames stall only for the read-back headless output needs.
#include <set>

#include <gtest/gtest.h>

#include "engine/postfx/PostProcessor.h"
#include "engine/profile/Trace.h"
#include "engine/render/GpuMesh.h"
#include "engine/render/OrbitCamera.h"
#include "engine/ui/FramePipeline.h"
#include "tests/support/GlTestContext.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::profile {
namespace {

class ProfilerGL : public test::GlTest {
protected:
    /// Renders `frames` frames of the test scene with `chainText`, reading back when asked.
    std::vector<FrameRecord> run(Profiler& profiler, int frames, const std::string& chainText,
                                 bool readback, bool detail = true)
    {
        auto chain = postfx::parseChain(chainText);
        EXPECT_TRUE(chain);
        interop::InteropStatus hostOnly;
        auto processor = postfx::PostProcessor::create(postfx::BackendChoice::Host, hostOnly);
        render::GpuMesh mesh(test::cubeOnFloor(), "scene");
        render::SceneRenderer renderer(96, 64, render::ColorFormat::Rgba8, true);
        render::OrbitCamera camera;
        camera.fit(mesh.bounds());
        ui::FramePipeline pipeline(renderer, *processor.value(), profiler);
        pipeline.setGeometryDetail(detail);
        std::vector<FrameRecord> records;
        for (int i = 0; i < frames; ++i) {
            profiler.beginFrame();
            camera.orbit(5.0f, 0.0f);
            pipeline.render(mesh, camera, chain.value(), render::Channel::Output,
                            render::GeometryOptions{});
            if (readback)
                (void)pipeline.readback();
            profiler.endFrame();
            for (auto& r : profiler.takeFrames())
                records.push_back(std::move(r));
        }
        profiler.flush();
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
    Profiler profiler;
    const auto frames = run(profiler, 3, "tonemap", false, false);
    ASSERT_EQ(frames.size(), 3u);
    for (const auto& frame : frames) {
        ASSERT_NE(find(frame, "geometry"), nullptr);
        EXPECT_EQ(find(frame, "geometry.visibility"), nullptr);
        EXPECT_LE(find(frame, "geometry")->endMs, find(frame, "handoff")->startMs);
    }
}

TEST_F(ProfilerGL, SteadyStateFramesStallOnlyForReadback)
{
    // The G-buffer alone, no read-back: zero stalls in every frame.
    Profiler quiet;
    for (const auto& frame : run(quiet, 8, "none", false))
        for (std::size_t i = 0; i < StallCauseCount; ++i)
            EXPECT_EQ(frame.stalls[i], 0u)
                << "frame " << frame.index << " stalled: " << stallName(static_cast<StallCause>(i));
    // Headless output reads each frame back: exactly one read-back, nothing else.
    Profiler reading;
    for (const auto& frame : run(reading, 8, "none", true))
        for (std::size_t i = 0; i < StallCauseCount; ++i)
            EXPECT_EQ(frame.stalls[i],
                      i == static_cast<std::size_t>(StallCause::Readback) ? 1u : 0u)
                << "frame " << frame.index << ": " << stallName(static_cast<StallCause>(i));
    EXPECT_EQ(reading.stallTotals()[static_cast<std::size_t>(StallCause::Readback)], 8u);
}

TEST_F(ProfilerGL, WarmupFramesStayOutOfStatistics)
{
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

} // namespace
} // namespace tandem::profile
