// The per-triangle and per-pixel functions of the CUDA triangle rasterizer
// (render::TriangleRaster), written once for its kernels and its host twin (TANDEM_HD), so both
// compute the same bits. They follow GL's rules for a triangle given in clip space, so that the
// pixels and triangles agree with the GL draw of render::ClipRaster:
// - clipping against the near and far planes (-w <= z <= w); beyond a guard band of
//   |x|, |y| <= 4w the sides are clipped too (inside it, drawing as is covers the same pixels);
// - window coordinates snapped to 1/256 pixel (GL_SUBPIXEL_BITS 8, as NVIDIA's driver and Mesa
//   report), coverage of pixel centres by exact 64-bit edge functions on that grid, a centre on
//   a shared edge drawn by exactly one of the two triangles (a top-left rule), no face culling;
// - depth z/w interpolated linearly on screen, nearer wins, equal depths go to the earlier
//   triangle (GL_LESS drawing in order), through one 64-bit key per pixel (depth bits, then the
//   triangle), so the result does not depend on the order threads run in;
// - the resolve of ClipResolve.comp.glsl: perspective-correct barycentrics at the pixel centre
//   in double precision.
// Plain data, no GL, no CUDA include; sources compile without FMA contraction.
#pragma once

#include <cstdint>

#include "engine/core/ExactMath.h"

