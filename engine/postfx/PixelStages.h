// The per-pixel functions of every post-process stage, written once for the host and CUDA
// backends (TANDEM_HD), and the plain parameter blocks ("kernel params") they read, prepared
// on the host from the chain's Stage settings. Sources are accessors with at(x, y): ImageView
// on both sides, texture objects on the CUDA side. Rows run bottom to top (GL's order).
#pragma once

#include "engine/postfx/PixelMath.h"

namespace tandem::postfx {

inline constexpr int MaxBlurRadius = 16;
inline constexpr int MaxBilateralRadius = 8;
inline constexpr int MaxSsaoSamples = 16;

/// What the stages need to know about the frame's camera.
struct FrameInfo {
    int width = 0;                                       ///< pixels of the drawn region
    int height = 0;                                      ///< pixels
    float nearPlane = 0.1f;                              ///< view distance, for debug depth
    float farPlane = 100.0f;                             ///< view distance
    float tanHalfFovX = 0.5f;                            ///< tan(horizontal fov / 2)
    float tanHalfFovY = 0.5f;                            ///< tan(vertical fov / 2)
    float viewRotation[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}; ///< world→view, row-major 3×3
};

/// Builds the FrameInfo of a perspective camera: `fovY` in radians, `viewRotation` the
/// world→view 3×3 rotation, row-major.
inline FrameInfo makeFrameInfo(int width, int height, float nearPlane, float farPlane,
                               float tanHalfFovY, const float viewRotation[9])
{
    FrameInfo f;
    f.width = width;
    f.height = height;
    f.nearPlane = nearPlane;
    f.farPlane = farPlane;
    f.tanHalfFovY = tanHalfFovY;
    f.tanHalfFovX = tanHalfFovY * static_cast<float>(width) / static_cast<float>(height);
    for (int i = 0; i < 9; ++i)
        f.viewRotation[i] = viewRotation[i];
    return f;
}

/// What a stage's pixel function reads: its source (the previous stage's result or the G-buffer
/// colour) and the G-buffer's linear depth, normals and ids, each an accessor with at(x, y).
template <class Src, class Depth, class Normal, class Id> struct Inputs {
    Src src;
    Depth depth;
    Normal normal;
    Id id;
};

/// Inputs at or above this saturate the ACES fit (it reaches 1 near 10.4); clamped to it first,
/// so an infinite input is white, not NaN.
inline constexpr float TonemapMaxInput = 16.0f;

struct TonemapK {
    float exposureScale; ///< 2^exposure
};
struct BlurK {
    int radius;                           ///< taps each side
    float weights[2 * MaxBlurRadius + 1]; ///< normalised, index radius + offset
};
struct BilateralK {
    int radius;
    float spatial[2 * MaxBilateralRadius + 1]; ///< 1D Gaussian, index radius + offset
    float invSigmaDepth;                       ///< 1 / (relative depth sigma)
};
struct OutlineK {
    float invDepthThreshold;
    float invNormalThreshold;
    float strength;
    Rgba color;
};
struct SsaoK {
    int samples;
    float radius;                     ///< world units
    float bias;                       ///< cosine threshold
    float strength;                   ///< occlusion scale
    float offsets[MaxSsaoSamples][2]; ///< unit-disk sample pattern
    float rotations[16][2];           ///< per-pixel (4×4 tile) rotation cos/sin
    FrameInfo frame;
};
struct FxaaK {
    float edgeThreshold;
    float edgeThresholdMin;
    float span;
};
struct ViewK {
    float nearPlane;
    float farPlane;
};

// --- stages ---------------------------------------------------------------------------------

/// ACES filmic fit (Narkowicz 2015) of one channel.
TANDEM_HD float acesFit(float x)
{
    const float numerator = x * (2.51f * x + 0.03f);
    const float denominator = x * (2.43f * x + 0.59f) + 0.14f;
    return clampf(numerator / denominator, 0.0f, 1.0f);
}

/// The tone curve: linear colour in (clamped to [0, TonemapMaxInput]; NaN gives 0), linear
/// display colour in [0, 1] out. No display gamma: the chain's final store encodes sRGB, once.
/// A rational function, so exact on both backends (it once went through a table, when it ended
/// in a pow()).
TANDEM_HD float tonemapCurve(float x)
{
    return acesFit(clampf(x, 0.0f, TonemapMaxInput));
}

template <class Src> TANDEM_HD Rgba tonemapPixel(const Src& src, int x, int y, const TonemapK& k)
{
    const Rgba c = src.at(x, y);
    return {tonemapCurve(c.r * k.exposureScale), tonemapCurve(c.g * k.exposureScale),
            tonemapCurve(c.b * k.exposureScale), c.a};
}

/// One direction of the separable Gaussian: (dx, dy) is (1, 0) or (0, 1).
template <class Src>
TANDEM_HD Rgba blurPixel(const Src& src, int x, int y, int dx, int dy, const BlurK& k)
{
    Rgba sum = {0, 0, 0, 0};
    for (int i = -k.radius; i <= k.radius; ++i)
        sum = sum + src.at(x + i * dx, y + i * dy) * k.weights[i + k.radius];
    return sum;
}

/// Joint bilateral filter guided by linear depth: neighbours at a different depth (relative to
/// the centre) weigh less; background (depth 0) neither filters nor is sampled.
template <class Src, class Depth>
TANDEM_HD Rgba bilateralPixel(const Src& src, const Depth& depth, int x, int y, const BilateralK& k)
{
    const float z0 = depth.at(x, y);
    const Rgba centre = src.at(x, y);
    if (z0 <= 0.0f)
        return centre;
    const float scale = k.invSigmaDepth / z0;
    Rgba sum = {0, 0, 0, 0};
    float total = 0.0f;
    for (int dy = -k.radius; dy <= k.radius; ++dy)
        for (int dx = -k.radius; dx <= k.radius; ++dx) {
            const float z = depth.at(x + dx, y + dy);
            if (z <= 0.0f)
                continue;
            const float d = (z - z0) * scale;
            const float w =
                k.spatial[dx + k.radius] * k.spatial[dy + k.radius] * expHd(-0.5f * d * d);
            sum = sum + src.at(x + dx, y + dy) * w;
            total = total + w;
        }
    return total > 0.0f ? sum * (1.0f / total) : centre;
}

/// Edge detection: depth creases and silhouettes from the Laplacian of inverse depth (zero on
/// any plane, since 1/z is affine in screen space; background counts as 1/z = 0), and normal
/// creases from the Sobel gradient of the normals. An edge measure above its threshold blends
/// towards k.color, fully at twice the threshold.
template <class Src, class Depth, class Normal>
TANDEM_HD Rgba outlinePixel(const Src& src, const Depth& depth, const Normal& normal, int x, int y,
                            const OutlineK& k)
{
    const Rgba c = src.at(x, y);
    const float z0 = depth.at(x, y);
    const float w0 = z0 > 0.0f ? 1.0f / z0 : 0.0f;
    float neighbourSum = 0.0f;
    float zNearest = z0 > 0.0f ? z0 : 1e30f;
    float nGx[3] = {0, 0, 0}, nGy[3] = {0, 0, 0};
    for (int j = -1; j <= 1; ++j)
        for (int i = -1; i <= 1; ++i) {
            if (i == 0 && j == 0)
                continue;
            const float z = depth.at(x + i, y + j);
            neighbourSum = neighbourSum + (z > 0.0f ? 1.0f / z : 0.0f);
            if (z > 0.0f)
                zNearest = minf(zNearest, z);
            // Sobel weights: 1 on the diagonals, 2 on the axes.
            const float weight = (i == 0 || j == 0) ? 2.0f : 1.0f;
            const Rgba n = normal.at(x + i, y + j);
            const float gx = static_cast<float>(i) * weight;
            const float gy = static_cast<float>(j) * weight;
            nGx[0] = nGx[0] + gx * n.r;
            nGx[1] = nGx[1] + gx * n.g;
            nGx[2] = nGx[2] + gx * n.b;
            nGy[0] = nGy[0] + gy * n.r;
            nGy[1] = nGy[1] + gy * n.g;
            nGy[2] = nGy[2] + gy * n.b;
        }
    if (zNearest >= 1e30f)
        return c; // background all around
    // Relative to the nearest surface around, so a silhouette measures the same from both sides.
    const float depthEdge = absf(neighbourSum * 0.125f - w0) * zNearest;
    // Sobel sums span two pixels with weights 4: divide by 8 for a per-pixel gradient.
    const float normalEdge = sqrtf_hd(nGx[0] * nGx[0] + nGx[1] * nGx[1] + nGx[2] * nGx[2] +
                                      nGy[0] * nGy[0] + nGy[1] * nGy[1] + nGy[2] * nGy[2]) *
                             0.125f;
    const float edge =
        clampf(maxf(depthEdge * k.invDepthThreshold, normalEdge * k.invNormalThreshold) - 1.0f,
               0.0f, 1.0f);
    return lerp(c, Rgba{k.color.r, k.color.g, k.color.b, c.a}, edge * k.strength);
}

/// View-space position of pixel (x, y) at linear depth z (camera looks down -z).
TANDEM_HD void viewPosition(const FrameInfo& f, int x, int y, float z, float out[3])
{
    const float ndcX = (static_cast<float>(x) + 0.5f) / static_cast<float>(f.width) * 2.0f - 1.0f;
    const float ndcY = (static_cast<float>(y) + 0.5f) / static_cast<float>(f.height) * 2.0f - 1.0f;
    out[0] = ndcX * f.tanHalfFovX * z;
    out[1] = ndcY * f.tanHalfFovY * z;
    out[2] = -z;
}

/// Screen-space ambient occlusion: samples on a rotated disk of `radius` world units around the
/// pixel; a sample occludes when it lies above the surface (along the normal) and within the
/// radius.
template <class Src, class Depth, class Normal>
TANDEM_HD Rgba ssaoPixel(const Src& src, const Depth& depth, const Normal& normal, int x, int y,
                         const SsaoK& k)
{
    const Rgba c = src.at(x, y);
    const float z0 = depth.at(x, y);
    if (z0 <= 0.0f)
        return c;
    const FrameInfo& f = k.frame;
    float p[3];
    viewPosition(f, x, y, z0, p);
    const Rgba nw = normal.at(x, y);
    const float* r = f.viewRotation;
    const float n[3] = {r[0] * nw.r + r[1] * nw.g + r[2] * nw.b,
                        r[3] * nw.r + r[4] * nw.g + r[5] * nw.b,
                        r[6] * nw.r + r[7] * nw.g + r[8] * nw.b};
    // Disk radius in pixels at this depth.
    const float pixels = k.radius * static_cast<float>(f.height) * 0.5f / (z0 * f.tanHalfFovY);
    const int tile = (y & 3) * 4 + (x & 3);
    const float cr = k.rotations[tile][0], sr = k.rotations[tile][1];
    float occlusion = 0.0f;
    for (int i = 0; i < k.samples; ++i) {
        const float ox = k.offsets[i][0] * cr - k.offsets[i][1] * sr;
        const float oy = k.offsets[i][0] * sr + k.offsets[i][1] * cr;
        const int sx = x + static_cast<int>(floorHd(ox * pixels + 0.5f));
        const int sy = y + static_cast<int>(floorHd(oy * pixels + 0.5f));
        if (sx < 0 || sy < 0 || sx >= f.width || sy >= f.height)
            continue;
        const float zs = depth.at(sx, sy);
        if (zs <= 0.0f)
            continue;
        float s[3];
        viewPosition(f, sx, sy, zs, s);
        const float v[3] = {s[0] - p[0], s[1] - p[1], s[2] - p[2]};
        const float d2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        if (d2 <= 0.0f || d2 > k.radius * k.radius)
            continue;
        const float cosine = (v[0] * n[0] + v[1] * n[1] + v[2] * n[2]) / sqrtf_hd(d2);
        occlusion = occlusion + maxf(cosine - k.bias, 0.0f);
    }
    const float ao =
        clampf(1.0f - k.strength * occlusion / static_cast<float>(k.samples), 0.0f, 1.0f);
    return {c.r * ao, c.g * ao, c.b * ao, c.a};
}

/// Bilinear sample at continuous pixel coordinates (pixel centres at +0.5), clamped to edges.
template <class Src> TANDEM_HD Rgba sampleBilinear(const Src& src, float px, float py)
{
    const float fx = px - 0.5f;
    const float fy = py - 0.5f;
    const float x0f = floorHd(fx);
    const float y0f = floorHd(fy);
    const float tx = fx - x0f;
    const float ty = fy - y0f;
    const int x0 = static_cast<int>(x0f);
    const int y0 = static_cast<int>(y0f);
    const Rgba a = lerp(src.at(x0, y0), src.at(x0 + 1, y0), tx);
    const Rgba b = lerp(src.at(x0, y0 + 1), src.at(x0 + 1, y0 + 1), tx);
    return lerp(a, b, ty);
}

/// FXAA in the spirit of Lottes' original: find the local edge direction from the luma of the
/// diagonal neighbours, blend along it, and keep the wider blend only if its luma stays within
/// the neighbourhood's range. Edges are found on a perceptual luma (luma()), as the thresholds
/// expect; the blend mixes linear colour.
template <class Src> TANDEM_HD Rgba fxaaPixel(const Src& src, int x, int y, const FxaaK& k)
{
    const Rgba m = src.at(x, y);
    const float lumaM = luma(m);
    const float lumaN = luma(src.at(x, y + 1));
    const float lumaS = luma(src.at(x, y - 1));
    const float lumaE = luma(src.at(x + 1, y));
    const float lumaW = luma(src.at(x - 1, y));
    const float lumaMin = minf(lumaM, minf(minf(lumaN, lumaS), minf(lumaE, lumaW)));
    const float lumaMax = maxf(lumaM, maxf(maxf(lumaN, lumaS), maxf(lumaE, lumaW)));
    if (lumaMax - lumaMin < maxf(k.edgeThresholdMin, lumaMax * k.edgeThreshold))
        return m;
    const float lumaNW = luma(src.at(x - 1, y + 1));
    const float lumaNE = luma(src.at(x + 1, y + 1));
    const float lumaSW = luma(src.at(x - 1, y - 1));
    const float lumaSE = luma(src.at(x + 1, y - 1));
    float dirX = -((lumaNW + lumaNE) - (lumaSW + lumaSE));
    float dirY = (lumaNW + lumaSW) - (lumaNE + lumaSE);
    const float reduce =
        maxf((lumaNW + lumaNE + lumaSW + lumaSE) * (0.25f * 0.125f), 1.0f / 128.0f);
    const float rcpMin = 1.0f / (minf(absf(dirX), absf(dirY)) + reduce);
    dirX = clampf(dirX * rcpMin, -k.span, k.span);
    dirY = clampf(dirY * rcpMin, -k.span, k.span);
    const float cx = static_cast<float>(x) + 0.5f;
    const float cy = static_cast<float>(y) + 0.5f;
    const Rgba a =
        (sampleBilinear(src, cx + dirX * (1.0f / 3.0f - 0.5f), cy + dirY * (1.0f / 3.0f - 0.5f)) +
         sampleBilinear(src, cx + dirX * (2.0f / 3.0f - 0.5f), cy + dirY * (2.0f / 3.0f - 0.5f))) *
        0.5f;
    const Rgba b = a * 0.5f + (sampleBilinear(src, cx - dirX * 0.5f, cy - dirY * 0.5f) +
                               sampleBilinear(src, cx + dirX * 0.5f, cy + dirY * 0.5f)) *
                                  0.25f;
    const float lumaB = luma(b);
    const Rgba out = (lumaB < lumaMin || lumaB > lumaMax) ? a : b;
    return {out.r, out.g, out.b, m.a};
}

template <class Depth>
TANDEM_HD Rgba viewDepthPixel(const Depth& depth, int x, int y, const ViewK& k)
{
    const float z = depth.at(x, y);
    if (z <= 0.0f)
        return {0, 0, 0, 1};
    const float t = clampf((z - k.nearPlane) / (k.farPlane - k.nearPlane), 0.0f, 1.0f);
    const float v = 1.0f - 0.85f * t;
    return {v, v, v, 1};
}

template <class Normal> TANDEM_HD Rgba viewNormalPixel(const Normal& normal, int x, int y)
{
    const Rgba n = normal.at(x, y);
    if (n.a <= 0.0f)
        return {0, 0, 0, 1};
    return {n.r * 0.5f + 0.5f, n.g * 0.5f + 0.5f, n.b * 0.5f + 0.5f, 1};
}

template <class Id> TANDEM_HD Rgba viewIdPixel(const Id& id, int x, int y)
{
    const std::uint32_t v = id.at(x, y);
    if (v == 0u)
        return {0, 0, 0, 1};
    const std::uint32_t h = hashId(v);
    return {unorm8(h & 255u) * 0.8f + 0.2f, unorm8((h >> 8) & 255u) * 0.8f + 0.2f,
            unorm8((h >> 16) & 255u) * 0.8f + 0.2f, 1};
}

/// The final store: RGBA8 with alpha forced opaque.
struct Rgba8 {
    std::uint8_t r, g, b, a;
};
/// The final store of colour: linear colour to 8-bit sRGB, the one place the chain encodes.
TANDEM_HD Rgba8 encodePixel(Rgba c)
{
    return {linearToSrgb8(c.r), linearToSrgb8(c.g), linearToSrgb8(c.b), 255};
}
/// The final store of data shown as colour (the debug views' depth, normals, ids): the values
/// as they are, not sRGB-encoded, so a depth of 0.5 of the range is byte 128.
TANDEM_HD Rgba8 storeDataPixel(Rgba c)
{
    return {toUnorm8(c.r), toUnorm8(c.g), toUnorm8(c.b), 255};
}

} // namespace tandem::postfx
