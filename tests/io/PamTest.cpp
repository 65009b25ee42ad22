// Raw PAM frames: what is written reads back exactly, existing files are kept unless asked,
// and a file that is not such a PAM is refused with its name.
#include <gtest/gtest.h>

#include "engine/core/File.h"
#include "engine/io/Pam.h"
#include "tests/support/OutputChecks.h"
#include "tests/support/TempDir.h"

namespace tandem::io {
namespace {

/// A `width` x `height` RGBA8 image whose byte i is `i * step + first` (mod 256).
Image patterned(int width, int height, int step, int first)
{
    Image image;
    image.width = width;
    image.height = height;
    for (int i = 0; i < width * height * 4; ++i)
        image.pixels.push_back(static_cast<std::uint8_t>(i * step + first));
    return image;
}

TEST(Pam, RoundTripsExactlyAndNeverReplacesUnasked)
{
    test::TempDir dir;
    const Image image = patterned(5, 3, 17, 0);
    const auto path = dir.path() / "f.pam";
    ASSERT_TRUE(writePam(path, image, false));
    auto read = readPam(path);
    ASSERT_TRUE(read) << read.error();
    EXPECT_EQ(read.value().width, 5);
    EXPECT_EQ(read.value().height, 3);
    EXPECT_EQ(read.value().pixels, image.pixels);
    EXPECT_EQ(test::namesIn(dir.path()), std::vector<std::string>{"f.pam"});
    bool existed = false;
    auto again = writePam(path, image, false, &existed);
    ASSERT_FALSE(again);
    EXPECT_TRUE(existed);
    EXPECT_NE(again.error().find("already exists"), std::string::npos) << again.error();
    EXPECT_TRUE(writePam(path, image, true));
}

TEST(Pam, RowsStoredBottomFirstAreWrittenTopFirstWithoutACopy)
{
    // GL's read-back order: the view's negative stride walks the rows upward in memory.
    test::TempDir dir;
    const Image image = patterned(3, 4, 5, 1);
    Image bottomUp = image;
    bottomUp.flipVertically();
    const std::ptrdiff_t row = 3 * 4;
    const ImageView view(3, 4, bottomUp.pixels.data() + row * 3, -row);
    const auto path = dir.path() / "flipped.pam";
    ASSERT_TRUE(writePam(path, view, false));
    auto read = readPam(path);
    ASSERT_TRUE(read) << read.error();
    EXPECT_EQ(read.value().pixels, image.pixels);
    Image wrongSize = image;
    wrongSize.pixels.pop_back();
    auto refused = writePam(dir.path() / "short.pam", wrongSize, false);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("invalid size 3x4"), std::string::npos) << refused.error();
}

TEST(Pam, RefusesWhatIsNotOne)
{
    test::TempDir dir;
    auto bad = readPam(dir.write("bad.pam", "P6\n2 2\n255\nxxxxxxxxxxxx"));
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().find("bad.pam"), std::string::npos) << bad.error();
    auto shortFile = readPam(dir.write(
        "short.pam", "P7\nWIDTH 2\nHEIGHT 2\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\nab"));
    ASSERT_FALSE(shortFile);
    EXPECT_NE(shortFile.error().find("expected 16"), std::string::npos) << shortFile.error();
    auto unwritable = writePam(dir.path() / "missing" / "f.pam", Image{1, 1, {1, 2, 3, 4}}, false);
    EXPECT_FALSE(unwritable);
}

TEST(Pam, AFullDiskIsReportedWithItsRealReason)
{
    // Once reported "Success" (errno overwritten by remove()).
    test::TempDir dir;
    Image image{64, 64, std::vector<std::uint8_t>(64 * 64 * 4, 7)};
    const std::string outcome = test::inChildWithFileSizeLimit(4096, [&] {
        auto written = writePam(dir.path() / "f.pam", image, false);
        return written ? std::string("written") : written.error();
    });
    EXPECT_NE(outcome.find("f.pam: cannot write: File too large"), std::string::npos) << outcome;
    EXPECT_TRUE(test::namesIn(dir.path()).empty());
}

TEST(Pam, LinksPlantedAtTheOldTemporaryNameAreNotFollowed)
{
    // Once written through PATH.partial, opened with truncation: a symlink there redirected the
    // frame into its target, a hard link there had its other name's contents destroyed.
    test::TempDir dir;
    const auto target = dir.write("precious.txt", "precious");
    const auto hardTarget = dir.write("hard.txt", "also precious");
    std::filesystem::create_symlink(target, dir.path() / "a.pam.partial");
    std::filesystem::create_hard_link(hardTarget, dir.path() / "b.pam.partial");
    Image image{2, 2, std::vector<std::uint8_t>(16, 9)};
    ASSERT_TRUE(writePam(dir.path() / "a.pam", image, false));
    ASSERT_TRUE(writePam(dir.path() / "b.pam", image, false));
    EXPECT_EQ(readTextFile(target).value(), "precious");
    EXPECT_EQ(readTextFile(hardTarget).value(), "also precious");
    EXPECT_EQ(readPam(dir.path() / "a.pam").value().pixels, image.pixels);
}

} // namespace
} // namespace tandem::io
