// VideoWriter: a real ffmpeg encodes frames that ffprobe counts and ffmpeg decodes back (skipped
// when ffmpeg is not installed); stand-in ffmpeg scripts that fail show that a dead encoder is
// an error, not a crash (SIGPIPE held off in the writing thread, nothing changed process-wide),
// that an MP4 ffmpeg could not finish (a full disk, exit 0) is refused, that no temporary video
// or ffmpeg log is ever left behind, and that only .mp4 names are accepted.
#include "engine/io/VideoWriter.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "engine/core/File.h"
#include "tests/support/OutputChecks.h"
#include "tests/support/TempDir.h"

namespace tandem::io {
namespace {

namespace fs = std::filesystem;
using test::namesIn;
using test::temporariesIn;

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
    testing::internal::CaptureStderr();
    auto opened = VideoWriter::open(path, width, height, 24.0, false);
    const std::string said = testing::internal::GetCapturedStderr();
    ASSERT_TRUE(opened) << opened.error();
    EXPECT_NE(said.find("65x49 frames are padded to 66x50 with black"), std::string::npos) << said;
    VideoWriter& writer = *opened.value();
    for (int i = 0; i < frames; ++i) {
        auto written = writer.write(frame(width, height, i));
        ASSERT_TRUE(written) << written.error();
    }
    EXPECT_EQ(writer.frameCount(), frames);
    auto finished = writer.finish();
    ASSERT_TRUE(finished) << finished.error();
    EXPECT_TRUE(fs::is_regular_file(path));
    EXPECT_EQ(namesIn(dir.path()), std::vector<std::string>{"clip.mp4"});

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
        EXPECT_EQ(temporariesIn(dir.path()).size(), 1u);
    }
    EXPECT_FALSE(fs::exists(path));
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
    EXPECT_EQ(namesIn(dir.path()), std::vector<std::string>{"exists.mp4"});
}

TEST(VideoWriter, UnwritableDestinationIsNamed)
{
    test::TempDir dir;
    ScopedEnv chosen("TANDEM_FFMPEG", fakeFfmpeg(dir, "cat >/dev/null").string());
    const fs::path path = dir.path() / "missing-folder" / "v.mp4";
    auto opened = VideoWriter::open(path, 64, 48, 30.0, false);
    ASSERT_FALSE(opened);
    EXPECT_NE(opened.error().find(path.string() + ": cannot write: the folder"), std::string::npos)
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
    EXPECT_TRUE(temporariesIn(dir.path()).empty());
    // The EPIPE came without a process-wide SIG_IGN (the writing thread held SIGPIPE off).
    struct sigaction action {};
    sigaction(SIGPIPE, nullptr, &action);
    EXPECT_NE(action.sa_handler, SIG_IGN) << "SIGPIPE is ignored process-wide";
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
    EXPECT_TRUE(temporariesIn(dir.path()).empty());
}

