#version 450 core
// Geometry pass, triangles: transforms vertices and passes surface attributes on.
#include "common/bindings.glsl"
#include "common/camera.glsl"
#include "common/vertex_inputs.glsl"

void main()
{
    worldPosition = inPosition;
    worldNormal = inNormal;
    vertexColor = inColor;
    gl_Position = camera.viewProjection * vec4(inPosition, 1.0);
}
