#version 450 core
// Benchmark baseline: one constant colour into one RGBA8 target. UINT_TARGET writes a constant
// to an R32UI target instead; PRIMITIVE_ID writes gl_PrimitiveID (packed in RGBA8, or as is).
#ifdef FLAT_VERTEX_ID
layout(location = 0) flat in uint vertexId;
#endif
#ifdef UINT_TARGET
layout(location = 0) out uint outValue;
#else
layout(location = 0) out vec4 outColor;
#endif

void main()
{
#ifdef UINT_TARGET
#ifdef PRIMITIVE_ID
    outValue = uint(gl_PrimitiveID) + 1u;
#else
    outValue = 7u;
#endif
#else
#if defined(PRIMITIVE_ID)
    outColor = unpackUnorm4x8(uint(gl_PrimitiveID) + 1u);
#elif defined(FLAT_VERTEX_ID)
    outColor = unpackUnorm4x8(vertexId + 1u);
#else
    outColor = vec4(0.8, 0.7, 0.6, 1.0);
#endif
#endif
}
