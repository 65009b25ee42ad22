#version 450 core
// Visibility pass: positions only; the resolve pass fetches everything else by primitive id.
// POINTS adds the point size (an extra vertex output that triangles should not pay for).
#include "common/bindings.glsl"
#include "common/camera.glsl"

layout(location = TANDEM_ATTR_POSITION) in vec3 inPosition;

void main()
{
    gl_Position = camera.viewProjection * vec4(inPosition, 1.0);
#ifdef POINTS
    gl_PointSize = camera.params.x;
#endif
}
