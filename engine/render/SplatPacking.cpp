#include "engine/render/SplatPacking.h"

#include <algorithm>
#include <cmath>

namespace tandem::render {

namespace {

/// The half nearest `value` within the finite halves (±65504).
std::uint16_t finiteHalf(float value)
{
    return floatToHalf(std::clamp(value, -65504.0f, 65504.0f));
}

} // namespace

PackedSplat packSplat(const float* position, const float* scale, const float* rotation,
                      float opacity, const float* sh, int degree, std::int8_t* rest)
{
    PackedSplat p{};
    for (int k = 0; k < 3; ++k) {
        p.position[k] = position[k];
        p.logScale[k] = finiteHalf(std::log(scale[k]));
        p.dc[k] = finiteHalf(sh[k]);
    }
    // Smallest three: q and -q are the same rotation, so the largest component is made
    // positive and left out; the others then lie within ±1/√2.
    double q[4], length = 0.0;
    for (int k = 0; k < 4; ++k) {
        q[k] = rotation[k];
        length += q[k] * q[k];
    }
    length = std::sqrt(length);
    int largest = 0;
    for (int k = 1; k < 4; ++k)
        if (std::abs(q[k]) > std::abs(q[largest]))
            largest = k;
    const double sign = q[largest] < 0.0 ? -1.0 : 1.0;
    std::uint32_t code = static_cast<std::uint32_t>(largest) << 30;
    int shift = 20;
    for (int k = 0; k < 4; ++k) {
        if (k == largest)
            continue;
        const double c = length > 0.0 ? sign * q[k] / length : 0.0;
        const double steps = std::round((c + RotationRange) / RotationStep);
        code |= static_cast<std::uint32_t>(std::clamp(steps, 0.0, 1023.0)) << shift;
        shift -= 10;
    }
    p.rotation = code;
    p.opacity = static_cast<std::uint16_t>(
        std::lround(std::clamp(static_cast<double>(opacity), 0.0, 1.0) * 65535.0));
    // The rest as int8 of the largest magnitude, rounded up to a half so no code passes 127.
    const int n = shRestCount(degree);
    float largestRest = 0.0f;
    for (int i = 0; i < n; ++i)
        largestRest = std::max(largestRest, std::abs(sh[3 + i]));
    std::uint16_t scaleBits = finiteHalf(largestRest);
    if (halfToFloat(scaleBits) < largestRest && scaleBits < 0x7bffu)
        ++scaleBits; // the next half up (positive halves order as their bits)
    p.restScale = scaleBits;
    const float step = halfToFloat(scaleBits) * (1.0f / 127.0f);
    for (int i = 0; i < shRestBytes(degree); ++i) {
        if (i >= n || step == 0.0f) {
            rest[i] = 0;
            continue;
        }
        const float steps = std::round(sh[3 + i] / step);
        rest[i] = static_cast<std::int8_t>(std::clamp(steps, -127.0f, 127.0f));
    }
    return p;
}

} // namespace tandem::render
