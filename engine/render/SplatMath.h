// The per-Gaussian and per-pixel functions of the splat rasterizer, written once for the CUDA pass
// and its host twin (TANDEM_HD), following the 3DGS reference rasterizer's rules
// (../shared/REFERENCES.md) so trained scenes look as they did in training:
//   project  cull at view depth <= 0.2; 2D covariance J W R S Sᵀ Rᵀ Wᵀ Jᵀ (EWA, x/z and y/z clamped
//            to 1.3 tan(half fov) in J) + 0.3 on the diagonal; colour from real SH up to degree
//            3 in the direction from the eye to the mean, + 0.5, clamped at 0;
//   blend    per pixel front to back: α = min(0.99, opacity e^power), skipped below 1/255,
//            stopping before T would fall below 1e-4; C += colour α T; T *= 1 - α.
// One rule is kept without the reference's tiling: a Gaussian reaches exactly the pixels where its
// α is at least 1/255 (the reference stops at the 16-pixel tiles its 3σ circle touches, so past
// 3σ only Gaussians of opacity > 0.35 differ, by at most 0.33σ, with α < 0.011). The image then
// does not depend on how pixels are binned, which lets the sort and the tiles change for speed.
// Colours blend in the space the Gaussians were trained in (sRGB-encoded values); the surface a
// mesh or point left is seen through the remaining transmittance, and a Gaussian whose centre is
// behind that surface does not contribute. Exact arithmetic only (core/ExactMath.h), so both
// sides compute the same bits. Plain data, no GL, no CUDA include.
#pragma once

#include <cstdint>

#include "engine/core/ExactMath.h"
#include "engine/core/Srgb.h"

