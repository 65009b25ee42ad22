// The shared per-pixel arithmetic: approximations accurate enough for 8-bit output, exact
// conversions, and the per-pixel stage functions on small hand-made images.
#include "engine/postfx/PixelStages.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <vector>

#include <gtest/gtest.h>

#include "engine/postfx/Stages.h"

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

/// The tonemap stage's curve at its defaults.
std::vector<float> defaultCurve()
{
    return Tonemap::table(Stage::make(findStage("tonemap")).params.data());
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

TEST(PixelStages, TonemapCurveMatchesTheFormula)
{
    // ACES fit then gamma 2.2, in double precision, against the table the stages read.
    const std::vector<float> table = defaultCurve();
    double worst = 0;
    for (int i = 0; i <= 200000; ++i) {
        const double x = 20.0 * i / 200000.0;
        const double xc = std::min(x, 16.0);
        const double aces =
            std::clamp((xc * (2.51 * xc + 0.03)) / (xc * (2.43 * xc + 0.59) + 0.14), 0.0, 1.0);
        const double exact = std::pow(aces, 1.0 / 2.2);
        worst =
            std::max(worst, std::abs(tonemapCurve(static_cast<float>(x), table.data()) - exact));
    }
    EXPECT_LT(worst, 1e-4) << "well under half an 8-bit step";
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
    const std::vector<float> table = defaultCurve();
    TonemapK k = prepared<Tonemap>({});
    k.table = table.data();
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

} // namespace
} // namespace tandem::postfx
