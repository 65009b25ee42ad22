// Reference-image comparison for gl-tier tests: per-pixel channel differences against a PNG
// under tests/.../references, writing the actual image and a diff on failure.
// TANDEM_UPDATE_REFERENCES=1 rewrites the references instead (scripts/update-references.sh).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/io/Image.h"

namespace tandem::test {

struct Tolerance {
    int channel = 8;                  ///< a pixel differs if any channel differs by more than this
    double differingFraction = 0.005; ///< allowed fraction of differing pixels
};

/// Empty on success, else what differs and where the actual/diff images were written.
std::string compareWithReference(const io::Image& actual, const std::filesystem::path& reference,
                                 const Tolerance& tolerance = {});

/// Fraction of pixels that differ from the top-left pixel by more than 16 in some channel.
double nonBackgroundFraction(const io::Image& image);

/// PSNR in dB of two RGBA8 buffers of one size over their colour channels (alpha left out), the
/// peak 255; 99 when equal.
double psnrRgb8(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b);

} // namespace tandem::test
