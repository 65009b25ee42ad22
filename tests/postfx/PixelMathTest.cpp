// The shared per-pixel arithmetic: approximations accurate enough for 8-bit output, exact
// conversions, sRGB against its formulas, the per-pixel stage functions on small hand-made
// images, and the host backend's colour path on a G-buffer in memory.
#include "engine/postfx/PixelStages.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "engine/postfx/HostBackend.h"
#include "engine/postfx/Stages.h"
#include "tests/postfx/ColourScene.h"

namespace tandem::postfx {
namespace {

/// Stage S's parameter block for `params` (in descriptor order; the rest at their defaults).
template <class S> typename S::K prepared(std::initializer_list<float> params, FrameInfo f = {})
{
    Stage stage = Stage::make(findStage(S::descriptor.name));
    std::size_t i = 0;
    for (float value : params)
        stage.params[i++] = value;
    return S::prepare(stage.params.data(), f);
}

TEST(PixelMath, Exp2AndExpAreAccurate)
{
    double worst = 0;
    for (float x = -20.0f; x < 20.0f; x += 0.013f) {
        const double exact = std::exp2(double(x));
        worst = std::max(worst, std::abs(double(exp2Hd(x)) - exact) / exact);
    }
    EXPECT_LT(worst, 2e-6);
    EXPECT_NEAR(expHd(-0.5f), std::exp(-0.5), 2e-6);
}

TEST(PixelMath, Log2IsAccurate)
{
    double worst = 0;
    for (float x = 1e-6f; x < 1e6f; x *= 1.0013f)
        worst = std::max(worst, std::abs(double(log2Hd(x)) - std::log2(double(x))));
    EXPECT_LT(worst, 4e-6);
    EXPECT_EQ(log2Hd(1.0f), 0.0f);
    EXPECT_EQ(log2Hd(0.25f), -2.0f);
}

TEST(PixelMath, SrgbFunctionsMatchTheirFormulas)
{
    double worstEncode = 0, worstDecode = 0;
    for (int i = 0; i <= 100000; ++i) {
        const double v = i / 100000.0;
        worstEncode = std::max(worstEncode,
                               std::abs(linearToSrgb(static_cast<float>(v)) - test::srgbEncode(v)));
        worstDecode = std::max(worstDecode,
                               std::abs(srgbToLinear(static_cast<float>(v)) - test::srgbDecode(v)));
    }
    EXPECT_LT(worstEncode, 3e-6) << "a thousandth of an 8-bit step";
    EXPECT_LT(worstDecode, 3e-6);
    EXPECT_EQ(linearToSrgb(0.0f), 0.0f);
    EXPECT_EQ(linearToSrgb8(1.0f), 255);
    EXPECT_EQ(linearToSrgb8(-1.0f), 0);
    EXPECT_EQ(linearToSrgb8(2.0f), 255);
    EXPECT_EQ(linearToSrgb8(std::nanf("")), 0);
    // Mid grey: sRGB 128 is 21.6 % of white's light.
    EXPECT_NEAR(srgb8ToLinear(128), 0.2158605, 1e-6);
    EXPECT_EQ(srgb8ToLinear(0), 0.0f);
    EXPECT_EQ(srgb8ToLinear(255), 1.0f);
}

TEST(PixelMath, EverySrgbCodeRoundTripsThroughLinearAndHalves)
{
    // What lets the G-buffer hold linear colour without changing a file's colours: decoding a
    // code and encoding it again gives the code, also through a half (RGBA16F) in between;
    // the table holds the function's values.
    for (std::uint32_t code = 0; code < 256; ++code) {
        const float linear = srgb8ToLinear(code);
        EXPECT_EQ(srgb8ToLinearTable()[code], linear) << code;
        EXPECT_EQ(linearToSrgb8(linear), code);
        EXPECT_EQ(linearToSrgb8(halfToFloat(floatToHalf(linear))), code) << code;
        EXPECT_NEAR(linearToSrgb16(static_cast<std::uint16_t>(std::lround(linear * 65535.0))),
                    code * 257.0, 257.0 / 2)
            << code;
    }
    EXPECT_EQ(linearToSrgb16(0), 0);
    EXPECT_EQ(linearToSrgb16(65535), 65535);
    EXPECT_NEAR(linearToSrgb16(14146), 128 * 257, 1) << "linear 0.2159 is mid grey, sRGB 128";
}

TEST(PixelStages, TonemapCurveMatchesTheFormula)
{
    // The ACES fit on linear colour, in double precision, against what the stage computes; no
    // gamma inside: 0.18 (middle grey) maps to 0.2669, linear (the curve once gave 0.5486,
    // already gamma-encoded, which the output then took as linear).
    double worst = 0;
    for (int i = 0; i <= 200000; ++i) {
        const double x = 20.0 * i / 200000.0;
        worst = std::max(worst, std::abs(tonemapCurve(static_cast<float>(x)) -
                                         test::acesCurve(std::min(x, 16.0))));
    }
    EXPECT_LT(worst, 1e-6) << "a few float roundings";
    EXPECT_NEAR(tonemapCurve(0.18f), 0.26690, 1e-4);
    EXPECT_EQ(tonemapCurve(std::numeric_limits<float>::infinity()), 1.0f);
    EXPECT_EQ(tonemapCurve(std::nanf("")), 0.0f);
}

TEST(PixelMath, HalfToFloatIsExact)
{
    EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
    EXPECT_EQ(halfToFloat(0xc000), -2.0f);
    EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
    EXPECT_EQ(halfToFloat(0x0001), 5.9604644775390625e-8f);
    EXPECT_EQ(halfToFloat(0x8000), -0.0f);
    EXPECT_TRUE(std::isinf(halfToFloat(0x7c00)));
    EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
}

TEST(PixelMath, Unorm8RoundTrip)
{
    for (int v = 0; v < 256; ++v)
        EXPECT_EQ(toUnorm8(unorm8(static_cast<std::uint32_t>(v))), v);
    EXPECT_EQ(toUnorm8(-1.0f), 0);
    EXPECT_EQ(toUnorm8(2.0f), 255);
}

struct Constant {
    Rgba value;
    Rgba at(int, int) const { return value; }
};

TEST(PixelStages, TonemapIsMonotonicAndBounded)
{
    const TonemapK k = prepared<Tonemap>({});
    float last = -1;
    for (float v = 0.0f; v < 16.0f; v += 0.25f) {
        const Rgba out = tonemapPixel(Constant{{v, v, v, 1}}, 0, 0, k);
        EXPECT_GE(out.r, last);
        EXPECT_LE(out.r, 1.0f);
        last = out.r;
    }
    EXPECT_EQ(tonemapPixel(Constant{{0, 0, 0, 1}}, 0, 0, k).r, 0.0f);
}

TEST(PixelStages, BlurWeightsSumToOneAndPreserveConstants)
{
    const BlurK k = prepared<Blur>({5, 2.0f});
    float sum = 0;
    for (int i = 0; i < 11; ++i)
        sum += k.weights[i];
    EXPECT_NEAR(sum, 1.0f, 1e-6f);
    const Rgba out = blurPixel(Constant{{0.5f, 0.25f, 1, 1}}, 3, 3, 1, 0, k);
    EXPECT_NEAR(out.r, 0.5f, 1e-6f);
    EXPECT_NEAR(out.b, 1.0f, 1e-6f);
}

TEST(PixelStages, BilateralKeepsDepthEdges)
{
    // Left half near (z=1, black), right half far (z=10, white): the filter must not mix them.
    const int w = 16, h = 4;
    std::vector<Rgba> color(w * h);
    std::vector<float> depth(w * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const bool near = x < w / 2;
            color[y * w + x] = near ? Rgba{0, 0, 0, 1} : Rgba{1, 1, 1, 1};
            depth[y * w + x] = near ? 1.0f : 10.0f;
        }
    const ImageView<const Rgba> src{color.data(), w, h, w};
    const ImageView<const float> z{depth.data(), w, h, w};
    const BilateralK k = prepared<Bilateral>({3, 2.0f, 0.02f});
    EXPECT_LT(bilateralPixel(src, z, w / 2 - 1, 1, k).r, 1e-3f);
    EXPECT_GT(bilateralPixel(src, z, w / 2, 1, k).r, 0.999f);
    // A plain blur would mix: the same place with a flat depth does.
    std::vector<float> flat(w * h, 5.0f);
    const ImageView<const float> zFlat{flat.data(), w, h, w};
    EXPECT_GT(bilateralPixel(src, zFlat, w / 2 - 1, 1, k).r, 0.2f);
}

TEST(PixelStages, SsaoDarkensACreaseNotAPlane)
{
    // A floor (normal +y) meeting a wall that rises towards the camera: pixels near the
    // crease are occluded; a lone plane is not.
    const int w = 64, h = 64;
    FrameInfo f;
    f.width = w;
    f.height = h;
    f.tanHalfFovX = f.tanHalfFovY = 0.5f;
    std::vector<float> planeDepth(w * h, 4.0f);
    std::vector<Rgba> normals(w * h, Rgba{0, 0, 1, 1});
    std::vector<Rgba> color(w * h, Rgba{1, 1, 1, 1});
    const ImageView<const Rgba> src{color.data(), w, h, w};
    const ImageView<const Rgba> n{normals.data(), w, h, w};
    const SsaoK k = prepared<Ssao>({12, 1.0f, 0.05f, 2.0f}, f);
    const ImageView<const float> plane{planeDepth.data(), w, h, w};
    EXPECT_GT(ssaoPixel(src, plane, n, 32, 32, k).r, 0.99f) << "a flat plane facing the camera";
    // Now a step: the right half is 0.5 closer, so it rises above the left half's surface.
    std::vector<float> stepDepth(w * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            stepDepth[y * w + x] = x < w / 2 ? 4.0f : 3.5f;
    const ImageView<const float> step{stepDepth.data(), w, h, w};
    EXPECT_LT(ssaoPixel(src, step, n, w / 2 - 2, 32, k).r, 0.9f) << "next to the step";
}

TEST(PixelStages, FxaaLeavesFlatAreasAndSoftensEdges)
{
    const int w = 8, h = 8;
    std::vector<Rgba> img(w * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            img[y * w + x] = (x + y < 8) ? Rgba{0, 0, 0, 1} : Rgba{1, 1, 1, 1};
    const ImageView<const Rgba> src{img.data(), w, h, w};
    const FxaaK k = prepared<Fxaa>({});
    const Rgba flat = fxaaPixel(src, 1, 1, k);
    EXPECT_EQ(flat.r, 0.0f);
    const Rgba edge = fxaaPixel(src, 4, 4, k); // on the diagonal staircase
    EXPECT_GT(edge.r, 0.0f);
    EXPECT_LT(edge.r, 1.0f);
}

TEST(PixelStages, FxaaSeesDarkEdgesAsTheEyeDoes)
{
    // Black against #303030 is a plain edge on screen (48 codes), but only 0.03 of light: a
    // luma of linear values stays under the 0.0312 minimum contrast and leaves it jagged. On a
    // perceptual luma (the square root) it is an edge of 0.17.
    const int w = 8, h = 8;
    const float grey = srgb8ToLinear(0x30);
    std::vector<Rgba> img(w * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            img[y * w + x] = (x + y < 8) ? Rgba{0, 0, 0, 1} : Rgba{grey, grey, grey, 1};
    const ImageView<const Rgba> src{img.data(), w, h, w};
    EXPECT_NEAR(luma(Rgba{grey, grey, grey, 1}), 0.172, 1e-3);
    EXPECT_NEAR(luma(Rgba{1, 1, 1, 1}), 1.0f, 1e-6f);
    const Rgba edge = fxaaPixel(src, 4, 4, prepared<Fxaa>({}));
    EXPECT_GT(edge.r, 0.0f) << "the edge is blended";
    EXPECT_LT(edge.r, grey);
}

TEST(PixelStages, ColourIsEncodedDataIsStoredAsItIs)
{
    const Rgba midGrey{srgb8ToLinear(128), srgb8ToLinear(128), srgb8ToLinear(128), 0.5f};
    const Rgba8 colour = encodePixel(midGrey);
    EXPECT_EQ(colour.r, 128);
    EXPECT_EQ(colour.a, 255) << "opaque";
    const Rgba8 data = storeDataPixel(Rgba{0.5f, 0.25f, 1.0f, 0.0f});
    EXPECT_EQ(data.r, 128);
    EXPECT_EQ(data.g, 64);
    EXPECT_EQ(data.b, 255);
    EXPECT_EQ(data.a, 255);
}

/// A one-colour G-buffer in host memory, as the host backend reads it back.
struct HostGBuffer {
    static constexpr int Width = 8, Height = 6;
    std::vector<std::uint8_t> color8;
    std::vector<std::uint16_t> color16;
    std::vector<float> depth = std::vector<float>(Width * Height, 2.0f);
    std::vector<std::uint16_t> normal = std::vector<std::uint16_t>(Width * Height * 4, 0);
    std::vector<std::uint32_t> id = std::vector<std::uint32_t>(Width * Height, 1u);

    /// Every pixel the 8-bit sRGB colour `c`, stored as the G-buffer stores it.
    explicit HostGBuffer(glm::u8vec3 c)
    {
        for (int i = 0; i < Width * Height; ++i)
            for (int k = 0; k < 4; ++k) {
                const float linear = k < 3 ? srgb8ToLinear(c[k]) : 1.0f;
                color8.push_back(k < 3 ? linearToSrgb8(linear) : 255);
                color16.push_back(floatToHalf(linear));
            }
    }
    interop::HostFrame frame(bool half) const
    {
        interop::HostFrame f;
        f.color = half ? static_cast<const void*>(color16.data()) : color8.data();
        f.colorIsHalf = half;
        f.depth = depth.data();
        f.normal = normal.data();
        f.id = id.data();
        f.width = Width;
        f.height = Height;
        return f;
    }
};

TEST(HostBackend, KnownColoursThroughNoneTonemapAndFxaa)
{
    HostBackend backend(2);
    for (const glm::u8vec3 c : test::ColourPatches)
        for (const bool half : {false, true}) {
            const HostGBuffer g(c);
            EXPECT_EQ(g.color8[0], c[0]) << "an RGBA8 target holds the file's bytes";
            for (const auto& [text, chain, exposure] :
                 {std::tuple{"none", test::ColourChain::None, 0.0},
                  std::tuple{"tonemap", test::ColourChain::Tonemap, 0.0},
                  std::tuple{"tonemap:exposure=-1,fxaa", test::ColourChain::Tonemap, -1.0}}) {
                PreparedChain prepared;
                prepared.prepare(parseChain(text).value(), FrameInfo{});
                const std::vector<std::uint8_t>& out = backend.process(prepared, g.frame(half));
                for (int k = 0; k < 3; ++k) {
                    const double expected = test::expectedColour(c[k], chain, exposure);
                    if (chain == test::ColourChain::None)
                        EXPECT_EQ(out[static_cast<std::size_t>(k)], c[k]) << text;
                    else
                        EXPECT_NEAR(out[static_cast<std::size_t>(k)], expected, 1.0)
                            << text << " of " << int(c[k]) << (half ? " (rgba16f)" : " (rgba8)");
                }
                EXPECT_EQ(out[3], 255);
            }
        }
}

} // namespace
} // namespace tandem::postfx
