// The per-point and per-pixel functions of the point rasterizer, written once for the CUDA pass
// and its host twin (TANDEM_HD): project a point, find the pixels of its round splat, make its
// visibility key (depth, then index: ties go to the lower index, so the image does not depend on
// the order points arrive in), and resolve a pixel's winning point into the G-buffer's values.
// The meshes take part through the keys: a pixel a mesh covers starts with the mesh's depth and
// an index no point has, so points behind it never win. The resolve reads 8 bytes per point
// (PointAttributes, packed once per scene) rather than the 36-byte vertex: on an H200 reading
// winners' vertices at random from a 3.6 GB buffer cost 7.6 ms at 1080p, most of it address
// translation. Exact arithmetic only (core/ExactMath.h), so both sides compute the same bits.
// Plain data, no GL, no CUDA include.
#pragma once

#include <cstdint>

#include "engine/core/ExactMath.h"
#include "engine/core/Srgb.h"

namespace tandem::render {

/// A visibility key no point has: an empty pixel.
inline constexpr std::uint64_t EmptyPointKey = ~std::uint64_t{0};
/// The index half of keys that are not points (a mesh's depth, or empty); no point has it.
inline constexpr std::uint32_t NoPointIndex = 0xffffffffu;
/// Ids of points carry this bit, so they are told from triangles' (G-buffer id channel).
inline constexpr std::uint32_t PointIdBit = 0x80000000u;
/// The largest splat radius, pixels.
inline constexpr float MaxSplatRadius = 32.0f;

/// What the rasterizer needs of the frame, prepared on the host (row-major 4×4 matrices).
struct PointFrame {
    float viewProjection[16]; ///< world → clip, row-major
    float view[16];           ///< world → view, row-major
    float eye[3];             ///< camera position, world
    float lightDir[3];        ///< unit direction towards the light, world
    int width;                ///< drawn region, pixels
    int height;
    float sizePixels;    ///< splat diameter in pixels (when worldSize is 0)
    float worldSize;     ///< splat diameter in world units, 0: use sizePixels
    float focalPixels;   ///< height / (2 tan(fovY / 2)): pixels per world unit at distance 1
    int colorIsHalf;     ///< the colour target is RGBA16F, linear (else RGBA8, sRGB-encoded)
    float projection[2]; ///< the projection's x and y scales (P00, P11)
    int meshDrawn;       ///< the geometry pass drew meshes: keys start from their depth; else
                         ///< the resolve writes the background to pixels no point covers
    float background[4]; ///< colour of uncovered pixels, linear RGBA (when !meshDrawn)
    std::uint8_t background8[4]; ///< the same as the RGBA8 target stores it, sRGB-encoded
                                 ///< (setBackground() fills both; encoded once, not per pixel)
};

/// What the resolve needs of a point, packed once per scene: colour and octahedral normal.
struct PointAttributes {
    std::uint32_t color;  ///< RGB8, sRGB as in the file, red in the low byte; the high byte
                          ///< holds PointFlag bits
    std::uint32_t normal; ///< octahedral unit normal, two snorm16 (x low)
};
enum PointFlag : std::uint32_t {
    PointHasColor = 1u << 24,  ///< else the default grey
    PointHasNormal = 2u << 24, ///< lit by its normal; else unlit, facing the eye
};

/// A point object of the scene, as GpuObject records it.
struct PointObject {
    std::uint32_t firstVertex;
    std::uint32_t vertexCount;
    std::uint32_t firstPrimitive; ///< the object's first primitive id - 1
    std::uint32_t flags;          ///< render::ObjectFlag bits
};

/// One vertex as the scene's vertex buffer holds it (render::Vertex, 36 bytes).
struct PointVertex {
    float position[3];
    float normal[3];
    std::uint32_t color; ///< RGBA8, sRGB as in the file, red in the low byte
    float texcoord[2];
};

/// A projected point: its centre in pixels (x right, y up, GL's rows), view depth, splat radius.
struct Projected {
    float x, y;
    float depth; ///< view distance along -z, world units
    float radius;
    bool visible;
};

TANDEM_HD float dot3(const float* a, const float* b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/// Projects `p` (world) for `f`; invisible when behind the near plane or off screen by more than
/// its radius.
TANDEM_HD Projected projectPoint(const PointFrame& f, const float* p)
{
    const float* m = f.viewProjection;
    const float cx = m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + m[3];
    const float cy = m[4] * p[0] + m[5] * p[1] + m[6] * p[2] + m[7];
    const float cz = m[8] * p[0] + m[9] * p[1] + m[10] * p[2] + m[11];
    const float cw = m[12] * p[0] + m[13] * p[1] + m[14] * p[2] + m[15];
    Projected out{0, 0, 0, 0, false};
    if (!(cw > 0.0f) || cz < -cw || cz > cw)
        return out;
    const float* v = f.view;
    out.depth = -(v[8] * p[0] + v[9] * p[1] + v[10] * p[2] + v[11]);
    out.x = (cx / cw * 0.5f + 0.5f) * static_cast<float>(f.width);
    out.y = (cy / cw * 0.5f + 0.5f) * static_cast<float>(f.height);
    const float diameter =
        f.worldSize > 0.0f ? f.worldSize * f.focalPixels / out.depth : f.sizePixels;
    out.radius = minf(maxf(diameter * 0.5f, 0.5f), MaxSplatRadius);
    out.visible = out.x + out.radius >= 0.0f && out.y + out.radius >= 0.0f &&
                  out.x - out.radius <= static_cast<float>(f.width) &&
                  out.y - out.radius <= static_cast<float>(f.height) && out.depth > 0.0f;
    return out;
}

/// The splat's pixel box: [x0, x1] × [y0, y1], clipped to the region.
struct SplatBox {
    int x0, y0, x1, y1;
};
TANDEM_HD SplatBox splatBox(const PointFrame& f, const Projected& p)
{
    SplatBox b;
    b.x0 = clampi(static_cast<int>(floorHd(p.x - p.radius)), 0, f.width - 1);
    b.y0 = clampi(static_cast<int>(floorHd(p.y - p.radius)), 0, f.height - 1);
    b.x1 = clampi(static_cast<int>(floorHd(p.x + p.radius)), 0, f.width - 1);
    b.y1 = clampi(static_cast<int>(floorHd(p.y + p.radius)), 0, f.height - 1);
    return b;
}

/// Whether pixel (px, py) belongs to the splat: its centre strictly inside the disc, or it holds
/// the point's centre (so a one-pixel point covers exactly its pixel, as GL_POINTS does).
TANDEM_HD bool splatCovers(const Projected& p, int px, int py)
{
    const float dx = static_cast<float>(px) + 0.5f - p.x;
    const float dy = static_cast<float>(py) + 0.5f - p.y;
    if (dx * dx + dy * dy < p.radius * p.radius)
        return true;
    return static_cast<int>(floorHd(p.x)) == px && static_cast<int>(floorHd(p.y)) == py;
}

/// The visibility key: nearer first, then the lower index. Depths are positive, so their bits
/// order as the values do.
TANDEM_HD std::uint64_t pointKey(float depth, std::uint32_t index)
{
    return (static_cast<std::uint64_t>(bitsOf(depth)) << 32) | index;
}

/// A pixel's key before any point: the mesh's linear depth there (0: none) with NoPointIndex,
/// so a point wins only if it is nearer (or as near: the mesh's index is the largest).
TANDEM_HD std::uint64_t initialKey(float meshDepth)
{
    return meshDepth > 0.0f ? (static_cast<std::uint64_t>(bitsOf(meshDepth)) << 32) | NoPointIndex
                            : EmptyPointKey;
}

/// The depth a key holds (a point's view distance).
TANDEM_HD float keyDepth(std::uint64_t key)
{
    return floatOf(static_cast<std::uint32_t>(key >> 32));
}

/// The pixel columns of row `py` a splat may cover, a superset of those splatCovers() accepts:
/// the row's chord of the disc (and the centre's column), clipped to `box`. x0 > x1: none.
struct SplatRow {
    int x0, x1;
};
TANDEM_HD SplatRow splatRow(const Projected& p, const SplatBox& box, int py)
{
    const float dy = static_cast<float>(py) + 0.5f - p.y;
    const float rest = p.radius * p.radius - dy * dy;
    const int centre = static_cast<int>(floorHd(p.x));
    const bool holdsCentreRow = static_cast<int>(floorHd(p.y)) == py;
    if (rest <= 0.0f)
        return holdsCentreRow ? SplatRow{maxi(centre, box.x0), mini(centre, box.x1)}
                              : SplatRow{1, 0};
    const float half = sqrtf_hd(rest);
    // Columns whose centre lies within `half` of p.x, one more each side against rounding.
    int x0 = static_cast<int>(floorHd(p.x - half - 0.5f)) - 1;
    int x1 = static_cast<int>(floorHd(p.x + half - 0.5f)) + 1;
    if (holdsCentreRow) {
        x0 = mini(x0, centre);
        x1 = maxi(x1, centre);
    }
    return {maxi(x0, box.x0), mini(x1, box.x1)};
}

/// -1..1 as a snorm16 (clamped; NaN: -1).
TANDEM_HD int snorm16(float v)
{
    return static_cast<int>(floorHd(clampf(v, -1.0f, 1.0f) * 32767.0f + 0.5f));
}

/// Octahedral encoding of a unit vector into two snorm16 (x in the low half). Selects, no
/// branches: a host loop of them vectorizes (and random normals mispredict no branch).
TANDEM_HD std::uint32_t encodeOctahedral(float x, float y, float z)
{
    const float l1 = absf(x) + absf(y) + absf(z);
    const float xl = x / l1, yl = y / l1; // l1 = 0: not used
    const float u = l1 > 0.0f ? xl : 0.0f;
    const float v = l1 > 0.0f ? yl : 0.0f;
    // The lower half folded over the diagonals.
    const float fu = (1.0f - absf(v)) * (u >= 0.0f ? 1.0f : -1.0f);
    const float fv = (1.0f - absf(u)) * (v >= 0.0f ? 1.0f : -1.0f);
    const bool fold = z < 0.0f;
    const int su = snorm16(fold ? fu : u);
    const int sv = snorm16(fold ? fv : v);
    return (static_cast<std::uint32_t>(su) & 0xffffu) | (static_cast<std::uint32_t>(sv) << 16);
}

/// The unit vector encodeOctahedral() packed (normalized).
TANDEM_HD void decodeOctahedral(std::uint32_t packed, float* n)
{
    float u = static_cast<float>(static_cast<std::int16_t>(packed & 0xffffu)) / 32767.0f;
    float v = static_cast<float>(static_cast<std::int16_t>(packed >> 16)) / 32767.0f;
    const float z = 1.0f - absf(u) - absf(v);
    if (z < 0.0f) {
        const float fu = (1.0f - absf(v)) * (u >= 0.0f ? 1.0f : -1.0f);
        const float fv = (1.0f - absf(u)) * (v >= 0.0f ? 1.0f : -1.0f);
        u = fu;
        v = fv;
    }
    const float length = sqrtf_hd(u * u + v * v + z * z);
    n[0] = u / length;
    n[1] = v / length;
    n[2] = z / length;
}

/// Packs what the resolve needs of a point with normal (`nx`, `ny`, `nz`) and RGBA8 `color`, of an
/// object with ObjectFlag bits `flags`. Selects, as encodeOctahedral(): a host loop of them
/// vectorizes. A normal of length 0 (or NaN) leaves the point unlit.
TANDEM_HD PointAttributes packAttributes(float nx, float ny, float nz, std::uint32_t color,
                                         std::uint32_t flags)
{
    constexpr std::uint32_t HasColors = 2u, HasNormals = 4u; // render::ObjectFlag
    const bool lit = ((flags & HasNormals) != 0u) & (nx * nx + ny * ny + nz * nz > 0.0f);
    const std::uint32_t normal = encodeOctahedral(nx, ny, nz);
    return {(color & 0xffffffu) | ((flags & HasColors) != 0u ? PointHasColor : 0u) |
                (lit ? PointHasNormal : 0u),
            lit ? normal : 0u};
}

/// packAttributes() of vertex `v`.
TANDEM_HD PointAttributes packPoint(const PointVertex& v, std::uint32_t flags)
{
    return packAttributes(v.normal[0], v.normal[1], v.normal[2], v.color, flags);
}

/// What the resolve writes for a pixel a point won. Of the colours only the target's is set.
struct ResolvedPixel {
    std::uint16_t color16[4]; ///< RGBA16F halves of linear colour (colorIsHalf)
    std::uint8_t color8[4];   ///< RGBA8: linear colour sRGB-encoded (otherwise)
    std::uint16_t normal[4];  ///< RGBA16F halves, w = 1
    float depth;              ///< view distance
    std::uint32_t id;         ///< PointIdBit | (primitive + 1)
};

/// The index of the object holding vertex `index`, or -1.
TANDEM_HD int objectOf(const PointObject* objects, int count, std::uint32_t index)
{
    for (int i = 0; i < count; ++i)
        if (index - objects[i].firstVertex < objects[i].vertexCount)
            return i;
    return -1;
}

/// Shades the point that won pixel (px, py) at view distance `depth`: its base colour (its sRGB
/// bytes decoded to linear colour, or the default grey), lit by the head light like the meshes
/// when it has a normal (turned towards the eye), flat otherwise, with the pixel's view ray as
/// the direction to the eye; stored as the colour target holds it (an unlit point's RGBA8 is
/// its file's bytes). `id` is its primitive id + 1.
TANDEM_HD ResolvedPixel resolvePoint(const PointFrame& f, PointAttributes a, float depth, int px,
                                     int py, std::uint32_t id)
{
    ResolvedPixel out{};
    // The pixel centre's ray in view space, then in world space (the view's rotation, transposed).
    const float rx = ((static_cast<float>(px) + 0.5f) / static_cast<float>(f.width) * 2.0f - 1.0f) /
                     f.projection[0];
    const float ry =
        ((static_cast<float>(py) + 0.5f) / static_cast<float>(f.height) * 2.0f - 1.0f) /
        f.projection[1];
    const float* m = f.view;
    float toEye[3];
    for (int i = 0; i < 3; ++i)
        toEye[i] = -(m[i] * rx + m[4 + i] * ry - m[8 + i]);
    const float inverseLength = 1.0f / sqrtf_hd(dot3(toEye, toEye));
    for (int i = 0; i < 3; ++i)
        toEye[i] = toEye[i] * inverseLength;
    float n[3] = {toEye[0], toEye[1], toEye[2]};
    const bool lit = (a.color & PointHasNormal) != 0;
    if (lit) {
        decodeOctahedral(a.normal, n);
        if (dot3(n, toEye) < 0.0f) {
            n[0] = -n[0];
            n[1] = -n[1];
            n[2] = -n[2];
        }
    }
    for (int c = 0; c < 3; ++c)
        out.normal[c] = floatToHalf(n[c]);
    if (!lit && !f.colorIsHalf && (a.color & PointHasColor)) {
        // Unlit into the sRGB-encoded target: the encoding of a byte's decoding is the byte
        // (every code round-trips, core/Srgb.h), so neither is computed (the common captured
        // cloud: colours, no normals).
        for (int c = 0; c < 3; ++c)
            out.color8[c] = static_cast<std::uint8_t>((a.color >> (8 * c)) & 255u);
    } else {
        // The default grey, sRGB (0.78, 0.76, 0.72) = #C7C2B8, in linear colour (as
        // shading.glsl).
        float base[3] = {0.5704816f, 0.5382355f, 0.4769998f};
        if (a.color & PointHasColor) {
            base[0] = srgb8ToLinear(a.color & 255u);
            base[1] = srgb8ToLinear((a.color >> 8) & 255u);
            base[2] = srgb8ToLinear((a.color >> 16) & 255u);
        }
        const float light = lit ? 0.25f + 0.75f * maxf(dot3(n, f.lightDir), 0.0f) : 1.0f;
        // Only the target's format: an encoding costs a log2 and an exp2.
        for (int c = 0; c < 3; ++c) {
            const float linear = base[c] * light;
            if (f.colorIsHalf)
                out.color16[c] = floatToHalf(linear);
            else
                out.color8[c] = linearToSrgb8(linear);
        }
    }
    out.color8[3] = 255;
    out.color16[3] = 0x3c00u; // 1.0
    out.normal[3] = 0x3c00u;
    out.depth = depth;
    out.id = PointIdBit | id;
    return out;
}

/// Sets the frame's background to `linear` RGBA, and its sRGB-encoded bytes.
TANDEM_HD void setBackground(PointFrame& f, const float* linear)
{
    for (int c = 0; c < 4; ++c) {
        f.background[c] = linear[c];
        f.background8[c] = c < 3 ? linearToSrgb8(linear[c]) : toUnorm8(linear[c]);
    }
}

/// What an uncovered pixel gets when no mesh was drawn: the background, zero normal, depth, id.
TANDEM_HD ResolvedPixel backgroundPixel(const PointFrame& f)
{
    ResolvedPixel out{};
    for (int c = 0; c < 4; ++c) {
        out.color8[c] = f.background8[c];
        out.color16[c] = floatToHalf(f.background[c]);
    }
    return out;
}

/// The primitive id + 1 of vertex `index` of `object`.
TANDEM_HD std::uint32_t pointId(const PointObject& object, std::uint32_t index)
{
    return object.firstPrimitive + (index - object.firstVertex) + 1u;
}

} // namespace tandem::render
