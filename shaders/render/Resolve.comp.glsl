#version 450 core
// Resolve pass: turns the visibility buffer (provoking vertex per pixel) into the G-buffer's
// attribute targets. The vertex's object record says whether it is a point or a mesh vertex.
// A mesh pixel's triangle is the one, among those whose last vertex is that vertex, that the
// pixel's view ray hits inside at the rasterized depth. The ray's barycentrics on it are
// perspective-correct: normal and colour are interpolated, shaded, and written with the linear
// view depth and the primitive id + 1 (triangles of all meshes first, then points; points' ids
// carry PointIdBit, as the CUDA point pass writes them). Points take their vertex directly.
// Uncovered pixels get the background. Colour is linear from here on: vertex colours are sRGB
// bytes, decoded per vertex before they are interpolated; the scene texture is GL_SRGB8_ALPHA8,
// so sampling decodes (before filtering). COLOR_RGBA16F selects the colour target's image format:
// linear halves there, else RGBA8 holding the sRGB encoding (render::GBuffer says why). A mesh
// flagged as textured multiplies its colour by the scene's texture at its interpolated texture
// coordinates ((0, 0) at the image's bottom left, as in OBJ; the texture's rows are stored top
// first).
#include "common/bindings.glsl"
#include "common/camera.glsl"
#include "common/shading.glsl"
#include "common/srgb.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(binding = TANDEM_TEX_GBUFFER_ID) uniform usampler2D visibility;
layout(binding = TANDEM_TEX_GBUFFER_DEPTH) uniform sampler2D windowDepth;
layout(binding = TANDEM_TEX_SCENE_TEXTURE) uniform sampler2D sceneTexture;
#ifdef COLOR_RGBA16F
layout(rgba16f, binding = TANDEM_IMAGE_COLOR) uniform writeonly image2D colorImage;
#else
layout(rgba8, binding = TANDEM_IMAGE_COLOR) uniform writeonly image2D colorImage;
#endif
layout(rgba16f, binding = TANDEM_IMAGE_NORMAL) uniform writeonly image2D normalImage;
layout(r32f, binding = TANDEM_IMAGE_DEPTH) uniform writeonly image2D depthImage;
layout(r32ui, binding = TANDEM_IMAGE_ID) uniform writeonly uimage2D idImage;

struct PackedVertex {
    float px, py, pz;
    float nx, ny, nz;
    uint color;
    float u, v;
};
layout(std430, binding = TANDEM_SSBO_VERTICES) readonly buffer Vertices { PackedVertex vertices[]; };
layout(std430, binding = TANDEM_SSBO_INDICES) readonly buffer Indices { uint indices[]; };
// Triangles by provoking vertex: those of vertex v are provokingTriangles[offsets[v] ..
// offsets[v + 1]).
layout(std430, binding = TANDEM_SSBO_PROVOKING_OFFSETS) readonly buffer ProvokingOffsets {
    uint provokingOffsets[];
};
layout(std430, binding = TANDEM_SSBO_PROVOKING_TRIANGLES) readonly buffer ProvokingTriangles {
    uint provokingTriangles[];
};
// One record per object (render::GpuObject): x first vertex, y vertex count, z first primitive,
// w flags (1 points, 2 has colours, 4 has normals, 8 textured).
layout(std430, binding = TANDEM_SSBO_OBJECTS) readonly buffer Objects { uvec4 objects[]; };

const uint ObjectIsPoints = 1u;
const uint ObjectHasColors = 2u;
const uint ObjectHasNormals = 4u;
const uint ObjectHasTexture = 8u;
const uint PointIdBit = 0x80000000u; // render::PointIdBit

uvec4 objectOf(uint vertex)
{
    // Scenes hold a handful of objects: a linear search costs less than the loads of a bisection.
    for (int i = 0; i < objects.length(); ++i)
        if (vertex - objects[i].x < objects[i].y)
            return objects[i];
    return uvec4(0u);
}

vec3 positionOf(uint i) { return vec3(vertices[i].px, vertices[i].py, vertices[i].pz); }
vec3 normalOf(uint i) { return vec3(vertices[i].nx, vertices[i].ny, vertices[i].nz); }
vec4 colorOf(uint i)
{
    vec4 c = unpackUnorm4x8(vertices[i].color);
    return vec4(srgbToLinear(c.rgb), c.a);
}

// Linear colour as the colour target stores it.
void storeColor(ivec2 pixel, vec3 linear)
{
#ifdef COLOR_RGBA16F
    imageStore(colorImage, pixel, vec4(linear, 1.0));
#else
    imageStore(colorImage, pixel, vec4(linearToSrgb(linear), 1.0));
#endif
}
vec2 texcoordOf(uint i) { return vec2(vertices[i].u, vertices[i].v); }

