// Per-pixel arithmetic shared by the host and CUDA backends (TANDEM_HD). Only +, -, *, / and
// sqrt, in a fixed order, so both sides compute the same bits: the CUDA side is compiled with
// -fmad=false and the host without FMA contraction; exp2 is a polynomial approximation here
// for the same reason (libm and CUDA's differ in the last bits).
#pragma once

#include <cstdint>

#include "engine/core/ExactMath.h"

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

/// Rec. 601 luma.
TANDEM_HD float luma(Rgba c)
{
    return c.r * 0.299f + c.g * 0.587f + c.b * 0.114f;
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
