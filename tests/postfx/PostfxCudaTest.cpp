// gpu tier: the CUDA backend, through real GL↔CUDA interop, computes the same image as the host
// backend on the same G-buffer, for every stage and a whole chain, with RGBA8 and RGBA16F colour.
// The two backends share PixelStages.h and avoid FMA contraction, so the 8-bit outputs are
// expected to be bit-exact; the test reports how many pixels differ and by how much.
#include <cstdlib>

#include <gtest/gtest.h>

#include "engine/cuda/Device.h"
#include "engine/gl/Debug.h"
#include "engine/postfx/CudaBackend.h"
#include "engine/postfx/PostProcessor.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/GpuMesh.h"
#include "engine/render/OrbitCamera.h"
#include "engine/render/SceneRenderer.h"
#include "engine/ui/PostfxWiring.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::postfx {
namespace {

class PostfxCuda : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        auto device = cuda::selectDevice(-1);
        ASSERT_TRUE(device) << device.error();
        platform::ContextOptions options;
        options.width = 64;
        options.height = 64;
        options.debug = true;
        options.cudaDevice = device.value().index;
        auto context = platform::tryCreateHeadless(options);
        ASSERT_TRUE(context) << context.error();
        s_context = std::move(context.value());
        s_doctor = interop::diagnose(device.value().index, "", s_context->cudaDevice());
        ASSERT_EQ(s_doctor.path, interop::Path::Cuda) << s_doctor.reason;
    }
    static void TearDownTestSuite() { s_context.reset(); }
    void SetUp() override
    {
        ASSERT_TRUE(s_context);
        gl::resetErrorCount();
    }
    void TearDown() override { EXPECT_EQ(gl::errorCount(), 0u); }

    struct Outputs {
        std::vector<std::uint8_t> cuda, host;
    };

    /// Renders the scene once, runs `chain` with both backends on that G-buffer, reads both
    /// outputs back.
    Outputs runBoth(const std::string& chainText, render::ColorFormat format, int width, int height)
    {
        auto chain = parseChain(chainText);
        EXPECT_TRUE(chain) << chain.error();
        auto processor = PostProcessor::create(BackendChoice::Cuda, s_doctor);
        EXPECT_TRUE(processor) << processor.error();
        EXPECT_EQ(processor.value()->path(), interop::Path::Cuda);
        render::GpuMesh mesh(test::cubeOnFloor(), "cubes on a floor");
        render::SceneRenderer renderer(width, height, format, true);
        render::OrbitCamera camera;
        camera.fit(mesh.bounds());
        renderer.drawGeometry(mesh, camera, render::GeometryOptions{});
        const FrameInfo frame = ui::frameInfo(camera, width, height);
        const interop::FrameTextures textures = ui::frameTextures(renderer.gbuffer());
        Outputs out;
        auto readOutput = [&] {
            std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * height * 4);
            glGetTextureSubImage(renderer.gbuffer().output().id(), 0, 0, 0, 0, width, height, 1,
                                 GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(pixels.size()),
                                 pixels.data());
            return pixels;
        };
        processor.value()->run(chain.value(), frame, textures);
        processor.value()->cuda()->synchronize();
        out.cuda = readOutput();
        processor.value()->host().run(chain.value(), frame, textures);
        out.host = readOutput();
        processor.value()->releaseTextures(); // before the G-buffer dies
        return out;
    }

    static void expectSame(const Outputs& o, const std::string& what)
    {
        ASSERT_EQ(o.cuda.size(), o.host.size());
        std::size_t differing = 0;
        int maxDelta = 0;
        for (std::size_t i = 0; i < o.cuda.size(); ++i) {
            const int d = std::abs(int(o.cuda[i]) - int(o.host[i]));
            differing += d != 0 ? 1 : 0;
            maxDelta = std::max(maxDelta, d);
        }
        EXPECT_EQ(differing, 0u) << what << ": " << differing << " channel values differ, max by "
                                 << maxDelta << "/255";
        std::size_t lit = 0;
        for (std::size_t i = 0; i < o.cuda.size(); i += 4)
            lit += (o.cuda[i] | o.cuda[i + 1] | o.cuda[i + 2]) != 0 ? 1 : 0;
        EXPECT_GT(lit, o.cuda.size() / 4 / 20) << what << ": output is (nearly) black";
    }

    static inline std::unique_ptr<platform::Context> s_context;
    static inline interop::InteropStatus s_doctor;
};

