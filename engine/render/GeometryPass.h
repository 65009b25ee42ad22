// The geometry pass, as a visibility buffer: GL rasterizes only provoking-vertex ids and depth
// (as cheap as a bare draw), then a compute pass resolves each pixel's object and triangle (or
// point) into colour, normal, linear depth and primitive id. All objects of a scene in one
// G-buffer: the meshes' triangles in one draw, each point cloud in one more. Owns its programs
// and the camera uniform buffer. Render thread only.
#pragma once

#include <array>
#include <cstdint>

#include <glm/glm.hpp>

#include "engine/gl/Buffer.h"
#include "engine/gl/Program.h"

namespace tandem::render {

class GBuffer;
class GpuScene;
struct Camera;

/// std140 layout of the Camera block in shaders/common/camera.glsl.
struct CameraBlock {
    glm::mat4 view;
    glm::mat4 projection;
    glm::mat4 viewProjection;
    glm::mat4 inverseViewProjection;
    glm::vec4 eye;        ///< xyz: world position
    glm::vec4 lightDir;   ///< xyz: unit direction towards the light, world space
    glm::vec4 params;     ///< x: point size, pixels; y: point size, world (0: x); z: focal, pixels
    glm::vec4 background; ///< colour of uncovered pixels, linear RGBA
    glm::vec4 viewport;   ///< xy: drawn region in pixels
};
static_assert(sizeof(CameraBlock) == 4 * 64 + 5 * 16, "must match std140 Camera block");

/// Fills the camera block for `camera` drawing a `width`×`height` region.
CameraBlock makeCameraBlock(const Camera& camera, int width, int height);

/// Pixels per world unit at view distance 1 for `camera` drawing `height` rows: what a splat's
/// world size is multiplied by (and divided by its distance) to give pixels.
float focalPixels(const Camera& camera, int height);

/// Options of one geometry pass.
struct GeometryOptions {
    /// The colour of uncovered pixels, sRGB-encoded as a colour picker or a file gives it: the
    /// one definition of the background (#17171C by default). The G-buffer holds it in linear
    /// colour (linearBackground()), so with no chain the presented image has exactly these bytes.
    std::uint8_t background[3] = {0x17, 0x17, 0x1c};
    float pointSize = 2.0f;      ///< splat diameter in pixels, for point clouds
    float pointWorldSize = 0.0f; ///< splat diameter in world units (attenuated); 0: pointSize
    bool drawPoints = true;      ///< false: a point pass (render::PointPass) draws them instead
    float splatScale = 1.0f;     ///< multiplies every Gaussian's scales (render::SplatPass)
    int splatShDegree = 3;       ///< the highest SH degree the splat pass evaluates
    /// The splat pass draws a debug view instead (splats::SplatDebug: alpha, Gaussians a pixel,
    /// centres; the frame sets it from the channel shown).
    int splatDebug = 0;
};

/// `options`' background as the G-buffer holds it: linear RGBA, alpha 1 (srgb8ToLinear(), the
/// function the CUDA and host point passes use too).
std::array<float, 4> linearBackground(const GeometryOptions& options);

class GeometryPass {
public:
    /// Compiles the programs. Throws GlError with file:line on shader errors.
    GeometryPass();

    /// Clears `target` and draws `scene` seen by `camera`: the visibility pass (debug group
    /// "geometry.visibility") and the resolve (debug group "geometry.resolve").
    void draw(GBuffer& target, const GpuScene& scene, const Camera& camera,
              const GeometryOptions& options);
    /// The two halves of draw(), for timing them apart: rasterize ids and depth...
    void drawVisibility(GBuffer& target, const GpuScene& scene, const Camera& camera,
                        const GeometryOptions& options);
    /// ...then resolve them into colour, normal, linear depth and id (same scene, after
    /// drawVisibility).
    void resolve(GBuffer& target, const GpuScene& scene);

private:
    gl::Program m_visibilityTriangles;
    gl::Program m_visibilityPoints;
    gl::Program m_resolveRgba8;
    gl::Program m_resolveRgba16F;
    gl::Buffer m_cameraBlock;
};

} // namespace tandem::render
