#version 450 core
// Present pass: shows the G-buffer's colour or the post-process output, sRGB-encoded: the output
// and an RGBA8 colour target already hold the encoding and are copied; an RGBA16F colour target
// holds linear colour and is encoded here, the one encoding on that path. Debug views of depth,
// normals and ids are post-process stages (view-depth, view-normal, view-id), defined once for
// both backends: the frame runs them and presents the output.
#include "common/bindings.glsl"
#include "common/srgb.glsl"

layout(std140, binding = TANDEM_UBO_PRESENT) uniform Present {
    ivec4 mode; // x: 0 G-buffer colour, 1 post-process output; y: 1 the colour is linear floats
} present;

layout(binding = TANDEM_TEX_GBUFFER_COLOR) uniform sampler2D gColor;
layout(binding = TANDEM_TEX_OUTPUT) uniform sampler2D postfxOutput;

layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 outColor;

void main()
{
    ivec2 texel = ivec2(gl_FragCoord.xy);
    if (present.mode.x == 1) {
        outColor = vec4(texelFetch(postfxOutput, texel, 0).rgb, 1.0);
    } else {
        vec3 color = texelFetch(gColor, texel, 0).rgb;
        outColor = vec4(present.mode.y == 1 ? linearToSrgb(color) : color, 1.0);
    }
}
