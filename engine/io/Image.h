// 8-bit RGBA images in host memory and PNG files (stb_image, stb_image_write). Rows are top to
// bottom. Any thread.
#pragma once

#include <cstdint>
#include <filesystem>
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

/// Writes `image` as PNG. Fails naming the file when it cannot be written. Refuses to replace
/// an existing file unless `overwrite`.
Result<bool> writePng(const std::filesystem::path& path, const Image& image, bool overwrite);

/// Reads a PNG (any channel count, converted to RGBA8).
Result<Image> readPng(const std::filesystem::path& path);

} // namespace tandem::io
