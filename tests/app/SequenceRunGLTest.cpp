// app: a headless sequence run (llvmpipe) ends as what it rendered says: a run in which every
// sequence frame failed to load exits 1 naming them, a run that skipped some says so and
// succeeds, and a batch frame whose sequence frame was skipped is not written (at its name it
// would pass for complete); a batch frame another run committed after the plan was made is
// skipped unrendered, just before its turn; and a camera path holds from frame 0 on, so that
// a whole render's frame 0 is a batch piece's.
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/app/Batch.h"
#include "engine/app/FrameOutput.h"
#include "engine/app/SequenceRun.h"
#include "engine/app/Session.h"
#include "engine/stream/SampleSource.h"
#include "tests/support/TempDir.h"

namespace tandem::app {
namespace {

namespace fs = std::filesystem;

/// The sample's point clouds, named like files; the `broken` frames fail to load, and the
/// bounds are known only once a frame has loaded (as a folder's).
class TestSource final : public stream::Source {
public:
    explicit TestSource(int frames, std::set<int> broken = {}) : m_broken(std::move(broken))
    {
        m_settings.points = 2000;
        m_settings.frames = frames;
        m_inner = stream::makeSampleSource(m_settings);
    }
    std::string description() const override { return "test frames"; }
    int frameCount() const override { return m_settings.frames; }
    double fps() const override { return 30.0; }
    std::string frameName(int index) const override
    {
        return "frame_" + std::to_string(index) + ".ply";
    }
    Result<std::span<const std::uint8_t>> load(int index,
                                               const stream::BlockSink& sink) const override
    {
        if (m_broken.contains(index))
            return fail(frameName(index) + ": truncated");
        return m_inner->load(index, sink);
    }

private:
    std::set<int> m_broken;
    stream::SampleSettings m_settings;
    std::unique_ptr<stream::Source> m_inner;
};

SessionSettings headless(const fs::path& out)
{
    SessionSettings settings;
    settings.headless = true;
    settings.size = {64, 48};
    settings.outDir = out;
    settings.backend = postfx::BackendChoice::Host;
    settings.quiet = true;
    settings.outputThreads = 1;
    return settings;
}

/// What a run printed and how it ended.
struct Played {
    int code = -1;
    std::string log; ///< stderr
    int rendered = 0;
    std::uint64_t present = 0;         ///< skipped because another run had written them
    std::vector<std::string> withheld; ///< not written
};

/// Plays `source` as tandem-viewer --headless does (`batch`: with --frame-range and its
/// options); `meanwhile` runs once the run is open, before the first frame.
Played play(SessionSettings settings, std::unique_ptr<stream::Source> source,
            const BatchOptions* batch = nullptr, const std::function<void()>& meanwhile = {})
{
    Played played;
    SequenceSettings sequence;
    sequence.everyFrame = true;
    if (batch) {
        bool usage = false;
        auto plan =
            prepareBatch(*batch, settings, source->frameCount(), source->fps(), "test", usage);
        EXPECT_TRUE(plan && plan.value()) << (plan ? "nothing to render" : plan.error());
        if (!plan || !plan.value())
            return played;
        sequence.batch = plan.value();
    }
    settings.frames = SequenceRun::headlessFrames(settings, sequence, *source);
    testing::internal::CaptureStderr();
    OpenFailure failure;
    auto session = Session::open({"tandem-test"}, settings, failure);
    if (!session) {
        played.log = testing::internal::GetCapturedStderr();
        ADD_FAILURE() << failure.message;
        return played;
    }
    bool usage = false;
    auto run = SequenceRun::open(*session, std::move(source), sequence, usage);
    if (!run) {
        played.log = testing::internal::GetCapturedStderr();
        ADD_FAILURE() << run.error();
        return played;
    }
    if (meanwhile)
        meanwhile();
    while (session->nextFrame()) {
        run.value()->update();
        session->renderFrame();
    }
    played.code = run.value()->finish(session->finish());
    played.log = testing::internal::GetCapturedStderr();
    played.rendered = session->framesRendered();
    played.present = session->output().skippedPresent();
    played.withheld = session->output().withheld();
    return played;
}

std::string bytes(const fs::path& file)
{
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool hasTemporaries(const fs::path& folder)
{
    for (const auto& entry : fs::directory_iterator(folder))
        if (entry.path().filename().string().starts_with('.'))
            return true;
    return false;
}

TEST(SequenceRunGL, ARunWhoseEveryFrameFailedExitsOneNamingThem)
{
    test::TempDir dir;
    const Played played =
        play(headless(dir.path()), std::make_unique<TestSource>(3, std::set{0, 1, 2}));
    EXPECT_EQ(played.code, ExitInput) << played.log;
    EXPECT_NE(played.log.find("skipped 3 sequence frames of 3 that did not load: frame_0.ply, "
                              "frame_1.ply, frame_2.ply"),
              std::string::npos)
        << played.log;
    EXPECT_NE(played.log.find("error: no sequence frame was rendered"), std::string::npos)
        << played.log;
}

TEST(SequenceRunGL, ARunThatSkippedSomeFramesSucceedsAndSaysSoAtTheEnd)
{
    test::TempDir dir;
    const Played played = play(headless(dir.path()), std::make_unique<TestSource>(4, std::set{2}));
    EXPECT_EQ(played.code, ExitOk) << played.log;
    const std::size_t skipped =
        played.log.find("skipped 1 sequence frame of 4 that did not load: frame_2.ply");
    ASSERT_NE(skipped, std::string::npos) << played.log;
    EXPECT_GT(skipped, played.log.find("wrote 4 frames")) << "said at the end";
    EXPECT_EQ(played.log.find("error:"), std::string::npos) << played.log;
}

TEST(SequenceRunGL, ABatchFrameWhoseSequenceFrameWasSkippedIsNotWritten)
{
    test::TempDir dir;
    BatchOptions batch;
    batch.frameRange = "0:4";
    const Played played =
        play(headless(dir.path()), std::make_unique<TestSource>(4, std::set{1, 3}), &batch);
    EXPECT_EQ(played.code, ExitInput) << played.log;
    EXPECT_TRUE(fs::exists(dir.path() / "frame_000000.png"));
    EXPECT_TRUE(fs::exists(dir.path() / "frame_000002.png"));
    EXPECT_FALSE(fs::exists(dir.path() / "frame_000001.png")) << "it would pass for complete";
    EXPECT_FALSE(fs::exists(dir.path() / "frame_000003.png"));
    EXPECT_FALSE(hasTemporaries(dir.path()));
    EXPECT_EQ(played.withheld, (std::vector<std::string>{"frame_000001.png", "frame_000003.png"}));
    EXPECT_NE(played.log.find("error: 2 batch frames not written (their sequence frames did not "
                              "load, above): frame_000001.png, frame_000003.png; --resume renders "
                              "them again"),
              std::string::npos)
        << played.log;

    // A resumed run tries just those again.
    batch.resume = true;
    const Played again =
        play(headless(dir.path()), std::make_unique<TestSource>(4, std::set{3}), &batch);
    EXPECT_EQ(again.code, ExitInput) << again.log;
    EXPECT_EQ(again.rendered, 2);
    EXPECT_TRUE(fs::exists(dir.path() / "frame_000001.png"));
    EXPECT_EQ(again.withheld, std::vector<std::string>{"frame_000003.png"});
}

TEST(SequenceRunGL, ABatchFrameAnotherRunCommittedMeanwhileIsSkippedUnrendered)
{
    test::TempDir dir;
    BatchOptions batch;
    batch.frameRange = "0:4";
    batch.resume = true;
    const std::string theirs = "another run's frame";
    const fs::path committed = dir.path() / "frame_000002.png";
    // After the plan (made when nothing was written) and before its turn.
    const Played played = play(headless(dir.path()), std::make_unique<TestSource>(4), &batch,
                               [&] { std::ofstream(committed, std::ios::binary) << theirs; });
    EXPECT_EQ(played.code, ExitOk) << played.log;
    EXPECT_EQ(played.rendered, 3) << "the frame present at its turn is not rendered";
    EXPECT_EQ(played.present, 1u);
    EXPECT_EQ(bytes(committed), theirs);
    for (const char* name : {"frame_000000.png", "frame_000001.png", "frame_000003.png"})
        EXPECT_TRUE(fs::exists(dir.path() / name)) << name;
    EXPECT_NE(
        played.log.find("wrote 3 frames to " + dir.path().string() + "; skipped 1 already present"),
        std::string::npos)
        << played.log;
}

TEST(SequenceRunGL, ACameraPathHoldsFromFrameZeroAsInABatchPiece)
{
    // A folder's camera fits its first frame; the fit must not undo the path's pose.
    test::TempDir dir;
    const fs::path path = dir.write(
        "path.json", R"({"keyframes": [{"frame": 0, "yaw": 120, "pitch": 40, "distance": 1.5},
                                                 {"frame": 3, "yaw": 200, "pitch": 10, "distance": 1}]})");
    const Played plain = play(headless(dir.path() / "plain"), std::make_unique<TestSource>(4));
    ASSERT_EQ(plain.code, ExitOk) << plain.log;
    SessionSettings along = headless(dir.path() / "path");
    along.cameraPath = cameraPathChoice(path.string());
    const Played whole = play(along, std::make_unique<TestSource>(4));
    ASSERT_EQ(whole.code, ExitOk) << whole.log;
    along.outDir = dir.path() / "piece";
    BatchOptions batch;
    batch.frameRange = "0:2";
    const Played piece = play(along, std::make_unique<TestSource>(4), &batch);
    ASSERT_EQ(piece.code, ExitOk) << piece.log;

    const std::string first = bytes(dir.path() / "path" / "frame_000000.png");
    ASSERT_FALSE(first.empty());
    // Compared as bytes (PNGs of one encoder): equal images, equal files.
    EXPECT_TRUE(first != bytes(dir.path() / "plain" / "frame_000000.png"))
        << "frame 0 was drawn from the fitted camera, not the path's";
    EXPECT_TRUE(first == bytes(dir.path() / "piece" / "frame_000000.png"))
        << "frame 0 of the whole render is not the batch piece's";
    EXPECT_TRUE(bytes(dir.path() / "path" / "frame_000001.png") ==
                bytes(dir.path() / "piece" / "frame_000001.png"))
        << "frame 1 of the whole render is not the batch piece's";
}

} // namespace
} // namespace tandem::app
