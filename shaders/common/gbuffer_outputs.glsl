// Varyings from common/vertex_inputs.glsl and the G-buffer targets the geometry pass writes.
layout(location = 0) in vec3 worldPosition;
layout(location = 1) in vec3 worldNormal;
layout(location = 2) in vec4 vertexColor;
layout(location = 3) in float viewDepth;

layout(location = TANDEM_OUT_COLOR) out vec4 outColor;
layout(location = TANDEM_OUT_NORMAL) out vec4 outNormal;
layout(location = TANDEM_OUT_ID) out uint outId;
layout(location = TANDEM_OUT_DEPTH) out float outDepth;
