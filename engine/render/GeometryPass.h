// The geometry pass: rasterizes a GpuMesh (triangles, or points for clouds) into the G-buffer
// with the orbit camera. Owns its programs and the camera uniform buffer. Render thread only.
#pragma once

#include <glm/glm.hpp>

#include "engine/gl/Buffer.h"
#include "engine/gl/Program.h"

namespace tandem::render {

class GBuffer;
class GpuMesh;
class OrbitCamera;

/// std140 layout of the Camera block in shaders/common/camera.glsl.
struct CameraBlock {
    glm::mat4 view;
    glm::mat4 projection;
    glm::mat4 viewProjection;
    glm::vec4 eye;      ///< xyz: world position
    glm::vec4 lightDir; ///< xyz: unit direction towards the light, world space
    glm::vec4 params;   ///< x: point size in pixels, y: has colours, z: has normals
};
static_assert(sizeof(CameraBlock) == 3 * 64 + 3 * 16, "must match std140 Camera block");

/// Options of one geometry pass.
struct GeometryOptions {
    float background[4] = {0.09f, 0.09f, 0.11f, 1.0f}; ///< clear colour, linear RGBA
    float pointSize = 2.0f;                            ///< pixels, for point clouds
};

class GeometryPass {
public:
    /// Compiles the programs. Throws GlError with file:line on shader errors.
    GeometryPass();

    /// Clears `target` and draws `mesh` seen by `camera`, in debug group "geometry".
    void draw(GBuffer& target, const GpuMesh& mesh, const OrbitCamera& camera,
              const GeometryOptions& options);

private:
    gl::Program m_triangles;
    gl::Program m_points;
    gl::Buffer m_cameraBlock;
};

} // namespace tandem::render
