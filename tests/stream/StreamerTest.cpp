#include "engine/stream/Streamer.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "engine/stream/Block.h"
#include "engine/stream/SampleSource.h"

using namespace tandem;
using namespace std::chrono_literals;

namespace {

/// The sample, but every load sleeps `delay` (a slow disk) and `broken` frames fail.
class SlowSource final : public stream::Source {
public:
    /// `knowsLargest`: the source knows its largest frame before loading (a pack, the
    /// sample), else it is found as frames load (a folder).
    SlowSource(std::chrono::milliseconds delay, int frames, int broken = -1,
               bool knowsLargest = true)
        : m_delay(delay), m_broken(broken), m_knowsLargest(knowsLargest)
    {
        m_settings.points = 500;
        m_settings.frames = frames;
        m_inner = stream::makeSampleSource(m_settings);
    }
    std::string description() const override { return "slow"; }
    int frameCount() const override { return m_settings.frames; }
    double fps() const override { return 30.0; }
    std::string frameName(int index) const override { return "slow " + std::to_string(index); }
    std::optional<render::SceneCounts> largestFrame() const override
    {
        return m_knowsLargest ? m_inner->largestFrame() : std::nullopt;
    }
    Result<std::span<const std::uint8_t>> load(int index,
                                               const stream::BlockSink& sink) const override
    {
        ++loads;
        {
            std::unique_lock lock(m_gateMutex);
            m_gateChanged.wait(lock, [&] { return m_open; });
        }
        std::this_thread::sleep_for(m_delay);
        if (index == m_broken)
            return fail(frameName(index) + ": truncated");
        return m_inner->load(index, sink);
    }
    /// A closed gate holds every load until it opens.
    void closeGate()
    {
        std::lock_guard lock(m_gateMutex);
        m_open = false;
    }
    void openGate()
    {
        {
            std::lock_guard lock(m_gateMutex);
            m_open = true;
        }
        m_gateChanged.notify_all();
    }
    mutable std::atomic<int> loads{0};

private:
    mutable std::mutex m_gateMutex;
    mutable std::condition_variable m_gateChanged;
    bool m_open = true;
    std::chrono::milliseconds m_delay;
    int m_broken;
    bool m_knowsLargest;
    stream::SampleSettings m_settings;
    std::unique_ptr<stream::Source> m_inner;
};

/// The frame index a block holds (the sample's first vertex differs per frame): compare with
/// a freshly made block.
bool holdsFrame(const stream::Ticket& ticket, int index)
{
    stream::SampleSettings s;
    s.points = 500;
    const render::Scene scene = stream::sampleFrame(s, index);
    std::vector<std::uint8_t> expected(stream::blockBytes(render::sceneCounts(scene)));
    stream::writeBlock(scene, expected);
    return ticket.block.size() == expected.size() &&
           std::equal(expected.begin(), expected.end(), ticket.block.begin());
}

stream::StreamSettings smallBudget(int slots)
{
    stream::StreamSettings s;
    s.pinned = false;
    s.loaderThreads = 2;
    stream::SampleSettings sample;
    sample.points = 500;
    const std::size_t block =
        (stream::blockBytes(*stream::makeSampleSource(sample)->largestFrame()) + 4095) / 4096 *
        4096;
    s.budgetBytes = block * static_cast<std::size_t>(slots);
    return s;
}

} // namespace

TEST(Streamer, TakeNeverWaitsForALoader)
{
    // The loaders are held inside load() until the gate opens: a take() that waited for them
    // would never return.
    SlowSource source(0ms, 10);
    source.closeGate();
    stream::Streamer streamer(source, smallBudget(4));
    const int order[] = {0, 1, 2};
    streamer.want(order);
    for (int i = 0; i < 20; ++i)
        EXPECT_FALSE(streamer.take(0));     // not loaded yet: no wait
    EXPECT_EQ(streamer.stats().misses, 1u); // one miss per frame, however often asked
    source.openGate();
    const stream::Ticket t = streamer.wait(0);
    EXPECT_TRUE(t.isOk());
    EXPECT_TRUE(holdsFrame(t, 0));
    EXPECT_LE(streamer.stats().waits, 1u); // the loader may have finished before wait()
    streamer.release(t);
}

