#version 450 core
// Visibility pass: the provoking vertex's index + 1 (0 means background). For points that is
// the point itself.
#include "common/bindings.glsl"

layout(location = 0) flat in uint vertexId;
layout(location = TANDEM_OUT_ID) out uint outVisibility;

void main() { outVisibility = vertexId + 1u; }
