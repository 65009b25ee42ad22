// gpu tier: the frame's one handoff with passes that declare GL buffers as well as images. A
// CUDA pass writes a GL buffer GL then reads; another reads the scene's vertex buffer; another
// reads the G-buffer's linear depth (the CUDA-visible depth of the meshes); all of them and
// post-processing share one map and one unmap per frame, registrations are made once per
// resource, and a changed intent registers again.
#include <gtest/gtest.h>

#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/Device.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/gl/Buffer.h"
#include "engine/gl/Debug.h"
#include "engine/interop/Handoff.h"
#include "engine/interop/Registrations.h"
#include "engine/platform/Context.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GpuTestContext.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::interop {
namespace {

__global__ void fillKernel(std::uint32_t* out, std::size_t count, std::uint32_t salt)
{
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < count)
        out[i] = static_cast<std::uint32_t>(i) * 3u + salt;
}

__global__ void positionsKernel(const render::Vertex* vertices, std::uint32_t count, float* out)
{
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        out[3 * i + 0] = vertices[i].position.x;
        out[3 * i + 1] = vertices[i].position.y;
        out[3 * i + 2] = vertices[i].position.z;
    }
}

__global__ void depthKernel(cudaSurfaceObject_t depth, int width, int height, float* out)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        out[y * width + x] = surf2Dread<float>(depth, x * 4, y);
}

/// Writes a GL buffer it owns (with its registrations) from CUDA.
class FillPass final : public Pass {
public:
    explicit FillPass(std::size_t count)
        : buffer(count * 4, nullptr, 0, "test.filled"), m_count(count)
    {}
    const char* name() const override { return "fill"; }
    bool isEnabled() const override { return true; }
    Path path() const override { return Path::Cuda; }
    void declare(Uses& uses) override { m_ref = uses.buffer(buffer, registrations, intent); }
    void run(const MappedView* view, PassHooks& hooks) override
    {
        hooks.beginStage("fill", view->stream());
        EXPECT_EQ(view->bytes(m_ref), m_count * 4);
        fillKernel<<<static_cast<unsigned>((m_count + 255) / 256), 256, 0,
                     static_cast<cudaStream_t>(view->stream())>>>(
            static_cast<std::uint32_t*>(view->pointer(m_ref)), m_count, salt);
        cuda::checkLaunch("fillKernel");
        hooks.endStage("fill", view->stream());
    }
    gl::Buffer buffer;
    Registrations registrations; ///< after the buffer
    Intent intent = Intent::Write;
    std::uint32_t salt = 1;

private:
    std::size_t m_count;
    BufferRef m_ref;
};

/// Reads the scene's vertices and the G-buffer's linear depth into device memory of its own.
class ReadPass final : public Pass {
public:
    ReadPass(const render::GpuScene& scene, render::GBuffer& gbuffer)
        : m_scene(scene), m_gbuffer(gbuffer), m_positionMemory(scene.vertexCount() * 3),
          m_depthMemory(static_cast<std::size_t>(gbuffer.width()) * gbuffer.height()),
          positions(m_positionMemory.data()), depth(m_depthMemory.data())
    {}
    const char* name() const override { return "read"; }
    bool isEnabled() const override { return true; }
    Path path() const override { return Path::Cuda; }
    void declare(Uses& uses) override
    {
        m_vertices = uses.buffer(m_scene.vertexBuffer(), m_scene.registrations(), Intent::Read);
        const FrameTextures t = m_gbuffer.frameTextures();
        m_depth = uses.image(*t.depth, *t.registrations, Intent::Read);
    }
    void run(const MappedView* view, PassHooks&) override
    {
        const auto stream = static_cast<cudaStream_t>(view->stream());
        positionsKernel<<<(m_scene.vertexCount() + 127) / 128, 128, 0, stream>>>(
            static_cast<const render::Vertex*>(view->pointer(m_vertices)), m_scene.vertexCount(),
            positions);
        cuda::checkLaunch("positionsKernel");
        const int w = m_gbuffer.width(), h = m_gbuffer.height();
        depthKernel<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16), 0, stream>>>(
            view->surface(m_depth), w, h, depth);
        cuda::checkLaunch("depthKernel");
    }

private:
    const render::GpuScene& m_scene;
    render::GBuffer& m_gbuffer;
    BufferRef m_vertices;
    ImageRef m_depth;
    cuda::DeviceBuffer<float> m_positionMemory, m_depthMemory;

