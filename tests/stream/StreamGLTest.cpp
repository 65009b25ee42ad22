// gl tier: frames of a streamed sequence (the built-in sample, points and mesh) drawn through the
// sequence player's GL upload path (the host backend; on llvmpipe in CI): a frame matches its
// committed reference image; a streamed frame draws what the same scene uploaded whole draws
// (points: their normals go through the 16-bit packed form, so within one level); frames come in
// the clock's order, each distinct; a slow source never makes the player wait when it need not
// (a window's render loop: the frame before stays on screen and is counted late), and a frame
// that fails to load is counted skipped, not late or dropped.
// Regenerate the references with scripts/update-references.sh after an intended change.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>

#include "engine/stream/SampleSource.h"
#include "engine/stream/SequencePlayer.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GatedSource.h"
#include "tests/support/GlTestContext.h"
#include "tests/support/ImageCompare.h"

namespace tandem::stream {
namespace {

const std::filesystem::path references =
    std::filesystem::path(TANDEM_SOURCE_DIR) / "tests" / "stream" / "references";

int maxDifference(const io::Image& a, const io::Image& b)
{
    EXPECT_EQ(a.pixels.size(), b.pixels.size());
    int most = 0;
    for (std::size_t i = 0; i < a.pixels.size() && i < b.pixels.size(); ++i)
        most = std::max(most, std::abs(int(a.pixels[i]) - int(b.pixels[i])));
    return most;
}

class Stream : public test::GlTest {
protected:
    /// Every frame of `spec` through the player (GL uploads, points by the host twin when
    /// `hostPoints`, else GL_POINTS), with the camera fitted to the sequence.
    std::vector<io::Image> play(const std::string& spec, bool hostPoints, int* shownOut = nullptr)
    {
        auto settings = parseSample(spec);
        EXPECT_TRUE(settings) << settings.error();
        auto source = makeSampleSource(settings.value());
        test::FrameStack stack(160, 120);
        if (hostPoints)
            stack.frame.setPointPath(render::PointPath::Host);
        StreamSettings streaming;
        streaming.pinned = false;
        streaming.loaderThreads = 2;
        SequencePlayer player(*source, streaming, UploadPath::GlSubData, nullptr);
        Playback playback(source->frameCount(), source->fps());
        playback.setEveryFrame(true);
        playback.setLoopMode(LoopMode::Once);
        const render::Camera camera = test::fittedCamera(*source->bounds());
        std::vector<io::Image> images;
        for (int i = 0; i < source->frameCount(); ++i) {
            playback.advance(0.0);
            player.update(playback, true);
            EXPECT_EQ(player.shownFrame(), i);
            images.push_back(
                stack.render(*player.scene(), camera, postfx::Chain{}, frame::Channel::Color));
        }
        if (shownOut)
            *shownOut = static_cast<int>(player.stats().shown);
        return images;
    }

