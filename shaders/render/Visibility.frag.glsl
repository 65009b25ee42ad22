#version 450 core
// Visibility pass: the provoking vertex's index + 1 (0 means background). For points that is
// the point itself. POINTS makes the sprite round as the CUDA point pass does
// (render/PointSplat.h): a fragment stays if its centre is strictly inside the inscribed disc or
// its pixel holds the point's centre.
#include "common/bindings.glsl"

layout(location = 0) flat in uint vertexId;
#ifdef POINTS
layout(location = 1) flat in float pointSize;
#endif
layout(location = TANDEM_OUT_ID) out uint outVisibility;

void main()
{
#ifdef POINTS
    vec2 fromCentre = gl_PointCoord * 2.0 - 1.0; // -1..1 across the sprite
    bool holdsCentre = all(lessThan(abs(fromCentre) * pointSize, vec2(1.0)));
    if (dot(fromCentre, fromCentre) >= 1.0 && !holdsCentre)
        discard;
#endif
    outVisibility = vertexId + 1u;
}
