// The per-vertex and per-pixel functions of the mesh pass (render::MeshPass), written once for
// its CUDA kernels and its host twin (TANDEM_HD), so both compute the same bits: a vertex to clip
// space, and the pixel a triangle won (its visibility key, render/TriangleRasterMath.h) resolved
// into what the GL geometry pass's resolve (shaders/render/Resolve.comp.glsl) writes: colour
// (vertex colours decoded from sRGB, the scene's texture, the head light), world normal, linear
// view depth and the triangle's id + 1. Where GL finds the pixel's triangle from its provoking
// vertex and a ray, this knows the triangle; its barycentrics are the perspective-correct ones at
// the pixel centre, as the rasterizer's resolve computes them. Plain data, no GL, no CUDA include;
// sources compile without FMA contraction.
#pragma once

#include <cstdint>

#include "engine/core/ExactMath.h"
#include "engine/core/Srgb.h"
#include "engine/render/PointSplat.h"
#include "engine/render/TriangleRasterMath.h"

namespace tandem::render::meshes {

/// render::ObjectFlag's bits (SceneLayout.h, checked against them in MeshPass.cpp).
inline constexpr std::uint32_t ObjectHasColorsBit = 2u;
inline constexpr std::uint32_t ObjectHasTextureBit = 8u;

/// What the resolve reads besides the frame (PointFrame: camera, region, colour format,
/// background): the scene's arrays and texture, in the memory of the side that runs it.
struct MeshScene {
    const PointVertex* vertices;   ///< the scene's vertex buffer (render::Vertex layout)
    const std::uint32_t* indices;  ///< 3 per triangle, global vertex indices
    const triangles::Vertex* clip; ///< clip position of each vertex (clipVertex())
    const PointObject* objects;    ///< every object record of the scene
    int objectCount;               ///< records in `objects`
    const std::uint8_t* texels;    ///< the scene's texture, RGBA8 sRGB, rows top first; or null
    int textureWidth;              ///< texels a row (0: none)
    int textureHeight;             ///< rows (0: none)
    const float* srgbToLinear;     ///< 256 entries: srgb8ToLinear() of each code
};

/// Vertex `p` (world) in clip space: viewProjection · (p, 1).
TANDEM_HD triangles::Vertex clipVertex(const PointFrame& f, const float* p)
{
    const float* m = f.viewProjection;
    return {m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + m[3],
            m[4] * p[0] + m[5] * p[1] + m[6] * p[2] + m[7],
            m[8] * p[0] + m[9] * p[1] + m[10] * p[2] + m[11],
            m[12] * p[0] + m[13] * p[1] + m[14] * p[2] + m[15]};
}

/// Perspective-correct barycentrics of pixel (px, py)'s centre on the triangle with clip
/// positions p0, p1, p2 (the rasterizer's resolve, triangles::resolve(), in double precision);
/// an edge-on triangle gives its centre.
TANDEM_HD void barycentrics(const triangles::Vertex& p0, const triangles::Vertex& p1,
                            const triangles::Vertex& p2, int px, int py, int width, int height,
                            float (&b)[3])
{
    float value[4];
    triangles::resolve(p0, p1, p2, px, py, width, height, 0u, value);
    b[0] = value[0];
    b[1] = value[1];
    b[2] = 1.0f - value[0] - value[1];
}

/// The scene's texture at texture coordinates (u, v) ((0, 0) the image's bottom left, as in OBJ),
/// repeating, filtered linearly between the four nearest texels after decoding each from sRGB
/// (as GL samples an SRGB8_ALPHA8 texture): linear RGB into `out`.
TANDEM_HD void sampleTexture(const MeshScene& s, float u, float v, float (&out)[3])
{
    // GL's t runs down the stored rows (stored top first): t = 1 - v. Wrapped into [0, 1) first,
    // so texel indices stay small whatever the coordinates; not a number samples (0, 0).
    float x = u - floorHd(u);
    float y = (1.0f - v) - floorHd(1.0f - v);
    x = x >= 0.0f && x < 1.0f ? x : 0.0f;
    y = y >= 0.0f && y < 1.0f ? y : 0.0f;
    const int w = s.textureWidth, h = s.textureHeight;
    x = x * static_cast<float>(w) - 0.5f;
    y = y * static_cast<float>(h) - 0.5f;
    const float fx = floorHd(x), fy = floorHd(y);
    const float ax = x - fx, ay = y - fy;
    const int x0 = static_cast<int>(fx), y0 = static_cast<int>(fy); // -1 .. size - 1
    const int xs[2] = {x0 < 0 ? w - 1 : x0, x0 + 1 >= w ? 0 : x0 + 1};
    const int ys[2] = {y0 < 0 ? h - 1 : y0, y0 + 1 >= h ? 0 : y0 + 1};
    const float wx[2] = {1.0f - ax, ax}, wy[2] = {1.0f - ay, ay};
    for (int c = 0; c < 3; ++c)
        out[c] = 0.0f;
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
            const std::uint8_t* texel =
                s.texels + (static_cast<std::size_t>(ys[j]) * static_cast<std::size_t>(w) +
                            static_cast<std::size_t>(xs[i])) *
                               4u;
            const float weight = wx[i] * wy[j];
            for (int c = 0; c < 3; ++c)
                out[c] = out[c] + weight * s.srgbToLinear[texel[c]];
        }
}