namespace tandem::render::splats {

inline constexpr float NearDepth = 0.2f;         ///< view depth at or below which a Gaussian culls
inline constexpr float LowPass = 0.3f;           ///< added to the 2D covariance's diagonal
inline constexpr float FrustumSlack = 1.3f;      ///< J's x/z, y/z clamp, × tan(half fov)
inline constexpr float AlphaMax = 0.99f;         ///< α's ceiling
inline constexpr float AlphaMin = 1.0f / 255.0f; ///< α below this is skipped
inline constexpr float TransmittanceMin = 1e-4f; ///< a pixel stops before T falls below this
inline constexpr float MedianTransmittance = 0.5f; ///< the depth written: where T first reaches it
inline constexpr int TileSize = 16;                ///< pixels a side of a blending tile
/// Binning is generous by this much against rounding (relative, and pixels or power), so a pixel
/// whose own test passes is never left out of its tile's list.
inline constexpr float BinSlack = 1.001f;
inline constexpr float BinMargin = 0.01f;
inline constexpr int MaxShDegree = 3;
/// Ids of Gaussians in the G-buffer's id channel carry this bit (points carry PointIdBit).
inline constexpr std::uint32_t SplatIdBit = 0x40000000u;

/// What a splat frame draws (SplatFrame::debug): the Gaussians, or one of the debug views.
enum SplatDebug : int {
    SplatDebugNone = 0,    ///< the Gaussians, composited
    SplatDebugAlpha = 1,   ///< the Gaussians' own opacity, 1 - T, as grey (0: none)
    SplatDebugCount = 2,   ///< Gaussians blended at each pixel as a heat map (heatColor())
    SplatDebugCentres = 3, ///< each Gaussian as an opaque dot of its colour at its centre
};
/// The dots' radius in pixels (SplatDebugCentres).
inline constexpr float CentreRadius = 1.0f;
/// The count the heat map saturates at (SplatDebugCount): 255 Gaussians a pixel and more.
inline constexpr std::uint32_t HeatSaturation = 255u;

/// The real SH basis constants (the reference's).
inline constexpr float ShC0 = 0.28209479177387814f;
inline constexpr float ShC1 = 0.4886025119029199f;
/// Degree 2 and 3 (scalars: constexpr arrays are not visible to device code).
inline constexpr float ShC20 = 1.0925484305920792f, ShC21 = -1.0925484305920792f,
                       ShC22 = 0.31539156525252005f, ShC23 = -1.0925484305920792f,
                       ShC24 = 0.5462742152960396f;
inline constexpr float ShC30 = -0.5900435899266435f, ShC31 = 2.890611442640554f,
                       ShC32 = -0.4570457994644658f, ShC33 = 0.3731763325901154f,
                       ShC34 = -0.4570457994644658f, ShC35 = 1.445305721320277f,
                       ShC36 = -0.5900435899266435f;

/// SH coefficients a colour channel has at `degree`.
TANDEM_HD int shCount(int degree)
{
    return (degree + 1) * (degree + 1);
}

/// What the rasterizer needs of the frame, prepared on the host. Pixel centres are at integer
/// coordinates, rows from the bottom (the G-buffer's).
struct SplatFrame {
    float view[12];  ///< model → view, the top three rows of a row-major 4×4 (GL's view:
                     ///< looking down -z); any linear part, a model's scale included
    float eye[3];    ///< the camera centre in model space (SH directions)
    float focal[2];  ///< pixels per unit of x/z, y/z
    float centre[2]; ///< where the view axis meets the image, pixels
    float limit[2];  ///< J's clamp of x/z and y/z: FrustumSlack × tan(half fov)
    int width;       ///< drawn region, pixels
    int height;
    int tilesX; ///< blending tiles a row: ceil(width / TileSize)
    int tilesY;
    float scaleModifier; ///< multiplies every scale (the viewer's slider)
    int shDegree;        ///< the degree evaluated (≤ the stored one)
    int shStride;        ///< coefficients stored a channel (shCount of the stored degree)
    int colorIsHalf;     ///< the colour target is RGBA16F linear (else RGBA8, sRGB-encoded)
    int targetsDrawn;    ///< meshes or points drew the G-buffer (its colour and depth are the
                         ///< surface); else every pixel starts from the background
    float background[4]; ///< colour of uncovered pixels, sRGB-encoded values, alpha
    float facing[3];     ///< the world normal written where a Gaussian sets the depth: towards
                         ///< the camera
    int debug;           ///< SplatDebug: the Gaussians, or a debug view of them
};

/// A Gaussian as projected for blending: 12 words, three 16-byte loads (aligned for them; in
/// shared memory, eight consecutive records' loads fall on distinct banks).
struct alignas(16) ProjectedSplat {
    float x, y;       ///< the mean in pixels
    float power[3];   ///< the exponent's form: power = p0 dx² + p1 dx dy + p2 dy² at offset (dx,
                      ///< dy) from the mean; (p0, p1, p2) = -(a/2, b, c/2) of the conic (the 2D
                      ///< covariance's inverse, a dx² + 2 b dx dy + c dy²)
    float opacity;    ///< 0..1
    float powerCut;   ///< ln(1 / (255 opacity)): a power below it gives α < 1/255
    float depth;      ///< view depth of the mean
    float color[3];   ///< SH colour, + 0.5, clamped at 0 (training space)
    std::uint32_t id; ///< the Gaussian's index
};
static_assert(sizeof(ProjectedSplat) == 48 && alignof(ProjectedSplat) == 16);

/// The pixel box a Gaussian may reach ([x0, x1] × [y0, y1], inclusive, clipped to the region)
/// and its tiles; empty when culled.
struct Footprint {
    int x0, y0, x1, y1;
    int tx0, ty0, tx1, ty1;
    bool visible;
    /// Tiles it touches (0 when culled).
    TANDEM_HD int tiles() const { return visible ? (tx1 - tx0 + 1) * (ty1 - ty0 + 1) : 0; }
};

/// The Gaussian's inputs, read from wherever they live.
struct GaussianIn {
    const float* position; ///< 3
    const float* scale;    ///< 3, linear
    const float* rotation; ///< 4: w, x, y, z (normalized here)
    float opacity;
    const float* sh; ///< shStride × 3: coefficient k of channel c at sh[k × 3 + c]
};

/// Colour from SH of `degree` in unit direction `d`: + 0.5, clamped at 0 (not at 1).
TANDEM_HD void shColor(const float* sh, int degree, const float* d, float* out)
{
    for (int c = 0; c < 3; ++c)
        out[c] = ShC0 * sh[c];
    if (degree > 0) {
        const float x = d[0], y = d[1], z = d[2];
        for (int c = 0; c < 3; ++c)
            out[c] = out[c] - ShC1 * y * sh[3 + c] + ShC1 * z * sh[6 + c] - ShC1 * x * sh[9 + c];
        if (degree > 1) {
            const float xx = x * x, yy = y * y, zz = z * z;
            const float xy = x * y, yz = y * z, xz = x * z;
            for (int c = 0; c < 3; ++c)
                out[c] = out[c] + ShC20 * xy * sh[12 + c] + ShC21 * yz * sh[15 + c] +
                         ShC22 * (2.0f * zz - xx - yy) * sh[18 + c] + ShC23 * xz * sh[21 + c] +
                         ShC24 * (xx - yy) * sh[24 + c];
            if (degree > 2)
                for (int c = 0; c < 3; ++c)
                    out[c] = out[c] + ShC30 * y * (3.0f * xx - yy) * sh[27 + c] +
                             ShC31 * xy * z * sh[30 + c] +
                             ShC32 * y * (4.0f * zz - xx - yy) * sh[33 + c] +
                             ShC33 * z * (2.0f * zz - 3.0f * xx - 3.0f * yy) * sh[36 + c] +
                             ShC34 * x * (4.0f * zz - xx - yy) * sh[39 + c] +
                             ShC35 * z * (xx - yy) * sh[42 + c] +
                             ShC36 * x * (xx - 3.0f * yy) * sh[45 + c];
        }
    }
    for (int c = 0; c < 3; ++c)
        out[c] = maxf(out[c] + 0.5f, 0.0f);
}

/// Projects Gaussian `id` for `f`: its blending record and footprint (visible false when culled:
/// behind the near depth, a degenerate covariance, α below 1/255 everywhere, off the region, or
/// non-finite inputs).
TANDEM_HD Footprint projectGaussian(const SplatFrame& f, const GaussianIn& g, std::uint32_t id,
                                    ProjectedSplat& out)
{
    Footprint fp{0, 0, -1, -1, 0, 0, -1, -1, false};
    const float* v = f.view;
    const float* p = g.position;
    const float tx = v[0] * p[0] + v[1] * p[1] + v[2] * p[2] + v[3];
    const float ty = v[4] * p[0] + v[5] * p[1] + v[6] * p[2] + v[7];
    const float depth = -(v[8] * p[0] + v[9] * p[1] + v[10] * p[2] + v[11]);
    if (!(depth > NearDepth) || !(depth < 3.0e38f))
        return fp;
    const float opacity = g.opacity;
    if (!(opacity >= AlphaMin) || !(opacity <= 1.0f))
        return fp;
    const float x = f.focal[0] * tx / depth + f.centre[0];
    const float y = f.focal[1] * ty / depth + f.centre[1];
    if (!(absf(x) < 1.0e7f) || !(absf(y) < 1.0e7f))
        return fp;

    // J (the perspective map's Jacobian at the clamped mean) times W (model → the view frame
    // whose third axis points forward): M, 2×3.
    const float cx = clampf(tx / depth, -f.limit[0], f.limit[0]) * depth;
    const float cy = clampf(ty / depth, -f.limit[1], f.limit[1]) * depth;
    const float j00 = f.focal[0] / depth, j02 = -f.focal[0] * cx / (depth * depth);
    const float j11 = f.focal[1] / depth, j12 = -f.focal[1] * cy / (depth * depth);
    float m[2][3];
    for (int k = 0; k < 3; ++k) {
        m[0][k] = j00 * v[k] + j02 * -v[8 + k];
        m[1][k] = j11 * v[4 + k] + j12 * -v[8 + k];
    }
    // R S: the rotation's columns scaled; A = M R S, and the 2D covariance is A Aᵀ (always
    // positive semi-definite, unlike a product through the 3D covariance in float).
    const float* q = g.rotation;
    const float qq = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(qq > 0.0f) || !(qq < 3.0e38f))
        return fp;
    const float inv = 1.0f / sqrtf_hd(qq);
    const float w = q[0] * inv, qx = q[1] * inv, qy = q[2] * inv, qz = q[3] * inv;
    const float r[3][3] = {
        {1.0f - 2.0f * (qy * qy + qz * qz), 2.0f * (qx * qy - w * qz), 2.0f * (qx * qz + w * qy)},
        {2.0f * (qx * qy + w * qz), 1.0f - 2.0f * (qx * qx + qz * qz), 2.0f * (qy * qz - w * qx)},
        {2.0f * (qx * qz - w * qy), 2.0f * (qy * qz + w * qx), 1.0f - 2.0f * (qx * qx + qy * qy)}};
    float a[2][3];
    for (int row = 0; row < 2; ++row)
        for (int k = 0; k < 3; ++k) {
            const float s = g.scale[k] * f.scaleModifier;
            a[row][k] = (m[row][0] * r[0][k] + m[row][1] * r[1][k] + m[row][2] * r[2][k]) * s;
        }
    const float ca = a[0][0] * a[0][0] + a[0][1] * a[0][1] + a[0][2] * a[0][2] + LowPass;
    const float cb = a[0][0] * a[1][0] + a[0][1] * a[1][1] + a[0][2] * a[1][2];
    const float cc = a[1][0] * a[1][0] + a[1][1] * a[1][1] + a[1][2] * a[1][2] + LowPass;
    const float det = ca * cc - cb * cb;
    if (!(det > 0.0f) || !(ca < 1.0e12f) || !(cc < 1.0e12f))
        return fp;
    const float invDet = 1.0f / det;

