// Frame output off the render thread, without a GPU: frames handed over as a ring would (rows
// bottom to top, a release per frame) come out as files equal to the image (PNG, PAM, 16-bit
// PNG), named by frame, never over an existing file, the first error reported and nothing
// written after it; a video gets every frame in order. And the progress line's text.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <spng.h>

#include "engine/core/AtomicFile.h"
#include "engine/core/Progress.h"
#include "engine/frame/FrameWriter.h"
#include "engine/io/Image.h"
#include "engine/io/Pam.h"
#include "tests/support/OutputChecks.h"
#include "tests/support/TempDir.h"

namespace tandem::frame {
namespace {

/// A test image, rows top to bottom, different in every frame.
io::Image pattern(int width, int height, int seed)
{
    io::Image image;
    image.width = width;
    image.height = height;
    image.pixels.resize(static_cast<std::size_t>(width) * height * 4);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            std::uint8_t* p = image.row(y) + x * 4;
            p[0] = static_cast<std::uint8_t>(x * 7 + seed);
            p[1] = static_cast<std::uint8_t>(y * 13 + seed * 3);
            p[2] = static_cast<std::uint8_t>((x ^ y) + seed * 5);
            p[3] = 255;
        }
    return image;
}

/// The image as a ring holds it: rows bottom to top.
std::vector<std::uint8_t> bottomUp(const io::Image& image)
{
    io::Image flipped = image;
    flipped.flipVertically();
    return flipped.pixels;
}

struct Handed {
    std::vector<std::uint8_t> pixels;
    ReadyFrame frame;
};

Handed hand(const io::Image& image, std::uint64_t index)
{
    Handed h{bottomUp(image), {}};
    h.frame.index = index;
    h.frame.width = image.width;
    h.frame.height = image.height;
    h.frame.format = PixelFormat::Rgba8;
    h.frame.pixels = h.pixels.data();
    return h;
}

TEST(FrameWriter, WritesEveryFrameAsTheImageWasAndReleasesEachOnce)
{
    for (OutputFormat format : {OutputFormat::Png, OutputFormat::Pam}) {
        test::TempDir dir;
        OutputSettings settings;
        settings.dir = dir.path() / "frames";
        settings.format = format;
        settings.threads = 3;
        auto writer = FrameWriter::open(settings, 37, 23, nullptr);
        ASSERT_TRUE(writer) << writer.error();
        std::vector<Handed> frames;
        for (int i = 0; i < 12; ++i)
            frames.push_back(hand(pattern(37, 23, i), static_cast<std::uint64_t>(i)));
        std::atomic<int> released{0};
        for (auto& f : frames)
            writer.value()->submit(f.frame, [&] { ++released; });
        auto done = writer.value()->finish();
        ASSERT_TRUE(done) << done.error();
        EXPECT_EQ(released.load(), 12);
        EXPECT_EQ(writer.value()->written(), 12u);
        for (int i = 0; i < 12; ++i) {
            const auto path = writer.value()->framePath(static_cast<std::uint64_t>(i));
            EXPECT_EQ(path.filename().string(),
                      fmt::format("frame_{:06d}{}", i, extensionOf(format)));
            auto read = format == OutputFormat::Png ? io::readPng(path) : io::readPam(path);
            ASSERT_TRUE(read) << read.error();
            EXPECT_EQ(read.value().pixels, pattern(37, 23, i).pixels) << path.string();
        }
        EXPECT_TRUE(test::temporariesIn(settings.dir).empty());
    }
}

TEST(FrameWriter, NeverReplacesAFileUnlessAskedAndStopsAtTheFirstError)
{
    test::TempDir dir;
    OutputSettings settings;
    settings.dir = dir.path();
    settings.threads = 1;
    const auto existing = dir.write("frame_000001.png", "keep me");
    auto writer = FrameWriter::open(settings, 8, 8, nullptr);
    ASSERT_TRUE(writer) << writer.error();
    std::vector<Handed> frames;
    for (int i = 0; i < 4; ++i)
        frames.push_back(hand(pattern(8, 8, i), static_cast<std::uint64_t>(i)));
    int released = 0;
    for (auto& f : frames)
        writer.value()->submit(f.frame, [&] { ++released; });
    auto done = writer.value()->finish();
    ASSERT_FALSE(done);
    EXPECT_NE(done.error().find("frame_000001.png: already exists"), std::string::npos)
        << done.error();
    EXPECT_EQ(released, 4) << "every slot is given back, written or not";
    std::ifstream kept(existing);
    std::string text((std::istreambuf_iterator<char>(kept)), {});
    EXPECT_EQ(text, "keep me");
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "frame_000002.png"))
        << "nothing is written after the first error";
}

