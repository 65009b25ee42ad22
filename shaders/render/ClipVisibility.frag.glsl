#version 450 core
// Visibility of clip-space triangles (render::ClipRaster): the triangle's index + 1 (0 means
// nothing covers the pixel), from the vertex shader (PULL) or gl_PrimitiveID.
#include "common/bindings.glsl"

#ifdef PULL
layout(location = 0) flat in uint triangle;
#endif
layout(location = TANDEM_OUT_ID) out uint outTriangle;

void main()
{
#ifdef PULL
    outTriangle = triangle + 1u;
#else
    outTriangle = uint(gl_PrimitiveID) + 1u;
#endif
}
