// Raw frames as PAM (netpbm "P7", RGB_ALPHA, 8 bits): a self-describing header and the pixels
// uncompressed, readable by ffmpeg, ImageMagick, Pillow and numpy in a few lines. For pipelines
// that want pixels, not PNG's compression cost. Any thread.
#pragma once

#include <filesystem>

#include "engine/core/Result.h"
#include "engine/io/Image.h"

namespace tandem::io {

/// Writes `image` as a PAM file through AtomicFile (as writePngBytes), its rows gathered from
/// where they lie in one write (no copy: a raw 1080p frame is 8 MB). Refuses to replace an
/// existing file unless `overwrite` (`existed`, if given, then says so); fails naming the file
/// and the system's reason.
Result<bool> writePam(const std::filesystem::path& path, const ImageView& image, bool overwrite,
                      bool* existed = nullptr);
/// writePam() of an image in host memory; fails when its size and pixel count disagree.
Result<bool> writePam(const std::filesystem::path& path, const Image& image, bool overwrite,
                      bool* existed = nullptr);

/// Reads a PAM written by writePam (RGB_ALPHA, MAXVAL 255).
Result<Image> readPam(const std::filesystem::path& path);

} // namespace tandem::io
