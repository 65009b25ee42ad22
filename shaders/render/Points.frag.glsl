#version 450 core
// Geometry pass, points: lit when the cloud has normals, flat colour otherwise; the normal of
// a point without one faces the camera. Writes point index + 1 as the id.
#include "common/bindings.glsl"
#include "common/camera.glsl"
#include "common/shading.glsl"

layout(location = 0) in vec3 worldPosition;
layout(location = 1) in vec3 worldNormal;
layout(location = 2) in vec4 vertexColor;
layout(location = 3) flat in uint pointId;

layout(location = TANDEM_OUT_COLOR) out vec4 outColor;
layout(location = TANDEM_OUT_NORMAL) out vec4 outNormal;
layout(location = TANDEM_OUT_ID) out uint outId;

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
}
