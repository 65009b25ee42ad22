#version 450 core
// Geometry pass, points: one square splat per vertex, sized in pixels.
#include "common/bindings.glsl"
#include "common/camera.glsl"

layout(location = TANDEM_ATTR_POSITION) in vec3 inPosition;
layout(location = TANDEM_ATTR_NORMAL) in vec3 inNormal;
layout(location = TANDEM_ATTR_COLOR) in vec4 inColor;

layout(location = 0) out vec3 worldPosition;
layout(location = 1) out vec3 worldNormal;
layout(location = 2) out vec4 vertexColor;
layout(location = 3) flat out uint pointId;

void main()
{
    worldPosition = inPosition;
    worldNormal = inNormal;
    vertexColor = inColor;
    pointId = uint(gl_VertexID) + 1u;
    gl_Position = camera.viewProjection * vec4(inPosition, 1.0);
    gl_PointSize = camera.params.x;
}
