// core: the one atomic write every output goes through (engine/core/AtomicFile.h).
#include "engine/core/AtomicFile.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/core/ThreadSignalBlock.h"
#include "tests/support/OutputChecks.h"
#include "tests/support/TempDir.h"

namespace tandem {
namespace {

namespace fs = std::filesystem;
using test::namesIn;

std::string contents(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::span<const std::uint8_t> bytesOf(const std::string& text)
{
    return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

TEST(AtomicFile, NothingAppearsAtTheNameUntilCommit)
{
    test::TempDir dir;
    const fs::path out = dir.path() / "a.txt";
    auto file = AtomicFile::create(out, Replace::No);
    ASSERT_TRUE(file) << file.error();
    ASSERT_TRUE(file.value().write(std::string("hello ")));
    EXPECT_FALSE(fs::exists(out));
    EXPECT_TRUE(fs::exists(file.value().temporaryPath()));
    EXPECT_TRUE(isTemporaryName(file.value().temporaryPath().filename().string()));
    ASSERT_TRUE(file.value().write(std::string("world")));
    auto committed = file.value().commit();
    ASSERT_TRUE(committed) << committed.error();
    EXPECT_EQ(contents(out), "hello world");
    EXPECT_EQ(namesIn(dir.path()), std::vector<std::string>{"a.txt"});
}

TEST(AtomicFile, AnAbandonedWriteLeavesNothing)
{
    test::TempDir dir;
    {
        auto file = AtomicFile::create(dir.path() / "gone.bin", Replace::No);
        ASSERT_TRUE(file);
        ASSERT_TRUE(file.value().write(std::string("half")));
    }
    EXPECT_TRUE(namesIn(dir.path()).empty());
}

TEST(AtomicFile, NeverReplacesUnlessAsked)
{
    test::TempDir dir;
    const fs::path out = dir.write("keep.txt", "old");
    auto refused = AtomicFile::create(out, Replace::No);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("already exists"), std::string::npos) << refused.error();

    // A file created at the name while the write runs is not replaced either.
    const fs::path late = dir.path() / "late.txt";
    auto file = AtomicFile::create(late, Replace::No);
    ASSERT_TRUE(file);
    ASSERT_TRUE(file.value().write(std::string("mine")));
    std::ofstream(late) << "theirs";
    auto committed = file.value().commit();
    ASSERT_FALSE(committed);
    EXPECT_TRUE(file.value().existed());
    EXPECT_EQ(contents(late), "theirs");
    EXPECT_EQ(namesIn(dir.path()).size(), 2u) << "the temporary is removed";

    auto replaced = writeFileAtomically(out, bytesOf("new"), Replace::Yes);
    ASSERT_TRUE(replaced) << replaced.error();
    EXPECT_EQ(contents(out), "new");
}

TEST(AtomicFile, LinksAtTheNameAreReplacedNotFollowed)
{
    test::TempDir dir;
    const fs::path target = dir.write("target.txt", "precious");
    const fs::path hardTarget = dir.write("hard-target.txt", "also precious");
    const fs::path viaSymlink = dir.path() / "out_sym.png";
    const fs::path viaHardLink = dir.path() / "out_hard.png";
    fs::create_symlink(target, viaSymlink);
    fs::create_hard_link(hardTarget, viaHardLink);
    ASSERT_TRUE(writeFileAtomically(viaSymlink, bytesOf("frame"), Replace::Yes));
    ASSERT_TRUE(writeFileAtomically(viaHardLink, bytesOf("frame"), Replace::Yes));
    EXPECT_EQ(contents(target), "precious");
    EXPECT_EQ(contents(hardTarget), "also precious");
    EXPECT_FALSE(fs::is_symlink(viaSymlink));
    EXPECT_EQ(contents(viaSymlink), "frame");
    EXPECT_EQ(contents(viaHardLink), "frame");
    // Without --overwrite a link at the name is a file that exists: refused, untouched.
    const fs::path dangling = dir.path() / "dangling.png";
    fs::create_symlink(dir.path() / "nowhere", dangling);
    EXPECT_FALSE(writeFileAtomically(dangling, bytesOf("x"), Replace::No));
    EXPECT_FALSE(fs::exists(dir.path() / "nowhere"));
}

TEST(AtomicFile, TemporaryNamesAreUniqueToEachWriter)
{
    test::TempDir dir;
    const fs::path out = dir.path() / "same.png";
    auto a = AtomicFile::create(out, Replace::No);
    auto b = AtomicFile::create(out, Replace::No);
    ASSERT_TRUE(a && b);
    EXPECT_NE(a.value().temporaryPath(), b.value().temporaryPath());
    ASSERT_TRUE(a.value().write(std::string("A")));
    ASSERT_TRUE(b.value().write(std::string("B")));
    ASSERT_TRUE(a.value().commit());
    EXPECT_FALSE(b.value().commit());
    EXPECT_TRUE(b.value().existed());
    EXPECT_EQ(contents(out), "A");
}

TEST(AtomicFile, TwoProcessesWritingOneOutputOneWinsWhole)
{
    // Each child writes 4 MiB of its own byte in many pieces, then commits; exactly one commit
    // succeeds, the other reports that the file exists, and the file is one child's, whole.
    test::TempDir dir;
    const fs::path out = dir.path() / "frame_000000.png";
    constexpr std::size_t Bytes = std::size_t{4} << 20;
    std::vector<pid_t> children;
    for (char fill : {'a', 'b'}) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            auto file = AtomicFile::create(out, Replace::No);
            if (!file)
                ::_exit(3); // the other won before this one started: as good as losing
            const std::string piece(4096, fill);
            for (std::size_t done = 0; done < Bytes; done += piece.size())
                if (!file.value().write(piece))
                    ::_exit(4);
            auto committed = file.value().commit();
            ::_exit(committed ? 0 : (file.value().existed() ? 3 : 5));
        }
        children.push_back(pid);
    }
    int wins = 0, losses = 0;
    for (pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFEXITED(status));
        const int code = WEXITSTATUS(status);
        ASSERT_TRUE(code == 0 || code == 3) << "exit " << code;
        (code == 0 ? wins : losses)++;
    }
    EXPECT_EQ(wins, 1);
    EXPECT_EQ(losses, 1);
    const std::string written = contents(out);
    ASSERT_EQ(written.size(), Bytes);
    EXPECT_EQ(written.find_first_not_of(written[0]), std::string::npos) << "mixed writers";
    EXPECT_EQ(namesIn(dir.path()), std::vector<std::string>{"frame_000000.png"});
}

