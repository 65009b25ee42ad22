#include "engine/render/GeometryPass.h"

#include "engine/gl/Debug.h"
#include "engine/render/Bindings.h"
#include "engine/render/GBuffer.h"
#include "engine/render/GpuMesh.h"
#include "engine/render/OrbitCamera.h"

namespace tandem::render {

GeometryPass::GeometryPass()
    : m_triangles({{GL_VERTEX_SHADER, "render/Geometry.vert.glsl"},
                   {GL_FRAGMENT_SHADER, "render/Geometry.frag.glsl"}},
                  "geometry.triangles"),
      m_points({{GL_VERTEX_SHADER, "render/Points.vert.glsl"},
                {GL_FRAGMENT_SHADER, "render/Points.frag.glsl"}},
               "geometry.points"),
      m_cameraBlock(sizeof(CameraBlock), nullptr, GL_DYNAMIC_STORAGE_BIT, "geometry.camera")
{}

void GeometryPass::draw(GBuffer& target, const GpuMesh& mesh, const OrbitCamera& camera,
                        const GeometryOptions& options)
{
    gl::DebugGroup group("geometry");
    TANDEM_ASSERT(!target.isMappedByCuda(), "render::GeometryPass::draw(): G-buffer mapped by CUDA");
    const float aspect = static_cast<float>(target.width()) / static_cast<float>(target.height());
    CameraBlock block;
    block.view = camera.view();
    block.projection = camera.projection(aspect);
    block.viewProjection = block.projection * block.view;
    block.eye = glm::vec4(camera.eye(), 1.0f);
    // A head light slightly above and to the left of the viewer.
    const glm::vec3 toEye = glm::normalize(camera.eye() - camera.target());
    const glm::mat4 view = camera.view();
    const glm::vec3 up(view[0][1], view[1][1], view[2][1]);
    const glm::vec3 right(view[0][0], view[1][0], view[2][0]);
    block.lightDir = glm::vec4(glm::normalize(toEye + 0.5f * up - 0.3f * right), 0.0f);
    block.params = glm::vec4(options.pointSize, mesh.hasColors() ? 1.0f : 0.0f,
                             mesh.hasNormals() ? 1.0f : 0.0f, 0.0f);
    m_cameraBlock.write(0, &block, sizeof block);

    target.clear(options.background);
    glBindFramebuffer(GL_FRAMEBUFFER, target.framebuffer().id());
    glViewport(0, 0, target.width(), target.height());
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    glBindBufferBase(GL_UNIFORM_BUFFER, binding::UboCamera, m_cameraBlock.id());
    glBindVertexArray(mesh.vertexArray().id());
    if (mesh.isPointCloud()) {
        glEnable(GL_PROGRAM_POINT_SIZE);
        m_points.use();
        glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(mesh.vertexCount()));
    } else {
        m_triangles.use();
        glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(mesh.indexCount()), GL_UNSIGNED_INT,
                       nullptr);
    }
    glBindVertexArray(0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

} // namespace tandem::render
