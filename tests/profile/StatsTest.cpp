// Statistics math: percentiles, summaries, the sliding window; camera paths.
#include "engine/profile/Stats.h"

#include <gtest/gtest.h>

#include "engine/io/CameraPath.h"
#include "engine/render/OrbitController.h"
#include "tests/support/TempDir.h"

namespace tandem::profile {
namespace {

TEST(Stats, PercentileInterpolatesBetweenRanks)
{
    const std::vector<double> v = {1, 2, 3, 4, 5};
    EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
    EXPECT_DOUBLE_EQ(percentile(v, 50), 3);
    EXPECT_DOUBLE_EQ(percentile(v, 100), 5);
    EXPECT_DOUBLE_EQ(percentile(v, 25), 2);
    EXPECT_DOUBLE_EQ(percentile(v, 90), 4.6);
    EXPECT_DOUBLE_EQ(percentile({}, 50), 0);
    EXPECT_DOUBLE_EQ(percentile({7}, 99), 7);
}

TEST(Stats, SummaryOfKnownSeries)
{
    std::deque<double> samples;
    for (int i = 100; i >= 1; --i)
        samples.push_back(i); // 100 .. 1, last = 1
    const Summary s = summarize(samples);
    EXPECT_EQ(s.count, 100u);
    EXPECT_DOUBLE_EQ(s.last, 1);
    EXPECT_DOUBLE_EQ(s.mean, 50.5);
    EXPECT_DOUBLE_EQ(s.min, 1);
    EXPECT_DOUBLE_EQ(s.max, 100);
    EXPECT_DOUBLE_EQ(s.p50, 50.5);
    EXPECT_NEAR(s.p95, 95.05, 1e-9);
    EXPECT_NEAR(s.p99, 99.01, 1e-9);
}

TEST(Stats, WindowKeepsTheMostRecent)
{
    Window window(3);
    for (int i = 1; i <= 5; ++i)
        window.add("stage", i);
    window.add("other", 10);
    const Summary s = window.summary("stage");
    EXPECT_EQ(s.count, 3u);
    EXPECT_DOUBLE_EQ(s.min, 3);
    EXPECT_DOUBLE_EQ(s.last, 5);
    EXPECT_EQ(window.names(), (std::vector<std::string>{"stage", "other"}));
    EXPECT_EQ(window.summary("missing").count, 0u);
}

TEST(CameraPath, OrbitRepeatsAndKeyframesInterpolate)
{
    const io::CameraPath orbit = io::CameraPath::orbit();
    EXPECT_FLOAT_EQ(orbit.at(0).yaw, 30);
    EXPECT_FLOAT_EQ(orbit.at(180).yaw, 210);
    EXPECT_FLOAT_EQ(orbit.at(540).yaw, 210) << "repeats every 360 frames";

    test::TempDir dir;
    auto path = io::readCameraPath(
        dir.write("p.json", R"({"keyframes": [{"frame": 0, "yaw": 0, "pitch": 10, "distance": 1},
                                    {"frame": 10, "yaw": 90, "pitch": 30, "distance": 2}]})"));
    ASSERT_TRUE(path) << path.error();
    const io::CameraKey mid = path.value().at(5);
    EXPECT_FLOAT_EQ(mid.yaw, 45);
    EXPECT_FLOAT_EQ(mid.pitch, 20);
    EXPECT_FLOAT_EQ(mid.distanceScale, 1.5f);
    EXPECT_FLOAT_EQ(path.value().at(50).yaw, 90) << "holds after the last key";
}

TEST(CameraPath, TargetsRoundTripInterpolateAndReproduceAPannedView)
{
    io::CameraPath written;
    written.addKey({0, 10, 15, 1.5f, glm::vec3(0.25f, -0.5f, 0.0f)});
    written.addKey({8, 50, 15, 1.0f});
    test::TempDir dir;
    auto read = io::readCameraPath(dir.write("t.json", io::formatCameraPath(written)));
    ASSERT_TRUE(read) << read.error();
    ASSERT_EQ(read.value().keys.size(), 2u);
    EXPECT_EQ(read.value().keys[0].target, glm::vec3(0.25f, -0.5f, 0.0f));
    EXPECT_EQ(read.value().keys[1].target, glm::vec3(0.0f));
    EXPECT_EQ(read.value().at(4).target, glm::vec3(0.125f, -0.25f, 0.0f));

    // A key taken from a panned and zoomed view gives that view back.
    render::OrbitController view;
    view.fit(io::Bounds{glm::vec3(-1.0f, 0.0f, 2.0f), glm::vec3(3.0f, 2.0f, 4.0f)});
    view.orbit(40.0f, -10.0f);
    view.zoom(0.5f);
    view.pan(0.2f, 0.1f);
    const io::CameraKey key{3, view.yaw(), view.pitch(), view.distanceScale(), view.targetOffset()};
    render::OrbitController replay;
    replay.fit(io::Bounds{glm::vec3(-1.0f, 0.0f, 2.0f), glm::vec3(3.0f, 2.0f, 4.0f)});
    replay.setPose(key.yaw, key.pitch, key.distanceScale, key.target);
    for (int i = 0; i < 3; ++i) {
        EXPECT_NEAR(replay.target()[i], view.target()[i], 1e-5f) << i;
        EXPECT_NEAR(replay.eye()[i], view.eye()[i], 1e-4f) << i;
    }
    EXPECT_GT(glm::length(view.targetOffset()), 0.01f) << "the view was panned";

    auto bad = io::readCameraPath(dir.write("u.json", R"({"keyframes": [{"target": [1, "x"]}]})"));
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().find("target must be three finite numbers"), std::string::npos)
        << bad.error();
}

