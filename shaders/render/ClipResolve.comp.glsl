#version 450 core
// Resolve of clip-space triangles (render::ClipRaster): each pixel of one batch item becomes
// (u, v, z/w, triangle + 1), nvdiffrast's rasterize layout, in the output buffer ([B, H, W, 4]
// floats, row 0 at clip y = -1); (0, 0, 0, 0) where nothing covers it. u and v are the
// perspective-correct barycentrics of the triangle's first and second vertex at the pixel
// centre: with P0, P1, P2 the vertices' (x, y, w), the weights a of a0 P0 + a1 P1 + a2 P2 =
// (ndc.x, ndc.y, 1) normalized to sum 1 (Cramer's rule), in double precision. z/w is the
// interpolated clip z over the interpolated w.
#include "common/bindings.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(binding = TANDEM_TEX_GBUFFER_ID) uniform usampler2D visibility;
layout(std430, binding = TANDEM_SSBO_CLIP_POSITIONS) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = TANDEM_SSBO_CLIP_TRIANGLES) readonly buffer Triangles { uint triangles[]; };
layout(std430, binding = TANDEM_SSBO_CLIP_OUTPUT) writeonly buffer Output { vec4 pixels[]; };
layout(location = 0) uniform uint firstVertex; // the batch item's first position
layout(location = 1) uniform uint vertexCount; // positions per batch item
layout(location = 2) uniform uint firstPixel;  // the batch item's first output pixel
layout(location = 3) uniform ivec2 size;       // width, height

dvec4 vertexOf(uint triangle, uint k)
{
    uint index = triangles[3u * triangle + k];
    return index < vertexCount ? dvec4(positions[firstVertex + index]) : dvec4(0.0, 0.0, 0.0, 1.0);
}

void main()
{
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (pixel.x >= size.x || pixel.y >= size.y)
        return;
    uint target = firstPixel + uint(pixel.y) * uint(size.x) + uint(pixel.x);
    uint visible = texelFetch(visibility, pixel, 0).r;
    if (visible == 0u) {
        pixels[target] = vec4(0.0);
        return;
    }
    uint triangle = visible - 1u;
    dvec4 p0 = vertexOf(triangle, 0u);
    dvec4 p1 = vertexOf(triangle, 1u);
    dvec4 p2 = vertexOf(triangle, 2u);
    dvec3 q = dvec3((dvec2(pixel) + 0.5LF) / dvec2(size) * 2.0LF - 1.0LF, 1.0LF);
    double c0 = dot(q, cross(p1.xyw, p2.xyw));
    double c1 = dot(q, cross(p2.xyw, p0.xyw));
    double c2 = dot(q, cross(p0.xyw, p1.xyw));
    double sum = c0 + c1 + c2;
    // Seen edge-on (no area on screen, yet rasterized): its centre.
    double u = abs(sum) > 0.0LF ? c0 / sum : 1.0LF / 3.0LF;
    double v = abs(sum) > 0.0LF ? c1 / sum : 1.0LF / 3.0LF;
    double t = 1.0LF - u - v;
    double z = u * p0.z + v * p1.z + t * p2.z;
    double w = u * p0.w + v * p1.w + t * p2.w;
    pixels[target] = vec4(float(u), float(v), float(z / w), float(visible));
}
