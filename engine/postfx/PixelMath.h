// Per-pixel arithmetic shared by the host and CUDA backends (TANDEM_HD). Only +, -, *, / and
// sqrt, in a fixed order, so both sides compute the same bits: the CUDA side is compiled with
// -fmad=false and the host without FMA contraction; exp2 is a polynomial approximation here
// for the same reason (libm and CUDA's differ in the last bits).
#pragma once

#include <cstdint>

#include "engine/core/ExactMath.h"
#include "engine/core/Srgb.h"

namespace tandem::postfx {

/// A linear RGBA colour in floats.
struct Rgba {
    float r, g, b, a;
};

TANDEM_HD Rgba operator+(Rgba x, Rgba y)
{
    return {x.r + y.r, x.g + y.g, x.b + y.b, x.a + y.a};
}
TANDEM_HD Rgba operator-(Rgba x, Rgba y)
{
    return {x.r - y.r, x.g - y.g, x.b - y.b, x.a - y.a};
}
TANDEM_HD Rgba operator*(Rgba x, float s)
{
    return {x.r * s, x.g * s, x.b * s, x.a * s};
}

TANDEM_HD Rgba lerp(Rgba x, Rgba y, float t)
{
    return x + (y - x) * t;
}

/// A perceptual luma of linear colour: the square root of its relative luminance (Rec. 709
/// weights, sRGB's primaries). Close to the luma of sRGB-encoded values, on which edge
/// thresholds such as FXAA's were tuned, and exact on both backends (a sqrt, not a pow).
TANDEM_HD float luma(Rgba c)
{
    return sqrtf_hd(maxf(c.r * 0.2126f + c.g * 0.7152f + c.b * 0.0722f, 0.0f));
}

/// A strided 2D image in host or device memory with clamp-to-edge reads. Rows bottom to top
/// (GL's order), `pitch` in elements.
template <class T> struct ImageView {
    T* data;
    int width;
    int height;
    int pitch;

    TANDEM_HD T at(int x, int y) const
    {
        x = clampi(x, 0, width - 1);
        y = clampi(y, 0, height - 1);
        return data[static_cast<long long>(y) * pitch + x];
    }
    TANDEM_HD T& ref(int x, int y) const { return data[static_cast<long long>(y) * pitch + x]; }
};

} // namespace tandem::postfx
