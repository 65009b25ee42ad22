// Vertex attributes of render::Vertex (engine/render/GpuMesh.h), shared by the geometry pass's
// vertex shaders.
layout(location = TANDEM_ATTR_POSITION) in vec3 inPosition;
layout(location = TANDEM_ATTR_NORMAL) in vec3 inNormal;
layout(location = TANDEM_ATTR_COLOR) in vec4 inColor;

layout(location = 0) out vec3 worldPosition;
layout(location = 1) out vec3 worldNormal;
layout(location = 2) out vec4 vertexColor;
