// Shared surface shading: two-sided Lambert with a head light and a small ambient term.
vec3 shade(vec3 baseColor, vec3 normal, vec3 toEye)
{
    vec3 n = normalize(normal);
    if (dot(n, toEye) < 0.0)
        n = -n;
    float diffuse = max(dot(n, normalize(camera.lightDir.xyz)), 0.0);
    return baseColor * (0.25 + 0.75 * diffuse);
}

vec3 baseColorOf(vec4 vertexColor, bool hasColors)
{
    return hasColors ? vertexColor.rgb : vec3(0.78, 0.76, 0.72);
}
