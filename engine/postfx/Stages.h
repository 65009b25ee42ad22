// Every post-process stage: its descriptor (Stage.h), how its settings become the parameter
// block its pixel function reads (prepare, on the host, once per frame), and the pixel function
// itself, shared by the host and CUDA backends (PixelStages.h). Stages work on linear colour
// (the debug views write data); the chain's final store sRGB-encodes. Adding a stage means a struct
// here, its entry in StageTypes, and its pixel function: the parser, the overlay and both backends
// follow.
//
// A stage type S provides:
//   static constexpr StageDescriptor descriptor;
//   using K = ...;                                   // plain data, passed to kernels by value
//   static K prepare(const float* params, const FrameInfo& frame);   // host only
//   static TANDEM_HD Rgba pixel(const In& in, int x, int y, const K& k);
// and optionally:
//   static constexpr int passes = N;   // then pixel(in, x, y, k, pass): pass p reads pass p-1
#pragma once

#include <algorithm>
#include <cmath>

#include "engine/postfx/PixelStages.h"
#include "engine/postfx/Stage.h"

namespace tandem::postfx {

/// Normalised 1D Gaussian of `radius` taps each side into `out` (2 * radius + 1 entries).
inline void gaussianWeights(int radius, float sigma, float* out)
{
    double sum = 0;
    for (int i = -radius; i <= radius; ++i) {
        out[i + radius] = static_cast<float>(std::exp(-0.5 * (i * i) / (double(sigma) * sigma)));
        sum += out[i + radius];
    }
    for (int i = 0; i < 2 * radius + 1; ++i)
        out[i] = static_cast<float>(out[i] / sum);
}

struct Tonemap {
    static constexpr StageDescriptor descriptor{
        "tonemap",
        "exposure and the ACES filmic fit on linear colour (the chain's end encodes sRGB)",
        ReadsSource,
        1,
        {{{"exposure", 0.0f, -16.0f, 16.0f, false, "stops: multiplies by 2^exposure"}}}};
    using K = TonemapK;
    static K prepare(const float* p, const FrameInfo&)
    {
        return {static_cast<float>(std::exp2(static_cast<double>(p[0])))};
    }
    template <class In> static TANDEM_HD Rgba pixel(const In& in, int x, int y, const K& k)
    {
        return tonemapPixel(in.src, x, y, k);
    }
};

struct Blur {
    static constexpr StageDescriptor descriptor{
        "blur",
        "separable Gaussian blur",
        ReadsSource,
        2,
        {{{"radius", 3.0f, 1.0f, 16.0f, true, "pixels each side"},
          {"sigma", 1.5f, 0.1f, 16.0f, false, "pixels"}}}};
    using K = BlurK;
    /// Horizontal, then vertical.
    static constexpr int passes = 2;
    static K prepare(const float* p, const FrameInfo&)
    {
        K k{};
        k.radius = std::clamp(static_cast<int>(p[0]), 1, MaxBlurRadius);
        gaussianWeights(k.radius, p[1], k.weights);
        return k;
    }
    template <class In>
    static TANDEM_HD Rgba pixel(const In& in, int x, int y, const K& k, int pass)
    {
        return pass == 0 ? blurPixel(in.src, x, y, 1, 0, k) : blurPixel(in.src, x, y, 0, 1, k);
    }
};

struct Bilateral {
    static constexpr StageDescriptor descriptor{
        "bilateral",
        "joint bilateral denoise guided by linear depth",
        ReadsSource | ReadsDepth,
        3,
        {{{"radius", 3.0f, 1.0f, 8.0f, true, "pixels each side"},
          {"sigma", 2.0f, 0.1f, 16.0f, false, "spatial sigma, pixels"},
          {"depth", 0.02f, 1e-4f, 1.0f, false, "depth sigma, relative to the centre's depth"}}}};
    using K = BilateralK;
    static K prepare(const float* p, const FrameInfo&)
    {
        K k{};
        k.radius = std::clamp(static_cast<int>(p[0]), 1, MaxBilateralRadius);
        // Unnormalised: the filter divides by the sum of the weights it used.
        for (int i = -k.radius; i <= k.radius; ++i)
            k.spatial[i + k.radius] =
                static_cast<float>(std::exp(-0.5 * (i * i) / (double(p[1]) * p[1])));
        k.invSigmaDepth = 1.0f / p[2];
        return k;
    }
    template <class In> static TANDEM_HD Rgba pixel(const In& in, int x, int y, const K& k)
    {
        return bilateralPixel(in.src, in.depth, x, y, k);
    }
};

struct Outline {
    static constexpr StageDescriptor descriptor{
        "outline",
        "depth creases and silhouettes (Laplacian of 1/z), normal creases (Sobel)",
        ReadsSource | ReadsDepth | ReadsNormal,
        3,
        {{{"depth", 0.02f, 1e-4f, 10.0f, false, "relative inverse-depth Laplacian of an edge"},
          {"normal", 0.3f, 1e-3f, 4.0f, false, "normal change per pixel of an edge"},
          {"strength", 1.0f, 0.0f, 1.0f, false, "blend towards the outline colour"}}}};
    using K = OutlineK;
    static K prepare(const float* p, const FrameInfo&)
    {
        // Near black: sRGB 0.02 (byte 5), in linear colour.
        return {1.0f / p[0], 1.0f / p[1], p[2], Rgba{0.0015480f, 0.0015480f, 0.0015480f, 1.0f}};
    }
    template <class In> static TANDEM_HD Rgba pixel(const In& in, int x, int y, const K& k)
    {
        return outlinePixel(in.src, in.depth, in.normal, x, y, k);
    }
};

struct Ssao {
    static constexpr StageDescriptor descriptor{
        "ssao",
        "screen-space ambient occlusion from depth and normals",
        ReadsSource | ReadsDepth | ReadsNormal,
        4,
        {{{"samples", 12.0f, 4.0f, 16.0f, true, "samples per pixel"},
          {"radius", 0.5f, 1e-4f, 1e4f, false, "world units around the shaded point"},
          {"bias", 0.05f, 0.0f, 1.0f, false, "cosine below which a sample does not occlude"},
          {"strength", 1.0f, 0.0f, 2.0f, false, "occlusion scale"}}}};
    using K = SsaoK;
    static K prepare(const float* p, const FrameInfo& frame)
    {
        K k{};
        k.samples = std::clamp(static_cast<int>(p[0]), 1, MaxSsaoSamples);
        k.radius = p[1];
        k.bias = p[2];
        k.strength = p[3];
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
    template <class In> static TANDEM_HD Rgba pixel(const In& in, int x, int y, const K& k)
    {
        return ssaoPixel(in.src, in.depth, in.normal, x, y, k);
    }
};

struct Fxaa {
    static constexpr StageDescriptor descriptor{
        "fxaa",
        "fast approximate anti-aliasing",
        ReadsSource,
        3,
        {{{"threshold", 0.125f, 0.01f, 1.0f, false, "relative local contrast of an edge"},
          {"threshold-min", 0.0312f, 0.0f, 1.0f, false, "absolute contrast below which nothing"},
          {"span", 8.0f, 1.0f, 16.0f, false, "longest search, pixels"}}}};
    using K = FxaaK;
    static K prepare(const float* p, const FrameInfo&) { return {p[0], p[1], p[2]}; }
    template <class In> static TANDEM_HD Rgba pixel(const In& in, int x, int y, const K& k)
    {
        return fxaaPixel(in.src, x, y, k);
    }
};

/// What the debug views share: no parameters; the camera's depth range; they write data, not
/// colour (the chain stores it as it is).
struct ViewStage {
    using K = ViewK;
    static K prepare(const float*, const FrameInfo& frame)
    {
        return {frame.nearPlane, frame.farPlane};
    }
};

struct ViewDepth : ViewStage {
    static constexpr StageDescriptor descriptor{
        "view-depth", "debug view: linear depth, near white to far dark", ReadsDepth, 0, {}, true};
    template <class In> static TANDEM_HD Rgba pixel(const In& in, int x, int y, const K& k)
    {
        return viewDepthPixel(in.depth, x, y, k);
    }
};

struct ViewNormal : ViewStage {
    static constexpr StageDescriptor descriptor{
        "view-normal", "debug view: world normals as colour", ReadsNormal, 0, {}, true};
    template <class In> static TANDEM_HD Rgba pixel(const In& in, int x, int y, const K&)
    {
        return viewNormalPixel(in.normal, x, y);
    }
};

struct ViewId : ViewStage {
    static constexpr StageDescriptor descriptor{
        "view-id", "debug view: primitive ids in false colour", ReadsId, 0, {}, true};
    template <class In> static TANDEM_HD Rgba pixel(const In& in, int x, int y, const K&)
    {
        return viewIdPixel(in.id, x, y);
    }
};

/// A list of stage types.
template <class... S> struct StageList {
    static constexpr int size = sizeof...(S);
};

/// Every stage, in --help order. A stage's kind is its index in this list.
using StageTypes =
    StageList<Tonemap, Blur, Bilateral, Outline, Ssao, Fxaa, ViewDepth, ViewNormal, ViewId>;

namespace detail {
template <class... S, class F> void visitIn(StageList<S...>, int kind, F&& f)
{
    int i = 0;
    ((i++ == kind ? (f.template operator()<S>(), 0) : 0), ...);
}
} // namespace detail

/// Calls f.template operator()<S>() with S the stage type of `kind`.
template <class F> void visitStage(int kind, F&& f)
{
    detail::visitIn(StageTypes{}, kind, f);
}

namespace detail {
template <class S> struct StagePasses {
    static constexpr int value = 1;
};
template <class S>
requires requires
{
    S::passes;
}
struct StagePasses<S> {
    static constexpr int value = S::passes;
};
} // namespace detail

/// Passes of stage type S (1 unless it says otherwise). A variable, so device code can read it.
template <class S> inline constexpr int passesOf = detail::StagePasses<S>::value;

/// Calls S's pixel function for `pass`.
template <class S, class In>
TANDEM_HD Rgba stagePixel(const In& in, int x, int y, const typename S::K& k, int pass)
{
    if constexpr (passesOf < S >> 1)
        return S::pixel(in, x, y, k, pass);
    else
        return S::pixel(in, x, y, k);
}

} // namespace tandem::postfx