namespace tandem::render::triangles {

/// Bits of subpixel precision of window coordinates.
inline constexpr int SubpixelBits = 8;
inline constexpr std::int64_t SubpixelOne = std::int64_t{1} << SubpixelBits;
/// Triangles within |x|, |y| <= GuardBand·w are drawn without clipping their sides.
inline constexpr float GuardBand = 4.0f;
/// Vertices a triangle clipped by the 7 planes can have: one more a plane for a convex polygon;
/// room for two more a plane, and never written past, where rounding makes it not quite convex.
inline constexpr int MaxPolygon = 17;
/// A key no triangle has: an empty pixel.
inline constexpr std::uint64_t EmptyKey = ~std::uint64_t{0};
/// Pixels a bounding box may hold for one thread to walk it; larger triangles are split into
/// tiles of TileSize² pixels, one thread a pixel.
inline constexpr int SmallPixels = 64;
inline constexpr int TileSize = 16;

struct Vertex {
    float x, y, z, w;
};

/// Pixels whose centres a triangle may cover (inclusive); empty when x0 > x1 or y0 > y1.
struct Bounds {
    int x0, x1, y0, y1;
    TANDEM_HD bool empty() const { return x0 > x1 || y0 > y1; }
    TANDEM_HD std::int64_t pixels() const
    {
        return empty() ? 0 : std::int64_t{x1 - x0 + 1} * std::int64_t{y1 - y0 + 1};
    }
    TANDEM_HD int tilesX() const { return (x1 - x0 + TileSize) / TileSize; }
    TANDEM_HD std::int64_t tiles() const
    {
        return empty() ? 0 : std::int64_t{tilesX()} * std::int64_t{(y1 - y0 + TileSize) / TileSize};
    }
};

/// A triangle snapped to the subpixel grid, counter-clockwise on screen (y up), ready to cover
/// pixel centres.
struct Snapped {
    std::int64_t x[3], y[3]; ///< window position, 1/SubpixelOne pixel
    float depth[3];          ///< window depth, z/w · 0.5 + 0.5
    std::int64_t area;       ///< twice its area, subpixels² (> 0)
    bool inclusive[3];       ///< edge i (vertex i to i + 1) draws centres lying on it
    Bounds bounds;
};

/// floor(a / b) for b > 0.
TANDEM_HD std::int64_t floorDiv(std::int64_t a, std::int64_t b)
{
    const std::int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/// Signed distances to the clip volume's planes (inside: >= 0), the last keeping w positive.
TANDEM_HD float planeDistance(const Vertex& v, int plane)
{
    switch (plane) {
    case 0:
        return v.w + v.z;
    case 1:
        return v.w - v.z;
    case 2:
        return GuardBand * v.w + v.x;
    case 3:
        return GuardBand * v.w - v.x;
    case 4:
        return GuardBand * v.w + v.y;
    case 5:
        return GuardBand * v.w - v.y;
    default:
        return v.w - 1e-30f;
    }
}
inline constexpr int PlaneCount = 7;

/// Whether every coordinate is a finite number (else GL's result is undefined: drawn as nothing).
TANDEM_HD bool finite(const Vertex& v)
{
    const float limit = 3.4e38f;
    return absf(v.x) <= limit && absf(v.y) <= limit && absf(v.z) <= limit && absf(v.w) <= limit;
}

/// Whether a vertex is inside every plane: a triangle of three such is drawn as it is.
TANDEM_HD bool insideAll(const Vertex& v)
{
    for (int plane = 0; plane < PlaneCount; ++plane)
        if (!(planeDistance(v, plane) >= 0.0f))
            return false;
    return true;
}

/// The point where the edge from `in` (inside) to `out` crosses a plane. Always computed from
/// the inside end, so the two triangles sharing an edge clip it to the same point.
TANDEM_HD Vertex crossing(const Vertex& in, const Vertex& out, float dIn, float dOut)
{
    const float t = dIn / (dIn - dOut);
    return {in.x + t * (out.x - in.x), in.y + t * (out.y - in.y), in.z + t * (out.z - in.z),
            in.w + t * (out.w - in.w)};
}

/// Clips a triangle against the planes (Sutherland-Hodgman); returns the polygon's vertex count
/// (0 when nothing is left, else 3..MaxPolygon).
TANDEM_HD int clipPolygon(const Vertex (&triangle)[3], Vertex (&polygon)[MaxPolygon])
{
    Vertex scratch[MaxPolygon];
    Vertex* from = polygon;
    Vertex* to = scratch;
    for (int i = 0; i < 3; ++i)
        from[i] = triangle[i];
    int count = 3;
    for (int plane = 0; plane < PlaneCount && count > 0; ++plane) {
        int kept = 0;
        for (int i = 0; i < count; ++i) {
            const Vertex& a = from[i];
            const Vertex& b = from[(i + 1) % count];
            const float da = planeDistance(a, plane);
            const float db = planeDistance(b, plane);
            const bool aIn = da >= 0.0f;
            const bool bIn = db >= 0.0f;
            if (aIn && kept < MaxPolygon)
                to[kept++] = a;
            if (aIn != bIn && kept < MaxPolygon)
                to[kept++] = aIn ? crossing(a, b, da, db) : crossing(b, a, db, da);
        }
        count = kept < 3 ? 0 : kept;
        Vertex* swap = from;
        from = to;
        to = swap;
    }
    if (from != polygon)
        for (int i = 0; i < count; ++i)
            polygon[i] = from[i];
    return count;
}

/// Window coordinate of a vertex inside the planes, snapped: x (or y) in 1/SubpixelOne pixel.
/// False when it is not a number in range (arithmetic on huge coordinates overflowed).
TANDEM_HD bool snapCoordinate(float ndc, int size, std::int64_t& snapped)
{
    const float half = 0.5f * static_cast<float>(size);
    const float scaled = (ndc * half + half) * static_cast<float>(SubpixelOne);
    if (!(absf(scaled) <= 16777216.0f)) // 2^24: (1 + GuardBand) / 2 · 16384 · 256 fits
        return false;
    snapped = static_cast<std::int64_t>(floorHd(scaled + 0.5f));
    return true;
}

/// Snaps a triangle whose vertices are inside every plane onto the target (width × height).
/// Returns false for a triangle with no area on the subpixel grid (GL draws none) or no pixel
/// centre in its box.
TANDEM_HD bool snap(const Vertex& a, const Vertex& b, const Vertex& c, int width, int height,
                    Snapped& s)
{
    const Vertex* v[3] = {&a, &b, &c};
    for (int i = 0; i < 3; ++i) {
        if (!snapCoordinate(v[i]->x / v[i]->w, width, s.x[i]) ||
            !snapCoordinate(v[i]->y / v[i]->w, height, s.y[i]))
            return false;
        s.depth[i] = v[i]->z / v[i]->w * 0.5f + 0.5f;
    }
    std::int64_t area =
        (s.x[1] - s.x[0]) * (s.y[2] - s.y[0]) - (s.y[1] - s.y[0]) * (s.x[2] - s.x[0]);
    if (area == 0)
        return false;
    if (area < 0) { // clockwise: the same triangle counter-clockwise
        const std::int64_t x = s.x[1], y = s.y[1];
        const float d = s.depth[1];
        s.x[1] = s.x[2], s.y[1] = s.y[2], s.depth[1] = s.depth[2];
        s.x[2] = x, s.y[2] = y, s.depth[2] = d;
        area = -area;
    }
    s.area = area;
    for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3;
        const std::int64_t dx = s.x[j] - s.x[i], dy = s.y[j] - s.y[i];
        // The interior lies left of each edge: a centre on an edge is drawn when the edge is a
        // left edge (going down) or a bottom edge (going right, interior above).
        s.inclusive[i] = dy < 0 || (dy == 0 && dx > 0);
    }
    std::int64_t minX = s.x[0], maxX = s.x[0], minY = s.y[0], maxY = s.y[0];
    for (int i = 1; i < 3; ++i) {
        minX = s.x[i] < minX ? s.x[i] : minX;
        maxX = s.x[i] > maxX ? s.x[i] : maxX;
        minY = s.y[i] < minY ? s.y[i] : minY;
        maxY = s.y[i] > maxY ? s.y[i] : maxY;
    }
    // Pixel p's centre is p·One + One/2.
    const std::int64_t half = SubpixelOne / 2;
    const std::int64_t x0 = floorDiv(minX - half + SubpixelOne - 1, SubpixelOne);
    const std::int64_t x1 = floorDiv(maxX - half, SubpixelOne);
    const std::int64_t y0 = floorDiv(minY - half + SubpixelOne - 1, SubpixelOne);
    const std::int64_t y1 = floorDiv(maxY - half, SubpixelOne);
    s.bounds.x0 = static_cast<int>(x0 < 0 ? 0 : x0);
    s.bounds.x1 = static_cast<int>(x1 > width - 1 ? width - 1 : x1);
    s.bounds.y0 = static_cast<int>(y0 < 0 ? 0 : y0);
    s.bounds.y1 = static_cast<int>(y1 > height - 1 ? height - 1 : y1);
    return !s.bounds.empty();
}

/// Whether the triangle covers pixel (px, py)'s centre, and its window depth there.
TANDEM_HD bool cover(const Snapped& s, int px, int py, float& depth)
{
    const std::int64_t cx = std::int64_t{px} * SubpixelOne + SubpixelOne / 2;
    const std::int64_t cy = std::int64_t{py} * SubpixelOne + SubpixelOne / 2;
    std::int64_t e[3];
    for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3;
        e[i] = (s.x[j] - s.x[i]) * (cy - s.y[i]) - (s.y[j] - s.y[i]) * (cx - s.x[i]);
        if (e[i] < 0 || (e[i] == 0 && !s.inclusive[i]))
            return false;
    }
    // The weight of vertex k is the edge function of the edge opposite it over the area.
    const float area = static_cast<float>(s.area);
    const float z = static_cast<float>(e[1]) / area * s.depth[0] +
                    static_cast<float>(e[2]) / area * s.depth[1] +
                    static_cast<float>(e[0]) / area * s.depth[2];
    depth = clampf(z, 0.0f, 1.0f);
    return true;
}

