#version 450 core
// Benchmark baseline: the same vertex buffer as the geometry pass, position only.
#include "common/bindings.glsl"
#include "common/camera.glsl"

layout(location = TANDEM_ATTR_POSITION) in vec3 inPosition;

void main() { gl_Position = camera.viewProjection * vec4(inPosition, 1.0); }
