// Exact arithmetic shared by host and CUDA code that must compute the same bits on both sides
// (post-process stages, the point rasterizer): TANDEM_HD marks functions for both; only +, -,
// *, /, sqrt and fused multiply-adds written as such (fmaHd) in a fixed order (CUDA sources are
// compiled with --fmad=false, host sources without FMA contraction); conversions to and from half
// and unorm8 written out so both round alike. No CUDA include: usable from any source.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define TANDEM_HD __host__ __device__ __forceinline__
#else
#define TANDEM_HD inline
#endif

namespace tandem {

TANDEM_HD float minf(float a, float b)
{
    return a < b ? a : b;
}
TANDEM_HD float maxf(float a, float b)
{
    return a > b ? a : b;
}
TANDEM_HD float clampf(float v, float lo, float hi)
{
    return minf(maxf(v, lo), hi);
}
TANDEM_HD float absf(float v)
{
    return v < 0.0f ? -v : v;
}
TANDEM_HD int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}
TANDEM_HD int mini(int a, int b)
{
    return a < b ? a : b;
}
TANDEM_HD int maxi(int a, int b)
{
    return a > b ? a : b;
}

TANDEM_HD float sqrtf_hd(float v)
{
#if defined(__CUDA_ARCH__)
    return __fsqrt_rn(v); // IEEE round-to-nearest, as on the host
#else
    return __builtin_sqrtf(v);
#endif
}

TANDEM_HD std::uint32_t bitsOf(float v)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(v);
#else
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits;
#endif
}

TANDEM_HD float floatOf(std::uint32_t bits)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(bits);
#else
    float v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
#endif
}

/// a × b + c rounded once (IEEE-754 fused multiply-add): as exact as the other operations, so
/// both sides compute the same bits when both write it (the device's FFMA; the host's fmaf, which
/// glibc runs on the FMA unit where the CPU has one and in software where not).
TANDEM_HD float fmaHd(float a, float b, float c)
{
#if defined(__CUDA_ARCH__)
    return __fmaf_rn(a, b, c);
#else
    return __builtin_fmaf(a, b, c);
#endif
}

/// floor() for |v| < 2^31, without libm.
TANDEM_HD float floorHd(float v)
{
    const int i = static_cast<int>(v);
    return static_cast<float>(v < static_cast<float>(i) ? i - 1 : i);
}

/// 2^x, clamped to [2^-126, 2^127]; relative error about 1e-6.
TANDEM_HD float exp2Hd(float x)
{
    x = clampf(x, -126.0f, 126.99f);
    const float whole = floorHd(x);
    const float y = (x - whole) * 0.69314718055994531f; // fraction * ln 2, in [0, 0.694)
    const float e =
        1.0f +
        y * (1.0f + y * (0.5f + y * (1.0f / 6.0f +
                                     y * (1.0f / 24.0f +
                                          y * (1.0f / 120.0f +
                                               y * (1.0f / 720.0f + y * (1.0f / 5040.0f)))))));
    const std::uint32_t scale = static_cast<std::uint32_t>(static_cast<int>(whole) + 127) << 23;
    return e * floatOf(scale);
}

/// e^x via exp2Hd.
TANDEM_HD float expHd(float x)
{
    return exp2Hd(x * 1.4426950408889634f);
}

/// IEEE half (bits) to float, exact.
TANDEM_HD float halfToFloat(std::uint16_t h)
{
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1fu;
    const std::uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0) {
        // zero or subnormal: mantissa * 2^-24, exact in float
        const float v = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    if (exponent == 31)
        return floatOf(sign | 0x7f800000u | (mantissa << 13));
    return floatOf(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

/// Unorm 8-bit to float, as both backends read RGBA8 targets. A multiply, not a division: taps
/// read many texels, and an IEEE division costs ten instructions on the GPU.
TANDEM_HD float unorm8(std::uint32_t v)
{
    return static_cast<float>(v) * (1.0f / 255.0f);
}

/// Float to unorm 8-bit: clamp to [0, 1], scale, round half up.
TANDEM_HD std::uint8_t toUnorm8(float v)
{
    return static_cast<std::uint8_t>(static_cast<int>(clampf(v, 0.0f, 1.0f) * 255.0f + 0.5f));
}

/// A 32-bit integer hash (the lowbias32 constants), for false-colour ids.
TANDEM_HD std::uint32_t hashId(std::uint32_t h)
{
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

/// Float to IEEE half (bits), round to nearest even, as __float2half_rn does; overflow to
/// infinity, NaN kept a NaN.
TANDEM_HD std::uint16_t floatToHalf(float value)
{
    const std::uint32_t f = bitsOf(value);
    const std::uint32_t sign = (f >> 16) & 0x8000u;
    const std::uint32_t magnitude = f & 0x7fffffffu;
    if (magnitude >= 0x7f800000u) // inf or NaN
        return static_cast<std::uint16_t>(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u : 0u));
    if (magnitude >= 0x477ff000u) // rounds to >= 65520: infinity
        return static_cast<std::uint16_t>(sign | 0x7c00u);
    if (magnitude < 0x38800000u) {   // below the smallest normal half: subnormal or zero
        if (magnitude < 0x33000000u) // below half the smallest subnormal: zero
            return static_cast<std::uint16_t>(sign);
        const std::uint32_t exponent = magnitude >> 23;
        const std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
        const std::uint32_t shift = 126u - exponent; // 14..24
        std::uint32_t half = mantissa >> shift;
        const std::uint32_t rest = mantissa & ((1u << shift) - 1u);
        const std::uint32_t halfway = 1u << (shift - 1u);
        if (rest > halfway || (rest == halfway && (half & 1u)))
            ++half;
        return static_cast<std::uint16_t>(sign | half);
    }
    std::uint32_t half = ((magnitude - 0x38000000u) >> 13);
    const std::uint32_t rest = magnitude & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        ++half;
    return static_cast<std::uint16_t>(sign | half);
}

} // namespace tandem