    /// Frame `index` of `spec` uploaded whole (GpuScene of the sample's scene).
    io::Image direct(const std::string& spec, int index, bool hostPoints)
    {
        auto settings = parseSample(spec).value();
        auto source = makeSampleSource(settings);
        const render::GpuScene scene(sampleFrame(settings, index), "direct");
        test::FrameStack stack(160, 120);
        if (hostPoints)
            stack.frame.setPointPath(render::PointPath::Host);
        return stack.render(scene, test::fittedCamera(*source->bounds()), postfx::Chain{},
                            frame::Channel::Color);
    }
};

TEST_F(Stream, PointFramesMatchTheReferenceAndTheWholeUpload)
{
    const std::string spec = "sample:points=30000,frames=4";
    int shown = 0;
    const std::vector<io::Image> frames = play(spec, true, &shown);
    EXPECT_EQ(shown, 4);
    EXPECT_EQ(test::compareWithReference(frames[2], references / "sample_points_frame2.png"), "");
    EXPECT_GT(test::nonBackgroundFraction(frames[2]), 0.1);
    EXPECT_LE(maxDifference(frames[2], direct(spec, 2, true)), 1);
    for (std::size_t i = 1; i < frames.size(); ++i)
        EXPECT_NE(frames[i].pixels, frames[i - 1].pixels) << "frames " << i - 1 << ", " << i;
}

TEST_F(Stream, MeshFramesMatchTheReferenceAndTheWholeUpload)
{
    const std::string spec = "sample:mesh,points=20000,frames=3";
    const std::vector<io::Image> frames = play(spec, false);
    EXPECT_EQ(test::compareWithReference(frames[1], references / "sample_mesh_frame1.png"), "");
    EXPECT_GT(test::nonBackgroundFraction(frames[1]), 0.1);
    EXPECT_EQ(frames[1].pixels, direct(spec, 1, false).pixels);
    EXPECT_NE(frames[1].pixels, frames[0].pixels);
}

TEST_F(Stream, ASlowLoaderNeverMakesTheWindowPlayerWait)
{
    test::GatedSource source(makeSampleSource(parseSample("sample:points=2000,frames=6").value()),
                             2);
    StreamSettings streaming;
    streaming.pinned = false;
    streaming.loaderThreads = 2;
    SequencePlayer player(source, streaming, UploadPath::GlSubData, nullptr);
    Playback playback(source.frameCount(), source.fps());
    // Updates as a window's render loop makes them (never waiting) until `index` is on screen,
    // checking each time that the loader still held it when update came back.
    const auto updateUntilShown = [&](int index) {
        for (int i = 0; i < 20000 && player.shownFrame() != index; ++i) {
            player.update(playback, false);
            std::this_thread::sleep_for(std::chrono::microseconds(500));
        }
        return player.shownFrame() == index;
    };
    const auto updateWhileHeld = [&](int index, int times) {
        for (int i = 0; i < times; ++i) {
            player.update(playback, false);
            ASSERT_TRUE(source.held(index)) << "update waited for frame " << index;
        }
    };

    // Nothing loaded yet: the loop goes on with nothing on screen, which is not late.
    updateWhileHeld(0, 5);
    EXPECT_EQ(player.shownFrame(), -1);
    EXPECT_EQ(player.stats().late, 0u);
    source.release(0);
    ASSERT_TRUE(updateUntilShown(0));
    EXPECT_EQ(player.stats().shown, 1u);

    // Frame 1 wanted but held: frame 0 stays on screen, each of these frames counted late.
    playback.seek(1);
    updateWhileHeld(1, 5);
    EXPECT_EQ(player.shownFrame(), 0);
    EXPECT_EQ(player.stats().late, 5u);
    source.release(1);
    ASSERT_TRUE(updateUntilShown(1));
    EXPECT_EQ(player.stats().shown, 2u);
    const std::uint64_t late = player.stats().late;
    EXPECT_GE(late, 5u);

    // Frame 2 fails to load: skipped and named, frame 1 kept; the update that finds it failed
    // does not count it late, and moving on right after does not count it dropped.
    playback.seek(2);
    source.release(2);
    std::uint64_t lateBefore = 0;
    for (int i = 0; i < 20000 && player.stats().skipped == 0; ++i) {
        lateBefore = player.stats().late;
        player.update(playback, false);
        std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    ASSERT_EQ(player.stats().skipped, 1u);
    EXPECT_EQ(player.stats().late, lateBefore);
    EXPECT_EQ(player.shownFrame(), 1);
    const std::vector<std::string> warnings = player.takeWarnings();
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("skipped frame 2: frame 2: corrupt"), std::string::npos)
        << warnings[0];

    source.releaseAll();
    playback.seek(3);
    ASSERT_TRUE(updateUntilShown(3));
    EXPECT_EQ(player.stats().dropped, 0u);
    EXPECT_EQ(player.stats().shown, 3u);
    EXPECT_EQ(player.stats().skipped, 1u);
}

} // namespace
} // namespace tandem::stream
