// core: Result, reading files and preparing output folders.
#include "engine/core/File.h"

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/OutputChecks.h"
#include "tests/support/TempDir.h"

namespace tandem {
namespace {

TEST(Result, HoldsValueOrMessage)
{
    Result<int> ok(5);
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok.value(), 5);
    Result<int> bad = fail("broken");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error(), "broken");
    bad.addWarning("w");
    EXPECT_EQ(bad.warnings().size(), 1u);
}

TEST(Error, NamesCallAndLocation)
{
    const Error error("it failed", "glFoo");
    const std::string what = error.what();
    EXPECT_NE(what.find("it failed"), std::string::npos);
    EXPECT_NE(what.find("glFoo at "), std::string::npos);
    EXPECT_NE(what.find("FileTest.cpp:"), std::string::npos) << what;
    EXPECT_EQ(error.call(), "glFoo");
}

TEST(File, ReadsWholeFile)
{
    test::TempDir dir;
    auto bytes = readFile(dir.write("a.bin", std::string("ab\0c", 4)));
    ASSERT_TRUE(bytes) << bytes.error();
    EXPECT_EQ(bytes.value().size(), 4u);
    EXPECT_EQ(bytes.value()[3], 'c');
}

TEST(File, ReadErrorsNameTheFile)
{
    test::TempDir dir;
    auto missing = readFile(dir.path() / "nope");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("nope: no such file"), std::string::npos) << missing.error();
    auto directory = readFile(dir.path());
    ASSERT_FALSE(directory);
    EXPECT_NE(directory.error().find("is a directory"), std::string::npos);
    auto tooBig = readFile(dir.write("big", std::string(100, 'x')), 10);
    ASSERT_FALSE(tooBig);
    EXPECT_NE(tooBig.error().find("byte limit"), std::string::npos);
}

TEST(File, ReadsTheStartOfAFile)
{
    test::TempDir dir;
    const auto file = dir.write("s.bin", std::string(200000, 'y') + "z");
    auto start = readFileStart(file, 70000); // past the first 64 KiB chunk
    ASSERT_TRUE(start) << start.error();
    EXPECT_EQ(start.value().size(), 70000u);
    auto all = readFileStart(file, 1 << 20);
    ASSERT_TRUE(all) << all.error();
    EXPECT_EQ(all.value().size(), 200001u);
    EXPECT_EQ(all.value().back(), 'z');
    auto missing = readFileStart(dir.path() / "nope", 10);
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("nope: no such file"), std::string::npos) << missing.error();
}

TEST(File, ReadsIntoABufferThatIsNotAllocatedAgain)
{
    test::TempDir dir;
    const auto big = dir.write("big.bin", std::string(300000, 'b') + "B");
    const auto small = dir.write("small.bin", "sm");
    std::vector<std::uint8_t> buffer;
    auto first = readFileInto(big, buffer);
    ASSERT_TRUE(first) << first.error();
    EXPECT_EQ(first.value().size(), 300001u);
    EXPECT_EQ(first.value().back(), 'B');
    EXPECT_EQ(std::vector<std::uint8_t>(first.value().begin(), first.value().end()),
              readFile(big).value());
    const std::uint8_t* storage = buffer.data();
    auto second = readFileInto(small, buffer);
    ASSERT_TRUE(second) << second.error();
    EXPECT_EQ(std::string(second.value().begin(), second.value().end()), "sm");
    EXPECT_EQ(buffer.data(), storage) << "the buffer was allocated again";
    auto again = readFileInto(big, buffer);
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(again.value().size(), 300001u);
    EXPECT_EQ(buffer.data(), storage);
    // Failures as readFile's.
    EXPECT_EQ(readFileInto(dir.path() / "nope", buffer).error(),
              readFile(dir.path() / "nope").error());
    EXPECT_EQ(readFileInto(big, buffer, 10).error(), readFile(big, 10).error());
    const auto fifo = dir.path() / "pipe.ply";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EQ(readFileInto(fifo, buffer).error(),
              fifo.string() + ": is a FIFO (named pipe), not a regular file: refused");
}