TEST(CameraPath, BadFilesSayWhy)
{
    test::TempDir dir;
    auto notJson = io::readCameraPath(dir.write("a.json", "{oops"));
    ASSERT_FALSE(notJson);
    EXPECT_NE(notJson.error().find("not valid JSON"), std::string::npos);
    auto noKeys = io::readCameraPath(dir.write("b.json", R"({"frames": []})"));
    ASSERT_FALSE(noKeys);
    EXPECT_NE(noKeys.error().find("keyframes"), std::string::npos);
    auto order =
        io::readCameraPath(dir.write("c.json", R"({"keyframes": [{"frame": 5}, {"frame": 5}]})"));
    ASSERT_FALSE(order);
    EXPECT_NE(order.error().find("frames must increase"), std::string::npos);
    auto type = io::readCameraPath(dir.write("d.json", R"({"keyframes": [{"yaw": "left"}]})"));
    ASSERT_FALSE(type);
    auto missing = io::readCameraPath(dir.path() / "none.json");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("no such file"), std::string::npos);
}

TEST(CameraPath, KeysAddedInOrderSaveAndLoadBack)
{
    io::CameraPath path;
    path.addKey({20, 90, 10, 2});
    path.addKey({0, 0, 20, 1});
    path.addKey({10, 45, 15, 1.5f});
    path.addKey({10, 50, 15, 1.5f}); // the same frame again: replaced
    ASSERT_EQ(path.keys.size(), 3u);
    EXPECT_FLOAT_EQ(path.keys[1].yaw, 50);
    EXPECT_FLOAT_EQ(path.keys[2].frame, 20);
    test::TempDir dir;
    auto back = io::readCameraPath(dir.write("saved.json", io::formatCameraPath(path)));
    ASSERT_TRUE(back) << back.error();
    ASSERT_EQ(back.value().keys.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_FLOAT_EQ(back.value().keys[i].frame, path.keys[i].frame);
        EXPECT_FLOAT_EQ(back.value().keys[i].yaw, path.keys[i].yaw);
        EXPECT_FLOAT_EQ(back.value().keys[i].pitch, path.keys[i].pitch);
        EXPECT_FLOAT_EQ(back.value().keys[i].distanceScale, path.keys[i].distanceScale);
    }
    EXPECT_FLOAT_EQ(back.value().at(15).yaw, 70);
}

} // namespace
} // namespace tandem::profile
