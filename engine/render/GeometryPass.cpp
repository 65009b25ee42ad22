#include "engine/render/GeometryPass.h"

#include <cmath>

#include "engine/core/Srgb.h"
#include "engine/gl/Debug.h"
#include "engine/render/Bindings.h"
#include "engine/render/Camera.h"
#include "engine/render/GBuffer.h"
#include "engine/render/GpuScene.h"

namespace tandem::render {

CameraBlock makeCameraBlock(const Camera& camera, int width, int height)
{
    CameraBlock block{};
    const float aspect = static_cast<float>(width) / static_cast<float>(height);
    block.view = camera.view();
    block.projection = camera.projection(aspect);
    block.viewProjection = block.projection * block.view;
    block.inverseViewProjection = glm::inverse(block.viewProjection);
    block.eye = glm::vec4(camera.eye, 1.0f);
    // A head light slightly above and to the left of the viewer.
    const glm::vec3 toEye = glm::normalize(camera.eye - camera.target);
    const glm::vec3 up(block.view[0][1], block.view[1][1], block.view[2][1]);
    const glm::vec3 right(block.view[0][0], block.view[1][0], block.view[2][0]);
    block.lightDir = glm::vec4(glm::normalize(toEye + 0.5f * up - 0.3f * right), 0.0f);
    block.viewport = glm::vec4(static_cast<float>(width), static_cast<float>(height), 0.0f, 0.0f);
    return block;
}

float focalPixels(const Camera& camera, int height)
{
    return static_cast<float>(height) * 0.5f / std::tan(glm::radians(camera.fovY) * 0.5f);
}

std::array<float, 4> linearBackground(const GeometryOptions& options)
{
    return {srgb8ToLinear(options.background[0]), srgb8ToLinear(options.background[1]),
            srgb8ToLinear(options.background[2]), 1.0f};
}

GeometryPass::GeometryPass()
    : m_visibilityTriangles({{GL_VERTEX_SHADER, "render/Visibility.vert.glsl"},
                             {GL_FRAGMENT_SHADER, "render/Visibility.frag.glsl"}},
                            "geometry.visibility.triangles"),
      m_visibilityPoints({{GL_VERTEX_SHADER, "render/Visibility.vert.glsl", "#define POINTS\n"},
                          {GL_FRAGMENT_SHADER, "render/Visibility.frag.glsl", "#define POINTS\n"}},
                         "geometry.visibility.points"),
      m_resolveRgba8({{GL_COMPUTE_SHADER, "render/Resolve.comp.glsl"}}, "geometry.resolve.rgba8"),
      m_resolveRgba16F({{GL_COMPUTE_SHADER, "render/Resolve.comp.glsl", "#define COLOR_RGBA16F\n"}},
                       "geometry.resolve.rgba16f"),
      m_cameraBlock(sizeof(CameraBlock), nullptr, GL_DYNAMIC_STORAGE_BIT, "geometry.camera")
{}

void GeometryPass::draw(GBuffer& target, const GpuScene& scene, const Camera& camera,
                        const GeometryOptions& options)
{
    gl::DebugGroup group("geometry");
    drawVisibility(target, scene, camera, options);
    resolve(target, scene);
}

void GeometryPass::drawVisibility(GBuffer& target, const GpuScene& scene, const Camera& camera,
                                  const GeometryOptions& options)
{
    TANDEM_ASSERT(!target.isMappedByCuda(),
                  "render::GeometryPass::draw(): G-buffer mapped by CUDA");
    CameraBlock block = makeCameraBlock(camera, target.width(), target.height());
    block.params = glm::vec4(options.pointSize, options.pointWorldSize,
                             focalPixels(camera, target.height()), 0.0f);
    const std::array<float, 4> background = linearBackground(options);
    block.background = glm::vec4(background[0], background[1], background[2], background[3]);
    m_cameraBlock.write(0, &block, sizeof block);
    glBindBufferBase(GL_UNIFORM_BUFFER, binding::UboCamera, m_cameraBlock.id());

    {
        gl::DebugGroup visibility("geometry.visibility");
        target.clearVisibility();
        glBindFramebuffer(GL_FRAMEBUFFER, target.framebuffer().id());
        glViewport(0, 0, target.width(), target.height());
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
        glDepthMask(GL_TRUE);
        glDisable(GL_CULL_FACE);
        glDisable(GL_BLEND);
        // The resolve looks triangles up by their last vertex.
        glProvokingVertex(GL_LAST_VERTEX_CONVENTION);
        glBindVertexArray(scene.vertexArray().id());
        if (scene.indexCount() > 0) {
            m_visibilityTriangles.use();
            glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(scene.indexCount()), GL_UNSIGNED_INT,
                           nullptr);
        }
        if (scene.hasPoints() && options.drawPoints) {
            m_visibilityPoints.use();
            glEnable(GL_PROGRAM_POINT_SIZE);
            // gl_VertexID counts from `first`: the visibility target gets global vertex ids.
            for (const GpuObject& object : scene.objects())
                if (object.flags & ObjectIsPoints)
                    glDrawArrays(GL_POINTS, static_cast<GLint>(object.firstVertex),
                                 static_cast<GLsizei>(object.vertexCount));
        }
        glBindVertexArray(0);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
    }
}

