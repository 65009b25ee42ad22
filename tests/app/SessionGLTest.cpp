// app: a headless session (llvmpipe) changes nothing outside itself and holds nothing it cannot
// let go of: it installs no signal handler and stops when its stop token asks (exit 128 + the
// signal); a pass added to its frame runs until its handle goes; a played sequence destroyed
// before the session leaves no pass, panel, key or report section behind; and another GL
// context's error does not fail its exit code.
#include <csignal>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/app/SequenceRun.h"
#include "engine/app/Session.h"
#include "engine/core/Version.h"
#include "engine/frame/Frame.h"
#include "engine/platform/Context.h"
#include "engine/stream/SampleSource.h"
#include "tests/support/GlTestContext.h"
#include "tests/support/TempDir.h"

namespace tandem::app {
namespace {

SessionSettings headless(int frames)
{
    SessionSettings settings;
    settings.headless = true;
    settings.size = {64, 48};
    settings.frames = frames;
    settings.format = frame::OutputFormat::None;
    settings.backend = postfx::BackendChoice::Host;
    settings.glDebug = true;
    settings.quiet = true;
    return settings;
}

std::unique_ptr<Session> open(const SessionSettings& settings, StopToken stop = {})
{
    OpenFailure failure;
    auto session = Session::open({"tandem-test", "", nullptr, std::move(stop)}, settings, failure);
    EXPECT_TRUE(session) << failure.message;
    return session;
}

/// A host pass counting its runs.
class Counter final : public interop::Pass {
public:
    const char* name() const override { return "counter"; }
    bool isEnabled() const override { return true; }
    interop::Path path() const override { return interop::Path::Host; }
    void run(const interop::MappedView*, interop::PassHooks&) override { ++runs; }
    int runs = 0;
};

TEST(SessionGL, InstallsNoSignalHandlerAndStopsWhenItsTokenAsks)
{
    struct sigaction before {};
    sigaction(SIGINT, nullptr, &before);
    int frames = 0;
    auto session = open(headless(100), StopToken([&] { return frames >= 3 ? SIGTERM : 0; }));
    ASSERT_TRUE(session);
    struct sigaction during {};
    sigaction(SIGINT, nullptr, &during);
    EXPECT_EQ(during.sa_handler, before.sa_handler) << "the process's signals are the app's";
    ASSERT_TRUE(session->load({}));
    while (session->nextFrame()) {
        session->renderFrame();
        ++frames;
    }
    EXPECT_EQ(frames, 3);
    EXPECT_EQ(session->interruptedBy(), SIGTERM);
    EXPECT_EQ(session->finish(), 128 + SIGTERM);
}

TEST(SessionGL, APassRunsUntilItsHandleGoes)
{
    auto session = open(headless(4));
    ASSERT_TRUE(session);
    ASSERT_TRUE(session->load({}));
    Counter counter;
    Registration added = session->frame().addPass(counter);
    for (int i = 0; i < 2 && session->nextFrame(); ++i)
        session->renderFrame();
    EXPECT_EQ(counter.runs, 2);
    added.reset();
    EXPECT_EQ(session->frame().passCount(), 0u);
    while (session->nextFrame())
        session->renderFrame();
    EXPECT_EQ(counter.runs, 2) << "a pass whose handle is gone is not run";
    EXPECT_EQ(session->finish(), 0);
}

TEST(SessionGL, ASequenceRunDestroyedFirstLeavesNothingBehind)
{
    test::TempDir dir;
    SessionSettings settings = headless(3);
    // Where CUDA works (the GPU host) the run's upload and join passes join the frame.
    settings.backend = postfx::BackendChoice::Auto;
    settings.overlay = true; // the run adds its panel
    settings.report = dir.path() / "report.json";
    auto session = open(settings);
    ASSERT_TRUE(session);
    const std::size_t passes = session->frame().passCount();
    {
        stream::SampleSettings sample;
        sample.points = 500;
        sample.frames = 3;
        SequenceSettings sequence;
        sequence.everyFrame = true;
        bool usage = false;
        auto run = SequenceRun::open(*session, stream::makeSampleSource(sample), sequence, usage);
        ASSERT_TRUE(run) << run.error();
        EXPECT_EQ(session->frame().passCount(),
                  passes + (session->frame().path() == interop::Path::Cuda ? 2u : 0u));
        ASSERT_TRUE(session->nextFrame());
        run.value()->update();
        session->renderFrame();
    } // the run goes first, the session renders on
    EXPECT_EQ(session->frame().passCount(), passes) << "its passes left the frame";
    render::GpuScene empty(render::SceneCounts{}, "empty");
    session->showScene(&empty);
    while (session->nextFrame())
        session->renderFrame(); // its panel would be drawn here, on a dead run
    EXPECT_EQ(session->finish(), 0);
    const nlohmann::json report = nlohmann::json::parse(std::ifstream(dir.path() / "report.json"));
    EXPECT_FALSE(report.contains("streaming")) << "its report section went with it";
    EXPECT_EQ(report["frames"], 3);
    // Which build wrote it (what --version says).
    EXPECT_EQ(report["version"], std::string(version()));
    EXPECT_EQ(report["commit"], std::string(commit()));
}

TEST(SessionGL, AnotherContextsGlErrorDoesNotFailThisRun)
{
    auto session = open(headless(2));
    ASSERT_TRUE(session);
    ASSERT_TRUE(session->load({}));
    {
        auto other = test::otherContext(); // current now
        ASSERT_TRUE(other);
        test::provokeGlError();
        EXPECT_EQ(other->glErrorCount(), 1u);
    } // releases the current context
    session->context().makeCurrent();
    while (session->nextFrame())
        session->renderFrame();
    EXPECT_EQ(session->context().glErrorCount(), 0u);
    EXPECT_EQ(session->finish(), 0) << "another context's error failed this session";
}

} // namespace
} // namespace tandem::app
