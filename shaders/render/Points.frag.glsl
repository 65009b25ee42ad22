#version 450 core
// Geometry pass, points: lit when the cloud has normals, flat colour otherwise; the normal of
// a point without one faces the camera. Writes point index + 1 as the id.
#include "common/bindings.glsl"
#include "common/camera.glsl"
#include "common/shading.glsl"
#include "common/gbuffer_outputs.glsl"

layout(location = 4) flat in uint pointId;

void main()
{
    vec3 toEye = normalize(camera.eye.xyz - worldPosition);
    bool hasNormals = camera.params.z > 0.5;
    vec3 n = hasNormals ? normalize(worldNormal) : toEye;
    if (dot(n, toEye) < 0.0)
        n = -n;
    vec3 base = baseColorOf(vertexColor);
    outColor = vec4(hasNormals ? shade(base, n, toEye) : base, 1.0);
    outNormal = vec4(n, 1.0);
    outId = pointId;
    outDepth = viewDepth;
}
