// Binding points shared by the GLSL and C++ sides. Mirrored in engine/render/Bindings.h; the
// unit test BindingsTest checks that the two agree. Define each number here exactly once.

// Uniform buffers
#define TANDEM_UBO_CAMERA 0
#define TANDEM_UBO_PRESENT 1
#define TANDEM_UBO_COMPARE 2

// Texture units
#define TANDEM_TEX_GBUFFER_COLOR 0
#define TANDEM_TEX_GBUFFER_DEPTH 1
#define TANDEM_TEX_GBUFFER_NORMAL 2
#define TANDEM_TEX_GBUFFER_ID 3
#define TANDEM_TEX_OUTPUT 4
#define TANDEM_TEX_COMPARE_A 5
#define TANDEM_TEX_COMPARE_B 6
#define TANDEM_TEX_SCENE_TEXTURE 7

// Image units (the resolve pass writes the G-buffer's attribute targets)
#define TANDEM_IMAGE_COLOR 0
#define TANDEM_IMAGE_NORMAL 1
#define TANDEM_IMAGE_DEPTH 2
#define TANDEM_IMAGE_ID 3

// Shader storage buffers (the resolve pass reads the scene)
#define TANDEM_SSBO_VERTICES 0
#define TANDEM_SSBO_INDICES 1
#define TANDEM_SSBO_PROVOKING_OFFSETS 2
#define TANDEM_SSBO_PROVOKING_TRIANGLES 3
#define TANDEM_SSBO_OBJECTS 4
// (render::ClipRaster: rasterizing clip-space positions given as tensors)
#define TANDEM_SSBO_CLIP_POSITIONS 5
#define TANDEM_SSBO_CLIP_TRIANGLES 6
#define TANDEM_SSBO_CLIP_OUTPUT 7

// Vertex attributes
#define TANDEM_ATTR_POSITION 0
#define TANDEM_ATTR_NORMAL 1
#define TANDEM_ATTR_COLOR 2
#define TANDEM_ATTR_TEXCOORD 3

// Visibility pass output: the provoking vertex + 1 (its only colour attachment)
#define TANDEM_OUT_ID 0
