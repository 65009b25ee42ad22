// PNG writing (libspng) and reading (stb_image): exact 8- and 16-bit round trips, RGB for opaque
// images, files other decoders accept, refusing to overwrite, and unwritable destinations
// reported clearly without leaving a partial file.
#include "engine/io/Image.h"

#include <gtest/gtest.h>
#include <spng.h>
#include <stb_image.h>

#include "engine/core/File.h"
#include "tests/support/OutputChecks.h"
#include "tests/support/TempDir.h"

namespace tandem::io {
namespace {

namespace fs = std::filesystem;

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

/// Samples that differ in both bytes, so a byte-order mistake cannot round trip.
std::vector<std::uint16_t> gradient16(int width, int height)
{
    std::vector<std::uint16_t> samples(static_cast<std::size_t>(width) * height * 4);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < 4; ++c)
                samples[(static_cast<std::size_t>(y) * width + x) * 4 + c] =
                    static_cast<std::uint16_t>(x * 4099 + y * 601 + c * 13 + (c == 3 ? 1 : 0));
    return samples;
}

struct Header {
    int bitDepth = 0;
    int colorType = 0;
};

/// Bit depth and colour type from the IHDR chunk, which follows the 8-byte signature.
Header pngHeader(const fs::path& path)
{
    auto bytes = readFile(path);
    if (!bytes || bytes.value().size() < 26)
        return {};
    return {bytes.value()[24], bytes.value()[25]};
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
    EXPECT_EQ(test::namesIn(dir.path()), std::vector<std::string>{"g.png"});
}

TEST(Image, OpaqueImageIsWrittenAsRgb)
{
    test::TempDir dir;
    const Image image = gradient(31, 9);
    ASSERT_TRUE(writePng(dir.path() / "rgb.png", image, false));
    const Header header = pngHeader(dir.path() / "rgb.png");
    EXPECT_EQ(header.bitDepth, 8);
    EXPECT_EQ(header.colorType, SPNG_COLOR_TYPE_TRUECOLOR);
    auto back = readPng(dir.path() / "rgb.png");
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back.value().pixels, image.pixels);
}

TEST(Image, TranslucentImageIsWrittenAsRgba)
{
    test::TempDir dir;
    Image image = gradient(31, 9);
    image.row(8)[30 * 4 + 3] = 254;
    image.row(3)[4 * 4 + 3] = 0;
    ASSERT_TRUE(writePng(dir.path() / "rgba.png", image, false));
    const Header header = pngHeader(dir.path() / "rgba.png");
    EXPECT_EQ(header.bitDepth, 8);
    EXPECT_EQ(header.colorType, SPNG_COLOR_TYPE_TRUECOLOR_ALPHA);
    auto back = readPng(dir.path() / "rgba.png");
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back.value().pixels, image.pixels);
}

TEST(Image, EncodedPngIsReadByStb)
{
    const Image image = gradient(17, 5);
    auto png = encodePng(image);
    ASSERT_TRUE(png) << png.error();
    int width = 0, height = 0, channels = 0;
    stbi_uc* decoded = stbi_load_from_memory(
        png.value().data(), static_cast<int>(png.value().size()), &width, &height, &channels, 0);
    ASSERT_NE(decoded, nullptr) << stbi_failure_reason();
    EXPECT_EQ(width, 17);
    EXPECT_EQ(height, 5);
    EXPECT_EQ(channels, 3);
    bool same = true;
    for (int i = 0; i < 17 * 5; ++i)
        for (int c = 0; c < 3; ++c)
            same = same && decoded[i * 3 + c] == image.pixels[i * 4 + c];
    stbi_image_free(decoded);
    EXPECT_TRUE(same);
}

