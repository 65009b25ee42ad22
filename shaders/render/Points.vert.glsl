#version 450 core
// Geometry pass, points: one square splat per vertex, sized in pixels.
#include "common/bindings.glsl"
#include "common/camera.glsl"
#include "common/vertex_inputs.glsl"

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
