// core: waits on the GPU are counted per owner (engine/core/Stall.h). A thread reports to the
// counter its innermost StallScope made current; other threads, other counters and waits
// outside any scope are counted apart, so two sessions in one process never mix their stalls.
#include "engine/core/Stall.h"

#include <barrier>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

namespace tandem {
namespace {

std::uint64_t countOf(const StallCounter& counter, StallCause cause)
{
    return counter.counts()[static_cast<std::size_t>(cause)];
}

TEST(Stall, AWaitOutsideAnyScopeIsCountedNowhere)
{
    StallCounter counter;
    EXPECT_EQ(currentStallCounter(), nullptr);
    recordStall(StallCause::Readback);
    EXPECT_EQ(countOf(counter, StallCause::Readback), 0u);
    {
        StallScope scope(counter);
        EXPECT_EQ(currentStallCounter(), &counter);
        recordStall(StallCause::Readback);
    }
    EXPECT_EQ(currentStallCounter(), nullptr);
    recordStall(StallCause::Readback);
    EXPECT_EQ(countOf(counter, StallCause::Readback), 1u);
}

TEST(Stall, ScopesNestAndTheInnermostCounts)
{
    StallCounter outer, inner;
    StallScope outerScope(outer);
    recordStall(StallCause::Finish);
    {
        StallScope innerScope(inner);
        recordStall(StallCause::Finish);
        recordStall(StallCause::QueryWait);
    }
    recordStall(StallCause::Finish);
    EXPECT_EQ(countOf(outer, StallCause::Finish), 2u);
    EXPECT_EQ(countOf(outer, StallCause::QueryWait), 0u);
    EXPECT_EQ(countOf(inner, StallCause::Finish), 1u);
    EXPECT_EQ(countOf(inner, StallCause::QueryWait), 1u);
}

TEST(Stall, AScopeEndedOutOfOrderLeavesNoDanglingCounter)
{
    StallCounter a, b;
    auto first = std::make_unique<StallScope>(a);
    auto second = std::make_unique<StallScope>(b);
    first.reset(); // ends while `second` still lives
    EXPECT_EQ(currentStallCounter(), &b);
    second.reset();
    EXPECT_EQ(currentStallCounter(), nullptr) << "a's scope ended: nothing may report to it";
}

TEST(Stall, TwoThreadsCountOnTheirOwnCounters)
{
    // Two render threads of two sessions, waiting at the same time.
    StallCounter mine, theirs;
    std::barrier both(2);
    std::thread other([&] {
        StallScope scope(theirs);
        both.arrive_and_wait();
        for (int i = 0; i < 5; ++i)
            recordStall(StallCause::StreamSync);
        both.arrive_and_wait();
    });
    {
        StallScope scope(mine);
        both.arrive_and_wait();
        recordStall(StallCause::Readback);
        both.arrive_and_wait();
    }
    other.join();
    EXPECT_EQ(countOf(mine, StallCause::StreamSync), 0u);
    EXPECT_EQ(countOf(mine, StallCause::Readback), 1u);
    EXPECT_EQ(countOf(theirs, StallCause::StreamSync), 5u);
    EXPECT_EQ(countOf(theirs, StallCause::Readback), 0u);
}

TEST(Stall, ACounterCanBeGivenWaitsExplicitly)
{
    StallCounter counter;
    counter.record(StallCause::Calibration);
    counter.record(StallCause::Throttle);
    EXPECT_EQ(countOf(counter, StallCause::Calibration), 1u);
    EXPECT_EQ(countOf(counter, StallCause::Throttle), 1u);
    EXPECT_TRUE(isStall(StallCause::Calibration));
    EXPECT_FALSE(isStall(StallCause::Throttle));
}

} // namespace
} // namespace tandem