TEST(FrameWriter, SixteenBitFramesBecomeSixteenBitPngs)
{
    test::TempDir dir;
    OutputSettings settings;
    settings.dir = dir.path();
    settings.format = OutputFormat::Png16;
    auto writer = FrameWriter::open(settings, 5, 3, nullptr);
    ASSERT_TRUE(writer) << writer.error();
    std::vector<std::uint16_t> wide(5 * 3 * 4);
    for (std::size_t i = 0; i < wide.size(); ++i)
        wide[i] = static_cast<std::uint16_t>(i * 4099);
    ReadyFrame frame;
    frame.width = 5;
    frame.height = 3;
    frame.format = PixelFormat::Rgba16;
    frame.pixels = reinterpret_cast<const std::uint8_t*>(wide.data());
    writer.value()->submit(frame, [] {});
    ASSERT_TRUE(writer.value()->finish());
    // The PNG header says 16 bits per sample, RGBA (colour type 6).
    std::ifstream file(dir.path() / "frame_000000.png", std::ios::binary);
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(file)), {});
    ASSERT_GT(bytes.size(), 26u);
    EXPECT_EQ(bytes[24], 16) << "bit depth";
    EXPECT_EQ(bytes[25], 6) << "colour type RGBA";
}

TEST(FrameWriter, SixteenBitFramesHoldTheSrgbEncodingOfLinearColour)
{
    // The RGBA16F colour target holds linear colour; a PNG, as every image tandem writes,
    // holds sRGB: linear mid grey (0.2159) is written as sRGB 0.5 (32896 of 65535), alpha as
    // it is. (Linear samples written as they are read 14146 there, half as bright on screen.)
    test::TempDir dir;
    OutputSettings settings;
    settings.dir = dir.path();
    settings.format = OutputFormat::Png16;
    auto writer = FrameWriter::open(settings, 2, 1, nullptr);
    ASSERT_TRUE(writer) << writer.error();
    const std::vector<std::uint16_t> linear = {14146, 0, 65535, 14146, 1000, 30000, 45000, 65535};
    ReadyFrame frame;
    frame.width = 2;
    frame.height = 1;
    frame.format = PixelFormat::Rgba16;
    frame.pixels = reinterpret_cast<const std::uint8_t*>(linear.data());
    writer.value()->submit(frame, [] {});
    ASSERT_TRUE(writer.value()->finish());
    std::ifstream file(dir.path() / "frame_000000.png", std::ios::binary);
    ASSERT_TRUE(file) << "frame_000000.png was not written";
    std::vector<unsigned char> png((std::istreambuf_iterator<char>(file)), {});
    std::unique_ptr<spng_ctx, void (*)(spng_ctx*)> ctx(spng_ctx_new(0), spng_ctx_free);
    ASSERT_EQ(spng_set_png_buffer(ctx.get(), png.data(), png.size()), 0);
    std::vector<std::uint16_t> decoded(8);
    ASSERT_EQ(spng_decode_image(ctx.get(), decoded.data(), decoded.size() * 2, SPNG_FMT_RGBA16, 0),
              0);
    const auto srgb = [](double v) {
        v /= 65535.0;
        return 65535.0 * (v <= 0.0031308 ? 12.92 * v : 1.055 * std::pow(v, 1.0 / 2.4) - 0.055);
    };
    for (std::size_t i = 0; i < decoded.size(); ++i)
        EXPECT_NEAR(decoded[i], i % 4 == 3 ? linear[i] : srgb(linear[i]), 0.51) << i;
    EXPECT_NEAR(decoded[0], 32896, 1);
}

