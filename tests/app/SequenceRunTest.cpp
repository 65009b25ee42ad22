// app: how many frames a headless viewer run renders (SequenceRun::headlessFrames): a batch's
// jobs, --frames, every sequence frame once, or the sequence's length at the output rate (the
// headless clock), bounded for absurd rates. No context: the sample source is made in memory.
#include <gtest/gtest.h>

#include "engine/app/Batch.h"
#include "engine/app/SequenceRun.h"
#include "engine/stream/SampleSource.h"
#include "tests/support/TempDir.h"

namespace tandem::app {
namespace {

std::unique_ptr<stream::Source> sample(int frames, double fps)
{
    stream::SampleSettings settings;
    settings.points = 100;
    settings.frames = frames;
    settings.fps = fps;
    return stream::makeSampleSource(settings);
}

TEST(HeadlessFrames, TheOutputRateClockPlaysTheSequenceOnce)
{
    const auto source = sample(10, 10.0); // one second
    SessionSettings session;
    session.headless = true;
    SequenceSettings sequence;
    session.fps = 30.0;
    EXPECT_EQ(SequenceRun::headlessFrames(session, sequence, *source), 30);
    session.fps = 25.0;
    EXPECT_EQ(SequenceRun::headlessFrames(session, sequence, *source), 25);
    sequence.speed = 2.0;
    EXPECT_EQ(SequenceRun::headlessFrames(session, sequence, *source), 13) << "12.5, rounded up";
    sequence.speed = 0.1;
    EXPECT_EQ(SequenceRun::headlessFrames(session, sequence, *source), 250);
    // 3 frames at 30 fps, output at 30: exactly 3, no extra frame from rounding.
    session.fps = 30.0;
    sequence.speed = 1.0;
    EXPECT_EQ(SequenceRun::headlessFrames(session, sequence, *sample(3, 30.0)), 3);
    // A sequence rate of a frame a millennium: bounded, not overflowed.
    EXPECT_EQ(SequenceRun::headlessFrames(session, sequence, *sample(1000, 1e-9)), 1000000000);
}

TEST(HeadlessFrames, EveryFrameFramesAndABatchDecideFirst)
{
    const auto source = sample(10, 10.0);
    SessionSettings session;
    session.headless = true;
    SequenceSettings sequence;
    sequence.everyFrame = true;
    EXPECT_EQ(SequenceRun::headlessFrames(session, sequence, *source), 10);
    session.frames = 4;
    EXPECT_EQ(SequenceRun::headlessFrames(session, sequence, *source), 4) << "--frames wins";

    test::TempDir dir;
    BatchOptions batch;
    batch.frameRange = "2:9";
    batch.cameraPaths = {"orbit"};
    auto plan = BatchPlan::make(batch, source->frameCount(), dir.path(), ".png");
    ASSERT_TRUE(plan) << plan.error();
    sequence.batch = std::make_shared<const BatchPlan>(std::move(plan.value()));
    EXPECT_EQ(SequenceRun::headlessFrames(session, sequence, *source), 7) << "the batch's jobs";
}

} // namespace
} // namespace tandem::app
