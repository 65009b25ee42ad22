#version 450 core
// Geometry pass, triangles: writes shaded colour, world normal and primitive id + 1 (0 means
// background) into the G-buffer.
#include "common/bindings.glsl"
#include "common/camera.glsl"
#include "common/shading.glsl"

layout(location = 0) in vec3 worldPosition;
layout(location = 1) in vec3 worldNormal;
layout(location = 2) in vec4 vertexColor;

layout(location = TANDEM_OUT_COLOR) out vec4 outColor;
layout(location = TANDEM_OUT_NORMAL) out vec4 outNormal;
layout(location = TANDEM_OUT_ID) out uint outId;

void main()
{
    vec3 toEye = normalize(camera.eye.xyz - worldPosition);
    vec3 n = normalize(worldNormal);
    if (dot(n, toEye) < 0.0)
        n = -n;
    outColor = vec4(shade(baseColorOf(vertexColor), n, toEye), 1.0);
    outNormal = vec4(n, 1.0);
    outId = uint(gl_PrimitiveID) + 1u;
}
