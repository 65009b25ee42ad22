// core: a request to stop (core/StopToken.h): a token asks its function; StopSignals, an entry
// point's, turns SIGINT and SIGTERM into its own token's request, starts clear (one run's signal
// never stops the next), gives the handlers before it back when it goes, and ends the process at
// a second stop signal of either kind.
#include <csignal>

#include <gtest/gtest.h>

#include "engine/core/StopToken.h"

namespace tandem {
namespace {

TEST(StopToken, AsksItsFunction)
{
    EXPECT_EQ(StopToken().stopRequested(), 0) << "a default token never stops";
    int reason = 0;
    const StopToken token([&] { return reason; });
    EXPECT_EQ(token.stopRequested(), 0);
    reason = SIGTERM;
    EXPECT_EQ(token.stopRequested(), SIGTERM);
}

int g_before = 0;
extern "C" void countBefore(int)
{
    ++g_before;
}

TEST(StopSignals, ASignalAsksThisRunsTokenOnly)
{
    std::signal(SIGINT, countBefore);
    StopToken first;
    {
        const StopSignals signals;
        first = signals.token();
        EXPECT_EQ(first.stopRequested(), 0);
        std::raise(SIGINT);
        EXPECT_EQ(signals.signal(), SIGINT);
        EXPECT_EQ(first.stopRequested(), SIGINT);
    }
    EXPECT_EQ(first.stopRequested(), SIGINT) << "a token keeps what its run saw";
    {
        const StopSignals next;
        EXPECT_EQ(next.token().stopRequested(), 0) << "the next run starts clear";
        std::raise(SIGTERM);
        EXPECT_EQ(next.signal(), SIGTERM);
    }
    EXPECT_EQ(g_before, 0);
    std::raise(SIGINT);
    EXPECT_EQ(g_before, 1) << "the handler before it is back";
    std::signal(SIGINT, SIG_DFL);
}

TEST(StopSignalsDeathTest, ASecondStopSignalOfEitherKindEndsTheProcess)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            const StopSignals signals;
            std::raise(SIGTERM);
            std::raise(SIGINT); // a different signal: SA_RESETHAND alone would swallow it
            std::_Exit(0);
        },
        testing::KilledBySignal(SIGINT), "");
}

} // namespace
} // namespace tandem
