// 8-bit RGBA images in host memory and PNG files: written with libspng (zlib level 1, fixed UP
// filter: 35 ms for a rendered 1080p frame where stb_image_write took 270 ms), read with
// stb_image. Rows are top to bottom. No colour management (no gAMA/sRGB chunks). Any thread; each
// call is independent.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "engine/core/Result.h"

namespace tandem::io {

/// A tightly packed RGBA8 image, rows top to bottom.
struct Image {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> pixels; ///< width*height*4 bytes

    std::uint8_t* row(int y) { return pixels.data() + static_cast<std::size_t>(y) * width * 4; }
    const std::uint8_t* row(int y) const
    {
        return pixels.data() + static_cast<std::size_t>(y) * width * 4;
    }
    /// Reverses the row order (GL reads bottom row first).
    void flipVertically();
};

/// RGBA8 rows someone else owns, tightly packed within a row: row y (0 the top) starts at
/// `top + y * stride` bytes; a negative stride reads rows stored bottom first (GL's order)
/// without copying them.
struct ImageView {
    int width = 0;
    int height = 0;
    const std::uint8_t* top = nullptr;
    std::ptrdiff_t stride = 0; ///< bytes from one row to the next one down

    explicit ImageView(const Image& image)
        : width(image.width), height(image.height), top(image.pixels.data()),
          stride(static_cast<std::ptrdiff_t>(image.width) * 4)
    {}
    ImageView(int width, int height, const std::uint8_t* top, std::ptrdiff_t stride)
        : width(width), height(height), top(top), stride(stride)
    {}
    const std::uint8_t* row(int y) const { return top + stride * y; }
};

/// Encodes `image` as an 8-bit PNG in memory: RGB when every alpha is 255, RGBA otherwise.
/// Fails when the image's size and pixel count disagree. CPU only, one thread: about 35 ms for
/// a rendered 1080p frame and 155 ms for 4K on the dev machine, so a caller that must not stall
/// the render thread calls it on a worker.
Result<std::vector<std::uint8_t>> encodePng(const Image& image);

/// Encodes a 16-bit RGBA PNG in memory from `width`*`height`*4 samples, rows top to bottom,
/// native endian (the PNG stores them big-endian). Expects `rgba` to hold that many samples.
Result<std::vector<std::uint8_t>> encodePng16(int width, int height, const std::uint16_t* rgba);

/// Writes already encoded PNG bytes (from encodePng/encodePng16) to `path` through AtomicFile
/// (a temporary unique to this writer, synced, renamed into place), so a failure never leaves
/// half a file and no link at either name is followed. Refuses to replace an existing file
/// unless `overwrite` (`existed`, if given, then says so: another writer's frame); fails naming
/// the file and the reason. Blocks on the file system.
Result<bool> writePngBytes(const std::filesystem::path& path, std::span<const std::uint8_t> png,
                           bool overwrite, bool* existed = nullptr);

/// encodePng then writePngBytes (an existing file is refused before encoding). Fails naming the
/// file when it cannot be written. Refuses to replace an existing file unless `overwrite`.
Result<bool> writePng(const std::filesystem::path& path, const Image& image, bool overwrite,
                      bool* existed = nullptr);

/// encodePng16 then writePngBytes: a 16-bit RGBA PNG from native-endian samples, rows top to
/// bottom. Same file rules as writePng.
Result<bool> writePng16(const std::filesystem::path& path, int width, int height,
                        const std::uint16_t* rgba, bool overwrite, bool* existed = nullptr);

/// The most pixels an image read here may have (16384 × 16384): checked from its header, before
/// the pixels are allocated.
inline constexpr std::uint64_t MaxImagePixels = std::uint64_t{1} << 28;

/// Decodes a PNG, JPEG, BMP or TGA image held in memory, as readImage() does; `name` is what
/// messages call it. Fails on an image of more than MaxImagePixels.
Result<Image> decodeImage(std::span<const std::uint8_t> bytes, const std::string& name);

/// Reads a PNG, JPEG, BMP or TGA image (any channel count, converted to RGBA8; 16-bit PNGs
/// reduced to 8 bits) with stb_image. Fails naming the file and stb_image's reason.
Result<Image> readImage(const std::filesystem::path& path);
/// readImage(), for PNGs.
inline Result<Image> readPng(const std::filesystem::path& path)
{
    return readImage(path);
}

} // namespace tandem::io