TEST(Streamer, LoadsInTheOrderAskedAndStaysInBudget)
{
    SlowSource source(5ms, 40);
    const stream::StreamSettings settings = smallBudget(3);
    stream::Streamer streamer(source, settings);
    EXPECT_EQ(streamer.stats().slots, 3);
    for (int f = 0; f < 40; ++f) {
        std::vector<int> order;
        for (int k = 0; k < 3; ++k)
            order.push_back((f + k) % 40);
        streamer.want(order);
        const stream::Ticket t = streamer.wait(f);
        ASSERT_TRUE(t.isOk()) << t.error;
        EXPECT_TRUE(holdsFrame(t, f)) << "frame " << f;
        streamer.release(t);
        EXPECT_LE(streamer.stats().allocatedBytes, settings.budgetBytes);
    }
    const stream::StreamStats s = streamer.stats();
    EXPECT_EQ(s.failed, 0u);
    EXPECT_GE(s.loaded, 40u);
}

TEST(Streamer, LoadersRunAheadOfTheReader)
{
    // Whether a reader that waits every frame ever finds the next one ready depends on the
    // scheduler; so wait for the loaders to finish the frames wanted, then take the ones ahead.
    SlowSource source(1ms, 10);
    stream::Streamer streamer(source, smallBudget(3));
    const int order[] = {4, 5, 6};
    streamer.want(order);
    streamer.release(streamer.wait(4));
    while (streamer.stats().loaded < 3)
        std::this_thread::sleep_for(1ms);
    for (int f : {5, 6}) {
        const std::optional<stream::Ticket> t = streamer.take(f);
        ASSERT_TRUE(t) << "frame " << f << " was not loaded ahead";
        EXPECT_TRUE(holdsFrame(*t, f));
        streamer.release(*t);
    }
    EXPECT_EQ(streamer.stats().hits, 2u);
    EXPECT_EQ(source.loads.load(), 3) << "only the frames wanted load";
}

TEST(Streamer, AFailedFrameIsReportedAlone)
{
    SlowSource source(1ms, 5, 2);
    stream::Streamer streamer(source, smallBudget(4));
    const int order[] = {0, 1, 2, 3, 4};
    streamer.want(order);
    for (int f = 0; f < 5; ++f) {
        const stream::Ticket t = streamer.wait(f);
        EXPECT_EQ(t.isOk(), f != 2);
        if (f == 2) {
            EXPECT_EQ(t.error, "slow 2: truncated");
        }
        streamer.release(t);
    }
    EXPECT_EQ(streamer.stats().failed, 1u);
}

TEST(Streamer, ACachedLoopLoadsOnce)
{
    SlowSource source(1ms, 4);
    stream::Streamer streamer(source, smallBudget(8));
    for (int round = 0; round < 3; ++round)
        for (int f = 0; f < 4; ++f) {
            const int order[] = {f, (f + 1) % 4, (f + 2) % 4, (f + 3) % 4};
            streamer.want(order);
            const stream::Ticket t = streamer.wait(f);
            streamer.release(t);
        }
    EXPECT_EQ(source.loads.load(), 4) << "four frames fit the budget: each loads once";
}

TEST(Streamer, FramesLargerThanTheBudgetFailAloneNamed)
{
    // A budget of one frame: frames load one at a time, as the reader moves on, each fits.
    SlowSource source(0ms, 4);
    {
        stream::Streamer streamer(source, smallBudget(1));
        const int order[] = {0, 1, 2, 3};
        for (int f = 0; f < 4; ++f) {
            streamer.want(std::span<const int>(order).subspan(static_cast<std::size_t>(f)));
            const stream::Ticket t = streamer.wait(f);
            EXPECT_TRUE(t.isOk()) << t.error;
            streamer.release(t);
        }
    }
    // Half a frame: every frame fails, saying why, and the streamer goes on answering.
    stream::StreamSettings half = smallBudget(1);
    half.budgetBytes /= 2;
    stream::Streamer streamer(source, half);
    const int order[] = {0, 1};
    streamer.want(order);
    for (int f = 0; f < 2; ++f) {
        const stream::Ticket t = streamer.wait(f);
        ASSERT_FALSE(t.isOk());
        EXPECT_NE(t.error.find("does not fit in the streaming memory budget"), std::string::npos)
            << t.error;
        streamer.release(t);
    }
}

