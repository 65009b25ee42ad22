#version 450 core
// Visibility pass: positions only, plus the vertex's index, which the fragment shader takes
// from the provoking (last) vertex. The resolve pass finds the triangle from it. gl_PrimitiveID
// would name the triangle directly, but on an H200 (driver 580.159, 2026-11) it cost 45 % more
// raster time for 2 M triangles at 1080p; a flat vertex index cost 1.5 %. POINTS adds the point
// size (an extra vertex output that triangles should not pay for): camera.params.x pixels, or
// camera.params.y world units shrinking with the view distance (params.z: pixels per world unit
// at distance 1), 1 to 64 pixels across, as the CUDA point pass does (render/PointSplat.h).
#include "common/bindings.glsl"
#include "common/camera.glsl"

layout(location = TANDEM_ATTR_POSITION) in vec3 inPosition;
layout(location = 0) flat out uint vertexId;
#ifdef POINTS
layout(location = 1) flat out float pointSize;
#endif

void main()
{
    gl_Position = camera.viewProjection * vec4(inPosition, 1.0);
    vertexId = uint(gl_VertexID);
#ifdef POINTS
    float distance = -(camera.view * vec4(inPosition, 1.0)).z;
    float diameter = camera.params.y > 0.0 ? camera.params.y * camera.params.z / max(distance, 1e-6)
                                           : camera.params.x;
    gl_PointSize = clamp(diameter, 1.0, 64.0);
    pointSize = gl_PointSize;
#endif
}
