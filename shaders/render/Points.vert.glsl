#version 450 core
// Geometry pass, points: one square splat per vertex, sized in pixels.
#include "common/bindings.glsl"
#include "common/camera.glsl"
#include "common/vertex_inputs.glsl"

layout(location = 4) flat out uint pointId;

void main()
{
    passSurface();
    pointId = uint(gl_VertexID) + 1u;
    gl_PointSize = camera.params.x;
}
