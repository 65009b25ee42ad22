// The per-frame camera block; layout mirrored by render::CameraBlock (std140).
layout(std140, binding = TANDEM_UBO_CAMERA) uniform Camera {
    mat4 view;
    mat4 projection;
    mat4 viewProjection;
    mat4 inverseViewProjection;
    vec4 eye;        // xyz: camera position, world space
    vec4 lightDir;   // xyz: unit direction towards the light, world space
    vec4 params;     // x: point size (pixels); y, z, w: unused
    vec4 background; // colour of uncovered pixels, linear
    vec4 viewport;   // xy: drawn region in pixels
} camera;