/// The visibility key of `triangle` at `depth` (in [0, 1]): smaller is nearer, then earlier.
TANDEM_HD std::uint64_t keyOf(float depth, std::uint32_t triangle)
{
    return (static_cast<std::uint64_t>(bitsOf(depth)) << 32) | triangle;
}

/// The pieces a triangle is drawn as: itself when inside every plane, else a fan over its
/// clipped polygon. Calls `draw(const Snapped&)` for each piece with pixels; returns the union
/// of their bounds.
template <class Draw>
TANDEM_HD Bounds forEachPiece(const Vertex (&triangle)[3], int width, int height, Draw&& draw)
{
    Bounds all{width, -1, height, -1};
    Snapped s;
    if (!finite(triangle[0]) || !finite(triangle[1]) || !finite(triangle[2]))
        return all;
    const auto add = [&](const Bounds& b) {
        all.x0 = mini(all.x0, b.x0);
        all.x1 = maxi(all.x1, b.x1);
        all.y0 = mini(all.y0, b.y0);
        all.y1 = maxi(all.y1, b.y1);
    };
    if (insideAll(triangle[0]) && insideAll(triangle[1]) && insideAll(triangle[2])) {
        if (snap(triangle[0], triangle[1], triangle[2], width, height, s)) {
            add(s.bounds);
            draw(s);
        }
        return all;
    }
    Vertex polygon[MaxPolygon];
    const int count = clipPolygon(triangle, polygon);
    for (int i = 1; i + 1 < count; ++i)
        if (snap(polygon[0], polygon[i], polygon[i + 1], width, height, s)) {
            add(s.bounds);
            draw(s);
        }
    return all;
}