/// Writes `bytes` to a file in `dir` and returns its descriptor (read only).
int fileWith(const test::TempDir& dir, const std::string& bytes)
{
    const fs::path path = dir.write("boxes.mp4", bytes);
    return ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

/// An MP4 box: a 32-bit big-endian size, the type, then `body`.
std::string box(const std::string& type, const std::string& body, std::uint32_t size = 0)
{
    const std::uint32_t n = size ? size : static_cast<std::uint32_t>(8 + body.size());
    std::string out = {static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                       static_cast<char>(n >> 8), static_cast<char>(n)};
    return out + type + body;
}

TEST(Mp4Check, AcceptsWholeFilesAndNamesWhatIsMissingOrCut)
{
    test::TempDir dir;
    const std::string ftyp = box("ftyp", "isomiso2"), free = box("free", "");
    const std::string mdat = box("mdat", std::string(300, 'x')), moov = box("moov", "mvhd....");
    const auto check = [&](const std::string& bytes) {
        const int fd = fileWith(dir, bytes);
        auto checked = checkMp4(fd);
        ::close(fd);
        return checked ? std::string("ok") : checked.error();
    };
    EXPECT_EQ(check(ftyp + free + mdat + moov), "ok");
    EXPECT_EQ(check(ftyp + moov + mdat), "ok") << "faststart order";
    // 64-bit sizes (size 1), and an mdat running to the end (size 0) followed by nothing.
    std::string large = box("mdat", "", 1) + std::string(7, '\0') + "\x18" + std::string(8, 'y');
    EXPECT_EQ(check(ftyp + moov + large), "ok");
    // What ffmpeg 5.1 leaves, exit 0, when the disk fills before the trailer: the mdat size
    // never filled in (0: to the end), no moov.
    EXPECT_NE(check(ftyp + free + box("mdat", std::string(300, 'x'), 0)).find("no moov box"),
              std::string::npos);
    // The trailer cut short: the moov claims more than is left.
    const std::string cut = check(ftyp + free + mdat + moov.substr(0, moov.size() - 3));
    EXPECT_NE(cut.find("the moov box at byte"), std::string::npos) << cut;
    EXPECT_NE(cut.find("claims 16 bytes, 13 are left"), std::string::npos) << cut;
    EXPECT_NE(check(ftyp + mdat + moov + "abc").find("box header at byte"), std::string::npos);
    EXPECT_NE(check(moov + mdat).find("no ftyp box"), std::string::npos);
    EXPECT_NE(check("").find("no ftyp box"), std::string::npos);
    EXPECT_NE(check(ftyp + box("mdat", "", 4) + moov).find("claims 4 bytes"), std::string::npos);
}

TEST(VideoWriter, AnMp4FfmpegCouldNotFinishIsRefused)
{
    // The real ffmpeg 5.1 on a full disk (a file-size limit, SIGXFSZ ignored as the error is
    // then EFBIG like ENOSPC): it prints "Error writing trailer" and exits 0, its MP4 without
    // the moov box.
    const Tools tools = findTools();
    if (!tools.missing.empty())
        GTEST_SKIP() << tools.missing;
    test::TempDir dir;
    ScopedEnv chosen("TANDEM_FFMPEG", fakeFfmpeg(dir, "trap '' XFSZ; ulimit -f 1; exec '" +
                                                          tools.ffmpeg.string() + "' \"$@\"")
                                          .string());
    fs::create_directory(dir.path() / "out");
    const fs::path path = dir.path() / "out" / "full.mp4";
    auto opened = VideoWriter::open(path, 320, 240, 30.0, false);
    ASSERT_TRUE(opened) << opened.error();
    // Frames that compress to less than ffmpeg's 32 KiB output buffer: every packet is taken,
    // and the disk is found full only when the buffer is flushed with the trailer.
    for (int i = 0; i < 30; ++i)
        ASSERT_TRUE(opened.value()->write(frame(320, 240, i % 12)));
    auto finished = opened.value()->finish();
    ASSERT_FALSE(finished) << "an MP4 without its index was committed";
    // ffmpeg 5.1 (Debian 12) exits 0 here; a later one that reports the failure itself is
    // refused by its exit status instead.
    if (finished.error().find("ffmpeg exited with status") == std::string::npos) {
        EXPECT_NE(finished.error().find("ffmpeg exited 0 but wrote an incomplete MP4"),
                  std::string::npos)
            << finished.error();
        EXPECT_NE(finished.error().find("no moov box"), std::string::npos) << finished.error();
    }
    EXPECT_NE(finished.error().find("File too large"), std::string::npos)
        << "ffmpeg's own words: " << finished.error();
    EXPECT_TRUE(fs::is_empty(dir.path() / "out")) << "no video, no temporary";
}

TEST(VideoWriter, AnEncoderThatExitsZeroWithoutAnIndexIsRefused)
{
    // What ffmpeg 5.1 leaves on a full disk, from a stand-in: ftyp, a free box and an mdat
    // whose size was never filled in, no moov; exit 0.
    test::TempDir dir;
    ScopedEnv chosen("TANDEM_FFMPEG",
                     fakeFfmpeg(dir, "cat >/dev/null; for last; do :; done; "
                                     "printf '\\000\\000\\000\\014ftypisom"
                                     "\\000\\000\\000\\010free"
                                     "\\000\\000\\000\\000mdatxxxxxxxx' >\"${last#file:}\"; "
                                     "echo 'Error writing trailer: No space left on device' >&2")
                         .string());
    fs::create_directory(dir.path() / "out");
    const fs::path path = dir.path() / "out" / "v.mp4";
    auto opened = VideoWriter::open(path, 8, 6, 30.0, false);
    ASSERT_TRUE(opened) << opened.error();
    ASSERT_TRUE(opened.value()->write(frame(8, 6, 0)));
    auto finished = opened.value()->finish();
    ASSERT_FALSE(finished);
    EXPECT_NE(finished.error().find(
                  "v.mp4: ffmpeg exited 0 but wrote an incomplete MP4 (a full disk?): "),
              std::string::npos)
        << finished.error();
    EXPECT_NE(finished.error().find("no moov box"), std::string::npos) << finished.error();
    EXPECT_NE(finished.error().find("No space left on device"), std::string::npos)
        << finished.error();
    EXPECT_TRUE(fs::is_empty(dir.path() / "out"));
}

TEST(VideoWriter, FfmpegsMessagesStayInMemory)
{
    // Once kept in $TMPDIR/tandem-ffmpeg-*.log, which a SIGKILL left behind.
    test::TempDir dir;
    fs::create_directory(dir.path() / "tmp");
    ScopedEnv tmp("TMPDIR", (dir.path() / "tmp").string());
    ScopedEnv chosen("TANDEM_FFMPEG", fakeFfmpeg(dir, "cat >/dev/null; echo said >&2").string());
    auto opened = VideoWriter::open(dir.path() / "v.mp4", 8, 6, 30.0, false);
    ASSERT_TRUE(opened) << opened.error();
    ASSERT_TRUE(opened.value()->write(frame(8, 6, 0)));
    EXPECT_TRUE(fs::is_empty(dir.path() / "tmp"));
    auto finished = opened.value()->finish(); // the stand-in writes no MP4
    ASSERT_FALSE(finished);
    EXPECT_NE(finished.error().find(": said"), std::string::npos) << finished.error();
    EXPECT_TRUE(fs::is_empty(dir.path() / "tmp"));
}

TEST(VideoWriter, OnlyMp4NamesAreAccepted)
{
    EXPECT_TRUE(checkVideoName("a/b.mp4"));
    EXPECT_TRUE(checkVideoName("B.MP4"));
    auto gif = checkVideoName("x.gif");
    ASSERT_FALSE(gif);
    EXPECT_NE(gif.error().find("--video x.gif: videos are written as H.264 in MP4, so the name "
                               "must end in .mp4 (not .gif)"),
              std::string::npos)
        << gif.error();
    EXPECT_NE(checkVideoName("video").error().find("it has no extension"), std::string::npos);
    test::TempDir dir;
    EXPECT_FALSE(VideoWriter::open(dir.path() / "x.gif", 8, 6, 30.0, false));
    EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(VideoWriter, AKilledWritersTemporaryIsRemovedByTheNext)
{
    test::TempDir dir;
    ScopedEnv chosen("TANDEM_FFMPEG", fakeFfmpeg(dir, "cat >/dev/null").string());
    fs::create_directory(dir.path() / "out");
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        auto opened = VideoWriter::open(dir.path() / "out" / "v.mp4", 8, 6, 30.0, false);
        ::kill(::getpid(), SIGKILL); // no destructor runs
        ::_exit(opened ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_EQ(temporariesIn(dir.path() / "out").size(), 1u);
    auto next = VideoWriter::open(dir.path() / "out" / "w.mp4", 8, 6, 30.0, false);
    ASSERT_TRUE(next) << next.error();
    const auto left = temporariesIn(dir.path() / "out");
    ASSERT_EQ(left.size(), 1u) << "only the live writer's";
    EXPECT_EQ(left[0].rfind(".w.mp4.", 0), 0u) << left[0];
}

} // namespace
} // namespace tandem::io
