// Raw PAM frames: what is written reads back exactly, existing files are kept unless asked,
// and a file that is not such a PAM is refused with its name.
#include <gtest/gtest.h>

#include "engine/io/Pam.h"
#include "tests/support/TempDir.h"

namespace tandem::io {
namespace {

TEST(Pam, RoundTripsExactlyAndNeverReplacesUnasked)
{
    test::TempDir dir;
    Image image;
    image.width = 5;
    image.height = 3;
    for (int i = 0; i < 5 * 3 * 4; ++i)
        image.pixels.push_back(static_cast<std::uint8_t>(i * 17));
    const auto path = dir.path() / "f.pam";
    ASSERT_TRUE(writePam(path, image, false));
    auto read = readPam(path);
    ASSERT_TRUE(read) << read.error();
    EXPECT_EQ(read.value().width, 5);
    EXPECT_EQ(read.value().height, 3);
    EXPECT_EQ(read.value().pixels, image.pixels);
    EXPECT_FALSE(std::filesystem::exists(path.string() + ".partial"));
    auto again = writePam(path, image, false);
    ASSERT_FALSE(again);
    EXPECT_NE(again.error().find("already exists"), std::string::npos) << again.error();
    EXPECT_TRUE(writePam(path, image, true));
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

} // namespace
} // namespace tandem::io
