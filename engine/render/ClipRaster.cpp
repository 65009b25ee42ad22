#include "engine/render/ClipRaster.h"

#include <algorithm>

#include "engine/core/Error.h"
#include "engine/gl/Debug.h"
#include "engine/render/Bindings.h"

namespace tandem::render {
namespace {

gl::Program visibilityProgram(TriangleIds ids)
{
    const char* defines = ids == TriangleIds::Pulled ? "#define PULL\n" : "";
    return gl::Program({{GL_VERTEX_SHADER, "render/ClipVisibility.vert.glsl", defines},
                        {GL_FRAGMENT_SHADER, "render/ClipVisibility.frag.glsl", defines}},
                       ids == TriangleIds::Pulled ? "raster.visibility.pulled"
                                                  : "raster.visibility.primitive-id");
}

/// A buffer of at least `bytes` (GL wants a non-zero size), reallocated only to grow.
void grow(gl::Buffer& buffer, std::size_t bytes, std::string_view label,
          interop::Registrations& registrations)
{
    bytes = std::max<std::size_t>(bytes, 16);
    if (buffer.id() != 0 && buffer.size() >= bytes)
        return;
    TANDEM_ASSERT(!registrations.isMapped(),
                  "render::ClipRaster::reserve(): buffers mapped by CUDA");
    // The registrations name the buffer about to be replaced: they go first.
    registrations.clear();
    buffer = gl::Buffer(bytes, nullptr, GL_DYNAMIC_STORAGE_BIT, label);
}

} // namespace

ClipRaster::ClipRaster(TriangleIds ids)
    : m_ids(ids), m_visibility(visibilityProgram(ids)),
      m_resolve({{GL_COMPUTE_SHADER, "render/ClipResolve.comp.glsl"}}, "raster.resolve"),
      m_vertexArray("raster.vertices")
{}

void ClipRaster::reserve(const ClipRasterShape& shape)
{
    grow(m_positions, shape.positionBytes(), "raster.positions", m_registrations);
    grow(m_triangles, shape.triangleBytes(), "raster.triangles", m_registrations);
    grow(m_output, shape.outputBytes(), "raster.output", m_registrations);
    if (m_ids == TriangleIds::PrimitiveId) {
        m_vertexArray.setVertexBuffer(0, m_positions, 0, 4 * sizeof(float));
        m_vertexArray.setAttribute(binding::AttrPosition, 0, 4, GL_FLOAT, false, 0);
        m_vertexArray.setIndexBuffer(m_triangles);
    }
    if (m_visibilityTarget.width() == shape.width && m_visibilityTarget.height() == shape.height)
        return;
    m_visibilityTarget = gl::Texture(GL_R32UI, shape.width, shape.height, "raster.visibility");
    m_depth = gl::Texture(GL_DEPTH_COMPONENT32F, shape.width, shape.height, "raster.depth");
    m_framebuffer = gl::Framebuffer("raster.visibility");
    m_framebuffer.attach(GL_COLOR_ATTACHMENT0 + binding::OutId, m_visibilityTarget);
    m_framebuffer.attach(GL_DEPTH_ATTACHMENT, m_depth);
    m_framebuffer.setDrawBuffers({GL_COLOR_ATTACHMENT0 + binding::OutId});
    m_framebuffer.checkComplete();
}

void ClipRaster::draw(const ClipRasterShape& shape)
{
    TANDEM_ASSERT(!isMappedByCuda(), "render::ClipRaster::draw(): buffers mapped by CUDA");
    TANDEM_ASSERT(m_visibilityTarget.width() == shape.width &&
                      m_visibilityTarget.height() == shape.height &&
                      m_output.size() >= shape.outputBytes(),
                  "render::ClipRaster::draw(): shape not reserved");
    const GLuint zeroId[4] = {0, 0, 0, 0};
    const float far = 1.0f;
    const auto vertexCount = static_cast<GLuint>(shape.vertices);
    const auto indexCount = static_cast<GLsizei>(3 * shape.triangles);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding::SsboClipPositions, m_positions.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding::SsboClipTriangles, m_triangles.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding::SsboClipOutput, m_output.id());
    for (std::size_t item = 0; item < shape.batch; ++item) {
        const auto firstVertex = static_cast<GLuint>(item * shape.vertices);
        {
            gl::DebugGroup visibility("raster.visibility");
            glClearNamedFramebufferuiv(m_framebuffer.id(), GL_COLOR,
                                       static_cast<GLint>(binding::OutId), zeroId);
            glClearNamedFramebufferfv(m_framebuffer.id(), GL_DEPTH, 0, &far);
            glBindFramebuffer(GL_FRAMEBUFFER, m_framebuffer.id());
            glViewport(0, 0, shape.width, shape.height);
            glEnable(GL_DEPTH_TEST);
            glDepthFunc(GL_LESS);
            glDepthMask(GL_TRUE);
            glDisable(GL_CULL_FACE);
            glDisable(GL_BLEND);
            glDisable(GL_SCISSOR_TEST);
            // The resolve's output and the inputs' writes (GL or CUDA) come before this draw.
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT |
                            GL_ELEMENT_ARRAY_BARRIER_BIT);
            glBindVertexArray(m_vertexArray.id());
            m_visibility.use();
            if (m_ids == TriangleIds::Pulled) {
                glUniform1ui(0, firstVertex);
                glUniform1ui(1, vertexCount);
                glDrawArrays(GL_TRIANGLES, 0, indexCount);
            } else {
                glDrawElementsBaseVertex(GL_TRIANGLES, indexCount, GL_UNSIGNED_INT, nullptr,
                                         static_cast<GLint>(firstVertex));
            }
            glBindVertexArray(0);
            glBindFramebuffer(GL_FRAMEBUFFER, 0);
        }
        {
            gl::DebugGroup resolve("raster.resolve");
            glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
            glBindTextureUnit(binding::TexGBufferId, m_visibilityTarget.id());
            m_resolve.use();
            glUniform1ui(0, firstVertex);
            glUniform1ui(1, vertexCount);
            glUniform1ui(2, static_cast<GLuint>(item * static_cast<std::size_t>(shape.width) *
                                                static_cast<std::size_t>(shape.height)));
            glUniform2i(3, shape.width, shape.height);
            glDispatchCompute(static_cast<GLuint>((shape.width + 7) / 8),
                              static_cast<GLuint>((shape.height + 7) / 8), 1);
            glBindTextureUnit(binding::TexGBufferId, 0);
        }
    }
    // Whoever reads the output next (a read-back, CUDA) sees the stores.
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    glUseProgram(0);
}

} // namespace tandem::render