public:
    float* positions = nullptr;
    float* depth = nullptr;
};

class InteropCuda : public test::GpuTest {};

TEST_F(InteropCuda, PassesShareOneHandoffAndGlSeesWhatCudaWrote)
{
    const io::MeshData mesh = test::cubeOnFloor();
    render::GpuScene scene = test::sceneOf(mesh);
    test::FrameStack stack(120, 90, render::ColorFormat::Rgba8, false, s_doctor,
                           postfx::BackendChoice::Cuda);
    ASSERT_EQ(stack.frame.path(), Path::Cuda);
    FillPass fill(1000);
    ReadPass read(scene, stack.renderer.gbuffer());
    const Registration addedFill = stack.frame.addPass(fill);
    const Registration addedRead = stack.frame.addPass(read);
    auto chain = postfx::parseChain("tonemap");
    ASSERT_TRUE(chain);
    const render::Camera camera = test::fittedCamera(scene.bounds());
    for (int i = 0; i < 3; ++i) {
        fill.salt = static_cast<std::uint32_t>(i + 1);
        stack.frame.render(scene, camera, chain.value(), frame::Channel::Output, {});
    }
    stack.frame.synchronize();
    EXPECT_EQ(stack.frame.handoffs(), 3u) << "post-processing and both passes in one handoff";
    EXPECT_EQ(fill.registrations.registrationsMade(), 1u) << "the buffer registered once";
    EXPECT_EQ(scene.registrations().registrationsMade(), 1u);

    // GL reads the buffer CUDA wrote in the last frame.
    std::vector<std::uint32_t> filled(1000);
    glGetNamedBufferSubData(fill.buffer.id(), 0, 4000, filled.data());
    for (std::uint32_t i = 0; i < 1000; ++i)
        ASSERT_EQ(filled[i], i * 3u + 3u) << "element " << i;

    // CUDA read the vertex buffer as uploaded.
    std::vector<float> positions(scene.vertexCount() * 3);
    TANDEM_CUDA_CHECK(
        cudaMemcpy(positions.data(), read.positions, positions.size() * 4, cudaMemcpyDeviceToHost));
    for (std::size_t v = 0; v < mesh.positions.size(); ++v)
        for (int c = 0; c < 3; ++c)
            ASSERT_EQ(positions[v * 3 + c], mesh.positions[v][c]) << "vertex " << v;

    // And the linear depth, equal to what GL reads of the same texture.
    const int w = stack.renderer.width(), h = stack.renderer.height();
    std::vector<float> cudaDepth(static_cast<std::size_t>(w) * h), glDepth(cudaDepth.size());
    TANDEM_CUDA_CHECK(
        cudaMemcpy(cudaDepth.data(), read.depth, cudaDepth.size() * 4, cudaMemcpyDeviceToHost));
    glGetTextureSubImage(stack.renderer.gbuffer().linearDepth().id(), 0, 0, 0, 0, w, h, 1, GL_RED,
                         GL_FLOAT, static_cast<GLsizei>(glDepth.size() * 4), glDepth.data());
    EXPECT_EQ(cudaDepth, glDepth);
    std::size_t covered = 0;
    for (float z : glDepth)
        covered += z > 0.0f ? 1 : 0;
    EXPECT_GT(covered, glDepth.size() / 10) << "the meshes cover part of the frame";
}

TEST_F(InteropCuda, AChangedIntentRegistersAgain)
{
    const render::GpuScene scene = test::sceneOf(test::colouredCube());
    test::FrameStack stack(32, 24, render::ColorFormat::Rgba8, false, s_doctor,
                           postfx::BackendChoice::Cuda);
    FillPass fill(64);
    const Registration added = stack.frame.addPass(fill);
    const render::Camera camera = test::fittedCamera(scene.bounds());
    stack.frame.render(scene, camera, postfx::Chain{}, frame::Channel::Color, {});
    fill.intent = Intent::ReadWrite;
    stack.frame.render(scene, camera, postfx::Chain{}, frame::Channel::Color, {});
    stack.frame.render(scene, camera, postfx::Chain{}, frame::Channel::Color, {});
    stack.frame.synchronize();
    EXPECT_EQ(fill.registrations.registrationsMade(), 2u);
    EXPECT_EQ(fill.registrations.size(), 1u);
}

} // namespace
} // namespace tandem::interop