TEST(AtomicFile, StaleTemporariesOfDeadWritersAreRemovedLiveOnesKept)
{
    test::TempDir dir;
    // A writer killed mid-write (SIGKILL runs no destructor) leaves its temporary.
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        auto file = AtomicFile::create(dir.path() / "v.mp4", Replace::No);
        if (!file || !file.value().write(std::string("partial video")))
            ::_exit(1);
        ::kill(::getpid(), SIGKILL);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status));
    ASSERT_EQ(namesIn(dir.path()).size(), 1u);
    // A live writer's temporary, and a file that only looks like one, stay.
    auto live = AtomicFile::create(dir.path() / "r.json", Replace::No);
    ASSERT_TRUE(live);
    dir.write(".notes.txt.partial", "not ours");
    const auto removed = removeStaleTemporaries(dir.path());
    ASSERT_EQ(removed.size(), 1u);
    EXPECT_NE(removed[0].filename().string().find(".v.mp4."), std::string::npos);
    EXPECT_TRUE(fs::exists(live.value().temporaryPath()));
    EXPECT_TRUE(fs::exists(dir.path() / ".notes.txt.partial"));
}

TEST(AtomicFile, FailuresNameTheFileAndTheReason)
{
    test::TempDir dir;
    auto missing = AtomicFile::create(dir.path() / "no" / "such" / "x.png", Replace::No);
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("x.png: cannot write: the folder"), std::string::npos)
        << missing.error();
    auto folder = AtomicFile::create(dir.path(), Replace::Yes);
    ASSERT_FALSE(folder);
    EXPECT_NE(folder.error().find("is a folder"), std::string::npos) << folder.error();
    if (::geteuid() != 0) {
        // root writes anywhere; elsewhere a read-only folder is refused by name.
        const fs::path locked = dir.path() / "locked";
        fs::create_directory(locked);
        ::chmod(locked.c_str(), 0500);
        auto denied = AtomicFile::create(locked / "x.png", Replace::No);
        ::chmod(locked.c_str(), 0700);
        ASSERT_FALSE(denied);
        EXPECT_NE(denied.error().find("Permission denied"), std::string::npos) << denied.error();
    }
}

