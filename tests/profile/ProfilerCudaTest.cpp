// gpu tier: CUDA spans on two streams get two tracks, named by nameStream() or "stream N", each
// stream with its own event pool; both are placed through the handoff's anchor on one
// timeline (a copy stream that waits for the frame stream starts after the frame stream's
// span ends), and the trace names a thread per stream.
#include <map>
#include <set>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/Device.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/cuda/Stream.h"
#include "engine/gl/Debug.h"
#include "engine/platform/Context.h"
#include "engine/profile/Profiler.h"
#include "engine/profile/Trace.h"
#include "tests/support/GpuTestContext.h"

namespace tandem::profile {
namespace {

class ProfilerCuda : public test::GpuTest {};

const Span* find(const FrameRecord& frame, const std::string& name)
{
    for (const auto& span : frame.spans)
        if (span.name == name)
            return &span;
    return nullptr;
}

TEST_F(ProfilerCuda, TwoStreamsGetTwoTracksOnOneTimeline)
{
    if (!CompiledIn)
        GTEST_SKIP() << "the profiler is compiled out (TANDEM_PROFILER=OFF): no frames are timed";
    constexpr int Frames = 6;
    ProfilerOptions options;
    options.depth = Frames + 1; // no slot is reused: every frame is collected
    Profiler profiler(options);
    cuda::Stream frameStream, copyStream, otherStream;
    cuda::Event frameDone(false);
    // Enough bytes that each span lasts a measurable time (about 0.1 ms on an H200).
    cuda::DeviceBuffer<unsigned char> a(256u << 20), b(256u << 20), c(1u << 20);
    profiler.nameStream(frameStream.get(), "frame");
    std::vector<FrameRecord> frames;
    for (int f = 0; f < Frames; ++f) {
        profiler.beginFrame();
        {
            GlScope scope(profiler, "geometry");
        }
        profiler.beginHandoff();
        profiler.anchorHandoff(frameStream.get());
        {
            CudaScope scope(profiler, "fill", frameStream.get());
            TANDEM_CUDA_CHECK(cudaMemsetAsync(a.data(), f, a.bytes(), frameStream.get()));
        }
        {
            CudaScope scope(profiler, "fill-again", frameStream.get());
            TANDEM_CUDA_CHECK(cudaMemsetAsync(a.data(), f + 1, a.bytes(), frameStream.get()));
        }
        // The copy stream waits for the frame stream, then copies.
        frameDone.record(frameStream.get());
        TANDEM_CUDA_CHECK(cudaStreamWaitEvent(copyStream.get(), frameDone.get(), 0));
        {
            CudaScope scope(profiler, "copy", copyStream.get());
            TANDEM_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), a.bytes(),
                                              cudaMemcpyDeviceToDevice, copyStream.get()));
        }
        {
            CudaScope scope(profiler, "small", otherStream.get());
            TANDEM_CUDA_CHECK(cudaMemsetAsync(c.data(), 0, c.bytes(), otherStream.get()));
        }
        profiler.nameStream(copyStream.get(), "copy"); // after its first scope: fine too
        TANDEM_CUDA_CHECK(cudaStreamSynchronize(copyStream.get())); // GL waits for the copy
        profiler.endHandoff();
        profiler.endFrame();
        for (auto& r : profiler.takeFrames())
            frames.push_back(std::move(r));
    }
    profiler.flush();
    for (auto& r : profiler.takeFrames())
        frames.push_back(std::move(r));
    ASSERT_EQ(frames.size(), static_cast<std::size_t>(Frames));
    EXPECT_EQ(profiler.framesDropped(), 0u);

    std::vector<std::tuple<Api, int, std::string>> cudaTracks;
    for (const auto& track : profiler.tracks())
        if (track.api == Api::Cuda)
            cudaTracks.emplace_back(track.api, track.index, track.name);
    EXPECT_EQ(cudaTracks,
              (std::vector<std::tuple<Api, int, std::string>>{
                  {Api::Cuda, 0, "frame"}, {Api::Cuda, 1, "copy"}, {Api::Cuda, 2, "stream 2"}}));

    for (const auto& frame : frames) {
        const Span* fill = find(frame, "fill");
        const Span* again = find(frame, "fill-again");
        const Span* copy = find(frame, "copy");
        const Span* small = find(frame, "small");
        const Span* handoff = find(frame, "handoff");
        ASSERT_TRUE(fill && again && copy && small && handoff) << "frame " << frame.index;
        EXPECT_EQ(fill->api, Api::Cuda);
        EXPECT_EQ(fill->track, 0);
        EXPECT_EQ(again->track, 0);
        EXPECT_EQ(copy->track, 1);
        EXPECT_EQ(small->track, 2);
        for (const Span* span : {fill, again, copy, small})
            EXPECT_GT(span->endMs, span->startMs) << span->name;
        // Back to back on one stream: the boundary event is shared.
        EXPECT_DOUBLE_EQ(fill->endMs, again->startMs);
        // Across streams on one clock: the copy waited for the frame stream.
        EXPECT_GE(copy->startMs, again->endMs - 1e-3);
        // The first span begins at the anchor, which is placed no earlier than the handoff.
        EXPECT_GE(fill->startMs, handoff->startMs - 1e-3);
    }

    Trace trace(Frames);
    trace.add(frames);
    trace.setTracks(profiler.tracks());
    std::map<int, std::string> cudaThreads;
    std::map<std::string, std::set<int>> tids;
    const nlohmann::json json = trace.toJson();
    for (const auto& event : json["traceEvents"]) {
        if (event["pid"] != 3)
            continue;
        if (event["ph"] == "M" && event["name"] == "thread_name")
            cudaThreads[event["tid"].get<int>()] = event["args"]["name"].get<std::string>();
        if (event["ph"] == "X")
            tids[event["name"].get<std::string>()].insert(event["tid"].get<int>());
    }
    EXPECT_EQ(cudaThreads,
              (std::map<int, std::string>{{1, "frame"}, {2, "copy"}, {3, "stream 2"}}));
    EXPECT_EQ(tids["fill"], std::set<int>{1});
    EXPECT_EQ(tids["copy"], std::set<int>{2});
    EXPECT_EQ(tids["small"], std::set<int>{3});
}

} // namespace
} // namespace tandem::profile
