// gpu tier: a streamed sequence's uploads overlap its rendering. In a profiled 4 M-point sequence
// played frame after frame resident on CUDA, each frame's copy of the next sequence frame (the
// copy stream's "stream.upload") runs while that frame's passes run on the frame stream. A
// window's render loop, presenting frames resident on CUDA, never waits: not for a slow loader
// (update() comes back while the frame is still held) and not for the staging ring or the GPU
// (no stall counted while frames come and go through a small ring). Headless, read back through
// the output ring, a streamed sequence's frames are the same bytes on every run, and the bytes
// the same frames on GL's memory present.
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/core/Stall.h"
#include "engine/frame/OutputRing.h"
#include "engine/stream/SampleSource.h"
#include "engine/stream/SequencePlayer.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GatedSource.h"
#include "tests/support/GpuTestContext.h"
#include "tests/support/RingCollect.h"

namespace tandem::stream {
namespace {

constexpr int Width = 320, Height = 240;

class StreamOverlapCuda : public test::GpuTest {
protected:
    static std::unique_ptr<test::FrameStack> stack(bool profile)
    {
        return test::cudaStack(Width, Height, s_doctor, render::ColorFormat::Rgba8, profile);
    }

    static std::unique_ptr<Source> sample(const std::string& spec)
    {
        auto settings = parseSample(spec);
        EXPECT_TRUE(settings) << settings.error();
        return makeSampleSource(settings.value());
    }

