// How a frame's Gaussian splats lie in a frame block (stream/Block.h) and in the GPU memory a
// streamed frame is copied into: one region of arrays, either the rasterizer's own float arrays
// (F32, exact) or packed records (Packed: 32 bytes a Gaussian and 8-bit SH beyond degree 0, so a
// 1 M-Gaussian SH-3 frame is 80 MB instead of 236) that the splat pass unpacks on the GPU (or the
// host) before it projects. Packing and its error bounds:
//   position    float32 as it is (exact)
//   rotation    "smallest three": the largest component's index in 2 bits, the other three in
//               10 bits each over [-1/√2, 1/√2]: each off by at most √2/1023/2 = 6.9e-4
//   scale       half of ln(scale): ln(scale) to 11 significant bits (the scale's relative error
//               at most |ln scale| · 2^-11, 0.24 % at a scale of e^-5)
//   opacity     16-bit unorm: off by at most 1/131070
//   SH DC       half: 11 significant bits
//   SH rest     int8 of the Gaussian's largest |coefficient| beyond the DC (a half, rounded up):
//               each off by at most that / 254
// The unpacking is written once for both sides (TANDEM_HD) so the host twin and the CUDA pass
// draw the same bits. Plain data, no GL, no CUDA include.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/ExactMath.h"

namespace tandem::render {

/// How a region holds its Gaussians.
enum class SplatEncoding : std::uint8_t {
    F32 = 0,    ///< the rasterizer's float arrays (SplatScene's layout), exact
    Packed = 1, ///< PackedSplat records and int8 SH rest, unpacked on the GPU
};

/// Every array of a splat region starts at a multiple of this many bytes (a frame block's
/// alignment, stream/Block.h).
inline constexpr std::size_t SplatAlign = 256;

/// One Gaussian packed (32 bytes).
struct PackedSplat {
    float position[3];
    std::uint32_t rotation;    ///< bits 30–31: the largest component (0 w, 1 x, 2 y, 3 z), then
                               ///< the others in order, 10 bits each from bit 20 down
    std::uint16_t logScale[3]; ///< half: ln(scale)
    std::uint16_t dc[3];       ///< half: the DC coefficient of red, green, blue
    std::uint16_t opacity;     ///< unorm16
    std::uint16_t restScale;   ///< half: the largest |coefficient| beyond the DC (0: none)
};
static_assert(sizeof(PackedSplat) == 32, "PackedSplat is part of the pack format");

/// SH coefficients beyond the DC, all channels, at `degree` (0, 9, 24, 45).
TANDEM_HD int shRestCount(int degree)
{
    return 3 * ((degree + 1) * (degree + 1) - 1);
}

/// Bytes a Gaussian's packed SH rest takes: shRestCount(degree) int8, padded to 4.
TANDEM_HD int shRestBytes(int degree)
{
    return (shRestCount(degree) + 3) & ~3;
}

/// Where a region's arrays start (bytes from the region's start, each a multiple of the
/// alignment it was laid out with) and the region's bytes. F32 uses positions..sh; Packed
/// uses records and rest.
struct SplatRegion {
    std::size_t positions = 0, scales = 0, rotations = 0, opacities = 0, sh = 0;
    std::size_t records = 0, rest = 0;
    std::size_t bytes = 0;
};

/// The region of `count` Gaussians of SH degree `degree` in `encoding`, its arrays aligned to
/// `align` bytes (a power of two).
inline SplatRegion splatRegion(std::uint32_t count, int degree, SplatEncoding encoding,
                               std::size_t align)
{
    const auto up = [align](std::size_t n) {
        return (n + align - 1) & ~(align - 1);
    };
    const std::size_t n = count;
    SplatRegion r;
    std::size_t at = 0;
    const auto place = [&](std::size_t& field, std::size_t bytes) {
        field = at;
        at = up(at + bytes);
    };
    if (encoding == SplatEncoding::F32) {
        const std::size_t coefficients = static_cast<std::size_t>((degree + 1) * (degree + 1));
        place(r.positions, n * 3 * sizeof(float));
        place(r.scales, n * 3 * sizeof(float));
        place(r.rotations, n * 4 * sizeof(float));
        place(r.opacities, n * sizeof(float));
        place(r.sh, n * coefficients * 3 * sizeof(float));
    } else {
        place(r.records, n * sizeof(PackedSplat));
        place(r.rest, n * static_cast<std::size_t>(shRestBytes(degree)));
    }
    r.bytes = at;
    return r;
}

/// The range of a packed rotation's three smaller components (±1/√2) and its step.
inline constexpr float RotationRange = 0.70710678118654752f;
inline constexpr float RotationStep = 2.0f * RotationRange / 1023.0f;

/// The value one int8 step of Gaussian `p`'s SH rest stands for.
TANDEM_HD float restStep(const PackedSplat& p)
{
    return halfToFloat(p.restScale) * (1.0f / 127.0f);
}

/// Unpacks Gaussian `p`'s record, all but its SH rest, into the rasterizer's layout:
/// position[3], scale[3], rotation[4] (w first), *opacity and the DC terms sh[0..2].
TANDEM_HD void unpackSplatRecord(const PackedSplat& p, float* position, float* scale,
                                 float* rotation, float* opacity, float* sh)
{
    for (int k = 0; k < 3; ++k) {
        position[k] = p.position[k];
        scale[k] = expHd(halfToFloat(p.logScale[k]));
        sh[k] = halfToFloat(p.dc[k]);
    }
    const int largest = static_cast<int>(p.rotation >> 30);
    float q[4];
    float sum = 0.0f;
    int shift = 20;
    for (int k = 0; k < 4; ++k) {
        if (k == largest)
            continue;
        const auto code = static_cast<float>((p.rotation >> shift) & 0x3ffu);
        q[k] = code * RotationStep - RotationRange;
        sum = sum + q[k] * q[k];
        shift -= 10;
    }
    q[largest] = sqrtf_hd(maxf(0.0f, 1.0f - sum));
    for (int k = 0; k < 4; ++k)
        rotation[k] = q[k];
    *opacity = static_cast<float>(p.opacity) * (1.0f / 65535.0f);
}

/// Unpacks Gaussian `p` (its SH rest at `rest`, shRestBytes(degree) bytes) into the
/// rasterizer's layout: position[3], scale[3], rotation[4] (w first), *opacity and
/// sh[(degree + 1)² × 3] (coefficient-major, channels inside). The CUDA pass unpacks the record
/// and the rest in two kernels (the rest a coefficient a thread) with these same functions.
TANDEM_HD void unpackSplat(const PackedSplat& p, const std::int8_t* rest, int degree,
                           float* position, float* scale, float* rotation, float* opacity,
                           float* sh)
{
    unpackSplatRecord(p, position, scale, rotation, opacity, sh);
    const float step = restStep(p);
    const int n = shRestCount(degree);
    for (int i = 0; i < n; ++i)
        sh[3 + i] = static_cast<float>(rest[i]) * step;
}

#if !defined(__CUDACC__)
/// Packs one Gaussian in the rasterizer's layout (as unpackSplat() gives it back), its SH rest
/// into `rest` (shRestBytes(degree) bytes, the padding zeroed). Host only.
PackedSplat packSplat(const float* position, const float* scale, const float* rotation,
                      float opacity, const float* sh, int degree, std::int8_t* rest);
#endif

} // namespace tandem::render
