#version 450 core
// Visibility of clip-space triangles given as tensors (render::ClipRaster): positions are used
// as they are, no camera. By default the draw is indexed and the fragment shader takes
// gl_PrimitiveID: on an H200 (driver 580.159, 2026-12) 3.75 ms for a 2.1 M-triangle grid at
// 1080p, where PULL took 4.89 ms (tandem-bench tensor-raster). PULL draws 3 × triangles
// vertices without attributes and pulls each vertex through the index list itself, so
// gl_VertexID / 3 names the triangle and an index past the vertex count reads nothing (the
// vertex goes behind the eye).
#include "common/bindings.glsl"

#ifdef PULL
layout(std430, binding = TANDEM_SSBO_CLIP_POSITIONS) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = TANDEM_SSBO_CLIP_TRIANGLES) readonly buffer Triangles { uint triangles[]; };
layout(location = 0) uniform uint firstVertex; // the batch item's first position
layout(location = 1) uniform uint vertexCount; // positions per batch item
layout(location = 0) flat out uint triangle;

void main()
{
    uint index = triangles[gl_VertexID];
    triangle = uint(gl_VertexID) / 3u;
    gl_Position = index < vertexCount ? positions[firstVertex + index] : vec4(0.0, 0.0, 0.0, -1.0);
}
#else
layout(location = TANDEM_ATTR_POSITION) in vec4 inPosition;

void main()
{
    gl_Position = inPosition;
}
#endif