    /// The player's current frame through the stack's frame (nothing before the first).
    static void render(test::FrameStack& s, const SequencePlayer& player,
                       const render::Camera& camera, const postfx::Chain& chain)
    {
        if (!player.scene())
            return;
        s.frame.pointPass()->setDevicePoints(player.devicePoints());
        s.frame.render(*player.scene(), camera, chain, frame::Channel::Output, {});
    }
};

/// The index of the CUDA track named `name`, or -1.
int cudaTrack(const profile::Profiler& profiler, const std::string& name)
{
    for (const profile::Track& track : profiler.tracks())
        if (track.api == profile::Api::Cuda && track.name == name)
            return track.index;
    return -1;
}

TEST_F(StreamOverlapCuda, TheNextFramesUploadOverlapsThisFramesPasses)
{
    if (!profile::CompiledIn)
        GTEST_SKIP() << "the profiler is compiled out (TANDEM_PROFILER=OFF): no trace to read";
    // Frames of 4 M points: each copy (80 MB) lasts a while (about 1.5 ms on an H200), so the
    // passes the CPU queues after it overlap it even when the CPU is slow to queue them.
    auto source = sample("sample:points=4000000,frames=8");
    auto s = stack(true);
    s->frame.setPresents(false);
    StreamSettings streaming;
    streaming.loaderThreads = 2;
    SequencePlayer player(*source, streaming, UploadPath::CudaCopy, &s->profiler);
    const Registration upload = s->frame.addFirstPass(player.uploadPass());
    const Registration join = s->frame.addPass(player.joinPass());
    ASSERT_TRUE(player.preload(true));
    Playback playback(source->frameCount(), source->fps());
    playback.setEveryFrame(true);
    playback.setLoopMode(LoopMode::Once);
    const postfx::Chain chain = test::chainOf("tonemap,fxaa");
    const render::Camera camera = test::fittedCamera(*source->bounds());
    std::vector<profile::FrameRecord> records;
    const auto take = [&] {
        for (profile::FrameRecord& record : s->profiler.takeFrames())
            records.push_back(std::move(record));
    };
    for (int i = 0; i < source->frameCount(); ++i) {
        s->profiler.beginFrame();
        playback.advance(0.0);
        player.update(playback, true);
        ASSERT_EQ(player.shownFrame(), i);
        render(*s, player, camera, chain);
        EXPECT_EQ(s->frame.memory(), frame::Memory::Cuda) << s->frame.memoryReason();
        s->profiler.endFrame();
        // Every frame collected (none dropped for a slot reused): the GPU waited for here, so
        // the next frame's copy begins on an idle GPU, with that frame's passes.
        s->profiler.flush();
        take();
    }
    s->frame.synchronize();
    s->profiler.flush();
    take();

    const int copyTrack = cudaTrack(s->profiler, "copy");
    const int frameTrack = cudaTrack(s->profiler, "frame stream");
    ASSERT_GE(copyTrack, 0);
    ASSERT_GE(frameTrack, 0);
    constexpr std::uint64_t WarmupFrames = 1;
    int checked = 0;
    for (const profile::FrameRecord& record : records) {
        // The first frame copies its own points too and brings the scene's GL buffers over; the
        // last copies no next frame.
        if (record.index < WarmupFrames ||
            record.index + 1 >= static_cast<std::uint64_t>(source->frameCount()))
            continue;
        SCOPED_TRACE(fmt::format("frame {}", record.index));
        std::vector<const profile::Span*> uploads, passes;
        for (const profile::Span& span : record.spans) {
            if (span.api != profile::Api::Cuda)
                continue;
            if (span.track == copyTrack && std::string(span.name) == "stream.upload")
                uploads.push_back(&span);
            else if (span.track == frameTrack)
                passes.push_back(&span);
        }
        ASSERT_EQ(uploads.size(), 1u) << "one copy a frame: the next frame's";
        ASSERT_FALSE(passes.empty());
        double first = passes[0]->startMs, last = passes[0]->endMs;
        for (const profile::Span* pass : passes) {
            first = std::min(first, pass->startMs);
            last = std::max(last, pass->endMs);
        }
        const profile::Span& copy = *uploads[0];
        EXPECT_GT(copy.endMs, copy.startMs);
        EXPECT_TRUE(copy.startMs < last && copy.endMs > first)
            << fmt::format("the upload ({:.4f}–{:.4f} ms) does not overlap the frame's passes "
                           "({:.4f}–{:.4f} ms)",
                           copy.startMs, copy.endMs, first, last);
        ++checked;
    }
    EXPECT_EQ(checked, source->frameCount() - 2) << "frames did not come back from the profiler";
    EXPECT_EQ(player.stats().cudaCopies, static_cast<std::uint64_t>(source->frameCount()));
}

TEST_F(StreamOverlapCuda, AWindowLoopNeverWaitsForLoadersOrTheStagingRing)
{
    constexpr int Frames = 12;
    test::GatedSource source(sample(fmt::format("sample:points=20000,frames={}", Frames)), -1);
    // A window's frame: presented, resident on CUDA, one copy into GL.
    auto s = stack(false);
    StreamSettings streaming;
    streaming.loaderThreads = 2;
    streaming.pinned = true;
    streaming.budgetBytes = std::size_t{2} << 20; // a few frames' slots, reused as frames go
    SequencePlayer player(source, streaming, UploadPath::CudaCopy, nullptr);
    const Registration upload = s->frame.addFirstPass(player.uploadPass());
    const Registration join = s->frame.addPass(player.joinPass());
    Playback playback(source.frameCount(), source.fps());
    playback.setLoopMode(LoopMode::Once); // nothing copied for a frame after the last
    const postfx::Chain chain = test::chainOf("tonemap,fxaa");
    const render::Camera camera = test::fittedCamera(*source.bounds());
    // Frames as a window's render loop makes them: update without waiting, then render.
    const auto loopOnce = [&] {
        player.update(playback, false);
        render(*s, player, camera, chain);
    };
    const auto loopUntilShown = [&](int index) {
        for (int i = 0; i < 20000 && player.shownFrame() != index; ++i) {
            loopOnce();
            std::this_thread::sleep_for(std::chrono::microseconds(500));
        }
        return player.shownFrame() == index;
    };
    const auto loopWhileHeld = [&](int index, int times) {
        for (int i = 0; i < times; ++i) {
            loopOnce();
            ASSERT_TRUE(source.held(index)) << "the loop waited for frame " << index;
        }
    };

    loopWhileHeld(0, 3);
    EXPECT_EQ(player.shownFrame(), -1);
    source.release(0);
    ASSERT_TRUE(loopUntilShown(0));
    playback.seek(1);
    source.release(1);
    ASSERT_TRUE(loopUntilShown(1));
    // Both buffer sets have their memory now: from here on nothing may wait for the GPU.
    StallCounter waits;
    {
        const StallScope scope(waits);
        for (int index = 2; index < Frames; ++index) {
            playback.seek(index);
            loopWhileHeld(index, 3);
            EXPECT_EQ(player.shownFrame(), index - 1) << "the frame before stays on screen";
            source.release(index);
            ASSERT_TRUE(loopUntilShown(index));
            EXPECT_EQ(s->frame.memory(), frame::Memory::Cuda) << s->frame.memoryReason();
        }
    }
    const auto counts = waits.counts();
    for (std::size_t c = 0; c < StallCauseCount; ++c)
        if (isStall(static_cast<StallCause>(c))) {
            EXPECT_EQ(counts[c], 0u)
                << "the loop waited for the GPU: " << StallCauses.name(static_cast<StallCause>(c));
        }
    EXPECT_EQ(player.stats().shown, static_cast<std::uint64_t>(Frames));
    EXPECT_EQ(player.stats().dropped, 0u);
    EXPECT_EQ(player.stats().skipped, 0u);
    EXPECT_EQ(player.stats().cudaCopies, static_cast<std::uint64_t>(Frames));
    EXPECT_LT(player.streamStats().slots, Frames) << "the staging ring was not reused";
    s->frame.synchronize();
}

TEST_F(StreamOverlapCuda, HeadlessOutputIsExactAndRepeatable)
{
    // Frames of a streamed sequence, every one: resident on CUDA and read back by the output
    // ring (`resident`), or on GL's memory and presented.
    const auto play = [&](const std::string& spec, bool resident) {
        auto source = sample(spec);
        auto s = stack(false);
        if (resident)
            s->frame.setPresents(false);
        else
            s->frame.setMemoryChoice(frame::MemoryChoice::Gl);
        StreamSettings streaming;
        streaming.loaderThreads = 2;
        SequencePlayer player(*source, streaming, UploadPath::CudaCopy, nullptr);
        const Registration upload = s->frame.addFirstPass(player.uploadPass());
        const Registration join = s->frame.addPass(player.joinPass());
        EXPECT_TRUE(player.preload(true));
        Playback playback(source->frameCount(), source->fps());
        playback.setEveryFrame(true);
        playback.setLoopMode(LoopMode::Once);
        const postfx::Chain chain = test::chainOf("tonemap,fxaa");
        const render::Camera camera = test::fittedCamera(*source->bounds());
        frame::OutputRing ring(8); // deeper than the read-back's staging, as the apps' rings
        test::RingFrames got;
        const frame::OutputRing::Sink sink = test::collectInto(got, ring);
        for (int i = 0; i < source->frameCount(); ++i) {
            playback.advance(0.0);
            player.update(playback, true);
            EXPECT_EQ(player.shownFrame(), i);
            render(*s, player, camera, chain);
            if (!resident) {
                got.indices.push_back(static_cast<std::uint64_t>(i));
                got.pixels.push_back(s->renderer.readPresented().pixels);
                continue;
            }
            EXPECT_EQ(s->frame.memory(), frame::Memory::Cuda) << s->frame.memoryReason();
            const auto output = s->frame.residentOutput();
            if (!output) {
                ADD_FAILURE() << "frame " << i << " has no output resident on CUDA";
                break;
            }
            ring.readResident(output->image, output->stream, Width, Height,
                              static_cast<std::uint64_t>(i), sink);
        }
        ring.drain(sink);
        s->frame.synchronize();
        return got;
    };
    for (const std::string spec :
         {"sample:points=200000,frames=6", "sample:mesh,points=20000,frames=6"}) {
        SCOPED_TRACE(spec);
        const test::RingFrames first = play(spec, true);
        const test::RingFrames again = play(spec, true);
        const test::RingFrames onGl = play(spec, false);
        ASSERT_EQ(first.indices, onGl.indices) << "frames lost or out of order";
        ASSERT_EQ(again.indices, onGl.indices);
        for (std::size_t i = 0; i < onGl.pixels.size(); ++i) {
            EXPECT_EQ(test::differingBytes(first.pixels[i], again.pixels[i]), 0u)
                << "frame " << i << " differs between two runs";
            EXPECT_EQ(test::differingBytes(first.pixels[i], onGl.pixels[i]), 0u)
                << "frame " << i << " differs from the frame on GL's memory";
            if (i > 0) {
                EXPECT_NE(first.pixels[i], first.pixels[i - 1])
                    << "frames " << i - 1 << " and " << i << " look alike";
            }
        }
    }
}

} // namespace
} // namespace tandem::stream
