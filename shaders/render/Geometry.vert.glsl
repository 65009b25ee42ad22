#version 450 core
// Geometry pass, triangles: transforms vertices and passes surface attributes on.
#include "common/bindings.glsl"
#include "common/camera.glsl"
#include "common/vertex_inputs.glsl"

void main() { passSurface(); }
