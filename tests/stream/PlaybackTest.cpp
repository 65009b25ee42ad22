#include "engine/stream/Playback.h"

#include <vector>

#include <gtest/gtest.h>

using namespace tandem::stream;

TEST(Playback, ClockLandsOnTheRightFrames)
{
    Playback p(100, 30.0);
    EXPECT_EQ(p.advance(0.0), 0);
    EXPECT_EQ(p.advance(1.0 / 30.0), 1);
    EXPECT_EQ(p.advance(0.5), 16); // 1 + 15
    p.setSpeed(2.0);
    EXPECT_EQ(p.advance(0.5), 46); // + 30
    p.setSpeed(0.1);
    EXPECT_EQ(p.advance(1.0), 49); // + 3
    EXPECT_NEAR(p.time(), 49 / 30.0, 1e-12);
}

TEST(Playback, SpeedIsClampedAndSteppedThroughPresets)
{
    Playback p(10, 30.0);
    p.setSpeed(100.0);
    EXPECT_DOUBLE_EQ(p.speed(), 8.0);
    p.setSpeed(0.0);
    EXPECT_DOUBLE_EQ(p.speed(), 0.1);
    p.setSpeed(1.0);
    p.faster();
    EXPECT_DOUBLE_EQ(p.speed(), 2.0);
    p.slower();
    p.slower();
    EXPECT_DOUBLE_EQ(p.speed(), 0.5);
    for (int i = 0; i < 10; ++i)
        p.faster();
    EXPECT_DOUBLE_EQ(p.speed(), 8.0);
}

TEST(Playback, LoopPingPongOnce)
{
    Playback loop(10, 10.0);
    loop.advance(0.0);
    EXPECT_EQ(loop.advance(1.25), 2); // 12.5 frames: wraps to 2
    Playback bounce(10, 10.0);
    bounce.setLoopMode(LoopMode::PingPong);
    EXPECT_EQ(bounce.advance(1.1), 7); // 11 frames: 9, then back 2
    EXPECT_EQ(bounce.direction(), -1);
    EXPECT_EQ(bounce.advance(0.8), 1); // 7 - 8 = -1: bounced at 0
    EXPECT_EQ(bounce.direction(), 1);
    EXPECT_EQ(bounce.advance(0.3), 4);
    Playback once(10, 10.0);
    once.setLoopMode(LoopMode::Once);
    EXPECT_EQ(once.advance(5.0), 9);
    EXPECT_FALSE(once.isPlaying());
    once.play(); // from the start again
    EXPECT_EQ(once.frame(), 0);
}

TEST(Playback, EveryFrameStepsOneAtATime)
{
    Playback p(5, 30.0);
    p.setEveryFrame(true);
    p.setLoopMode(LoopMode::Once);
    std::vector<int> shown;
    for (int i = 0; i < 7; ++i)
        shown.push_back(p.advance(10.0)); // the time is ignored
    EXPECT_EQ(shown, (std::vector<int>{0, 1, 2, 3, 4, 4, 4}));
}

TEST(Playback, ScrubStepAndJump)
{
    Playback p(50, 25.0);
    p.seek(20);
    EXPECT_EQ(p.frame(), 20);
    EXPECT_TRUE(p.isPlaying()); // scrubbing keeps playing
    p.step(1);
    EXPECT_EQ(p.frame(), 21);
    EXPECT_FALSE(p.isPlaying());   // stepping pauses
    EXPECT_EQ(p.advance(1.0), 21); // paused: the clock stands
    p.step(-3);
    EXPECT_EQ(p.frame(), 18);
    p.toEnd();
    EXPECT_EQ(p.frame(), 49);
    p.step(1); // loops round
    EXPECT_EQ(p.frame(), 0);
    p.step(-1);
    EXPECT_EQ(p.frame(), 49);
    p.toStart();
    EXPECT_EQ(p.frame(), 0);
    p.seek(1000);
    EXPECT_EQ(p.frame(), 49);
    p.seek(-5);
    EXPECT_EQ(p.frame(), 0);
    p.setLoopMode(LoopMode::Once);
    p.step(-1); // clamped at the start without looping
    EXPECT_EQ(p.frame(), 0);
}

TEST(Playback, UpcomingFollowsTheMode)
{
    Playback p(6, 30.0);
    p.seek(4);
    EXPECT_EQ(p.upcoming(4), (std::vector<int>{4, 5, 0, 1}));
    p.setLoopMode(LoopMode::Once);
    EXPECT_EQ(p.upcoming(4), (std::vector<int>{4, 5}));
    p.setLoopMode(LoopMode::PingPong);
    EXPECT_EQ(p.upcoming(3), (std::vector<int>{4, 5}));
    EXPECT_EQ(p.upcoming(100).size(), 2u);
    Playback all(3, 30.0);
    EXPECT_EQ(all.upcoming(10), (std::vector<int>{0, 1, 2}));
}
