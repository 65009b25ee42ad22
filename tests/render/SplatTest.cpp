// unit tier: the splat rasterizer's host twin (render::renderSplatsHost, the functions the CUDA
// pass runs) against an independent float64 reference of the 3DGS rasterizer's equations
// (SplatReference.h): a single Gaussian of known covariance, one rotated 45°, overlapping ones
// whose order decides the colour, one straddling the near plane, dense random scenes with SH of
// every degree, a scale modifier, a lowered SH degree, and surfaces in front of and behind the
// splats. Images must agree to ≥ 50 dB PSNR (8-bit codes, the reference quantized alike), median
// depths within float rounding. And the debug views: alpha, Gaussians a pixel, centres.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <gtest/gtest.h>

#include "engine/io/GaussianTransform.h"
#include "engine/render/SplatRaster.h"
#include "engine/render/detail/HostTargets.h"
#include "tests/render/SplatReference.h"
#include "tests/render/SplatScenes.h"

namespace tandem::render {
namespace {

using namespace splats;
using test::add;
using test::frontCamera;
using test::randomScene;

constexpr int Width = 96;
constexpr int Height = 64;

struct Twin {
    detail::HostTargets targets;
    std::vector<std::uint32_t> counts;
};

/// The host twin's frame of `g`; over `surface` (depth, and RGBA8 bytes) when given.
Twin renderTwin(const io::GaussianData& g, const SplatLook& look, const Camera& camera,
                bool half = false, const detail::HostTargets* surface = nullptr)
{
    const SplatArrays arrays = splatArrays(g);
    SplatLook l = look;
    l.storedDegree = g.shDegree;
    Twin twin;
    if (surface)
        twin.targets = *surface;
    renderSplatsHost(arrays.scene(),
                     makeSplatFrame(camera, Width, Height, half, l, surface != nullptr),
                     twin.targets, &twin.counts);
    return twin;
}

test::ReferenceImage renderReference(const io::GaussianData& g, const SplatLook& look,
                                     const Camera& camera,
                                     const test::ReferenceSurface& surface = {})
{
    double background[4];
    for (int c = 0; c < 3; ++c)
        background[c] = look.background[c] / 255.0;
    background[3] = 1.0;
    return test::renderSplatsReference(g, camera, look.model, Width, Height, look.scaleModifier,
                                       look.shDegree, background, surface);
}

std::uint8_t code(double v)
{
    return static_cast<std::uint8_t>(std::floor(std::clamp(v, 0.0, 1.0) * 255.0 + 0.5));
}

/// PSNR of the twin's RGB bytes against the reference quantized alike (infinity when equal).
double psnr(const Twin& twin, const test::ReferenceImage& reference)
{
    double squared = 0.0;
    const std::size_t pixels = static_cast<std::size_t>(Width) * Height;
    for (std::size_t p = 0; p < pixels; ++p)
        for (int c = 0; c < 3; ++c) {
            const double d = (static_cast<double>(twin.targets.color[p * 4 + c]) -
                              code(reference.rgba[p * 4 + c])) /
                             255.0;
            squared += d * d;
        }
    const double mse = squared / static_cast<double>(pixels * 3);
    return mse == 0.0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(1.0 / mse);
}

/// Pixels covered by Gaussians (the reference's count > 0).
std::size_t covered(const test::ReferenceImage& reference)
{
    std::size_t n = 0;
    for (const std::uint32_t c : reference.count)
        n += c > 0 ? 1 : 0;
    return n;
}

void expectMatches(const io::GaussianData& g, const SplatLook& look, const std::string& what,
                   const Camera& camera = frontCamera())
{
    const Twin twin = renderTwin(g, look, camera);
    const test::ReferenceImage reference = renderReference(g, look, camera);
    ASSERT_GT(covered(reference), 0u) << what << ": the scene must draw something";
    const double db = psnr(twin, reference);
    EXPECT_GE(db, 50.0) << what;
    // Median depths: where both found one, equal within float rounding; found at the same
    // pixels but a handful at T's 0.5 boundary.
    std::size_t depths = 0, disagree = 0;
    for (std::size_t p = 0; p < reference.depth.size(); ++p) {
        const double want = reference.depth[p];
        const float got = twin.targets.depth[p];
        if ((want > 0.0) != (got > 0.0f)) {
            ++disagree;
            continue;
        }
        if (want > 0.0) {
            ++depths;
            EXPECT_NEAR(got, want, 1e-5 * want) << what << " pixel " << p;
        }
    }
    EXPECT_LE(disagree, depths / 200 + 2) << what;
    std::printf("[ %s: %.1f dB, %zu median depths, %zu at the boundary ]\n", what.c_str(), db,
                depths, disagree);
}

TEST(Splats, OneGaussianHasTheCovarianceOfItsScale)
{
    // Isotropic σ = 0.1 straight ahead at depth 5: the 2D covariance is (f σ / 5)² + 0.3 on the
    // diagonal, 0 off it, centred where the view axis meets the image.
    io::GaussianData g;
    add(g, {0.0f, 0.0f, 0.0f}, glm::vec3(0.1f), glm::quat(1, 0, 0, 0), 0.8f, {0.9f, 0.2f, 0.1f});
    const SplatArrays arrays = splatArrays(g);
    SplatLook look;
    look.storedDegree = 0;
    const SplatFrame f = makeSplatFrame(frontCamera(), Width, Height, false, look, false);
    ProjectedSplat p{};
    const GaussianIn in{arrays.positions.data(), arrays.scales.data(), arrays.rotations.data(),
                        arrays.opacities[0], arrays.sh.data()};
    const Footprint fp = projectGaussian(f, in, 0, p);
    ASSERT_TRUE(fp.visible);
    const double focal = Height / (2.0 * std::tan(25.0 * M_PI / 180.0));
    const double variance = std::pow(focal * 0.1 / 5.0, 2) + 0.3;
    // power = -(dx² + dy²) / (2 variance)
    EXPECT_NEAR(p.power[0], -0.5 / variance, 1e-6 / variance);
    EXPECT_NEAR(p.power[2], -0.5 / variance, 1e-6 / variance);
    EXPECT_NEAR(p.power[1], 0.0, 1e-9);
    EXPECT_FLOAT_EQ(p.x, (Width - 1) / 2.0f);
    EXPECT_FLOAT_EQ(p.y, (Height - 1) / 2.0f);
    EXPECT_FLOAT_EQ(p.depth, 5.0f);
    EXPECT_NEAR(p.color[0], 0.9f, 1e-6);
    EXPECT_NEAR(p.color[1], 0.2f, 1e-6);
    // The box reaches where α = 1/255, √(2 ln(255 · 0.8) variance), and a rounding margin.
    const double reach = std::sqrt(2.0 * std::log(255.0 * 0.8) * variance) * BinSlack + BinMargin;
    EXPECT_EQ(fp.x1, static_cast<int>(std::floor((Width - 1) / 2.0 + reach)));
    EXPECT_EQ(fp.x0, static_cast<int>(std::floor((Width - 1) / 2.0 - reach)) + 1);
    expectMatches(g, look, "one Gaussian");
}

TEST(Splats, RotatedFortyFiveDegreesLeansItsFootprint)
{
    io::GaussianData g;
    add(g, {0.0f, 0.0f, 0.0f}, {0.4f, 0.05f, 0.05f},
        glm::angleAxis(glm::radians(45.0f), glm::vec3(0, 0, 1)), 0.9f, {0.2f, 0.7f, 0.9f});
    const SplatArrays arrays = splatArrays(g);
    SplatLook look;
    const SplatFrame f = makeSplatFrame(frontCamera(), Width, Height, false, look, false);
    ProjectedSplat p{};
    const GaussianIn in{arrays.positions.data(), arrays.scales.data(), arrays.rotations.data(),
                        arrays.opacities[0], arrays.sh.data()};
    ASSERT_TRUE(projectGaussian(f, in, 0, p).visible);
    // Long along x = y: the power falls alike along x and y, and falls slower along the diagonal
    // (p1 > 0: the conic's b is negative, the inverse of a positive covariance of x and y).
    EXPECT_NEAR(p.power[0], p.power[2], 1e-5 * -p.power[0]);
    EXPECT_GT(p.power[1], -p.power[0]);
    expectMatches(g, look, "rotated 45 degrees");
}

TEST(Splats, OrderDecidesTheColourOfOverlaps)
{
    // Red nearer than blue, then blue nearer than red; listed in the same order each time.
    for (const bool redInFront : {true, false}) {
        io::GaussianData g;
        add(g, {0.05f, 0.0f, redInFront ? 0.5f : -0.5f}, glm::vec3(0.3f), glm::quat(1, 0, 0, 0),
            0.9f, {1.0f, 0.0f, 0.0f});
        add(g, {-0.05f, 0.0f, redInFront ? -0.5f : 0.5f}, glm::vec3(0.3f), glm::quat(1, 0, 0, 0),
            0.9f, {0.0f, 0.0f, 1.0f});
        SplatLook look;
        const Twin twin = renderTwin(g, look, frontCamera());
        const std::size_t centre = static_cast<std::size_t>(Height / 2) * Width + Width / 2;
        const std::uint8_t red = twin.targets.color[centre * 4],
                           blue = twin.targets.color[centre * 4 + 2];
        if (redInFront)
            EXPECT_GT(red, 200 + blue / 10) << "red in front";
        else
            EXPECT_GT(blue, 200 + red / 10) << "blue in front";
        expectMatches(g, look, redInFront ? "red over blue" : "blue over red");
    }
}

TEST(Splats, TheNearDepthCullsByTheCentre)
{
    // Large Gaussians whose centres sit just either side of the 0.2 near depth: only the far one
    // is drawn, though both reach far across the image.
    for (const float depth : {0.19f, 0.21f}) {
        io::GaussianData g;
        add(g, {0.0f, 0.0f, 5.0f - depth}, glm::vec3(0.05f), glm::quat(1, 0, 0, 0), 0.5f,
            {0.8f, 0.8f, 0.2f});
        add(g, {0.3f, 0.1f, 0.0f}, glm::vec3(0.2f), glm::quat(1, 0, 0, 0), 0.7f,
            {0.1f, 0.6f, 0.3f});
        SplatLook look;
        const Twin twin = renderTwin(g, look, frontCamera());
        std::uint32_t mostBlended = 0;
        for (const std::uint32_t c : twin.counts)
            mostBlended = std::max(mostBlended, c);
        EXPECT_EQ(mostBlended, depth < 0.2f ? 1u : 2u) << "centre at depth " << depth;
        expectMatches(g, look,
                      depth < 0.2f ? "centre before the near depth" : "straddling the near depth");
    }
}

TEST(Splats, DenseScenesOfEveryShDegreeMatchTheReference)
{
    for (int degree = 0; degree <= 3; ++degree) {
        const io::GaussianData g = randomScene(1500, degree, 7u + static_cast<unsigned>(degree));
        SplatLook look;
        expectMatches(g, look, "1500 Gaussians, SH degree " + std::to_string(degree));
    }
    // Seen from the side and above (directions unlike the first), with the SH slider lowered to 1,
    // a scale modifier and a model turned upside down (a COLMAP scene stood up).
    const io::GaussianData g = randomScene(1500, 3, 99u);
    Camera side;
    side.eye = {3.5f, 2.0f, 3.0f};
    side.fovY = 60.0f;
    SplatLook look;
    look.shDegree = 1;
    look.scaleModifier = 0.7f;
    look.model = glm::rotate(glm::mat4(1.0f), glm::radians(180.0f), glm::vec3(1, 0, 0));
    expectMatches(g, look, "side view, SH 1 of 3, scale 0.7, turned", side);
}

TEST(Splats, ASurfaceInFrontHidesThemAndOneBehindShowsThrough)
{
    io::GaussianData g;
    add(g, {0.0f, 0.0f, 0.0f}, glm::vec3(0.25f), glm::quat(1, 0, 0, 0), 0.7f, {0.9f, 0.1f, 0.1f});
    const std::size_t pixels = static_cast<std::size_t>(Width) * Height;
    for (const float surfaceDepth : {4.0f, 6.0f}) { // the Gaussian is at depth 5
        detail::HostTargets surface;
        surface.resize(pixels, false);
        surface.depth.assign(pixels, surfaceDepth);
        surface.id.assign(pixels, 7u);
        test::ReferenceSurface under;
        under.depth.assign(pixels, surfaceDepth);
        for (std::size_t p = 0; p < pixels; ++p) {
            const std::uint8_t rgba[4] = {20, 180, 40, 255};
            std::memcpy(surface.color.data() + p * 4, rgba, 4);
            for (int c = 0; c < 4; ++c)
                under.rgba.push_back(rgba[c] / 255.0);
        }
        SplatLook look;
        const Twin twin = renderTwin(g, look, frontCamera(), false, &surface);
        const test::ReferenceImage reference = renderReference(g, look, frontCamera(), under);
        EXPECT_GE(psnr(twin, reference), 50.0) << "surface at " << surfaceDepth;
        const std::size_t centre = static_cast<std::size_t>(Height / 2) * Width + Width / 2;
        if (surfaceDepth < 5.0f) {
            // Nothing of the Gaussian: the targets are exactly the surface's.
            EXPECT_EQ(std::memcmp(twin.targets.color.data(), surface.color.data(), pixels * 4), 0);
            EXPECT_EQ(twin.targets.depth, surface.depth);
            EXPECT_EQ(twin.targets.id, surface.id);
        } else {
            // Red over green, the green seen through T; the splat's median depth and id at the
            // centre, the surface's where the Gaussian is faint.
            EXPECT_GT(twin.targets.color[centre * 4], 150);
            EXPECT_GT(twin.targets.color[centre * 4 + 1], 40);
            EXPECT_FLOAT_EQ(twin.targets.depth[centre], 5.0f);
            EXPECT_EQ(twin.targets.id[centre], SplatIdBit | 1u);
            EXPECT_EQ(twin.targets.depth[0], surfaceDepth);
            EXPECT_EQ(twin.targets.id[0], 7u);
        }
    }
}

TEST(Splats, TheHeatMapRisesAnOctaveAStepAndSaturates)
{
    float previous[3] = {-1.0f, -1.0f, -1.0f};
    float rgb[3];
    heatColor(0, rgb);
    EXPECT_EQ(rgb[0], 0.0f); // nothing: black
    EXPECT_EQ(rgb[1], 0.0f);
    EXPECT_EQ(rgb[2], 0.0f);
    for (std::uint32_t count = 0; count <= HeatSaturation; ++count) {
        heatColor(count, rgb);
        const float brightness = rgb[0] + rgb[1] + rgb[2];
        EXPECT_GT(brightness, previous[0] + previous[1] + previous[2]) << count << " Gaussians";
        std::copy(rgb, rgb + 3, previous);
    }
    EXPECT_EQ(rgb[0], 1.0f); // 255: yellow-white
    EXPECT_EQ(rgb[2], 0.75f);
    float beyond[3];
    heatColor(100000u, beyond);
    EXPECT_TRUE(std::equal(rgb, rgb + 3, beyond)) << "saturated beyond 255";
    heatColor(3, rgb); // 1 + 3 = 4: two octaves, t = 0.25, the second stop exactly
    EXPECT_EQ(rgb[0], 0.15f);
    EXPECT_EQ(rgb[2], 0.55f);
}

TEST(Splats, DebugViewsShowAlphaCountsAndCentres)
{
    // Two Gaussians straight ahead (the nearer one green, opacity 0.6; the farther red, 0.5),
    // over a surface behind them: the alpha view is their own 1 - T without the surface, the
    // count view the heat of two, the centres view a dot of the nearer one's colour at the
    // centre and the surface elsewhere.
    io::GaussianData g;
    add(g, {0.0f, 0.0f, 0.0f}, glm::vec3(0.3f), glm::quat(1, 0, 0, 0), 0.5f, {0.9f, 0.1f, 0.1f});
    add(g, {0.0f, 0.0f, 0.5f}, glm::vec3(0.3f), glm::quat(1, 0, 0, 0), 0.6f, {0.1f, 0.9f, 0.1f});
    const std::size_t pixels = static_cast<std::size_t>(Width) * Height;
    detail::HostTargets surface;
    surface.resize(pixels, false);
    surface.depth.assign(pixels, 8.0f);
    surface.id.assign(pixels, 7u);
    for (std::size_t p = 0; p < pixels; ++p) {
        const std::uint8_t rgba[4] = {20, 40, 180, 255};
        std::memcpy(surface.color.data() + p * 4, rgba, 4);
    }
    const std::size_t centre = static_cast<std::size_t>(Height / 2) * Width + Width / 2;
    SplatLook look;
    const Twin plain = renderTwin(g, look, frontCamera(), false, &surface);

    look.debug = SplatDebugAlpha;
    const Twin alpha = renderTwin(g, look, frontCamera(), false, &surface);
    // 1 - (1 - α₁)(1 - α₂) at the centre, as grey, each α as the view shows it for its Gaussian
    // alone (0.486 and 0.586 there); 0 where no Gaussian reaches.
    double alone[2];
    for (int i = 0; i < 2; ++i) {
        io::GaussianData one;
        add(one, g.positions[i], g.scales[i], g.rotations[i], g.opacities[i], {0.5f, 0.5f, 0.5f});
        alone[i] =
            renderTwin(one, look, frontCamera(), false, &surface).targets.color[centre * 4] / 255.0;
        EXPECT_GT(alone[i], g.opacities[i] - 0.02) << i;
        EXPECT_LE(alone[i], g.opacities[i] + 0.002) << i;
    }
    const double both = 1.0 - (1.0 - alone[0]) * (1.0 - alone[1]);
    EXPECT_NEAR(alpha.targets.color[centre * 4], both * 255.0, 1.0);
    EXPECT_EQ(alpha.targets.color[centre * 4], alpha.targets.color[centre * 4 + 2]);
    EXPECT_EQ(alpha.targets.color[0], 0);
    EXPECT_EQ(alpha.targets.color[3], 255);
    // Depth and ids as the composited frame's: the channels still describe the scene.
    EXPECT_EQ(alpha.targets.depth, plain.targets.depth);
    EXPECT_EQ(alpha.targets.id, plain.targets.id);

    look.debug = SplatDebugCount;
    const Twin count = renderTwin(g, look, frontCamera(), false, &surface);
    ASSERT_EQ(count.counts[centre], 2u);
    float heat[3];
    heatColor(2, heat);
    for (int c = 0; c < 3; ++c)
        EXPECT_EQ(count.targets.color[centre * 4 + c], toUnorm8(heat[c])) << c;
    EXPECT_EQ(count.targets.color[0], 0); // none: black

    look.debug = SplatDebugCentres;
    const Twin centres = renderTwin(g, look, frontCamera(), false, &surface);
    // The nearer (green) dot, α 0.99 over the red one's: green.
    EXPECT_GT(centres.targets.color[centre * 4 + 1], 200);
    EXPECT_LT(centres.targets.color[centre * 4], 40);
    std::size_t dotted = 0;
    for (std::size_t p = 0; p < pixels; ++p)
        if (std::memcmp(centres.targets.color.data() + p * 4, surface.color.data() + p * 4, 4) != 0)
            ++dotted;
    // A dot of radius 1 px: at most the 3 × 3 pixels around the centre, the rest the surface
    // (where the plain frame shows the Gaussians over hundreds of pixels).
    EXPECT_GE(dotted, 1u);
    EXPECT_LE(dotted, 9u);
    std::size_t covered = 0;
    for (std::size_t p = 0; p < pixels; ++p)
        covered += plain.counts[p] > 0 ? 1 : 0;
    EXPECT_GT(covered, 100u);
}

TEST(Splats, HalfTargetsHoldTheSameImage)
{
    const io::GaussianData g = randomScene(800, 2, 3u);
    SplatLook look;
    const Twin bytes = renderTwin(g, look, frontCamera(), false);
    const Twin halves = renderTwin(g, look, frontCamera(), true);
    const auto* h = reinterpret_cast<const std::uint16_t*>(halves.targets.color.data());
    int worst = 0;
    for (std::size_t i = 0; i < bytes.targets.color.size(); ++i) {
        const int fromHalf = toUnorm8(linearToSrgb(halfToFloat(h[i])));
        worst = std::max(worst, std::abs(fromHalf - static_cast<int>(bytes.targets.color[i])));
    }
    EXPECT_LE(worst, 1) << "RGBA16F holds the RGBA8 image within a code";
    EXPECT_EQ(bytes.targets.depth, halves.targets.depth);
    EXPECT_EQ(bytes.counts, halves.counts);
}

TEST(Splats, UnusableGaussiansAreCulledNotDrawn)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    io::GaussianData g;
    add(g, {nan, 0.0f, 0.0f}, glm::vec3(0.1f), glm::quat(1, 0, 0, 0), 0.9f, {1, 1, 1});
    add(g, {0.0f, 0.0f, 0.0f}, glm::vec3(inf), glm::quat(1, 0, 0, 0), 0.9f, {1, 1, 1});
    add(g, {0.0f, 0.0f, 0.0f}, glm::vec3(nan), glm::quat(1, 0, 0, 0), 0.9f, {1, 1, 1});
    add(g, {0.0f, 0.0f, 0.0f}, glm::vec3(0.1f), glm::quat(1, 0, 0, 0), nan, {1, 1, 1});
    add(g, {0.0f, 0.0f, 0.0f}, glm::vec3(0.1f), glm::quat(1, 0, 0, 0), 0.001f, {1, 1, 1});
    g.rotations.push_back(glm::quat(0, 0, 0, 0)); // a zero rotation, set raw
    g.positions.push_back({0, 0, 0});
    g.scales.push_back(glm::vec3(0.1f));
    g.opacities.push_back(0.9f);
    g.sh.insert(g.sh.end(), {1, 1, 1});
    const Twin twin = renderTwin(g, SplatLook{}, frontCamera());
    for (const std::uint32_t c : twin.counts)
        ASSERT_EQ(c, 0u);
    // And the frame is the background.
    EXPECT_EQ(twin.targets.color[0], 0x17);
    EXPECT_EQ(twin.targets.color[2], 0x1c);
}

TEST(Splats, ATurnedSceneSeenByATurnedCameraLooksTheSame)
{
    // A turn that is no symmetry of anything here: its SH, of every degree, must turn with it.
    const glm::dmat3 turn = glm::dmat3(glm::mat3_cast(glm::normalize(
        glm::angleAxis(glm::radians(137.0f), glm::normalize(glm::vec3(0.3f, -0.8f, 0.5f))))));
    for (int degree = 1; degree <= 3; ++degree) {
        const io::GaussianData g = randomScene(1500, degree, 50u + static_cast<unsigned>(degree));
        io::GaussianData turned = g;
        io::turnGaussians(turned, turn);
        // Colour in direction R d after turning equals colour in d before, per Gaussian.
        double worst = 0.0;
        const int n = io::shCoefficients(degree);
        for (std::size_t i = 0; i < 50; ++i) {
            const glm::dvec3 d =
                glm::normalize(glm::dvec3(g.positions[i]) + glm::dvec3(0.1, 0.2, 3.0));
            const glm::dvec3 rd = turn * d;
            float a[3], b[3];
            const float fd[3] = {float(d.x), float(d.y), float(d.z)};
            const float frd[3] = {float(rd.x), float(rd.y), float(rd.z)};
            shColor(g.sh.data() + i * n * 3, degree, fd, a);
            shColor(turned.sh.data() + i * n * 3, degree, frd, b);
            for (int c = 0; c < 3; ++c)
                worst = std::max(worst, double(std::abs(a[c] - b[c])));
        }
        EXPECT_LT(worst, 2e-5) << "SH degree " << degree;
        // The image, through the host rasterizer, from a camera turned alike.
        Camera camera = frontCamera();
        Camera turnedCamera = camera;
        turnedCamera.eye = glm::vec3(turn * glm::dvec3(camera.eye));
        turnedCamera.target = glm::vec3(turn * glm::dvec3(camera.target));
        turnedCamera.up = glm::vec3(turn * glm::dvec3(camera.up));
        SplatLook look;
        const Twin before = renderTwin(g, look, camera);
        const Twin after = renderTwin(turned, look, turnedCamera);
        double squared = 0.0;
        for (std::size_t p = 0; p < before.targets.color.size(); ++p) {
            const double d = (before.targets.color[p] - after.targets.color[p]) / 255.0;
            squared += p % 4 == 3 ? 0.0 : d * d;
        }
        const double db =
            10.0 * std::log10(before.targets.color.size() * 0.75 / std::max(squared, 1e-30));
        EXPECT_GE(db, 50.0) << "SH degree " << degree;
    }
}

TEST(Splats, TurningHalfWayRoundXFlipsTheTermsOddInYAndZ)
{
    // COLMAP's y down shown y up: 180° about x negates y and z, and the SH terms odd in them.
    io::GaussianData g = randomScene(10, 3, 4u);
    io::GaussianData turned = g;
    io::turnGaussians(turned, glm::dmat3(1, 0, 0, 0, -1, 0, 0, 0, -1));
    const int flipped[] = {1, 2, 4, 7, 9, 11, 12, 14}; // coefficient indices (0 = DC)
    for (std::size_t i = 0; i < g.count(); ++i) {
        EXPECT_NEAR(turned.positions[i].y, -g.positions[i].y, 1e-6);
        EXPECT_NEAR(turned.positions[i].z, -g.positions[i].z, 1e-6);
        for (int k = 0; k < 16; ++k) {
            const bool flips =
                std::find(std::begin(flipped), std::end(flipped), k) != std::end(flipped);
            for (int c = 0; c < 3; ++c)
                EXPECT_NEAR(turned.sh[(i * 16 + k) * 3 + c],
                            (flips ? -1.0f : 1.0f) * g.sh[(i * 16 + k) * 3 + c], 1e-5)
                    << "coefficient " << k;
        }
    }
}

TEST(Splats, StagedOwnerDividesExactlyForEveryStride)
{
    // The CUDA projection stages a block's coefficients and finds each float's Gaussian without
    // an integer division; every stride up to SH 3's 48 floats, every index a block can hold.
    for (std::uint32_t stride = 1; stride <= 48; ++stride) {
        const float inverse = 1.0f / static_cast<float>(stride);
        std::uint32_t wrong = 0;
        for (std::uint32_t k = 0; k < (1u << 16); ++k)
            wrong += stagedOwner(k, inverse) != k / stride ? 1u : 0u;
        EXPECT_EQ(wrong, 0u) << "stride " << stride;
    }
}

} // namespace
} // namespace tandem::render
