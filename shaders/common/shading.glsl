// Shared surface shading: two-sided Lambert with a head light and a small ambient term, on
// linear colour.
vec3 shade(vec3 baseColor, vec3 normal, vec3 toEye)
{
    vec3 n = normalize(normal);
    if (dot(n, toEye) < 0.0)
        n = -n;
    float diffuse = max(dot(n, normalize(camera.lightDir.xyz)), 0.0);
    return baseColor * (0.25 + 0.75 * diffuse);
}

// `vertexColor` linear; the default grey is sRGB (0.78, 0.76, 0.72) = #C7C2B8 in linear colour,
// as the point passes have it (render/PointSplat.h).
vec3 baseColorOf(vec4 vertexColor, bool hasColors)
{
    return hasColors ? vertexColor.rgb : vec3(0.5704816, 0.5382355, 0.4769998);
}