TEST(Image, Png16RoundTrip)
{
    test::TempDir dir;
    const int width = 19, height = 11;
    const auto samples = gradient16(width, height);
    auto written = writePng16(dir.path() / "deep.png", width, height, samples.data(), false);
    ASSERT_TRUE(written) << written.error();
    EXPECT_EQ(test::namesIn(dir.path()), std::vector<std::string>{"deep.png"});
    const Header header = pngHeader(dir.path() / "deep.png");
    EXPECT_EQ(header.bitDepth, 16);
    EXPECT_EQ(header.colorType, SPNG_COLOR_TYPE_TRUECOLOR_ALPHA);

    auto png = readFile(dir.path() / "deep.png");
    ASSERT_TRUE(png) << png.error();
    spng_ctx* ctx = spng_ctx_new(0);
    ASSERT_NE(ctx, nullptr);
    ASSERT_EQ(spng_set_png_buffer(ctx, png.value().data(), png.value().size()), 0);
    std::size_t size = 0;
    ASSERT_EQ(spng_decoded_image_size(ctx, SPNG_FMT_RGBA16, &size), 0);
    ASSERT_EQ(size, samples.size() * 2);
    std::vector<std::uint16_t> back(samples.size());
    const int decoded = spng_decode_image(ctx, back.data(), size, SPNG_FMT_RGBA16, 0);
    spng_ctx_free(ctx);
    ASSERT_EQ(decoded, 0) << spng_strerror(decoded);
    EXPECT_EQ(back, samples);

    // A second decoder agrees (both libspng sides could share a byte-order mistake).
    int w = 0, h = 0, channels = 0;
    std::uint16_t* stb = stbi_load_16((dir.path() / "deep.png").c_str(), &w, &h, &channels, 4);
    ASSERT_NE(stb, nullptr) << stbi_failure_reason();
    EXPECT_EQ(std::vector<std::uint16_t>(stb, stb + samples.size()), samples);
    stbi_image_free(stb);
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
    EXPECT_EQ(readTextFile(path).value(), "old");
    const auto samples = gradient16(2, 2);
    auto refused16 = writePng16(path, 2, 2, samples.data(), false);
    ASSERT_FALSE(refused16);
    EXPECT_NE(refused16.error().find("already exists"), std::string::npos) << refused16.error();
    EXPECT_EQ(readTextFile(path).value(), "old");

    EXPECT_TRUE(writePng(path, gradient(2, 2), true));
    EXPECT_EQ(readPng(path).value().pixels, gradient(2, 2).pixels);
}

TEST(Image, UnwritableDestination)
{
    test::TempDir dir;
    const fs::path path = dir.path() / "missing-folder" / "x.png";
    auto result = writePng(path, gradient(2, 2), false);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().find(path.string() + ": cannot write: the folder " +
                                  path.parent_path().string() + " does not exist"),
              std::string::npos)
        << result.error();
    EXPECT_EQ(test::namesIn(dir.path()), std::vector<std::string>{});
}

TEST(Image, FailedRenameLeavesNoPartialFile)
{
    // A folder at the name is refused, and nothing is left beside it.
    test::TempDir dir;
    const fs::path path = dir.path() / "folder.png";
    fs::create_directories(path / "inside");
    auto result = writePng(path, gradient(4, 4), true);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().find(path.string() + ": is a folder"), std::string::npos)
        << result.error();
    EXPECT_EQ(test::namesIn(dir.path()), std::vector<std::string>{"folder.png"});
    EXPECT_TRUE(fs::is_directory(path / "inside"));
}

TEST(Image, LinksPlantedAtTheOldTemporaryOrTheFinalNameAreNotFollowed)
{
    // Once written through PATH.partial, opened with truncation and following links: a symlink
    // there had the frame written into its target, a hard link there destroyed the other
    // name's contents; a link at the final name is replaced (with --overwrite), not written
    // through.
    test::TempDir dir;
    const auto target = dir.write("precious.txt", "precious");
    const auto hardTarget = dir.write("hard.txt", "also precious");
    fs::create_symlink(target, dir.path() / "frame_000000.png.partial");
    fs::create_hard_link(hardTarget, dir.path() / "frame_000001.png.partial");
    fs::create_symlink(target, dir.path() / "frame_000002.png");
    fs::create_hard_link(hardTarget, dir.path() / "frame_000003.png");
    const Image image = gradient(3, 3);
    for (int i = 0; i < 4; ++i) {
        const fs::path frame = dir.path() / ("frame_00000" + std::to_string(i) + ".png");
        auto written = writePng(frame, image, i >= 2);
        ASSERT_TRUE(written) << written.error();
        EXPECT_EQ(readPng(frame).value().pixels, image.pixels);
    }
    EXPECT_EQ(readTextFile(target).value(), "precious");
    EXPECT_EQ(readTextFile(hardTarget).value(), "also precious");
    EXPECT_FALSE(fs::is_symlink(dir.path() / "frame_000002.png"));
    // Without --overwrite a link at the final name is refused and left as it is.
    fs::create_symlink(target, dir.path() / "linked.png");
    bool existed = false;
    EXPECT_FALSE(writePng(dir.path() / "linked.png", image, false, &existed));
    EXPECT_TRUE(existed);
    EXPECT_TRUE(fs::is_symlink(dir.path() / "linked.png"));
    EXPECT_EQ(readTextFile(target).value(), "precious");
}

TEST(Image, InvalidImagesAreNotEncoded)
{
    Image wrong = gradient(4, 4);
    wrong.pixels.pop_back();
    auto encoded = encodePng(wrong);
    ASSERT_FALSE(encoded);
    EXPECT_NE(encoded.error().find("invalid image size 4x4"), std::string::npos) << encoded.error();
    EXPECT_FALSE(encodePng(Image{}));
    EXPECT_FALSE(encodePng16(0, 4, nullptr));
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
