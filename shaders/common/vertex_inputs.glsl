// Vertex attributes of render::Vertex (engine/render/GpuMesh.h) and the varyings the geometry
// pass's vertex shaders hand to its fragment shaders.
layout(location = TANDEM_ATTR_POSITION) in vec3 inPosition;
layout(location = TANDEM_ATTR_NORMAL) in vec3 inNormal;
layout(location = TANDEM_ATTR_COLOR) in vec4 inColor;

layout(location = 0) out vec3 worldPosition;
layout(location = 1) out vec3 worldNormal;
layout(location = 2) out vec4 vertexColor;
layout(location = 3) out float viewDepth;

void passSurface()
{
    worldPosition = inPosition;
    worldNormal = inNormal;
    vertexColor = inColor;
    viewDepth = -(camera.view * vec4(inPosition, 1.0)).z;
    gl_Position = camera.viewProjection * vec4(inPosition, 1.0);
}