/// Whether the triangle covers pixel (px, py), and its depth there: the nearest of the pieces
/// covering it (pieces only overlap where snapping folds a sliver), as drawing every piece keeps.
TANDEM_HD bool coverAny(const Vertex (&triangle)[3], int width, int height, int px, int py,
                        float& depth)
{
    bool covered = false;
    forEachPiece(triangle, width, height, [&](const Snapped& s) {
        float z;
        if (px >= s.bounds.x0 && px <= s.bounds.x1 && py >= s.bounds.y0 && py <= s.bounds.y1 &&
            cover(s, px, py, z) && (!covered || z < depth)) {
            covered = true;
            depth = z;
        }
    });
    return covered;
}

/// nvdiffrast's rasterize value of a pixel `triangle` (0-based) is visible at: u and v, the
/// perspective-correct barycentrics of its first and second vertex at the pixel centre, z/w, and
/// the triangle + 1; as ClipResolve.comp.glsl computes them, in double precision.
TANDEM_HD void resolve(const Vertex& p0, const Vertex& p1, const Vertex& p2, int px, int py,
                       int width, int height, std::uint32_t triangle, float (&out)[4])
{
    const double qx = (static_cast<double>(px) + 0.5) / static_cast<double>(width) * 2.0 - 1.0;
    const double qy = (static_cast<double>(py) + 0.5) / static_cast<double>(height) * 2.0 - 1.0;
    const double x0 = p0.x, y0 = p0.y, w0 = p0.w;
    const double x1 = p1.x, y1 = p1.y, w1 = p1.w;
    const double x2 = p2.x, y2 = p2.y, w2 = p2.w;
    // c_k = q · (P_i × P_j) with P = (x, y, w), q = (qx, qy, 1).
    const double c0 = qx * (y1 * w2 - w1 * y2) + qy * (w1 * x2 - x1 * w2) + (x1 * y2 - y1 * x2);
    const double c1 = qx * (y2 * w0 - w2 * y0) + qy * (w2 * x0 - x2 * w0) + (x2 * y0 - y2 * x0);
    const double c2 = qx * (y0 * w1 - w0 * y1) + qy * (w0 * x1 - x0 * w1) + (x0 * y1 - y0 * x1);
    const double sum = c0 + c1 + c2;
    const bool flat = !(sum > 0.0 || sum < 0.0); // edge-on: its centre
    const double u = flat ? 1.0 / 3.0 : c0 / sum;
    const double v = flat ? 1.0 / 3.0 : c1 / sum;
    const double t = 1.0 - u - v;
    const double z = u * static_cast<double>(p0.z) + v * static_cast<double>(p1.z) +
                     t * static_cast<double>(p2.z);
    const double w = u * w0 + v * w1 + t * w2;
    out[0] = static_cast<float>(u);
    out[1] = static_cast<float>(v);
    out[2] = static_cast<float>(z / w);
    out[3] = static_cast<float>(triangle + 1u);
}

} // namespace tandem::render::triangles