    // α ≥ 1/255 where the power -q/2 ≥ ln(1 / (255 o)), q the Mahalanobis distance squared: an
    // ellipse whose box has half-widths √(τ a), √(τ c), τ = 2 ln(255 o); a little more against
    // rounding (the box only bins; each pixel tests the power itself).
    const float powerCut = -log2Hd(opacity * 255.0f) * 0.69314718055994531f;
    const float tau = maxf(-2.0f * powerCut, 0.0f);
    const float ex = sqrtf_hd(tau * ca) * BinSlack + BinMargin;
    const float ey = sqrtf_hd(tau * cc) * BinSlack + BinMargin;
    const float bx0 = x - ex, bx1 = x + ex, by0 = y - ey, by1 = y + ey;
    if (bx1 < 0.0f || by1 < 0.0f || bx0 > static_cast<float>(f.width - 1) ||
        by0 > static_cast<float>(f.height - 1))
        return fp;
    fp.x0 = maxi(static_cast<int>(floorHd(maxf(bx0, -1.0f))) + 1, 0);
    fp.y0 = maxi(static_cast<int>(floorHd(maxf(by0, -1.0f))) + 1, 0);
    fp.x1 = mini(static_cast<int>(floorHd(minf(bx1, static_cast<float>(f.width)))), f.width - 1);
    fp.y1 = mini(static_cast<int>(floorHd(minf(by1, static_cast<float>(f.height)))), f.height - 1);
    if (fp.x0 > fp.x1 || fp.y0 > fp.y1)
        return fp;
    fp.tx0 = fp.x0 / TileSize;
    fp.ty0 = fp.y0 / TileSize;
    fp.tx1 = fp.x1 / TileSize;
    fp.ty1 = fp.y1 / TileSize;
    fp.visible = true;