void main()
{
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (pixel.x >= int(camera.viewport.x) || pixel.y >= int(camera.viewport.y))
        return;
    uint visible = texelFetch(visibility, pixel, 0).r;
    if (visible == 0u) {
        storeColor(pixel, camera.background.rgb);
        imageStore(normalImage, pixel, vec4(0.0));
        imageStore(depthImage, pixel, vec4(0.0));
        imageStore(idImage, pixel, uvec4(0u));
        return;
    }
    uint vertex = visible - 1u;
    uvec4 object = objectOf(vertex);
    bool isPoint = (object.w & ObjectIsPoints) != 0u;
    bool hasNormal = (object.w & ObjectHasNormals) != 0u;
    uint primitive = object.z + (vertex - object.x);
    // The pixel centre's ray, in world space.
    vec2 ndc = (vec2(pixel) + 0.5) / camera.viewport.xy * 2.0 - 1.0;
    vec4 farPoint = camera.inverseViewProjection * vec4(ndc, 1.0, 1.0);
    vec3 eye = camera.eye.xyz;
    vec3 dir = normalize(farPoint.xyz / farPoint.w - eye);

    vec3 position;
    vec3 normal;
    vec4 color;
    if (isPoint) {
        position = positionOf(vertex);
        normal = hasNormal ? normalOf(vertex) : -dir;
        color = colorOf(vertex);
    } else {
        // Where the rasterizer put the surface along this ray.
        vec4 surface = camera.inverseViewProjection *
                       vec4(ndc, texelFetch(windowDepth, pixel, 0).r * 2.0 - 1.0, 1.0);
        float rasterT = length(surface.xyz / surface.w - eye);
        float bestScore = -1e30;
        vec3 bestBary = vec3(1.0, 0.0, 0.0);
        float bestT = rasterT;
        uint best = provokingTriangles[provokingOffsets[vertex]];
        for (uint c = provokingOffsets[vertex]; c < provokingOffsets[vertex + 1u]; ++c) {
            uint triangle = provokingTriangles[c];
            vec3 p0 = positionOf(indices[3u * triangle]);
            vec3 p1 = positionOf(indices[3u * triangle + 1u]);
            vec3 p2 = positionOf(indices[3u * triangle + 2u]);
            // Moller-Trumbore: barycentrics (b1, b2) and distance t along the ray.
            vec3 e1 = p1 - p0, e2 = p2 - p0;
            vec3 h = cross(dir, e2);
            float a = dot(e1, h);
            float f = abs(a) > 1e-30 ? 1.0 / a : 0.0;
            vec3 s = eye - p0;
            float b1 = f * dot(s, h);
            vec3 q = cross(s, e1);
            float b2 = f * dot(dir, q);
            float t = f * dot(e2, q);
            float b0 = 1.0 - b1 - b2;
            // Inside (up to rounding) and nearest the rasterized depth wins; else the least
            // outside.
            float inside = min(b0, min(b1, b2));
            float score = inside > -1e-3 ? 1.0 - abs(t - rasterT) / max(rasterT, 1e-20) : inside - 1.0;
            if (score > bestScore) {
                bestScore = score;
                best = triangle;
                bestBary = vec3(b0, b1, b2);
                bestT = t;
            }
        }
        primitive = best;
        uint i0 = indices[3u * best];
        uint i1 = indices[3u * best + 1u];
        uint i2 = indices[3u * best + 2u];
        position = eye + bestT * dir;
        normal = bestBary.x * normalOf(i0) + bestBary.y * normalOf(i1) + bestBary.z * normalOf(i2);
        if (dot(normal, normal) < 1e-12)
            normal = cross(positionOf(i1) - positionOf(i0), positionOf(i2) - positionOf(i0));
        color = bestBary.x * colorOf(i0) + bestBary.y * colorOf(i1) + bestBary.z * colorOf(i2);
        if ((object.w & ObjectHasTexture) != 0u) {
            vec2 uv = bestBary.x * texcoordOf(i0) + bestBary.y * texcoordOf(i1) +
                      bestBary.z * texcoordOf(i2);
            // No derivatives in a compute shader: the base level, filtered linearly.
            color *= textureLod(sceneTexture, vec2(uv.x, 1.0 - uv.y), 0.0);
        }
    }
    // Points face the pixel's ray, as the CUDA point pass shades them (render/PointSplat.h).
    vec3 toEye = isPoint ? -dir : normalize(eye - position);
    vec3 n = normalize(normal);
    if (dot(n, toEye) < 0.0)
        n = -n;
    vec3 base = baseColorOf(color, (object.w & (ObjectHasColors | ObjectHasTexture)) != 0u);
    bool lit = !isPoint || hasNormal;
    storeColor(pixel, lit ? shade(base, n, toEye) : base);
    imageStore(normalImage, pixel, vec4(n, 1.0));
    imageStore(depthImage, pixel, vec4(-(camera.view * vec4(position, 1.0)).z));
    imageStore(idImage, pixel, uvec4(isPoint ? (primitive + 1u) | PointIdBit : primitive + 1u));
}
