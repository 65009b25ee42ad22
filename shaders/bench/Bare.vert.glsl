#version 450 core
// Benchmark baseline: the same vertex buffer as the geometry pass, position only.
// FLAT_VERTEX_ID also hands the provoking vertex's index to the fragment shader.
#include "common/bindings.glsl"
#include "common/camera.glsl"

layout(location = TANDEM_ATTR_POSITION) in vec3 inPosition;

#ifdef FLAT_VERTEX_ID
layout(location = 0) flat out uint vertexId;
#endif

void main()
{
    gl_Position = camera.viewProjection * vec4(inPosition, 1.0);
#ifdef FLAT_VERTEX_ID
    vertexId = uint(gl_VertexID);
#endif
}
