// sRGB, the one encoding of colour outside the G-buffer: 8-bit colours read from files and
// textures, the presented image and every image tandem writes are sRGB-encoded; the G-buffer and
// the post-process chain hold linear colour. The transfer functions of IEC 61966-2-1 written once
// for the host and CUDA (TANDEM_HD) with exact arithmetic only (core/ExactMath.h), so both
// backends encode to the same bytes; their GLSL twins are in shaders/common/srgb.glsl. No CUDA
// include: usable from any source.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/core/ExactMath.h"

namespace tandem {

/// log2(x) for a finite, normal x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)], and
/// ln m = 2 atanh t, t = (m - 1) / (m + 1), |t| <= 0.172, summed to t^11 (truncation below
/// 1e-11). Absolute error a few float ulps of the result.
TANDEM_HD float log2Hd(float x)
{
    const std::uint32_t bits = bitsOf(x);
    int exponent = static_cast<int>((bits >> 23) & 0xffu) - 127;
    float m = floatOf((bits & 0x7fffffu) | 0x3f800000u); // [1, 2)
    if (m > 1.41421356f) {
        m = m * 0.5f;
        exponent = exponent + 1;
    }
    const float t = (m - 1.0f) / (m + 1.0f);
    const float t2 = t * t;
    const float lnM =
        t * (2.0f + t2 * (2.0f / 3.0f +
                          t2 * (2.0f / 5.0f +
                                t2 * (2.0f / 7.0f + t2 * (2.0f / 9.0f + t2 * (2.0f / 11.0f))))));
    return static_cast<float>(exponent) + lnM * 1.4426950408889634f;
}

/// x^y for a finite, normal x > 0, as exp2(y log2 x); relative error about 2e-6 where the
/// sRGB functions use it.
TANDEM_HD float powHd(float x, float y)
{
    return exp2Hd(y * log2Hd(x));
}

/// sRGB-encoded value to linear colour, both in [0, 1] (clamped): v / 12.92 up to 0.04045,
/// else ((v + 0.055) / 1.055)^2.4.
TANDEM_HD float srgbToLinear(float v)
{
    v = clampf(v, 0.0f, 1.0f);
    return v <= 0.04045f ? v / 12.92f : powHd((v + 0.055f) / 1.055f, 2.4f);
}

/// Linear colour to its sRGB encoding, both in [0, 1] (clamped; NaN gives 0): 12.92 v up to
/// 0.0031308, else 1.055 v^(1/2.4) - 0.055.
TANDEM_HD float linearToSrgb(float v)
{
    v = clampf(v, 0.0f, 1.0f);
    if (!(v > 0.0031308f))
        return v > 0.0f ? v * 12.92f : 0.0f;
    return 1.055f * powHd(v, 1.0f / 2.4f) - 0.055f;
}

/// An 8-bit sRGB code (a file's colour byte) as linear colour.
TANDEM_HD float srgb8ToLinear(std::uint32_t code)
{
    return srgbToLinear(unorm8(code));
}

/// Linear colour to the nearest 8-bit sRGB code. srgb8ToLinear() then this gives every code
/// back (the functions' error, about 3e-4 of a code, is far from the half a code that would
/// change one), also through a half float (RGBA16F) in between.
TANDEM_HD std::uint8_t linearToSrgb8(float v)
{
    return toUnorm8(linearToSrgb(v));
}

/// srgb8ToLinear() of every code, computed once, in host memory: for readers that decode many
/// 8-bit texels a pixel (post-process taps; the CUDA backend keeps a device copy). The same bits
/// as the function, since it is what computed them. Host only, any thread.
inline const std::array<float, 256>& srgb8ToLinearTable()
{
    static const std::array<float, 256> table = [] {
        std::array<float, 256> t{};
        for (std::uint32_t code = 0; code < 256; ++code)
            t[code] = srgb8ToLinear(code);
        return t;
    }();
    return table;
}

/// A 16-bit unorm linear value to its 16-bit unorm sRGB encoding (the png16 frame format),
/// from a table computed once in double precision. Host only, any thread.
inline std::uint16_t linearToSrgb16(std::uint16_t linear)
{
    static const std::vector<std::uint16_t> table = [] {
        std::vector<std::uint16_t> t(65536);
        for (std::size_t i = 0; i < t.size(); ++i) {
            const double v = static_cast<double>(i) / 65535.0;
            const double s = v <= 0.0031308 ? 12.92 * v : 1.055 * std::pow(v, 1.0 / 2.4) - 0.055;
            t[i] = static_cast<std::uint16_t>(std::lround(std::clamp(s, 0.0, 1.0) * 65535.0));
        }
        return t;
    }();
    return table[linear];
}

} // namespace tandem
