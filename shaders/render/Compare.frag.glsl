#version 450 core
// Compare pass: two presented images (sequence A and B, one camera, one timeline) into one:
// side by side (the middle half of each, A left), split at a divider (A left of it, a thin line
// on it), or the difference (|A - B| per channel, scaled). Full-screen triangle of Present.vert.
#include "common/bindings.glsl"

layout(std140, binding = TANDEM_UBO_COMPARE) uniform Compare {
    ivec4 mode;     // x: 0 side by side, 1 split, 2 difference; y: image width in pixels
    vec4 settings;  // x: the divider (split), 0..1 of the width; y: the difference's scale
} compare;

layout(binding = TANDEM_TEX_COMPARE_A) uniform sampler2D imageA;
layout(binding = TANDEM_TEX_COMPARE_B) uniform sampler2D imageB;

layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 outColor;

void main()
{
    ivec2 texel = ivec2(gl_FragCoord.xy);
    int width = compare.mode.y;
    if (compare.mode.x == 0) {
        // Each half shows the middle half of its image, so both keep their aspect.
        int half_ = width / 2;
        bool left = texel.x < half_;
        ivec2 from = ivec2(texel.x - (left ? 0 : half_) + width / 4, texel.y);
        outColor = vec4((left ? texelFetch(imageA, from, 0) : texelFetch(imageB, from, 0)).rgb, 1.0);
    } else if (compare.mode.x == 1) {
        int divider = int(compare.settings.x * float(width));
        if (texel.x == divider)
            outColor = vec4(1.0, 1.0, 1.0, 1.0);
        else
            outColor = vec4((texel.x < divider ? texelFetch(imageA, texel, 0)
                                               : texelFetch(imageB, texel, 0)).rgb, 1.0);
    } else {
        vec3 a = texelFetch(imageA, texel, 0).rgb;
        vec3 b = texelFetch(imageB, texel, 0).rgb;
        outColor = vec4(min(abs(a - b) * compare.settings.y, vec3(1.0)), 1.0);
    }
}
