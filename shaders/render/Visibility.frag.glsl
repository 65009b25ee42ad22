#version 450 core
// Visibility pass: the nearest primitive's index + 1 (0 means background). For triangles that
// is the triangle, for GL_POINTS the point.
#include "common/bindings.glsl"

layout(location = TANDEM_OUT_ID) out uint outId;

void main() { outId = uint(gl_PrimitiveID) + 1u; }