TEST(File, AReaderReadsAsFarAsAskedThenWholeAsReadFileIntoDoes)
{
    test::TempDir dir;
    std::string text(300000, 'r');
    for (std::size_t i = 0; i < text.size(); ++i)
        text[i] = static_cast<char>('a' + i % 26);
    const auto file = dir.write("r.bin", text);
    std::vector<std::uint8_t> buffer;
    auto reader = FileReader::open(file, buffer);
    ASSERT_TRUE(reader) << reader.error();
    FileReader& r = reader.value();
    EXPECT_EQ(r.size(), text.size());
    EXPECT_TRUE(r.start().empty()) << "opening reads nothing";
    ASSERT_TRUE(r.readTo(1000));
    ASSERT_EQ(r.start().size(), 1000u);
    EXPECT_EQ(std::string(r.start().begin(), r.start().end()), text.substr(0, 1000));
    ASSERT_TRUE(r.readTo(500)); // already in
    EXPECT_EQ(r.start().size(), 1000u);
    auto whole = r.whole();
    ASSERT_TRUE(whole) << whole.error();
    ASSERT_EQ(whole.value().size(), text.size());
    ASSERT_TRUE(r.readTo(200000));
    EXPECT_EQ(std::string(whole.value().begin(), whole.value().begin() + 200000),
              text.substr(0, 200000));
    ASSERT_TRUE(r.readTo(1u << 30)); // past the end: to the end
    EXPECT_EQ(r.start().size(), text.size());
    auto all = r.readAll();
    ASSERT_TRUE(all) << all.error();
    EXPECT_EQ(std::string(all.value().begin(), all.value().end()), text);

    // Pieces read anywhere, into memory of the caller's, not the buffer; past the end: false.
    std::vector<std::uint8_t> piece(4000);
    ASSERT_TRUE(r.readAt(123456, piece));
    EXPECT_EQ(std::string(piece.begin(), piece.end()), text.substr(123456, 4000));
    EXPECT_TRUE(r.readAt(text.size() - 4000, piece));
    EXPECT_FALSE(r.readAt(text.size() - 3999, piece));
    EXPECT_TRUE(r.readAt(text.size(), std::span(piece).first(0)));
    EXPECT_FALSE(r.grew());

    // A file that shrinks after it was opened: readTo() says so, readAll() gives what is left.
    const auto shrinking = dir.write("s.bin", text);
    auto s = FileReader::open(shrinking, buffer);
    ASSERT_TRUE(s) << s.error();
    ASSERT_TRUE(s.value().readTo(100));
    std::filesystem::resize_file(shrinking, 5000);
    EXPECT_FALSE(s.value().readTo(100000));
    auto left = s.value().readAll();
    ASSERT_TRUE(left) << left.error();
    EXPECT_EQ(std::string(left.value().begin(), left.value().end()), text.substr(0, 5000));
    EXPECT_EQ(s.value().size(), 5000u);

    // One that grows: readAll() reads what it grew by, as readFileInto() does.
    const auto growing = dir.write("g.bin", "12345");
    auto g = FileReader::open(growing, buffer);
    ASSERT_TRUE(g) << g.error();
    ASSERT_TRUE(g.value().readTo(3));
    EXPECT_FALSE(g.value().grew());
    dir.write("g.bin", "123456789"); // the same file, rewritten longer
    EXPECT_TRUE(g.value().grew());
    std::vector<std::uint8_t> tail(4);
    ASSERT_TRUE(g.value().readAt(5, tail)); // past the size it was opened at
    EXPECT_EQ(std::string(tail.begin(), tail.end()), "6789");
    auto grown = g.value().readAll();
    ASSERT_TRUE(grown) << grown.error();
    EXPECT_EQ(std::string(grown.value().begin(), grown.value().end()), "123456789");
    EXPECT_EQ(g.value().size(), 9u);

    // Failures as readFileInto()'s: opening, and the size limit once the whole is asked for
    // (a header may be read first).
    std::vector<std::uint8_t> other;
    EXPECT_EQ(FileReader::open(dir.path() / "nope", buffer).error(),
              readFileInto(dir.path() / "nope", other).error());
    const auto fifo = dir.path() / "pipe.ply";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EQ(FileReader::open(fifo, buffer).error(), readFileInto(fifo, other).error());
    auto limited = FileReader::open(file, buffer, 10);
    ASSERT_TRUE(limited) << limited.error();
    ASSERT_TRUE(limited.value().readTo(8));
    EXPECT_EQ(limited.value().whole().error(), readFileInto(file, other, 10).error());
    EXPECT_EQ(limited.value().readAll().error(), readFileInto(file, other, 10).error());
}

