// PNG writing and reading: round trip, vertical flip, refusing to overwrite, and unwritable
// destinations reported clearly.
#include "engine/io/Image.h"

#include <gtest/gtest.h>

#include "tests/support/TempDir.h"

namespace tandem::io {
namespace {

Image gradient(int width, int height)
{
    Image image;
    image.width = width;
    image.height = height;
    image.pixels.resize(static_cast<std::size_t>(width) * height * 4);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            std::uint8_t* p = image.row(y) + x * 4;
            p[0] = static_cast<std::uint8_t>(x * 10);
            p[1] = static_cast<std::uint8_t>(y * 20);
            p[2] = 7;
            p[3] = 255;
        }
    return image;
}

TEST(Image, PngRoundTrip)
{
    test::TempDir dir;
    const Image image = gradient(13, 7);
    ASSERT_TRUE(writePng(dir.path() / "g.png", image, false));
    auto back = readPng(dir.path() / "g.png");
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back.value().width, 13);
    EXPECT_EQ(back.value().height, 7);
    EXPECT_EQ(back.value().pixels, image.pixels);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "g.png.partial"));
}

TEST(Image, FlipVertically)
{
    Image image = gradient(2, 3);
    image.flipVertically();
    EXPECT_EQ(image.row(0)[1], 40);
    EXPECT_EQ(image.row(2)[1], 0);
}

TEST(Image, RefusesToOverwriteUnlessAsked)
{
    test::TempDir dir;
    const auto path = dir.write("exists.png", "old");
    auto refused = writePng(path, gradient(2, 2), false);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("already exists"), std::string::npos) << refused.error();
    EXPECT_TRUE(writePng(path, gradient(2, 2), true));
}

TEST(Image, UnwritableDestination)
{
    test::TempDir dir;
    auto result = writePng(dir.path() / "missing-folder" / "x.png", gradient(2, 2), false);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().find("cannot write PNG"), std::string::npos) << result.error();
}

TEST(Image, ReadErrors)
{
    test::TempDir dir;
    auto notPng = readPng(dir.write("bad.png", "not a png at all"));
    ASSERT_FALSE(notPng);
    EXPECT_NE(notPng.error().find("bad.png"), std::string::npos);
}

} // namespace
} // namespace tandem::io
