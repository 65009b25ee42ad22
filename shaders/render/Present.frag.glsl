#version 450 core
// Present pass: shows one G-buffer channel or the post-process output. Linear depth is mapped
// from [near, far] to near white, far dark; normals as n*0.5+0.5; ids in hashed false colour
// (background black).
#include "common/bindings.glsl"

layout(std140, binding = TANDEM_UBO_PRESENT) uniform Present {
    ivec4 mode;   // x: channel (0 color, 1 depth, 2 normal, 3 id, 4 output)
    vec4 depth;   // x: near, y: far (view-space distances of the projection)
} present;

layout(binding = TANDEM_TEX_GBUFFER_COLOR) uniform sampler2D gColor;
layout(binding = TANDEM_TEX_GBUFFER_DEPTH) uniform sampler2D gDepth;
layout(binding = TANDEM_TEX_GBUFFER_NORMAL) uniform sampler2D gNormal;
layout(binding = TANDEM_TEX_GBUFFER_ID) uniform usampler2D gId;
layout(binding = TANDEM_TEX_OUTPUT) uniform sampler2D postfxOutput;

layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 outColor;

vec3 idColor(uint id)
{
    // A 32-bit integer hash (lowbias32) spread over hue-like RGB.
    uint h = id;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return vec3(float(h & 255u), float((h >> 8) & 255u), float((h >> 16) & 255u)) / 255.0 * 0.8 +
           0.2;
}

void main()
{
    ivec2 texel = ivec2(gl_FragCoord.xy);
    int channel = present.mode.x;
    if (channel == 1) {
        float z = texelFetch(gDepth, texel, 0).r;
        if (z <= 0.0) {
            outColor = vec4(0.0, 0.0, 0.0, 1.0);
            return;
        }
        float t = clamp((z - present.depth.x) / (present.depth.y - present.depth.x), 0.0, 1.0);
        outColor = vec4(vec3(1.0 - 0.85 * t), 1.0);
    } else if (channel == 2) {
        vec4 normal = texelFetch(gNormal, texel, 0);
        outColor = vec4(normal.w > 0.0 ? normal.xyz * 0.5 + 0.5 : vec3(0.0), 1.0);
    } else if (channel == 3) {
        uint id = texelFetch(gId, texel, 0).r;
        outColor = vec4(id == 0u ? vec3(0.0) : idColor(id), 1.0);
    } else if (channel == 4) {
        outColor = vec4(texelFetch(postfxOutput, texel, 0).rgb, 1.0);
    } else {
        outColor = vec4(texelFetch(gColor, texel, 0).rgb, 1.0);
    }
}