TEST_F(PostfxCuda, EveryStageEqualsHost)
{
    for (StageKind kind : allStageKinds()) {
        const std::string name(stageName(kind));
        expectSame(runBoth(name, render::ColorFormat::Rgba8, 320, 240), name);
    }
}

TEST_F(PostfxCuda, WholeChainEqualsHostRgba8AndRgba16F)
{
    const std::string chain =
        "bilateral,ssao:strength=1.5,outline,blur:radius=2,tonemap:exposure=0.5,fxaa";
    expectSame(runBoth(chain, render::ColorFormat::Rgba8, 333, 197), "chain rgba8");
    expectSame(runBoth(chain, render::ColorFormat::Rgba16F, 333, 197), "chain rgba16f");
    expectSame(runBoth("none", render::ColorFormat::Rgba16F, 100, 80), "none rgba16f");
}

TEST_F(PostfxCuda, RegistersOnceAndAgainOnlyAfterReallocation)
{
    auto chain = parseChain("tonemap");
    auto processor = PostProcessor::create(BackendChoice::Cuda, s_doctor);
    ASSERT_TRUE(processor);
    render::GpuMesh mesh(test::colouredCube(), "cube");
    render::GBuffer gbuffer(400, 300, render::ColorFormat::Rgba8, render::Headroom::Grow);
    render::GeometryPass geometry;
    render::OrbitCamera camera;
    camera.fit(mesh.bounds());
    auto frame = [&] {
        geometry.draw(gbuffer, mesh, camera, render::GeometryOptions{});
        processor.value()->run(chain.value(),
                               ui::frameInfo(camera, gbuffer.width(), gbuffer.height()),
                               ui::frameTextures(gbuffer));
    };
    frame();
    frame();
    EXPECT_EQ(processor.value()->cuda()->registrations(), 1u);
    // Dragging a window edge a little stays inside the headroom: no re-registration.
    for (int w = 401; w < 440; w += 7) {
        EXPECT_FALSE(gbuffer.resize(w, 310));
        frame();
    }
    EXPECT_EQ(processor.value()->cuda()->registrations(), 1u);
    EXPECT_TRUE(gbuffer.resize(900, 700));
    frame();
    EXPECT_EQ(processor.value()->cuda()->registrations(), 2u);
    processor.value()->releaseTextures();
}

TEST_F(PostfxCuda, CaptureFaithfulFramesUploadTheSameImageThroughGl)
{
    // On captured frames the CUDA output is copied back and uploaded through GL (so RenderDoc
    // sees it): the texture must hold the same image as on an ordinary frame.
    auto chain = parseChain("tonemap,fxaa");
    auto processor = PostProcessor::create(BackendChoice::Cuda, s_doctor);
    ASSERT_TRUE(processor);
    render::GpuMesh mesh(test::cubeOnFloor(), "scene");
    render::SceneRenderer renderer(200, 150, render::ColorFormat::Rgba8, true);
    render::OrbitCamera camera;
    camera.fit(mesh.bounds());
    renderer.drawGeometry(mesh, camera, render::GeometryOptions{});
    const FrameInfo frame = ui::frameInfo(camera, 200, 150);
    auto read = [&] {
        std::vector<std::uint8_t> pixels(200 * 150 * 4);
        glGetTextureSubImage(renderer.gbuffer().output().id(), 0, 0, 0, 0, 200, 150, 1, GL_RGBA,
                             GL_UNSIGNED_BYTE, static_cast<GLsizei>(pixels.size()), pixels.data());
        return pixels;
    };
    processor.value()->run(chain.value(), frame, ui::frameTextures(renderer.gbuffer()));
    processor.value()->cuda()->synchronize();
    const auto ordinary = read();
    const float black[4] = {0, 0, 0, 0};
    glClearTexImage(renderer.gbuffer().output().id(), 0, GL_RGBA, GL_FLOAT, black);
    processor.value()->setCaptureFaithful(true);
    processor.value()->run(chain.value(), frame, ui::frameTextures(renderer.gbuffer()));
    processor.value()->setCaptureFaithful(false);
    EXPECT_EQ(read(), ordinary);
    processor.value()->releaseTextures();
}

TEST(CudaDevice, ListsTheGpu)
{
    auto devices = cuda::listDevices();
    ASSERT_TRUE(devices) << devices.error();
    EXPECT_GE(devices.value().size(), 1u);
    EXPECT_FALSE(devices.value()[0].name.empty());
    EXPECT_GT(devices.value()[0].memoryBytes, 0u);
    auto missing = cuda::selectDevice(999);
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("only"), std::string::npos) << missing.error();
}

} // namespace
} // namespace tandem::postfx
