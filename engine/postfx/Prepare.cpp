#include "engine/postfx/Prepare.h"

#include <algorithm>
#include <cmath>

namespace tandem::postfx {

namespace {

/// Normalised 1D Gaussian of `radius` taps each side into `out` (2 * radius + 1 entries).
void gaussian(int radius, float sigma, float* out)
{
    double sum = 0;
    for (int i = -radius; i <= radius; ++i) {
        out[i + radius] = static_cast<float>(std::exp(-0.5 * (i * i) / (double(sigma) * sigma)));
        sum += out[i + radius];
    }
    for (int i = 0; i < 2 * radius + 1; ++i)
        out[i] = static_cast<float>(out[i] / sum);
}

} // namespace

TonemapTable prepare(const TonemapParams& p)
{
    TonemapTable table;
    table.exposureScale = static_cast<float>(std::exp2(static_cast<double>(p.exposure)));
    table.curve.resize(TonemapCurveSize + 1);
    for (int i = 0; i <= TonemapCurveSize; ++i) {
        const double s = static_cast<double>(i) / TonemapCurveSize;
        const double x = TonemapMaxInput * s * s;
        const double aces =
            std::clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
        table.curve[static_cast<std::size_t>(i)] =
            static_cast<float>(std::pow(aces, 1.0 / p.gamma));
    }
    return table;
}

BlurK prepare(const BlurParams& p)
{
    BlurK k{};
    k.radius = std::clamp(p.radius, 1, MaxBlurRadius);
    gaussian(k.radius, p.sigma, k.weights);
    return k;
}

BilateralK prepare(const BilateralParams& p)
{
    BilateralK k{};
    k.radius = std::clamp(p.radius, 1, MaxBilateralRadius);
    // Unnormalised: the filter divides by the sum of the weights it used.
    for (int i = -k.radius; i <= k.radius; ++i)
        k.spatial[i + k.radius] = static_cast<float>(
            std::exp(-0.5 * (i * i) / (double(p.sigmaSpatial) * p.sigmaSpatial)));
    k.invSigmaDepth = 1.0f / p.sigmaDepth;
    return k;
}

OutlineK prepare(const OutlineParams& p)
{
    return {1.0f / p.depthThreshold, 1.0f / p.normalThreshold, p.strength,
            Rgba{p.color[0], p.color[1], p.color[2], 1.0f}};
}

SsaoK prepare(const SsaoParams& p, const FrameInfo& frame)
{
    SsaoK k{};
    k.samples = std::clamp(p.samples, 1, MaxSsaoSamples);
    k.radius = p.radius;
    k.bias = p.bias;
    k.strength = p.strength;
    // A golden-angle spiral filling the unit disk, denser near the centre.
    for (int i = 0; i < k.samples; ++i) {
        const double r = std::sqrt((i + 0.5) / k.samples);
        const double a = i * 2.399963229728653;
        k.offsets[i][0] = static_cast<float>(r * std::cos(a));
        k.offsets[i][1] = static_cast<float>(r * std::sin(a));
    }
    // 16 rotations over a 4×4 tile (an ordered-dither pattern), to trade banding for noise.
    const int order[16] = {0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5};
    for (int i = 0; i < 16; ++i) {
        const double a = order[i] * (2.0 * 3.14159265358979323846 / 16.0);
        k.rotations[i][0] = static_cast<float>(std::cos(a));
        k.rotations[i][1] = static_cast<float>(std::sin(a));
    }
    k.frame = frame;
    return k;
}

FxaaK prepare(const FxaaParams& p)
{
    return {p.edgeThreshold, p.edgeThresholdMin, p.span};
}

ViewK prepareView(const FrameInfo& frame)
{
    return {frame.nearPlane, frame.farPlane};
}

} // namespace tandem::postfx
