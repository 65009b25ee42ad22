// VideoWriter: a real ffmpeg encodes frames that ffprobe counts and ffmpeg decodes back (skipped
// when ffmpeg is not installed); stand-in ffmpeg scripts that fail show that a dead encoder is
// an error, not a crash, and that no partial video is ever left behind.
#include "engine/io/VideoWriter.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "engine/core/File.h"
#include "tests/support/TempDir.h"

namespace tandem::io {
namespace {

namespace fs = std::filesystem;

/// Sets (or, with nullopt, unsets) an environment variable for one test.
class ScopedEnv {
public:
    ScopedEnv(const char* name, std::optional<std::string> value) : m_name(name)
    {
        if (const char* old = std::getenv(name))
            m_old = old;
        if (value)
            setenv(name, value->c_str(), 1);
        else
            unsetenv(name);
    }
    ~ScopedEnv()
    {
        if (m_old)
            setenv(m_name, m_old->c_str(), 1);
        else
            unsetenv(m_name);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* m_name;
    std::optional<std::string> m_old;
};

/// Runs a shell command (test-only: the writer itself never uses a shell) and returns its
/// standard output.
std::string capture(const std::string& command)
{
    std::string out;
    if (std::FILE* pipe = popen(command.c_str(), "r")) {
        char chunk[1 << 16];
        std::size_t n;
        while ((n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0)
            out.append(chunk, n);
        pclose(pipe);
    }
    return out;
}

std::string quoted(const fs::path& path)
{
    return "'" + path.string() + "'";
}

/// An executable shell script standing in for ffmpeg.
fs::path fakeFfmpeg(const test::TempDir& dir, const std::string& body)
{
    const fs::path script = dir.write("fake-ffmpeg", "#!/bin/sh\n" + body + "\n");
    fs::permissions(script, fs::perms::owner_all);
    return script;
}

struct Colour {
    int r, g, b;
};
Colour topColour(int frame)
{
    return {20 * frame, 250 - 20 * frame, 40};
}
Colour bottomColour(int frame)
{
    return {200, 10 + 15 * frame, 230 - 15 * frame};
}

/// Frame `index`: the top rows one colour, the bottom rows another, both changing per frame.
Image frame(int width, int height, int index)
{
    Image image;
    image.width = width;
    image.height = height;
    image.pixels.resize(static_cast<std::size_t>(width) * height * 4);
    for (int y = 0; y < height; ++y) {
        const Colour c = y < height / 2 ? topColour(index) : bottomColour(index);
        for (int x = 0; x < width; ++x) {
            std::uint8_t* p = image.row(y) + x * 4;
            p[0] = static_cast<std::uint8_t>(c.r);
            p[1] = static_cast<std::uint8_t>(c.g);
            p[2] = static_cast<std::uint8_t>(c.b);
            p[3] = 255;
        }
    }
    return image;
}

/// The real ffmpeg and its ffprobe, or a reason to skip.
struct Tools {
    fs::path ffmpeg;
    fs::path ffprobe;
    std::string missing;
};
Tools findTools()
{
    Tools tools;
    auto ffmpeg = VideoWriter::findFfmpeg();
    if (!ffmpeg) {
        tools.missing =
            "ffmpeg is missing (scripts/install-deps.sh installs it): " + ffmpeg.error();
        return tools;
    }
    tools.ffmpeg = ffmpeg.value();
    tools.ffprobe = tools.ffmpeg.parent_path() / "ffprobe";
    if (!fs::exists(tools.ffprobe))
        tools.missing = "ffprobe is missing beside " + tools.ffmpeg.string();
    return tools;
}

TEST(VideoWriter, EncodesEveryFrameInOrder)
{
    const Tools tools = findTools();
    if (!tools.missing.empty())
        GTEST_SKIP() << tools.missing;
    test::TempDir dir;
    const fs::path path = dir.path() / "clip.mp4";
    const int width = 65, height = 49, frames = 12; // odd: padded to 66x50
    auto opened = VideoWriter::open(path, width, height, 24.0, false);
    ASSERT_TRUE(opened) << opened.error();
    VideoWriter& writer = *opened.value();
    for (int i = 0; i < frames; ++i) {
        auto written = writer.write(frame(width, height, i));
        ASSERT_TRUE(written) << written.error();
    }
    EXPECT_EQ(writer.frameCount(), frames);
    auto finished = writer.finish();
    ASSERT_TRUE(finished) << finished.error();
    EXPECT_TRUE(fs::is_regular_file(path));
    EXPECT_FALSE(fs::exists(path.string() + ".partial"));

    const std::string counted =
        capture(quoted(tools.ffprobe) +
                " -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames "
                "-of csv=p=0 " +
                quoted(path));
    EXPECT_EQ(std::atoi(counted.c_str()), frames) << "ffprobe printed: " << counted;
    const std::string size = capture(quoted(tools.ffprobe) +
                                     " -v error -select_streams v:0 -show_entries "
                                     "stream=width,height -of csv=p=0:s=x " +
                                     quoted(path));
    EXPECT_EQ(size.substr(0, size.find_last_not_of("\r\n") + 1), "66x50");

    // Decoded back, each frame has its own colours, top rows on top (lossy: a tolerance).
    const std::string rgb = capture(quoted(tools.ffmpeg) + " -v error -nostdin -i " + quoted(path) +
                                    " -vsync 0 -f rawvideo -pix_fmt rgb24 -");
    const std::size_t frameBytes = 66 * 50 * 3;
    ASSERT_EQ(rgb.size(), frameBytes * frames);
    for (int i = 0; i < frames; ++i) {
        const auto pixel = [&](int x, int y) {
            const auto* p = reinterpret_cast<const std::uint8_t*>(rgb.data()) + i * frameBytes +
                            (static_cast<std::size_t>(y) * 66 + x) * 3;
            return Colour{p[0], p[1], p[2]};
        };
        for (const auto& [got, want] :
             {std::pair{pixel(32, 10), topColour(i)}, std::pair{pixel(32, 40), bottomColour(i)}}) {
            EXPECT_NEAR(got.r, want.r, 8) << "frame " << i;
            EXPECT_NEAR(got.g, want.g, 8) << "frame " << i;
            EXPECT_NEAR(got.b, want.b, 8) << "frame " << i;
        }
    }
}

TEST(VideoWriter, DestroyedWithoutFinishLeavesNoFile)
{
    const Tools tools = findTools();
    if (!tools.missing.empty())
        GTEST_SKIP() << tools.missing;
    test::TempDir dir;
    const fs::path path = dir.path() / "abandoned.mp4";
    {
        auto opened = VideoWriter::open(path, 64, 48, 30.0, false);
        ASSERT_TRUE(opened) << opened.error();
        for (int i = 0; i < 3; ++i)
            ASSERT_TRUE(opened.value()->write(frame(64, 48, i)));
        EXPECT_TRUE(fs::exists(path.string() + ".partial"));
    }
    EXPECT_FALSE(fs::exists(path));
    EXPECT_FALSE(fs::exists(path.string() + ".partial"));
    EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(VideoWriter, MissingFfmpegIsNamed)
{
    test::TempDir dir;
    {
        ScopedEnv chosen("TANDEM_FFMPEG", "/nonexistent/ffmpeg");
        auto opened = VideoWriter::open(dir.path() / "v.mp4", 64, 48, 30.0, false);
        ASSERT_FALSE(opened);
        EXPECT_NE(opened.error().find("--video needs ffmpeg, which was not found"),
                  std::string::npos)
            << opened.error();
        EXPECT_NE(opened.error().find("TANDEM_FFMPEG=/nonexistent/ffmpeg"), std::string::npos)
            << opened.error();
    }
    {
        ScopedEnv unset("TANDEM_FFMPEG", std::nullopt);
        ScopedEnv path("PATH", dir.path().string());
        auto opened = VideoWriter::open(dir.path() / "v.mp4", 64, 48, 30.0, false);
        ASSERT_FALSE(opened);
        EXPECT_NE(opened.error().find("looked for 'ffmpeg' on PATH; install Debian's ffmpeg "
                                      "package, or set TANDEM_FFMPEG"),
                  std::string::npos)
            << opened.error();
    }
    EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(VideoWriter, RefusesToOverwriteUnlessAsked)
{
    test::TempDir dir;
    const auto path = dir.write("exists.mp4", "old");
    auto refused = VideoWriter::open(path, 64, 48, 30.0, false);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find(path.string() + ": already exists"), std::string::npos)
        << refused.error();
    EXPECT_EQ(readTextFile(path).value(), "old");
    EXPECT_FALSE(fs::exists(path.string() + ".partial"));
}

TEST(VideoWriter, UnwritableDestinationIsNamed)
{
    test::TempDir dir;
    ScopedEnv chosen("TANDEM_FFMPEG", fakeFfmpeg(dir, "cat >/dev/null").string());
    const fs::path path = dir.path() / "missing-folder" / "v.mp4";
    auto opened = VideoWriter::open(path, 64, 48, 30.0, false);
    ASSERT_FALSE(opened);
    EXPECT_NE(opened.error().find(path.string() + ": cannot write video"), std::string::npos)
        << opened.error();
}

TEST(VideoWriter, DeadEncoderIsAnErrorNotACrash)
{
    // Exits without reading: the frame (larger than a pipe's buffer) meets EPIPE, which must not
    // raise SIGPIPE.
    test::TempDir dir;
    ScopedEnv chosen("TANDEM_FFMPEG",
                     fakeFfmpeg(dir, "echo 'fake ffmpeg: no encoder here' >&2; exit 3").string());
    const fs::path path = dir.path() / "dead.mp4";
    auto opened = VideoWriter::open(path, 512, 512, 30.0, false);
    ASSERT_TRUE(opened) << opened.error();
    auto written = opened.value()->write(frame(512, 512, 0));
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().find("ffmpeg stopped before taking frame 0"), std::string::npos)
        << written.error();
    EXPECT_NE(written.error().find("exited with status 3"), std::string::npos) << written.error();
    EXPECT_NE(written.error().find("fake ffmpeg: no encoder here"), std::string::npos)
        << written.error();
    EXPECT_FALSE(fs::exists(path.string() + ".partial"));
    EXPECT_FALSE(opened.value()->write(frame(512, 512, 1)));
    EXPECT_FALSE(opened.value()->finish());
    EXPECT_FALSE(fs::exists(path));
}

TEST(VideoWriter, FailedEncodeIsReportedByFinish)
{
    test::TempDir dir;
    ScopedEnv chosen("TANDEM_FFMPEG",
                     fakeFfmpeg(dir, "cat >/dev/null; echo 'line one' >&2; "
                                     "echo '[libx264] broke at the end' >&2; exit 1")
                         .string());
    const fs::path path = dir.path() / "failed.mp4";
    auto opened = VideoWriter::open(path, 8, 6, 30.0, false);
    ASSERT_TRUE(opened) << opened.error();
    ASSERT_TRUE(opened.value()->write(frame(8, 6, 0)));
    auto wrongSize = opened.value()->write(frame(6, 8, 1));
    ASSERT_FALSE(wrongSize);
    EXPECT_NE(wrongSize.error().find("frame 1 is 6x8"), std::string::npos) << wrongSize.error();
    auto finished = opened.value()->finish();
    ASSERT_FALSE(finished);
    EXPECT_NE(finished.error().find("exited with status 1"), std::string::npos) << finished.error();
    EXPECT_NE(finished.error().find("line one | [libx264] broke at the end"), std::string::npos)
        << finished.error();
    EXPECT_FALSE(fs::exists(path));
    EXPECT_FALSE(fs::exists(path.string() + ".partial"));
}

} // namespace
} // namespace tandem::io
