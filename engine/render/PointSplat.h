// The per-point and per-pixel functions of the point rasterizer, written once for the CUDA pass
// and its host twin (TANDEM_HD): project a point, find the pixels of its round splat, make its
// visibility key (depth, then index: ties go to the lower index, so the image does not depend on
// the order points arrive in), and resolve a pixel's winning point into the G-buffer's values.
// Exact arithmetic only (core/ExactMath.h), so both sides compute the same bits. Plain data, no
// GL, no CUDA include.
#pragma once

#include <cstdint>

#include "engine/core/ExactMath.h"

namespace tandem::render {

/// A visibility key no point has: an empty pixel.
inline constexpr std::uint64_t EmptyPointKey = ~std::uint64_t{0};
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
    float sizePixels;  ///< splat diameter in pixels (when worldSize is 0)
    float worldSize;   ///< splat diameter in world units, 0: use sizePixels
    float focalPixels; ///< height / (2 tan(fovY / 2)): pixels per world unit at distance 1
    int colorIsHalf;   ///< the colour target is RGBA16F (else RGBA8)
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
    std::uint32_t color; ///< RGBA8, red in the low byte
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

/// Whether a point at `depth` is in front of the meshes' linear depth there (0: no mesh).
TANDEM_HD bool inFrontOfMesh(float depth, float meshDepth)
{
    return meshDepth <= 0.0f || depth < meshDepth;
}

/// What the resolve writes for a pixel a point won.
struct ResolvedPixel {
    std::uint16_t color16[4]; ///< RGBA16F halves (colorIsHalf)
    std::uint8_t color8[4];   ///< RGBA8 (otherwise)
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

/// Shades the winning point: base colour (the vertex colour, or the default grey), lit by the
/// head light like the meshes when it has a normal (turned towards the eye), flat otherwise.
TANDEM_HD ResolvedPixel resolvePoint(const PointFrame& f, const PointVertex& v,
                                     const PointObject& object, std::uint32_t index)
{
    constexpr std::uint32_t HasColors = 2u, HasNormals = 4u; // render::ObjectFlag
    ResolvedPixel out{};
    float toEye[3] = {f.eye[0] - v.position[0], f.eye[1] - v.position[1], f.eye[2] - v.position[2]};
    const float eyeLength = sqrtf_hd(dot3(toEye, toEye));
    const float inverseEye = eyeLength > 0.0f ? 1.0f / eyeLength : 0.0f;
    toEye[0] = toEye[0] * inverseEye;
    toEye[1] = toEye[1] * inverseEye;
    toEye[2] = toEye[2] * inverseEye;
    float n[3] = {toEye[0], toEye[1], toEye[2]};
    const bool lit = (object.flags & HasNormals) != 0;
    if (lit) {
        const float length = sqrtf_hd(dot3(v.normal, v.normal));
        if (length > 0.0f) {
            const float s = dot3(v.normal, toEye) < 0.0f ? -1.0f / length : 1.0f / length;
            n[0] = v.normal[0] * s;
            n[1] = v.normal[1] * s;
            n[2] = v.normal[2] * s;
        }
    }
    float base[3] = {0.78f, 0.76f, 0.72f};
    if (object.flags & HasColors) {
        base[0] = unorm8(v.color & 255u);
        base[1] = unorm8((v.color >> 8) & 255u);
        base[2] = unorm8((v.color >> 16) & 255u);
    }
    const float light = lit ? 0.25f + 0.75f * maxf(dot3(n, f.lightDir), 0.0f) : 1.0f;
    const float rgb[3] = {base[0] * light, base[1] * light, base[2] * light};
    for (int c = 0; c < 3; ++c) {
        out.color8[c] = toUnorm8(rgb[c]);
        out.color16[c] = floatToHalf(rgb[c]);
        out.normal[c] = floatToHalf(n[c]);
    }
    out.color8[3] = 255;
    out.color16[3] = 0x3c00u; // 1.0
    out.normal[3] = 0x3c00u;
    const float* m = f.view;
    out.depth = -(m[8] * v.position[0] + m[9] * v.position[1] + m[10] * v.position[2] + m[11]);
    out.id = PointIdBit | (object.firstPrimitive + (index - object.firstVertex) + 1u);
    return out;
}

} // namespace tandem::render
