#version 450 core
// Geometry pass, triangles: transforms vertices and passes surface attributes on.
#include "common/bindings.glsl"
#include "common/camera.glsl"

layout(location = TANDEM_ATTR_POSITION) in vec3 inPosition;
layout(location = TANDEM_ATTR_NORMAL) in vec3 inNormal;
layout(location = TANDEM_ATTR_COLOR) in vec4 inColor;

layout(location = 0) out vec3 worldPosition;
layout(location = 1) out vec3 worldNormal;
layout(location = 2) out vec4 vertexColor;

void main()
{
    worldPosition = inPosition;
    worldNormal = inNormal;
    vertexColor = inColor;
    gl_Position = camera.viewProjection * vec4(inPosition, 1.0);
}