TEST(FrameWriter, UnwritableFolderIsAnError)
{
    test::TempDir dir;
    const auto file = dir.write("plain", "x");
    OutputSettings settings;
    settings.dir = file / "frames";
    auto writer = FrameWriter::open(settings, 8, 8, nullptr);
    ASSERT_FALSE(writer);
    EXPECT_NE(writer.error().find("plain"), std::string::npos) << writer.error();
}

TEST(FrameWriter, VideoGetsEveryFrameInOrder)
{
    if (std::system("command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1"))
        GTEST_SKIP() << "ffmpeg/ffprobe are not installed (scripts/install-deps.sh installs them)";
    test::TempDir dir;
    OutputSettings settings;
    settings.video = dir.path() / "out.mp4";
    settings.fps = 24;
    settings.threads = 4;
    auto writer = FrameWriter::open(settings, 64, 48, nullptr);
    ASSERT_TRUE(writer) << writer.error();
    std::vector<Handed> frames;
    for (int i = 0; i < 20; ++i)
        frames.push_back(hand(pattern(64, 48, i * 10), static_cast<std::uint64_t>(i)));
    for (auto& f : frames)
        writer.value()->submit(f.frame, [] {});
    auto done = writer.value()->finish();
    ASSERT_TRUE(done) << done.error();
    EXPECT_EQ(writer.value()->written(), 20u);
    ASSERT_TRUE(std::filesystem::exists(settings.video));
    EXPECT_EQ(test::namesIn(dir.path()), std::vector<std::string>{"out.mp4"});
    const std::string command = "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                                "stream=nb_read_frames -of csv=p=0 '" +
                                settings.video.string() + "'";
    std::FILE* pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    char line[64] = {};
    ASSERT_NE(std::fgets(line, sizeof line, pipe), nullptr);
    pclose(pipe);
    EXPECT_EQ(std::atoi(line), 20);
}

TEST(FrameWriter, AResumedRunCountsFramesAnotherRunWroteFirstAsDone)
{
    // Two --resume runs on one folder: a frame the other committed first is done, not an error,
    // and the other's file is kept as it is.
    test::TempDir dir;
    OutputSettings settings;
    settings.dir = dir.path();
    settings.threads = 2;
    settings.keepExisting = true;
    const auto theirs = dir.write("frame_000002.png", "the other run's frame");
    auto writer = FrameWriter::open(settings, 8, 8, nullptr);
    ASSERT_TRUE(writer) << writer.error();
    std::vector<Handed> frames;
    for (int i = 0; i < 5; ++i)
        frames.push_back(hand(pattern(8, 8, i), static_cast<std::uint64_t>(i)));
    for (auto& f : frames)
        writer.value()->submit(f.frame, [] {});
    auto done = writer.value()->finish();
    ASSERT_TRUE(done) << done.error();
    EXPECT_EQ(writer.value()->written(), 4u);
    EXPECT_EQ(writer.value()->framesExisting(), 1u);
    std::ifstream kept(theirs);
    EXPECT_EQ(std::string((std::istreambuf_iterator<char>(kept)), {}), "the other run's frame");
    EXPECT_EQ(io::readPng(dir.path() / "frame_000004.png").value().pixels, pattern(8, 8, 4).pixels);
}