void GeometryPass::resolve(GBuffer& target, const GpuScene& scene)
{
    TANDEM_ASSERT(!target.isMappedByCuda(),
                  "render::GeometryPass::resolve(): G-buffer mapped by CUDA");
    // GL writes the targets now: CUDA-resident copies of them are stale.
    target.registrations().wroteByGl();
    {
        gl::DebugGroup resolve("geometry.resolve");
        glBindBufferBase(GL_UNIFORM_BUFFER, binding::UboCamera, m_cameraBlock.id());
        // The visibility targets were just rendered: make them visible to texel fetches.
        glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
        glBindTextureUnit(binding::TexGBufferId, target.visibility().id());
        glBindTextureUnit(binding::TexGBufferDepth, target.depth().id());
        glBindTextureUnit(binding::TexSceneTexture, scene.texture().id());
        const GLenum colorFormat =
            target.colorFormat() == ColorFormat::Rgba16F ? GL_RGBA16F : GL_RGBA8;
        glBindImageTexture(binding::ImageColor, target.color().id(), 0, GL_FALSE, 0, GL_WRITE_ONLY,
                           colorFormat);
        glBindImageTexture(binding::ImageNormal, target.normal().id(), 0, GL_FALSE, 0,
                           GL_WRITE_ONLY, GL_RGBA16F);
        glBindImageTexture(binding::ImageDepth, target.linearDepth().id(), 0, GL_FALSE, 0,
                           GL_WRITE_ONLY, GL_R32F);
        glBindImageTexture(binding::ImageId, target.id().id(), 0, GL_FALSE, 0, GL_WRITE_ONLY,
                           GL_R32UI);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding::SsboVertices,
                         scene.vertexBuffer().id());
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding::SsboIndices, scene.indexBuffer().id());
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding::SsboProvokingOffsets,
                         scene.provokingOffsets().id());
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding::SsboProvokingTriangles,
                         scene.provokingTriangles().id());
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding::SsboObjects, scene.objectBuffer().id());
        (target.colorFormat() == ColorFormat::Rgba16F ? m_resolveRgba16F : m_resolveRgba8).use();
        glDispatchCompute(static_cast<GLuint>((target.width() + 7) / 8),
                          static_cast<GLuint>((target.height() + 7) / 8), 1);
        // Whoever reads the targets next (present, read-back, CUDA) sees the image stores.
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
        glBindTextureUnit(binding::TexGBufferId, 0);
        glBindTextureUnit(binding::TexGBufferDepth, 0);
        glBindTextureUnit(binding::TexSceneTexture, 0);
        for (GLuint unit :
             {binding::ImageColor, binding::ImageNormal, binding::ImageDepth, binding::ImageId})
            glBindImageTexture(unit, 0, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
    }
}

} // namespace tandem::render