    out.x = x;
    out.y = y;
    out.power[0] = -0.5f * (cc * invDet);
    out.power[1] = cb * invDet;
    out.power[2] = -0.5f * (ca * invDet);
    out.opacity = opacity;
    out.powerCut = powerCut;
    out.depth = depth;
    out.id = id;
    float dir[3] = {p[0] - f.eye[0], p[1] - f.eye[1], p[2] - f.eye[2]};
    const float length = sqrtf_hd(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    for (int k = 0; k < 3; ++k)
        dir[k] = length > 0.0f ? dir[k] / length : 0.0f;
    shColor(g.sh, f.shDegree, dir, out.color);
    return fp;
}

/// Which of a block's Gaussians float `k` of their coefficients (`stride` floats each, ≤ 48)
/// belongs to, for k below 2¹⁶: k / stride without an integer division (k + ½ lies at least ½
/// from a multiple of stride; the float product errs by far less).
TANDEM_HD std::uint32_t stagedOwner(std::uint32_t k, float inverseStride)
{
    return static_cast<std::uint32_t>((static_cast<float>(k) + 0.5f) * inverseStride);
}

/// The sort key of a visible Gaussian: its depth's bits (positive floats order as their bits do).
TANDEM_HD std::uint32_t depthKey(const ProjectedSplat& p)
{
    return bitsOf(p.depth);
}

/// The power (the exponent) of `p` at offset (dx, dy) from its mean: dx (p0 dx + p1 dy) + p2 dy².
TANDEM_HD float powerAt(const ProjectedSplat& p, float dx, float dy)
{
    return fmaHd(dx, fmaHd(p.power[0], dx, p.power[1] * dy), p.power[2] * (dy * dy));
}

/// e^power for a power in [powerCut, 0] (≥ -ln 255 - ln 100): 2^n 2^f with n the nearest integer
/// to power log2 e and |f| ≤ 1/2, 2^f = e^(f ln 2) to the y⁶ term (relative error below 2e-7).
TANDEM_HD float expSplat(float power)
{
    const float x = maxf(power, -126.0f) * 1.4426950408889634f;
#if defined(__CUDA_ARCH__)
    const float n = floorf(x + 0.5f); // one instruction; exact, as floorHd is on the host
#else
    const float n = floorHd(x + 0.5f);
#endif
    const float y = (x - n) * 0.69314718055994531f; // |y| ≤ 0.347
    float e = fmaHd(y, 1.0f / 720.0f, 1.0f / 120.0f);
    e = fmaHd(e, y, 1.0f / 24.0f);
    e = fmaHd(e, y, 1.0f / 6.0f);
    e = fmaHd(e, y, 0.5f);
    e = fmaHd(e, y, 1.0f);
    e = fmaHd(e, y, 1.0f);
    return e * floatOf(static_cast<std::uint32_t>(static_cast<int>(n) + 127) << 23);
}

/// Whether the Gaussian's α ≥ 1/255 ellipse (generously) reaches a pixel centre of the rectangle
/// [x0, x1] × [y0, y1] (pixel centres): the greatest power on the rectangle against powerCut.
/// A superset of the pixels whose own test passes: binning and skipping by it never change an
/// image.
TANDEM_HD bool touchesRect(const ProjectedSplat& p, int x0, int y0, int x1, int y1)
{
    const float left = static_cast<float>(x0) - p.x, right = static_cast<float>(x1) - p.x;
    const float bottom = static_cast<float>(y0) - p.y, top = static_cast<float>(y1) - p.y;
    if (left <= 0.0f && right >= 0.0f && bottom <= 0.0f && top >= 0.0f)
        return true; // the mean is inside
    // The power is greatest on one of the four edges: along an edge of fixed dx at
    // dy = -p1 dx / (2 p2), clamped to the edge; likewise along fixed dy.
    float most = -3.0e38f;
    for (int edge = 0; edge < 2; ++edge) {
        const float dx = edge == 0 ? left : right;
        most =
            maxf(most, powerAt(p, dx, clampf(-p.power[1] * dx / (2.0f * p.power[2]), bottom, top)));
        const float dy = edge == 0 ? bottom : top;
        most =
            maxf(most, powerAt(p, clampf(-p.power[1] * dy / (2.0f * p.power[0]), left, right), dy));
    }
    return most >= p.powerCut * BinSlack - BinMargin;
}

/// Whether it reaches a pixel centre of tile (tx, ty).
TANDEM_HD bool touchesTile(const ProjectedSplat& p, int tx, int ty)
{
    return touchesRect(p, tx * TileSize, ty * TileSize, tx * TileSize + TileSize - 1,
                       ty * TileSize + TileSize - 1);
}

/// The tiles of its box that it touches.
TANDEM_HD std::uint32_t countTiles(const ProjectedSplat& p, const Footprint& fp)
{
    std::uint32_t n = 0;
    for (int ty = fp.ty0; ty <= fp.ty1 && fp.visible; ++ty)
        for (int tx = fp.tx0; tx <= fp.tx1; ++tx)
            n += touchesTile(p, tx, ty) ? 1u : 0u;
    return n;
}

/// One pixel's blend in progress.
struct PixelBlend {
    float color[3];       ///< Σ colour α T so far
    float transmittance;  ///< T
    float depth;          ///< the median depth, once T reached MedianTransmittance
    std::uint32_t median; ///< the Gaussian that brought T there, + 1 (0: none yet)
    std::uint32_t count;  ///< Gaussians blended
};

TANDEM_HD PixelBlend startBlend()
{
    return PixelBlend{{0.0f, 0.0f, 0.0f}, 1.0f, 0.0f, 0u, 0u};
}

/// Blends Gaussian `g` into pixel (px, py), whose surface lies at view depth `surface` (0: none).
/// Returns false once the pixel is done: `g` and every Gaussian after it (sorted front to back)
/// lie behind the surface, or `g` would take T below TransmittanceMin. `centres`
/// (SplatDebugCentres): `g` is an opaque dot of radius CentreRadius at its mean instead.
TANDEM_HD bool blendGaussian(PixelBlend& p, const ProjectedSplat& g, int px, int py, float surface,
                             bool centres = false)
{
    if (surface > 0.0f && !(g.depth < surface))
        return false;
    const float dx = g.x - static_cast<float>(px);
    const float dy = g.y - static_cast<float>(py);
    float alpha = AlphaMax;
    if (centres) {
        if (dx * dx + dy * dy > CentreRadius * CentreRadius)
            return true;
    } else {
        const float power = powerAt(g, dx, dy);
        if (power > 0.0f || power < g.powerCut)
            return true;
        alpha = minf(AlphaMax, g.opacity * expSplat(power));
        if (alpha < AlphaMin)
            return true;
    }
    const float next = p.transmittance * (1.0f - alpha);
    if (next < TransmittanceMin)
        return false;
    const float weight = alpha * p.transmittance;
    for (int c = 0; c < 3; ++c)
        p.color[c] = fmaHd(g.color[c], weight, p.color[c]);
    p.transmittance = next;
    p.count = p.count + 1u;
    if (p.median == 0u && next <= MedianTransmittance) {
        p.median = g.id + 1u;
        p.depth = g.depth;
    }
    return true;
}

/// A finished pixel over what lies under it (`under`: training-space colour and alpha):
/// colour C + T under, alpha (1 - T) + T under alpha.
TANDEM_HD void finishBlend(const PixelBlend& p, const float* under, float* rgba)
{
    const float t = p.transmittance;
    for (int c = 0; c < 3; ++c)
        rgba[c] = p.color[c] + t * under[c];
    rgba[3] = (1.0f - t) + t * under[3];
}

/// The colour target's RGBA8 bytes (sRGB-encoded: the training space's values) as colour and
/// alpha to blend over.
TANDEM_HD void underFromRgba8(const std::uint8_t* bytes, float* under)
{
    for (int c = 0; c < 4; ++c)
        under[c] = unorm8(bytes[c]);
}

/// The colour target's RGBA16F halves (linear) as training-space colour and alpha.
TANDEM_HD void underFromHalf(const std::uint16_t* halves, float* under)
{
    for (int c = 0; c < 3; ++c)
        under[c] = linearToSrgb(halfToFloat(halves[c]));
    under[3] = halfToFloat(halves[3]);
}

/// A blended pixel as the RGBA8 target stores it (training-space values are its encoding).
TANDEM_HD void storeRgba8(const float* rgba, std::uint8_t* bytes)
{
    for (int c = 0; c < 4; ++c)
        bytes[c] = toUnorm8(rgba[c]);
}

/// A blended pixel as the RGBA16F target stores it: linear colour, clamped to [0, 1].
TANDEM_HD void storeHalf(const float* rgba, std::uint16_t* halves)
{
    for (int c = 0; c < 3; ++c)
        halves[c] = floatToHalf(srgbToLinear(rgba[c]));
    halves[3] = floatToHalf(clampf(rgba[3], 0.0f, 1.0f));
}

/// What a finished pixel writes besides its colour: the median depth, the id of the Gaussian there
/// and a normal facing the camera where Gaussians reached half opacity; else the surface's (kept
/// when `f.targetsDrawn`, else nothing: depth 0, id 0, normal 0).
struct SplatPixel {
    bool writes;    ///< anything to store (false: a drawn pixel no Gaussian reached)
    bool setsDepth; ///< depth, id and normal are the Gaussians' (else the surface's stay)
    float rgba[4];  ///< training-space colour and alpha
    float depth;
    std::uint32_t id;
};

/// The heat map of `count` Gaussians (SplatDebugCount), training-space colour: black at 0,
/// then dark blue, magenta, orange and yellow-white at HeatSaturation and beyond, each step an
/// octave of the count (t = log2(1 + count) / 8, from exact float operations: the same bits on
/// both sides).
TANDEM_HD void heatColor(std::uint32_t count, float* rgb)
{
    const std::uint32_t n = 1u + (count < HeatSaturation ? count : HeatSaturation);
    int octave = 0;
    while ((2u << octave) <= n)
        ++octave;
    const float low = static_cast<float>(1u << octave);
    const float t = (static_cast<float>(octave) + (static_cast<float>(n) - low) / low) * 0.125f;
    // Stops at t = 0, 0.25, 0.5, 0.75, 1.
    const float stops[5][3] = {{0.0f, 0.0f, 0.0f},
                               {0.15f, 0.1f, 0.55f},
                               {0.7f, 0.15f, 0.6f},
                               {0.98f, 0.55f, 0.1f},
                               {1.0f, 1.0f, 0.75f}};
    const float scaled = t * 4.0f;
    const int i = scaled >= 4.0f ? 3 : static_cast<int>(scaled);
    const float w = scaled - static_cast<float>(i);
    for (int c = 0; c < 3; ++c)
        rgb[c] = stops[i][c] + (stops[i + 1][c] - stops[i][c]) * w;
}

TANDEM_HD SplatPixel finishPixel(const SplatFrame& f, const PixelBlend& p, const float* under)
{
    SplatPixel out{};
    out.writes = p.count > 0u || !f.targetsDrawn;
    finishBlend(p, under, out.rgba);
    if (f.debug == SplatDebugAlpha || f.debug == SplatDebugCount) {
        // A view of the Gaussians alone: every pixel written, the surface left out.
        out.writes = true;
        if (f.debug == SplatDebugAlpha) {
            const float a = 1.0f - p.transmittance;
            out.rgba[0] = out.rgba[1] = out.rgba[2] = a;
        } else {
            heatColor(p.count, out.rgba);
        }
        out.rgba[3] = 1.0f;
    }
    out.setsDepth = p.median != 0u || !f.targetsDrawn;
    out.depth = p.median != 0u ? p.depth : 0.0f;
    out.id = p.median != 0u ? SplatIdBit | p.median : 0u;
    return out;
}

} // namespace tandem::render::splats
