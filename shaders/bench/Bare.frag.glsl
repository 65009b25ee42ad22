#version 450 core
// Benchmark baseline: one constant colour into one RGBA8 target.
layout(location = 0) out vec4 outColor;

void main() { outColor = vec4(0.8, 0.7, 0.6, 1.0); }
