#version 450 core
// Geometry pass, triangles: writes shaded colour, world normal, linear depth and primitive
// id + 1 (0 means background) into the G-buffer.
#include "common/bindings.glsl"
#include "common/camera.glsl"
#include "common/shading.glsl"
#include "common/gbuffer_outputs.glsl"

void main()
{
    vec3 toEye = normalize(camera.eye.xyz - worldPosition);
    vec3 n = normalize(worldNormal);
    if (dot(n, toEye) < 0.0)
        n = -n;
    outColor = vec4(shade(baseColorOf(vertexColor), n, toEye), 1.0);
    outNormal = vec4(n, 1.0);
    outId = uint(gl_PrimitiveID) + 1u;
    outDepth = viewDepth;
}