TEST(AtomicFile, SaysWhenTheFailureWasAFileAlreadyThere)
{
    test::TempDir dir;
    const fs::path taken = dir.write("taken.png", "theirs");
    bool existed = false;
    EXPECT_FALSE(AtomicFile::create(taken, Replace::No, &existed));
    EXPECT_TRUE(existed) << "refused at create()";
    EXPECT_FALSE(writeFileAtomically(taken, bytesOf("mine"), Replace::No, &existed));
    EXPECT_TRUE(existed);
    EXPECT_EQ(contents(taken), "theirs");
    // Taken between create() and commit(): found by the rename itself.
    const fs::path late = dir.path() / "late.png";
    auto file = AtomicFile::create(late, Replace::No, &existed);
    ASSERT_TRUE(file);
    EXPECT_FALSE(existed);
    std::ofstream(late) << "theirs";
    EXPECT_FALSE(file.value().commit());
    EXPECT_TRUE(file.value().existed());
    // Other failures are not a file already there.
    EXPECT_FALSE(
        writeFileAtomically(dir.path() / "no" / "x.png", bytesOf("x"), Replace::No, &existed));
    EXPECT_FALSE(existed);
    EXPECT_TRUE(writeFileAtomically(dir.path() / "free.png", bytesOf("x"), Replace::No, &existed));
    EXPECT_FALSE(existed);
}

TEST(AtomicFile, AFullDiskIsAnErrorNamingTheCauseNotTheEndOfTheProcess)
{
    // A file-size limit makes write() fail with EFBIG, as a full disk makes it fail with ENOSPC;
    // the SIGXFSZ that comes with it would end the process unless the writer holds it off.
    test::TempDir dir;
    const std::string outcome = test::inChildWithFileSizeLimit(4096, [&] {
        auto written = writeFileAtomically(dir.path() / "big.bin",
                                           bytesOf(std::string(64 * 1024, 'x')), Replace::No);
        return written ? std::string("written") : written.error();
    });
    EXPECT_NE(outcome.find("big.bin: cannot write: File too large"), std::string::npos) << outcome;
    EXPECT_TRUE(namesIn(dir.path()).empty()) << "nothing at the name, no temporary";
}

TEST(AtomicFile, PiecesAreWrittenInTheirOrderWhateverTheirNumber)
{
    // More pieces than one pwritev takes (IOV_MAX, 1024 on Linux), empty ones among them, after
    // an ordinary write; and a gathered write past a file-size limit fails as write() does.
    test::TempDir dir;
    const fs::path out = dir.path() / "rows.bin";
    std::vector<std::string> texts;
    for (int i = 0; i < 2600; ++i)
        texts.push_back(i % 7 == 3 ? std::string()
                                   : fmt::format("<{}:{}>", i, std::string(i % 5, 'x')));
    std::vector<std::span<const std::uint8_t>> pieces;
    std::string expected = "head ";
    for (auto it = texts.rbegin(); it != texts.rend(); ++it) {
        pieces.push_back(bytesOf(*it));
        expected += *it;
    }
    auto file = AtomicFile::create(out, Replace::No);
    ASSERT_TRUE(file) << file.error();
    ASSERT_TRUE(file.value().write(std::string("head ")));
    auto written = file.value().writePieces(pieces);
    ASSERT_TRUE(written) << written.error();
    ASSERT_TRUE(file.value().commit());
    EXPECT_EQ(contents(out), expected);

    const std::string outcome = test::inChildWithFileSizeLimit(4096, [&] {
        auto big = AtomicFile::create(dir.path() / "big.bin", Replace::No);
        if (!big)
            return big.error();
        const std::string row(1000, 'r');
        const std::vector<std::span<const std::uint8_t>> rows(64, bytesOf(row));
        auto result = big.value().writePieces(rows);
        return result ? std::string("written") : result.error();
    });
    EXPECT_NE(outcome.find("big.bin: cannot write: File too large"), std::string::npos) << outcome;
}