/// What the resolve writes for pixel (px, py), won by triangle `triangle` (0-based, global) or,
/// when `key` is triangles::EmptyKey, by no triangle (the background). As the GL resolve:
/// colours interpolated in linear colour, times the texture where the object has one, the
/// default grey without colours; the normal interpolated (the face's where the vertices have
/// none), turned towards the eye, and lit by the head light; the linear view depth of the
/// surface point; id triangle + 1.
TANDEM_HD ResolvedPixel resolveMeshPixel(const PointFrame& f, const MeshScene& s, std::uint64_t key,
                                         int px, int py)
{
    if (key == triangles::EmptyKey)
        return backgroundPixel(f);
    const auto triangle = static_cast<std::uint32_t>(key & 0xffffffffu);
    const std::uint32_t i[3] = {s.indices[3u * triangle], s.indices[3u * triangle + 1u],
                                s.indices[3u * triangle + 2u]};
    float b[3];
    barycentrics(s.clip[i[0]], s.clip[i[1]], s.clip[i[2]], px, py, f.width, f.height, b);
    const PointVertex* v[3] = {&s.vertices[i[0]], &s.vertices[i[1]], &s.vertices[i[2]]};
    const int o = objectOf(s.objects, s.objectCount, i[0]);
    const std::uint32_t flags = o < 0 ? 0u : s.objects[o].flags;
    float position[3], normal[3], color[3];
    for (int c = 0; c < 3; ++c) {
        position[c] =
            b[0] * v[0]->position[c] + b[1] * v[1]->position[c] + b[2] * v[2]->position[c];
        normal[c] = b[0] * v[0]->normal[c] + b[1] * v[1]->normal[c] + b[2] * v[2]->normal[c];
        const std::uint32_t shift = 8u * static_cast<std::uint32_t>(c);
        color[c] = b[0] * s.srgbToLinear[(v[0]->color >> shift) & 255u] +
                   b[1] * s.srgbToLinear[(v[1]->color >> shift) & 255u] +
                   b[2] * s.srgbToLinear[(v[2]->color >> shift) & 255u];
    }
    if (dot3(normal, normal) < 1e-12f) { // no vertex normals: the face's
        float e1[3], e2[3];
        for (int c = 0; c < 3; ++c) {
            e1[c] = v[1]->position[c] - v[0]->position[c];
            e2[c] = v[2]->position[c] - v[0]->position[c];
        }
        normal[0] = e1[1] * e2[2] - e1[2] * e2[1];
        normal[1] = e1[2] * e2[0] - e1[0] * e2[2];
        normal[2] = e1[0] * e2[1] - e1[1] * e2[0];
    }
    const bool textured = (flags & ObjectHasTextureBit) != 0u && s.texels && s.textureWidth > 0 &&
                          s.textureHeight > 0;
    if (textured) {
        const float u =
            b[0] * v[0]->texcoord[0] + b[1] * v[1]->texcoord[0] + b[2] * v[2]->texcoord[0];
        const float t =
            b[0] * v[0]->texcoord[1] + b[1] * v[1]->texcoord[1] + b[2] * v[2]->texcoord[1];
        float texel[3];
        sampleTexture(s, u, t, texel);
        for (int c = 0; c < 3; ++c)
            color[c] = color[c] * texel[c];
    }
    // The default grey, sRGB (0.78, 0.76, 0.72) = #C7C2B8, in linear colour (as shading.glsl).
    if ((flags & (ObjectHasColorsBit | ObjectHasTextureBit)) == 0u) {
        color[0] = 0.5704816f;
        color[1] = 0.5382355f;
        color[2] = 0.4769998f;
    }
    float toEye[3];
    for (int c = 0; c < 3; ++c)
        toEye[c] = f.eye[c] - position[c];
    const float eyeLength = sqrtf_hd(dot3(toEye, toEye));
    const float normalLength = sqrtf_hd(dot3(normal, normal));
    for (int c = 0; c < 3; ++c) {
        toEye[c] = eyeLength > 0.0f ? toEye[c] / eyeLength : 0.0f;
        normal[c] = normalLength > 0.0f ? normal[c] / normalLength : 0.0f;
    }
    if (dot3(normal, toEye) < 0.0f)
        for (int c = 0; c < 3; ++c)
            normal[c] = -normal[c];
    const float light = 0.25f + 0.75f * maxf(dot3(normal, f.lightDir), 0.0f);
    ResolvedPixel out{};
    for (int c = 0; c < 3; ++c) {
        const float linear = color[c] * light;
        if (f.colorIsHalf)
            out.color16[c] = floatToHalf(linear);
        else
            out.color8[c] = linearToSrgb8(linear);
        out.normal[c] = floatToHalf(normal[c]);
    }
    out.color8[3] = 255;
    out.color16[3] = 0x3c00u; // 1.0
    out.normal[3] = 0x3c00u;
    const float* m = f.view;
    out.depth = -(m[8] * position[0] + m[9] * position[1] + m[10] * position[2] + m[11]);
    out.id = triangle + 1u;
    return out;
}

} // namespace tandem::render::meshes