TEST(FrameWriter, OverwritingWithAShorterRunWarnsAboutTheOlderFrames)
{
    test::TempDir dir;
    for (int i = 0; i < 7; ++i)
        dir.write(fmt::format("frame_{:06d}.png", i), "old");
    dir.write("frame_000020.pam", "another format: not this run's names");
    dir.write("notes.txt", "not a frame");
    OutputSettings settings;
    settings.dir = dir.path();
    settings.threads = 1;
    settings.overwrite = true;
    auto writer = FrameWriter::open(settings, 4, 4, nullptr);
    ASSERT_TRUE(writer) << writer.error();
    std::vector<Handed> frames;
    for (int i = 0; i < 3; ++i)
        frames.push_back(hand(pattern(4, 4, i), static_cast<std::uint64_t>(i)));
    for (auto& f : frames)
        writer.value()->submit(f.frame, [] {});
    testing::internal::CaptureStderr();
    ASSERT_TRUE(writer.value()->finish());
    writer.value().reset(); // finishes again: the warning is said once
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find(": 4 frames of an earlier run remain after this run's last frame "
                        "(frame_000003.png to frame_000006.png), not replaced by --overwrite"),
              std::string::npos)
        << said;
    EXPECT_EQ(said.find("remain", said.find("remain") + 1), std::string::npos) << said;
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "frame_000006.png")) << "never deleted";
}

TEST(FrameWriter, TemporariesOfKilledWritersAreRemovedWhenTheOutputOpens)
{
    test::TempDir dir;
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        auto file = AtomicFile::create(dir.path() / "frame_000000.png", Replace::No);
        ::kill(::getpid(), SIGKILL);
        ::_exit(file ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_EQ(test::temporariesIn(dir.path()).size(), 1u);
    auto live = AtomicFile::create(dir.path() / "frame_000001.png", Replace::No);
    ASSERT_TRUE(live);
    OutputSettings settings;
    settings.dir = dir.path();
    auto writer = FrameWriter::open(settings, 4, 4, nullptr);
    ASSERT_TRUE(writer) << writer.error();
    EXPECT_EQ(test::temporariesIn(dir.path()),
              std::vector<std::string>{live.value().temporaryPath().filename().string()})
        << "the dead writer's is gone, the live one's kept";
}

TEST(FrameWriter, AScreenshotNeverReplacesAFileThatTookItsName)
{
    test::TempDir dir;
    OutputSettings settings;
    settings.dir = dir.path();
    settings.threads = 1;
    auto writer = FrameWriter::open(settings, 4, 4, nullptr);
    ASSERT_TRUE(writer) << writer.error();
    const auto taken = dir.write("screenshot_00000.png", "taken meanwhile");
    Handed shot = hand(pattern(4, 4, 9), 0);
    writer.value()->submit(
        shot.frame, [] {}, taken);
    ASSERT_TRUE(writer.value()->finish());
    std::ifstream kept(taken);
    EXPECT_EQ(std::string((std::istreambuf_iterator<char>(kept)), {}), "taken meanwhile");
    auto written = io::readPng(dir.path() / "screenshot_00000-2.png");
    ASSERT_TRUE(written) << written.error();
    EXPECT_EQ(written.value().pixels, pattern(4, 4, 9).pixels);
}

TEST(Progress, SaysFramesRateAndTimeLeft)
{
    std::FILE* sink = std::tmpfile();
    ASSERT_NE(sink, nullptr);
    Progress progress("tandem-raster", 400, true, sink);
    const std::string line = progress.line(120);
    EXPECT_NE(line.find("120/400 frames"), std::string::npos) << line;
    EXPECT_NE(line.find("frames/s"), std::string::npos) << line;
    EXPECT_NE(line.find("ETA"), std::string::npos) << line;
    EXPECT_NE(progress.line(400).find(" in "), std::string::npos) << "done: total time";
    progress.finish(400);
    std::rewind(sink);
    char text[256] = {};
    ASSERT_NE(std::fgets(text, sizeof text, sink), nullptr);
    EXPECT_NE(std::string(text).find("tandem-raster: 400/400 frames"), std::string::npos) << text;
    std::fclose(sink);
    std::FILE* quiet = std::tmpfile();
    Progress silent("x", 10, false, quiet);
    silent.update(5);
    silent.finish(10);
    EXPECT_EQ(std::ftell(quiet), 0) << "-q prints nothing";
    std::fclose(quiet);
}

} // namespace
} // namespace tandem::frame