TEST(AtomicFile, TheTemporaryCanBeReadBackThroughItsDescriptor)
{
    // What another program wrote to the temporary (ffmpeg) is checked through fd().
    test::TempDir dir;
    auto file = AtomicFile::create(dir.path() / "v.mp4", Replace::No);
    ASSERT_TRUE(file);
    std::ofstream(file.value().temporaryPath(), std::ios::binary) << "written by another";
    char back[7] = {};
    ASSERT_EQ(::pread(file.value().fd(), back, 6, 0), 6);
    EXPECT_STREQ(back, "writte");
}

TEST(AtomicFile, MoveIntoPlaceNeverReplacesUnlessAsked)
{
    test::TempDir dir;
    const fs::path capture = dir.write(".in-progress.rdc", "capture");
    const fs::path earlier = dir.write("frame0.rdc", "earlier capture");
    bool existed = false;
    auto refused = moveIntoPlace(capture, earlier, Replace::No, &existed);
    ASSERT_FALSE(refused);
    EXPECT_TRUE(existed);
    EXPECT_NE(refused.error().find("frame0.rdc: already exists"), std::string::npos)
        << refused.error();
    EXPECT_EQ(contents(earlier), "earlier capture");
    EXPECT_EQ(contents(capture), "capture") << "left where it was";
    auto moved = moveIntoPlace(capture, dir.path() / "frame0-2.rdc", Replace::No, &existed);
    ASSERT_TRUE(moved) << moved.error();
    EXPECT_FALSE(existed);
    EXPECT_EQ(contents(dir.path() / "frame0-2.rdc"), "capture");
    EXPECT_FALSE(fs::exists(capture));
}

TEST(ThreadSignalBlock, APipeWithoutReaderIsAnErrorAndNoSignalIsLeftPending)
{
    // In a child: with SIGPIPE at its default, a slip ends the child, not the tests.
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::signal(SIGPIPE, SIG_DFL);
        int ends[2];
        if (::pipe(ends) != 0)
            ::_exit(10);
        ::close(ends[0]);
        int error = 0;
        {
            const ThreadSignalBlock block(SIGPIPE);
            if (::write(ends[1], "x", 1) >= 0)
                ::_exit(11);
            error = errno;
        }
        sigset_t pending, mask;
        sigpending(&pending);
        pthread_sigmask(SIG_SETMASK, nullptr, &mask);
        if (error != EPIPE)
            ::_exit(12);
        if (sigismember(&pending, SIGPIPE))
            ::_exit(13); // would be delivered later
        if (sigismember(&mask, SIGPIPE))
            ::_exit(14); // the thread's mask was not restored
        struct sigaction action {};
        sigaction(SIGPIPE, nullptr, &action);
        ::_exit(action.sa_handler == SIG_DFL ? 0 : 15); // nothing process-wide changed
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(AtomicFile, OpenTemporariesAreRemovedOnTheWayOut)
{
    test::TempDir dir;
    auto file = AtomicFile::create(dir.path() / "trace.json", Replace::No);
    ASSERT_TRUE(file);
    const fs::path temporary = file.value().temporaryPath();
    removeOpenTemporaries();
    EXPECT_FALSE(fs::exists(temporary));
}

} // namespace
} // namespace tandem
