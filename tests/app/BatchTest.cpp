// app: batch plans (app/Batch.h) as main has them: ranges parsed and clamped to the sequence,
// file names by sequence frame and camera path, several paths, resume skipping written frames,
// the plan merge.py reads; and prepareBatch()'s usage errors over the typed settings.
#include <csignal>
#include <cstring>

#include <gtest/gtest.h>

#include "engine/app/Batch.h"
#include "engine/io/CameraPath.h"
#include "tests/support/TempDir.h"

namespace tandem::app {
namespace {

TEST(BatchPlan, RangesAreParsedAndClampedToTheSequence)
{
    using Range = std::pair<int, int>;
    EXPECT_EQ(parseFrameRange("10:20", 100).value(), (Range{10, 20}));
    EXPECT_EQ(parseFrameRange("90:", 100).value(), (Range{90, 100}));
    EXPECT_EQ(parseFrameRange(":5", 100).value(), (Range{0, 5}));
    EXPECT_EQ(parseFrameRange(":", 100).value(), (Range{0, 100}));
    EXPECT_EQ(parseFrameRange("80:200", 100).value(), (Range{80, 100}));
    EXPECT_EQ(parseFrameRange("150:200", 100).value(), (Range{100, 100}))
        << "a range past the end is empty (the last of several tasks), not an error";
    EXPECT_EQ(parseFrameRange("5:2", 100).error(),
              "--frame-range 5:2: the end is before the start");
    for (const char* bad : {"", "5", "1:2:3"})
        EXPECT_EQ(parseFrameRange(bad, 100).error(),
                  std::string("--frame-range ") + bad + ": expected A:B, A: or :B");
    for (const char* bad : {"a:b", "-1:5", "1.5:3", "1 :3"})
        EXPECT_EQ(parseFrameRange(bad, 100).error(),
                  std::string("--frame-range ") + bad + ": expected A:B with frame numbers >= 0");
}

TEST(BatchPlan, FilesAreNamedBySequenceFrameAndCameraPath)
{
    test::TempDir dir;
    BatchOptions options;
    options.frameRange = "3:6";
    auto plan = BatchPlan::make(options, 10, dir.path(), ".png");
    ASSERT_TRUE(plan) << plan.error();
    ASSERT_EQ(plan.value().jobs().size(), 3u);
    EXPECT_EQ(plan.value().jobs()[0].frame, 3);
    EXPECT_EQ(plan.value().jobs()[0].path, -1);
    EXPECT_EQ(plan.value().jobs()[0].file, "frame_000003.png");
    EXPECT_EQ(plan.value().jobs()[2].file, "frame_000005.png");
    EXPECT_EQ(plan.value().fileName(123, -1), "frame_000123.png");

    // Two paths: the range once along each, paths in order, named by their files' stems.
    io::CameraPath keys;
    keys.addKey({0.0f, 10.0f, 5.0f, 1.0f, {}});
    const auto file = dir.write("my path.json", io::formatCameraPath(keys));
    options.cameraPaths = {"orbit", file.string()};
    auto paths = BatchPlan::make(options, 10, dir.path() / "out", ".pam");
    ASSERT_TRUE(paths) << paths.error();
    ASSERT_EQ(paths.value().jobs().size(), 6u);
    EXPECT_EQ(paths.value().jobs()[0].file, "frame_orbit_000003.pam");
    EXPECT_EQ(paths.value().jobs()[3].file, "frame_my-path_000003.pam");
    EXPECT_EQ(paths.value().jobs()[3].path, 1);
    EXPECT_EQ(paths.value().paths().size(), 2u);

    options.cameraPaths = {"orbit", "orbit"};
    EXPECT_EQ(BatchPlan::make(options, 10, dir.path(), ".png").error(),
              "--camera-paths: two paths named \"orbit\" (file names would collide): rename one");
    options.cameraPaths = {(dir.path() / "missing.json").string()};
    EXPECT_FALSE(BatchPlan::make(options, 10, dir.path(), ".png"));
}

TEST(BatchPlan, ResumeLeavesOutWhatIsWritten)
{
    test::TempDir dir;
    dir.write("frame_000001.png", "done");
    BatchOptions options;
    options.frameRange = "0:3";
    options.resume = true;
    auto plan = BatchPlan::make(options, 10, dir.path(), ".png");
    ASSERT_TRUE(plan) << plan.error();
    EXPECT_EQ(plan.value().skipped(), 1u);
    ASSERT_EQ(plan.value().jobs().size(), 2u);
    EXPECT_EQ(plan.value().jobs()[0].frame, 0);
    EXPECT_EQ(plan.value().jobs()[1].frame, 2);
}

TEST(BatchPlan, ThePlanListsEveryExpectedFile)
{
    test::TempDir dir;
    BatchOptions options;
    options.frameRange = "0:2";
    options.cameraPaths = {"orbit"};
    options.planPath = (dir.path() / "plan.json").string();
    auto plan = BatchPlan::make(options, 5, dir.path(), ".png");
    ASSERT_TRUE(plan) << plan.error();
    const nlohmann::json json = plan.value().toJson("sample", 30.0, "64x48");
    EXPECT_EQ(json["tandem_batch_plan"], 1);
    EXPECT_EQ(json["sequence"], "sample");
    EXPECT_EQ(json["size"], "64x48");
    EXPECT_EQ(json["range"], nlohmann::json({0, 2}));
    EXPECT_EQ(json["extension"], ".png");
    ASSERT_EQ(json["camera_paths"].size(), 1u);
    EXPECT_EQ(json["camera_paths"][0]["name"], "orbit");
    EXPECT_EQ(json["camera_paths"][0]["files"],
              nlohmann::json({"frame_orbit_000000.png", "frame_orbit_000001.png"}));
}

TEST(BatchPlan, AStopAskedForEndsThePlanningSayingSo)
{
    // A billion frames would take minutes and gigabytes to plan: a signal ends it early.
    test::TempDir dir;
    BatchOptions options;
    options.frameRange = "0:";
    int polls = 0;
    const StopToken stop([&polls] { return ++polls > 3 ? SIGTERM : 0; });
    auto plan = BatchPlan::make(options, 1'000'000'000, dir.path(), ".png", stop);
    ASSERT_FALSE(plan);
    EXPECT_EQ(plan.error(), std::string(strsignal(SIGTERM)) +
                                ": stopped during set-up, while planning the batch render of "
                                "1000000000 frames (3072 planned)");
    EXPECT_EQ(polls, 4) << "polled every 1024 frames";
    SessionSettings s;
    s.headless = true;
    s.outDir = dir.path();
    bool usage = true;
    polls = 0;
    auto prepared = prepareBatch(options, s, 1'000'000'000, 30.0, "sample", usage, stop);
    ASSERT_FALSE(prepared);
    EXPECT_FALSE(usage) << "a stop is no usage error";
    EXPECT_NE(prepared.error().find("stopped during set-up"), std::string::npos);
}

TEST(BatchPlan, PrepareRefusesWhatABatchCannotDo)
{
    test::TempDir dir;
    BatchOptions batch;
    batch.frameRange = "0:2";
    auto refused = [&](SessionSettings settings) {
        bool usage = false;
        auto plan = prepareBatch(batch, settings, 10, 30.0, "sample", usage);
        EXPECT_TRUE(usage);
        return plan ? std::string() : plan.error();
    };
    SessionSettings s;
    s.outDir = dir.path();
    EXPECT_EQ(refused(s), "--frame-range, --camera-paths, --resume and --batch-plan are for "
                          "--headless renders");
    s.headless = true;
    s.frames = 3;
    EXPECT_EQ(refused(s), "--frames with --frame-range: the range says which frames");
    s.frames.reset();
    s.spin = 1.0f;
    EXPECT_NE(refused(s).find("--spin"), std::string::npos);

    // A plan to render: the session's frame count and file names follow it.
    s.spin = 0.0f;
    bool usage = true;
    auto plan = prepareBatch(batch, s, 10, 30.0, "sample", usage);
    ASSERT_TRUE(plan) << plan.error();
    EXPECT_FALSE(usage);
    ASSERT_TRUE(plan.value());
    EXPECT_EQ(*s.frames, 2);
    ASSERT_TRUE(s.frameName);
    EXPECT_EQ(s.frameName(1), "frame_000001.png");
}

} // namespace
} // namespace tandem::app
