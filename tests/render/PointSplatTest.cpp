// The point rasterizer's per-point functions (render/PointSplat.h), on the host: exact half
// conversion, the order of visibility keys, round footprints of the sizes asked for, world
// sizes shrinking with distance, and what a resolved pixel holds.
#include "engine/render/PointSplat.h"

#include "engine/render/GpuScene.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace tandem::render {
namespace {

/// A frame looking down -z from the origin (view = identity) with a simple perspective.
PointFrame lookDownZ(int width, int height, float sizePixels, float worldSize = 0.0f)
{
    PointFrame f{};
    const float focal = static_cast<float>(height) * 0.5f; // 90° vertical field of view
    const float aspect = static_cast<float>(width) / static_cast<float>(height);
    const float nearPlane = 0.1f, farPlane = 100.0f;
    // Row-major OpenGL perspective (tan(fovY/2) = 1).
    const float p[16] = {1.0f / aspect,
                         0,
                         0,
                         0,
                         0,
                         1,
                         0,
                         0,
                         0,
                         0,
                         -(farPlane + nearPlane) / (farPlane - nearPlane),
                         -2.0f * farPlane * nearPlane / (farPlane - nearPlane),
                         0,
                         0,
                         -1,
                         0};
    std::memcpy(f.viewProjection, p, sizeof p);
    const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    std::memcpy(f.view, identity, sizeof identity);
    f.lightDir[2] = 1.0f;
    f.width = width;
    f.height = height;
    f.sizePixels = sizePixels;
    f.worldSize = worldSize;
    f.focalPixels = focal;
    f.projection[0] = 1.0f / aspect;
    f.projection[1] = 1.0f;
    return f;
}

int coveredPixels(const PointFrame& f, const Projected& p)
{
    const SplatBox box = splatBox(f, p);
    int n = 0;
    for (int y = box.y0; y <= box.y1; ++y) {
        const SplatRow row = splatRow(p, box, y);
        for (int x = box.x0; x <= box.x1; ++x) {
            const bool covered = splatCovers(p, x, y);
            n += covered ? 1 : 0;
            EXPECT_TRUE(!covered || (x >= row.x0 && x <= row.x1))
                << "row " << y << " leaves out covered column " << x;
        }
    }
    return n;
}

TEST(PointSplat, FloatToHalfRoundsToNearestEven)
{
    // A spread of float bit patterns, every midpoint between neighbouring halves (and the
    // floats either side of it), and the edges, against the compiler's _Float16 conversion.
    int mismatches = 0;
    auto check = [&](std::uint32_t bits) {
        const float value = floatOf(bits);
        const _Float16 reference = static_cast<_Float16>(value);
        std::uint16_t expected;
        std::memcpy(&expected, &reference, 2);
        const std::uint16_t got = floatToHalf(value);
        if (std::isnan(value))
            mismatches += (got & 0x7c00u) == 0x7c00u && (got & 0x3ffu) != 0 ? 0 : 1;
        else if (got != expected && ++mismatches < 5)
            ADD_FAILURE() << "float bits " << std::hex << bits << ": " << got << " != " << expected;
    };
    for (std::uint64_t bits = 0; bits <= 0xffffffffu; bits += 1021)
        check(static_cast<std::uint32_t>(bits));
    for (std::uint32_t h = 0; h < 0x7c00u; ++h) {
        _Float16 lower, upper;
        const std::uint16_t lowerBits = static_cast<std::uint16_t>(h);
        const std::uint16_t upperBits = static_cast<std::uint16_t>(h + 1);
        std::memcpy(&lower, &lowerBits, 2);
        std::memcpy(&upper, &upperBits, 2);
        // Exact in float: halves have 11 significant bits, their midpoints 12.
        const float mid = (static_cast<float>(lower) + static_cast<float>(upper)) * 0.5f;
        for (float value : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
            check(bitsOf(value));
            check(bitsOf(-value));
        }
    }
    for (std::uint32_t bits : {0x477fefffu, 0x477ff000u, 0x33000000u, 0x33000001u, 0x387fe000u,
                               0x387ff000u, 0x80000000u, 0x7f800000u, 0xff800000u})
        check(bits);
    EXPECT_EQ(mismatches, 0);
}

TEST(PointSplat, KeysOrderByDepthThenIndex)
{
    EXPECT_LT(pointKey(1.0f, 7), pointKey(2.0f, 0)) << "nearer wins whatever the index";
    EXPECT_LT(pointKey(1.5f, 3), pointKey(1.5f, 4)) << "a tie goes to the lower index";
    EXPECT_LT(pointKey(1e-30f, 0xfffffffe), pointKey(1e30f, 0));
    EXPECT_LT(pointKey(1e30f, 0xfffffffe), EmptyPointKey) << "any point beats an empty pixel";
}

TEST(PointSplat, FootprintsAreRoundDiscsOfTheSizeAsked)
{
    const PointFrame f8 = lookDownZ(64, 64, 8.0f);
    const float centre[3] = {0.0f, 0.0f, -5.0f}; // the middle of the image, between pixels
    const Projected p = projectPoint(f8, centre);
    ASSERT_TRUE(p.visible);
    EXPECT_FLOAT_EQ(p.x, 32.0f);
    EXPECT_FLOAT_EQ(p.y, 32.0f);
    EXPECT_FLOAT_EQ(p.radius, 4.0f);
    // Pixel centres within 4 px of (32, 32): a disc of 52 pixels, not the 64 of its square.
    EXPECT_EQ(coveredPixels(f8, p), 52);
    EXPECT_FALSE(splatCovers(p, 28, 28)) << "the square's corner is outside the disc";
    EXPECT_TRUE(splatCovers(p, 28, 31));
    // One pixel: exactly the pixel holding the centre, wherever in it the centre falls.
    const PointFrame f1 = lookDownZ(64, 64, 1.0f);
    const float offCentre[3] = {0.33f * 5.0f / 32.0f, -0.2f * 5.0f / 32.0f, -5.0f};
    const Projected q = projectPoint(f1, offCentre);
    EXPECT_EQ(coveredPixels(f1, q), 1);
    EXPECT_TRUE(
        splatCovers(q, static_cast<int>(std::floor(q.x)), static_cast<int>(std::floor(q.y))));
    // Three pixels: the 3×3 block around a pixel centre.
    const PointFrame f3 = lookDownZ(64, 64, 3.0f);
    const float onPixel[3] = {0.5f * 5.0f / 32.0f, 0.5f * 5.0f / 32.0f, -5.0f};
    EXPECT_EQ(coveredPixels(f3, projectPoint(f3, onPixel)), 9);
}

TEST(PointSplat, WorldSizesShrinkWithDistance)
{
    const PointFrame f = lookDownZ(256, 256, 1.0f, 0.1f); // 0.1 world units across
    const float near[3] = {0.0f, 0.0f, -2.0f};
    const float far[3] = {0.0f, 0.0f, -8.0f};
    const Projected a = projectPoint(f, near), b = projectPoint(f, far);
    EXPECT_NEAR(a.radius, 0.5f * 0.1f * 128.0f / 2.0f, 1e-5f); // 3.2 px
    EXPECT_NEAR(b.radius, a.radius / 4.0f, 1e-5f);
    EXPECT_GT(coveredPixels(f, a), 4 * coveredPixels(f, b));
    // Never below one pixel across, never above the largest splat.
    const float veryFar[3] = {0.0f, 0.0f, -90.0f};
    EXPECT_FLOAT_EQ(projectPoint(f, veryFar).radius, 0.5f);
    const PointFrame huge = lookDownZ(256, 256, 1.0f, 50.0f);
    EXPECT_FLOAT_EQ(projectPoint(huge, near).radius, MaxSplatRadius);
}

TEST(PointSplat, PointsBehindTheCameraOrOffScreenAreNotDrawn)
{
    const PointFrame f = lookDownZ(64, 64, 3.0f);
    const float behind[3] = {0.0f, 0.0f, 1.0f};
    const float offScreen[3] = {20.0f, 0.0f, -1.0f};
    const float beyondFar[3] = {0.0f, 0.0f, -200.0f};
    EXPECT_FALSE(projectPoint(f, behind).visible);
    EXPECT_FALSE(projectPoint(f, offScreen).visible);
    EXPECT_FALSE(projectPoint(f, beyondFar).visible);
}

TEST(PointSplat, MeshDepthHidesPointsBehindIt)
{
    EXPECT_EQ(initialKey(0.0f), EmptyPointKey) << "no mesh there";
    EXPECT_LT(pointKey(3.0f, 5), initialKey(4.0f)) << "in front of the mesh";
    EXPECT_GT(pointKey(5.0f, 5), initialKey(4.0f)) << "behind it";
    EXPECT_LT(pointKey(4.0f, 0xfffffffeu), initialKey(4.0f)) << "as near: the point";
    EXPECT_EQ(static_cast<std::uint32_t>(initialKey(4.0f)), NoPointIndex);
    EXPECT_EQ(keyDepth(initialKey(4.0f)), 4.0f);
    EXPECT_EQ(keyDepth(pointKey(2.5f, 9)), 2.5f);
}

TEST(PointSplat, SplatRowsCoverEveryCoveredPixel)
{
    // Centres all over a pixel, radii from a pixel to the largest: coveredPixels() checks each
    // covered pixel lies in its row's range.
    const PointFrame f = lookDownZ(128, 128, 1.0f);
    for (float radius : {0.5f, 0.75f, 1.5f, 2.0f, 4.0f, 7.3f, 32.0f})
        for (float fx = 0.0f; fx < 1.0f; fx += 0.125f)
            for (float fy = 0.0f; fy < 1.0f; fy += 0.125f) {
                const Projected p{64.0f + fx, 64.0f + fy, 5.0f, radius, true};
                EXPECT_GE(coveredPixels(f, p), 1);
            }
}

TEST(PointSplat, OctahedralNormalsRoundTrip)
{
    float worst = 1.0f;
    for (float x = -1.0f; x <= 1.0f; x += 0.1f)
        for (float y = -1.0f; y <= 1.0f; y += 0.1f)
            for (float z : {-0.7f, -0.01f, 0.0f, 0.3f, 1.0f}) {
                const float length = std::sqrt(x * x + y * y + z * z);
                if (length < 1e-3f)
                    continue;
                const float n[3] = {x / length, y / length, z / length};
                float back[3];
                decodeOctahedral(encodeOctahedral(n[0], n[1], n[2]), back);
                worst = std::min(worst, n[0] * back[0] + n[1] * back[1] + n[2] * back[2]);
            }
    EXPECT_GT(worst, 0.99999f) << "within a few thousandths of a degree";
}

/// packAttributes() as first written, with branches: the selects must give the same bits.
PointAttributes packWithBranches(float x, float y, float z, std::uint32_t color,
                                 std::uint32_t flags)
{
    PointAttributes a{color & 0xffffffu, 0u};
    if (flags & 2u)
        a.color |= PointHasColor;
    if (!(flags & 4u) || !(std::sqrt(x * x + y * y + z * z) > 0.0f))
        return a;
    a.color |= PointHasNormal;
    const float l1 = std::fabs(x) + std::fabs(y) + std::fabs(z);
    float u = l1 > 0.0f ? x / l1 : 0.0f;
    float v = l1 > 0.0f ? y / l1 : 0.0f;
    if (z < 0.0f) {
        const float fu = (1.0f - std::fabs(v)) * (u >= 0.0f ? 1.0f : -1.0f);
        const float fv = (1.0f - std::fabs(u)) * (v >= 0.0f ? 1.0f : -1.0f);
        u = fu;
        v = fv;
    }
    const auto snorm = [](float t) {
        t = t > -1.0f ? t : -1.0f; // NaN: -1
        t = t < 1.0f ? t : 1.0f;
        return static_cast<std::uint32_t>(static_cast<int>(std::floor(t * 32767.0f + 0.5f)));
    };
    a.normal = (snorm(u) & 0xffffu) | (snorm(v) << 16);
    return a;
}

TEST(PointSplat, PackedAttributesAreTheBranchyDefinitions)
{
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> special = {0.0f,    -0.0f, 1.0f,   -1.0f, 0.5f, -0.3f, 1e-40f,
                                        -1e-40f, 1e30f, -1e30f, inf,   -inf, nan};
    std::size_t checked = 0;
    for (float x : special)
        for (float y : special)
            for (float z : special)
                for (std::uint32_t flags : {1u, 1u | 2u, 1u | 4u, 1u | 2u | 4u}) {
                    const PointAttributes got = packAttributes(x, y, z, 0x80c0ffeeu, flags);
                    const PointAttributes want = packWithBranches(x, y, z, 0x80c0ffeeu, flags);
                    ASSERT_EQ(got.color, want.color) << x << " " << y << " " << z << " " << flags;
                    ASSERT_EQ(got.normal, want.normal) << x << " " << y << " " << z << " " << flags;
                    ++checked;
                }
    EXPECT_EQ(checked, special.size() * special.size() * special.size() * 4);
}

TEST(PointSplat, ResolvedPixelsCarryThePointIdBitAndShading)
{
    const PointFrame f = lookDownZ(64, 64, 3.0f);
    const PointObject objects[2] = {{0, 24, 0, 6u}, {24, 100, 12, 1u | 2u}};
    EXPECT_EQ(objectOf(objects, 2, 23), 0);
    EXPECT_EQ(objectOf(objects, 2, 24), 1);
    EXPECT_EQ(objectOf(objects, 2, 124), -1);
    EXPECT_EQ(pointId(objects[1], 30), 12u + 6u + 1u);
    PointVertex v{};
    v.position[2] = -5.0f;
    v.color = 0xff0080ffu; // red 255, green 128, blue 0
    const PointAttributes a = packPoint(v, objects[1].flags);
    // The pixel at the image's centre looks straight down -z: the eye is at +z from it.
    const ResolvedPixel r = resolvePoint(f, a, 5.0f, 32, 32, pointId(objects[1], 30));
    EXPECT_EQ(r.id, PointIdBit | (12u + 6u + 1u));
    EXPECT_FLOAT_EQ(r.depth, 5.0f);
    // No normals: unlit, the vertex colour as is; the normal faces the eye.
    EXPECT_EQ(r.color8[0], 255);
    EXPECT_EQ(r.color8[1], 128);
    EXPECT_EQ(r.color8[2], 0);
    EXPECT_EQ(r.color8[3], 255);
    EXPECT_NEAR(halfToFloat(r.normal[2]), 1.0f, 1e-3f);
    // Without colours: the default grey.
    const ResolvedPixel grey = resolvePoint(f, packPoint(v, 1u), 5.0f, 32, 32, 1);
    EXPECT_EQ(grey.color8[0], toUnorm8(0.78f));
    // With a normal facing away, it is turned towards the eye and lit.
    v.normal[2] = -2.0f;
    const ResolvedPixel s = resolvePoint(f, packPoint(v, 1u | 2u | 4u), 5.0f, 32, 32, 1);
    EXPECT_NEAR(halfToFloat(s.normal[2]), 1.0f, 1e-3f) << "unit length, towards the eye";
    EXPECT_GE(s.color8[0], 254) << "light nearly straight on: nearly full colour";
    // An uncovered pixel without meshes: the background.
    PointFrame b = f;
    const float red[4] = {1.0f, 0.0f, 0.0f, 1.0f};
    setBackground(b, red);
    const ResolvedPixel empty = backgroundPixel(b);
    EXPECT_EQ(empty.color8[0], 255);
    EXPECT_EQ(empty.color8[1], 0);
    EXPECT_EQ(empty.id, 0u);
    EXPECT_EQ(empty.depth, 0.0f);
}

TEST(PointSplat, ColourIsLinearInsideAndTheFilesBytesOutside)
{
    // A point's bytes are sRGB: the resolve decodes them, lights linear colour and stores it as
    // the target holds it (RGBA8: sRGB-encoded again, RGBA16F: linear halves).
    PointFrame f = lookDownZ(64, 64, 3.0f);
    f.lightDir[0] = 0.0f;
    f.lightDir[1] = 0.0f;
    f.lightDir[2] = 1.0f;
    PointVertex v{};
    v.position[2] = -5.0f;
    v.color = 0xff808080u; // mid grey, sRGB 128
    const auto linear = [](double c) {
        return std::pow((c / 255.0 + 0.055) / 1.055, 2.4);
    };
    PointFrame half = f;
    half.colorIsHalf = 1;
    const ResolvedPixel unlit = resolvePoint(f, packPoint(v, 1u | 2u), 5.0f, 32, 32, 1);
    EXPECT_EQ(unlit.color8[0], 128) << "unlit: the file's byte";
    const ResolvedPixel unlitHalf = resolvePoint(half, packPoint(v, 1u | 2u), 5.0f, 32, 32, 1);
    EXPECT_NEAR(halfToFloat(unlitHalf.color16[0]), linear(128), 2e-4) << "linear light, 0.216";
    // Lit at a third of the head light's full diffuse term: half the light, in linear colour.
    // sRGB of half of 0.216 is 93 (halving the byte, as before colour was linear, gave 64).
    v.normal[0] = std::sqrt(8.0f) / 3.0f;
    v.normal[2] = 1.0f / 3.0f;
    const ResolvedPixel lit = resolvePoint(f, packPoint(v, 1u | 2u | 4u), 5.0f, 32, 32, 1);
    const double halfLight = linear(128) * 0.5;
    const double encoded = 255.0 * (1.055 * std::pow(halfLight, 1.0 / 2.4) - 0.055);
    EXPECT_NEAR(lit.color8[0], encoded, 0.6);
    const ResolvedPixel litHalf = resolvePoint(half, packPoint(v, 1u | 2u | 4u), 5.0f, 32, 32, 1);
    EXPECT_NEAR(halfToFloat(litHalf.color16[0]), halfLight, 2e-4);
    // The background: linear in the frame, stored encoded.
    const float dark[4] = {static_cast<float>(linear(0x17)), 0.0f, 0.0f, 1.0f};
    setBackground(f, dark);
    EXPECT_EQ(backgroundPixel(f).color8[0], 0x17);
    EXPECT_NEAR(halfToFloat(backgroundPixel(f).color16[0]), linear(0x17), 1e-5);
}

TEST(SceneMemory, ACloudTooLargeForTheGpuIsAnErrorNamingSizeAndLimit)
{
    Scene scene;
    io::MeshData cloud;
    cloud.positions.resize(1000);
    scene.objects.push_back({"cloud", cloud});
    const std::size_t needed = gpuBytesOf(scene);
    // 36 bytes a vertex, one provoking offset, one object record; no triangles.
    EXPECT_EQ(needed, 1000u * 36u + 4u + 16u);
    auto fits = checkGpuMemory(scene, needed);
    ASSERT_TRUE(fits);
    EXPECT_EQ(fits.value(), needed);
    EXPECT_TRUE(checkGpuMemory(scene, 0)) << "free memory unknown: no check";
    auto tooLarge = checkGpuMemory(scene, needed - 1);
    ASSERT_FALSE(tooLarge);
    EXPECT_NE(tooLarge.error().find("1000 vertices"), std::string::npos) << tooLarge.error();
    EXPECT_NE(tooLarge.error().find("needs 0.0 MiB"), std::string::npos) << tooLarge.error();
    EXPECT_NE(tooLarge.error().find("MiB free"), std::string::npos) << tooLarge.error();
}

} // namespace
} // namespace tandem::render
