#version 450 core
// Resolve pass: turns the visibility buffer (primitive id per pixel) into the G-buffer's
// attribute targets. Each pixel's view ray is intersected with its triangle for perspective-
// correct barycentrics; normal and colour are interpolated, shaded, and written with the
// linear view depth. Points take their vertex directly. Uncovered pixels get the background.
// COLOR_RGBA16F selects the colour target's image format.
#include "common/bindings.glsl"
#include "common/camera.glsl"
#include "common/shading.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(binding = TANDEM_TEX_GBUFFER_ID) uniform usampler2D visibility;
#ifdef COLOR_RGBA16F
layout(rgba16f, binding = TANDEM_IMAGE_COLOR) uniform writeonly image2D colorImage;
#else
layout(rgba8, binding = TANDEM_IMAGE_COLOR) uniform writeonly image2D colorImage;
#endif
layout(rgba16f, binding = TANDEM_IMAGE_NORMAL) uniform writeonly image2D normalImage;
layout(r32f, binding = TANDEM_IMAGE_DEPTH) uniform writeonly image2D depthImage;

struct PackedVertex {
    float px, py, pz;
    float nx, ny, nz;
    uint color;
    float u, v;
};
layout(std430, binding = TANDEM_SSBO_VERTICES) readonly buffer Vertices { PackedVertex vertices[]; };
layout(std430, binding = TANDEM_SSBO_INDICES) readonly buffer Indices { uint indices[]; };

vec3 positionOf(uint i) { return vec3(vertices[i].px, vertices[i].py, vertices[i].pz); }
vec3 normalOf(uint i) { return vec3(vertices[i].nx, vertices[i].ny, vertices[i].nz); }
vec4 colorOf(uint i) { return unpackUnorm4x8(vertices[i].color); }

void main()
{
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (pixel.x >= int(camera.viewport.x) || pixel.y >= int(camera.viewport.y))
        return;
    uint id = texelFetch(visibility, pixel, 0).r;
    if (id == 0u) {
        imageStore(colorImage, pixel, camera.background);
        imageStore(normalImage, pixel, vec4(0.0));
        imageStore(depthImage, pixel, vec4(0.0));
        return;
    }
    uint primitive = id - 1u;
    // The pixel centre's ray, in world space.
    vec2 ndc = (vec2(pixel) + 0.5) / camera.viewport.xy * 2.0 - 1.0;
    vec4 farPoint = camera.inverseViewProjection * vec4(ndc, 1.0, 1.0);
    vec3 eye = camera.eye.xyz;
    vec3 dir = normalize(farPoint.xyz / farPoint.w - eye);

    vec3 position;
    vec3 normal;
    vec4 color;
    bool hasNormal = camera.params.z > 0.5;
    if (camera.params.w > 0.5) {
        position = positionOf(primitive);
        normal = hasNormal ? normalOf(primitive) : -dir;
        color = colorOf(primitive);
    } else {
        uint i0 = indices[3u * primitive];
        uint i1 = indices[3u * primitive + 1u];
        uint i2 = indices[3u * primitive + 2u];
        vec3 p0 = positionOf(i0), p1 = positionOf(i1), p2 = positionOf(i2);
        // Moller-Trumbore: barycentrics (b1, b2) and distance t along the ray.
        vec3 e1 = p1 - p0, e2 = p2 - p0;
        vec3 h = cross(dir, e2);
        float a = dot(e1, h);
        float f = abs(a) > 1e-20 ? 1.0 / a : 0.0;
        vec3 s = eye - p0;
        float b1 = f * dot(s, h);
        vec3 q = cross(s, e1);
        float b2 = f * dot(dir, q);
        float t = f * dot(e2, q);
        float b0 = 1.0 - b1 - b2;
        position = eye + t * dir;
        normal = b0 * normalOf(i0) + b1 * normalOf(i1) + b2 * normalOf(i2);
        if (dot(normal, normal) < 1e-12)
            normal = cross(e1, e2);
        color = b0 * colorOf(i0) + b1 * colorOf(i1) + b2 * colorOf(i2);
    }
    vec3 toEye = normalize(eye - position);
    vec3 n = normalize(normal);
    if (dot(n, toEye) < 0.0)
        n = -n;
    vec3 base = baseColorOf(color);
    bool lit = camera.params.w < 0.5 || hasNormal;
    imageStore(colorImage, pixel, vec4(lit ? shade(base, n, toEye) : base, 1.0));
    imageStore(normalImage, pixel, vec4(n, 1.0));
    imageStore(depthImage, pixel, vec4(-(camera.view * vec4(position, 1.0)).z));
}
