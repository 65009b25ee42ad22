// sRGB transfer functions (IEC 61966-2-1), the GLSL twins of engine/core/Srgb.h: 8-bit colours
// from files and textures are sRGB-encoded, the G-buffer holds linear colour (its RGBA8 target
// sRGB-encoded, its RGBA16F target as it is), the presented image is sRGB-encoded once.

// sRGB-encoded values in [0, 1] to linear colour (clamped). mix() with a bvec selects, so the
// pow of the branch not taken cannot leak a NaN.
vec3 srgbToLinear(vec3 v)
{
    v = clamp(v, 0.0, 1.0);
    return mix(pow((v + 0.055) / 1.055, vec3(2.4)), v / 12.92, lessThanEqual(v, vec3(0.04045)));
}

// Linear colour to its sRGB encoding, both in [0, 1] (clamped).
vec3 linearToSrgb(vec3 v)
{
    v = clamp(v, 0.0, 1.0);
    return mix(1.055 * pow(v, vec3(1.0 / 2.4)) - 0.055, v * 12.92,
               lessThanEqual(v, vec3(0.0031308)));
}