TEST(Streamer, APreloadKeepsEveryFrameThatFitsAndSaysWhichDidNot)
{
    // A folder's frame sizes are found as they load. Twelve frames, room for all twelve: each
    // loads once and stays (with 8 slots, loading the later frames evicted the first ones).
    SlowSource source(0ms, 12, -1, false);
    stream::StreamSettings settings = smallBudget(12);
    settings.preload = true;
    std::vector<int> all;
    for (int f = 0; f < 12; ++f)
        all.push_back(f);
    {
        stream::Streamer streamer(source, settings);
        EXPECT_EQ(streamer.stats().slots, 12);
        streamer.want(all);
        for (int f = 0; f < 12; ++f) {
            const stream::Ticket t = streamer.wait(f);
            EXPECT_TRUE(t.isOk()) << t.error;
            EXPECT_EQ(t.overBudget, 0u);
            streamer.release(t);
        }
        for (int f = 0; f < 12; ++f) {
            const std::optional<stream::Ticket> t = streamer.take(f);
            ASSERT_TRUE(t) << "frame " << f << " did not stay loaded";
            EXPECT_TRUE(holdsFrame(*t, f));
            streamer.release(*t);
        }
        EXPECT_EQ(source.loads.load(), 12) << "each frame loads once";
    }
    // Room for six: six load and stay, the other six fail at once, each saying what it asked
    // for, and none is loaded twice.
    source.loads = 0;
    settings.budgetBytes = smallBudget(6).budgetBytes;
    stream::Streamer streamer(source, settings);
    streamer.want(all);
    std::vector<int> loaded;
    for (int f = 0; f < 12; ++f) {
        const stream::Ticket t = streamer.wait(f);
        if (t.isOk()) {
            loaded.push_back(f);
        } else {
            EXPECT_GT(t.overBudget, 0u) << t.error;
            EXPECT_NE(t.error.find("does not fit in the streaming memory budget"),
                      std::string::npos)
                << t.error;
        }
        streamer.release(t);
    }
    EXPECT_EQ(loaded.size(), 6u);
    for (int f : loaded) {
        const std::optional<stream::Ticket> t = streamer.take(f);
        ASSERT_TRUE(t) << "frame " << f << " was evicted";
        EXPECT_TRUE(holdsFrame(*t, f));
        streamer.release(*t);
    }
    EXPECT_EQ(source.loads.load(), 12);
    EXPECT_LE(streamer.stats().allocatedBytes, settings.budgetBytes);
}

TEST(Streamer, APreloadOfAKnownSizeHasASlotForEveryFrame)
{
    // The 256 slots a streamer has at most did not hold a 300-frame preload, whatever the
    // budget.
    SlowSource source(0ms, 300);
    stream::StreamSettings settings = smallBudget(300);
    EXPECT_EQ(stream::Streamer(source, settings).stats().slots, 256);
    settings.preload = true;
    EXPECT_EQ(stream::Streamer(source, settings).stats().slots, 300);
}

TEST(Streamer, AFolderGetsTwoSlotsALoaderSoEveryLoaderHasOneToFill)
{
    // Frame sizes unknown before loading (a folder): 8 slots kept at most 8 loaders busy.
    SlowSource source(0ms, 40, -1, false);
    stream::StreamSettings settings;
    settings.pinned = false;
    for (const auto& [loaders, slots] : {std::pair{2, 8}, {6, 12}, {12, 24}}) {
        settings.loaderThreads = loaders;
        stream::Streamer streamer(source, settings);
        EXPECT_EQ(streamer.stats().slots, slots) << loaders << " loaders";
        EXPECT_EQ(streamer.stats().loaderThreads, loaders);
    }
    // Never more slots than frames.
    SlowSource few(0ms, 5, -1, false);
    settings.loaderThreads = 12;
    stream::Streamer streamer(few, settings);
    EXPECT_EQ(streamer.stats().slots, 5);
    EXPECT_EQ(streamer.stats().loaderThreads, 5);
}