TEST(File, ReadsRegularFilesOnlyAndNeverBlocks)
{
    // A FIFO with no writer blocked open() forever; /dev/zero was read until memory ran out.
    test::TempDir dir;
    const auto fifo = dir.path() / "frame.ply";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto zero = dir.path() / "z.ply";
    std::filesystem::create_symlink("/dev/zero", zero);
    for (const bool start : {false, true}) {
        auto fromFifo = start ? readFileStart(fifo, 16) : readFile(fifo);
        ASSERT_FALSE(fromFifo);
        EXPECT_EQ(fromFifo.error(),
                  fifo.string() + ": is a FIFO (named pipe), not a regular file: refused");
        auto fromZero = start ? readFileStart(zero, 16) : readFile(zero);
        ASSERT_FALSE(fromZero);
        EXPECT_EQ(fromZero.error(),
                  zero.string() + ": is a character device, not a regular file: refused");
    }
    auto text = readTextFile(fifo);
    ASSERT_FALSE(text);
    EXPECT_NE(text.error().find("not a regular file"), std::string::npos) << text.error();
    // A link to a regular file is read; a broken one is missing.
    const auto file = dir.write("real.ply", "ply\n");
    std::filesystem::create_symlink(file, dir.path() / "link.ply");
    auto linked = readFile(dir.path() / "link.ply");
    ASSERT_TRUE(linked) << linked.error();
    EXPECT_EQ(linked.value().size(), 4u);
    std::filesystem::create_symlink(dir.path() / "gone", dir.path() / "broken.ply");
    auto broken = readFile(dir.path() / "broken.ply");
    ASSERT_FALSE(broken);
    EXPECT_NE(broken.error().find("broken.ply: no such file"), std::string::npos);
    EXPECT_STREQ(fileTypeName(std::filesystem::file_type::fifo), "a FIFO (named pipe)");
}

TEST(File, PrepareOutputDirectory)
{
    test::TempDir dir;
    EXPECT_TRUE(prepareOutputDirectory(dir.path() / "a" / "b"));
    EXPECT_TRUE(std::filesystem::is_directory(dir.path() / "a" / "b"));
    const auto file = dir.write("plain", "x");
    auto onFile = prepareOutputDirectory(file);
    ASSERT_FALSE(onFile);
    EXPECT_NE(onFile.error().find("not a folder"), std::string::npos) << onFile.error();
    auto below = prepareOutputDirectory(file / "sub");
    ASSERT_FALSE(below);
    EXPECT_NE(below.error().find("cannot create folder"), std::string::npos) << below.error();
}

TEST(File, WriteTextFileReportsTheRealReason)
{
    // Once reported "Success": errno was overwritten by the clean-up before the message.
    test::TempDir dir;
    const std::string outcome = test::inChildWithFileSizeLimit(1024, [&] {
        auto written = writeTextFile(dir.path() / "r.json", std::string(8192, '{'), false);
        return written ? std::string("written") : written.error();
    });
    EXPECT_NE(outcome.find("r.json: cannot write: File too large"), std::string::npos) << outcome;
    EXPECT_EQ(outcome.find("Success"), std::string::npos) << outcome;
    EXPECT_TRUE(test::namesIn(dir.path()).empty());
    bool existed = false;
    const auto taken = dir.write("taken.json", "{}");
    EXPECT_FALSE(writeTextFile(taken, "[]", false, &existed));
    EXPECT_TRUE(existed);
}

} // namespace
} // namespace tandem
