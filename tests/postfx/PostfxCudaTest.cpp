// gpu tier: the CUDA backend, as a pass inside the frame's one handoff, computes the same image
// as the host backend on the same G-buffer, for every stage and a whole chain, with RGBA8 and
// RGBA16F colour. The two backends share the stages' pixel functions and avoid FMA
// contraction, so the 8-bit outputs are expected to be bit-exact; the test reports how many
// pixels differ and by how much. Colours of known value come out as the formulas say through no
// chain, tonemap and tonemap,fxaa, with the CUDA point pass, equal to the host's. Registrations
// happen once, again only after the G-buffer is reallocated; captured frames upload the same
// image through GL.
#include <cstdlib>
#include <tuple>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "engine/cuda/Device.h"
#include "engine/gl/Debug.h"
#include "engine/interop/Handoff.h"
#include "engine/platform/Context.h"
#include "tests/postfx/ColourScene.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GpuTestContext.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::postfx {
namespace {

class PostfxCuda : public test::GpuTest {
protected:
    static frame::Residence residence(BackendChoice choice)
    {
        auto chosen = frame::chooseResidence(choice, s_doctor);
        EXPECT_TRUE(chosen) << chosen.error();
        return chosen.value();
    }
    static std::vector<std::uint8_t> readOutput(const render::SceneRenderer& renderer)
    {
        const auto& output = renderer.gbuffer().output();
        std::vector<std::uint8_t> pixels(static_cast<std::size_t>(renderer.width()) *
                                         renderer.height() * 4);
        glGetTextureSubImage(output.id(), 0, 0, 0, 0, renderer.width(), renderer.height(), 1,
                             GL_RGBA, GL_UNSIGNED_BYTE, static_cast<GLsizei>(pixels.size()),
                             pixels.data());
        return pixels;
    }

    /// A cube drawn through a CUDA frame with `chainText` on a growable renderer (the
    /// registration tests).
    struct CubeFrame {
        explicit CubeFrame(const std::string& chainText, int width, int height)
            : chain(parseChain(chainText).value()),
              residence(PostfxCuda::residence(BackendChoice::Cuda)),
              scene(test::sceneOf(test::colouredCube(), "cube")),
              renderer(width, height, render::ColorFormat::Rgba8, true, render::Headroom::Grow),
              profiler(disabled()), frame(renderer, residence, profiler),
              camera(test::fittedCamera(scene.bounds()))
        {}
        static profile::ProfilerOptions disabled()
        {
            profile::ProfilerOptions off;
            off.enabled = false;
            return off;
        }
        void render() { frame.render(scene, camera, chain, frame::Channel::Output, {}); }
        const interop::Registrations& registrations() { return renderer.gbuffer().registrations(); }

        Chain chain;
        frame::Residence residence;
        render::GpuScene scene;
        render::SceneRenderer renderer;
        profile::Profiler profiler;
        frame::Frame frame;
        render::Camera camera;
    };

    struct Outputs {
        std::vector<std::uint8_t> cuda, host;
    };

    /// Renders the scene, runs `chain` through a CUDA frame and a host frame on the same
    /// renderer, reads both outputs back.
    Outputs runBoth(const std::string& chainText, render::ColorFormat format, int width, int height)
    {
        auto chain = parseChain(chainText);
        EXPECT_TRUE(chain) << chain.error();
        const render::GpuScene scene = test::sceneOf(test::cubeOnFloor(), "cubes on a floor");
        render::SceneRenderer renderer(width, height, format, true);
        profile::ProfilerOptions off;
        off.enabled = false;
        profile::Profiler profiler(off);
        const frame::Residence onCuda = residence(BackendChoice::Cuda);
        EXPECT_EQ(onCuda.path, interop::Path::Cuda);
        frame::Frame cudaFrame(renderer, onCuda, profiler);
        frame::Frame hostFrame(renderer, residence(BackendChoice::Host), profiler);
        const render::Camera camera = test::fittedCamera(scene.bounds());
        Outputs out;
        cudaFrame.render(scene, camera, chain.value(), frame::Channel::Output, {});
        cudaFrame.synchronize();
        out.cuda = readOutput(renderer);
        hostFrame.render(scene, camera, chain.value(), frame::Channel::Output, {});
        out.host = readOutput(renderer);
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
};

TEST_F(PostfxCuda, EveryStageEqualsHost)
{
    for (const StageDescriptor& d : stageDescriptors())
        expectSame(runBoth(d.name, render::ColorFormat::Rgba8, 320, 240), d.name);
}

TEST_F(PostfxCuda, WholeChainEqualsHostRgba8AndRgba16F)
{
    const std::string chain =
        "bilateral,ssao:strength=1.5,outline,blur:radius=2,tonemap:exposure=0.5,fxaa";
    expectSame(runBoth(chain, render::ColorFormat::Rgba8, 333, 197), "chain rgba8");
    expectSame(runBoth(chain, render::ColorFormat::Rgba16F, 333, 197), "chain rgba16f");
    expectSame(runBoth("none", render::ColorFormat::Rgba16F, 100, 80), "none rgba16f");
}

TEST_F(PostfxCuda, KnownColoursAreEncodedOnceAndEqualTheHost)
{
    // The gl tier's PostfxHost.KnownColoursAreEncodedOnceThroughEveryChain on CUDA: CUDA points
    // and the CUDA backend against the formulas, and bit for bit against host points and the
    // host backend on the same renderer.
    const render::GpuScene scene = test::colourScene();
    const render::Camera camera = test::colourCamera();
    const render::GeometryOptions options = test::colourOptions();
    using test::ColourChain;
    const std::tuple<const char*, frame::Channel, ColourChain, int> cases[] = {
        {"none", frame::Channel::Color, ColourChain::None, 0},
        {"none", frame::Channel::Output, ColourChain::None, 0},
        {"tonemap", frame::Channel::Output, ColourChain::Tonemap, 1},
        {"tonemap,fxaa", frame::Channel::Output, ColourChain::Tonemap, 1}};
    for (const render::ColorFormat format :
         {render::ColorFormat::Rgba8, render::ColorFormat::Rgba16F}) {
        render::SceneRenderer renderer(test::ColourSceneSize, test::ColourSceneSize, format, true);
        profile::ProfilerOptions off;
        off.enabled = false;
        profile::Profiler profiler(off);
        const frame::Residence onCuda = residence(BackendChoice::Cuda);
        const frame::Residence onHost = residence(BackendChoice::Host);
        frame::Frame cudaFrame(renderer, onCuda, profiler);
        frame::Frame hostFrame(renderer, onHost, profiler);
        cudaFrame.setPointPath(render::PointPath::Cuda);
        hostFrame.setPointPath(render::PointPath::Host);
        for (const auto& [text, channel, chain, tolerance] : cases) {
            const std::string what = fmt::format(
                "{} ({}, {})", text, channel == frame::Channel::Color ? "colour" : "output",
                format == render::ColorFormat::Rgba8 ? "rgba8" : "rgba16f");
            const Chain parsed = parseChain(text).value();
            cudaFrame.render(scene, camera, parsed, channel, options);
            cudaFrame.synchronize();
            const io::Image cuda = renderer.readPresented();
            EXPECT_EQ(test::checkColours(cuda, chain, tolerance), "") << "CUDA, " << what;
            hostFrame.render(scene, camera, parsed, channel, options);
            const io::Image host = renderer.readPresented();
            EXPECT_EQ(cuda.pixels, host.pixels) << "CUDA and host differ, " << what;
        }
    }
}

TEST_F(PostfxCuda, RegistersOnceAndAgainOnlyAfterReallocation)
{
    CubeFrame cube("tonemap", 400, 300);
    frame::Frame& frame = cube.frame;
    render::SceneRenderer& renderer = cube.renderer;
    const interop::Registrations& registrations = cube.registrations();
    auto render = [&] {
        cube.render();
    };
    render();
    render();
    // Colour, depth, normal, id read; output written: five registrations, made once.
    EXPECT_EQ(registrations.registrationsMade(), 5u);
    EXPECT_EQ(registrations.size(), 5u);
    EXPECT_EQ(frame.handoffs(), 2u) << "one handoff per frame";
    // Dragging a window edge a little stays inside the headroom: no re-registration.
    for (int w = 401; w < 440; w += 7) {
        renderer.resize(w, 310);
        render();
    }
    EXPECT_EQ(registrations.registrationsMade(), 5u);
    // Beyond it, the G-buffer drops its registrations as it reallocates; the frame makes new.
    renderer.resize(900, 700);
    EXPECT_EQ(registrations.size(), 0u) << "unregistered in the function that reallocated";
    render();
    EXPECT_EQ(registrations.registrationsMade(), 10u);
    frame.synchronize();
}

TEST_F(PostfxCuda, ResizeStormKeepsRegistrationsRightAndMemoryFlat)
{
    // 300 random sizes down to 1x1 and back, a CUDA frame at each: after every frame the
    // G-buffer holds exactly its five registrations (none left from an earlier size), no CUDA
    // or GL error is pending, and device memory after the storm is where it was after a first
    // storm of the same sizes (within 64 MiB).
    CubeFrame cube("tonemap,blur,fxaa", 320, 240);
    render::SceneRenderer& renderer = cube.renderer;
    const interop::Registrations& registrations = cube.registrations();
    const std::uint64_t glErrorsBefore = s_context->glErrorCount();
    const auto freeMb = [] {
        std::size_t free = 0, total = 0;
        EXPECT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
        return static_cast<double>(free) / 1048576.0;
    };
    const auto storm = [&] {
        std::uint32_t state = 7;
        const auto next = [&](int n) {
            state = state * 1664525u + 1013904223u;
            return 1 + static_cast<int>((state >> 8) % static_cast<std::uint32_t>(n));
        };
        for (int i = 0; i < 150; ++i) {
            const int w = i % 10 == 0 ? 1 : i % 10 == 1 ? next(8) : next(2048);
            const int h = i % 10 == 0 ? 1 : i % 10 == 1 ? next(8) : next(1536);
            renderer.resize(w, h);
            cube.render();
            cube.frame.synchronize();
            ASSERT_EQ(registrations.size(), 5u) << "at " << w << "x" << h;
            ASSERT_EQ(cudaGetLastError(), cudaSuccess) << "at " << w << "x" << h;
            ASSERT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR)) << "at " << w << "x" << h;
        }
        renderer.resize(320, 240);
        cube.render();
        cube.frame.synchronize();
    };
    storm();
    const double after = freeMb();
    storm();
    EXPECT_GE(freeMb(), after - 64.0) << "device memory went down over the second storm";
    EXPECT_EQ(s_context->glErrorCount(), glErrorsBefore);
}

TEST_F(PostfxCuda, CaptureFaithfulFramesUploadTheSameImageThroughGl)
{
    // On captured frames what CUDA wrote is copied back and uploaded through GL (so RenderDoc
    // sees it): the texture must hold the same image as on an ordinary frame.
    auto chain = parseChain("tonemap,fxaa");
    ASSERT_TRUE(chain);
    const frame::Residence onCuda = residence(BackendChoice::Cuda);
    const render::GpuScene scene = test::sceneOf(test::cubeOnFloor(), "scene");
    render::SceneRenderer renderer(200, 150, render::ColorFormat::Rgba8, true);
    profile::ProfilerOptions off;
    off.enabled = false;
    profile::Profiler profiler(off);
    frame::Frame frame(renderer, onCuda, profiler);
    const render::Camera camera = test::fittedCamera(scene.bounds());
    frame.render(scene, camera, chain.value(), frame::Channel::Output, {});
    frame.synchronize();
    const auto ordinary = readOutput(renderer);
    const float black[4] = {0, 0, 0, 0};
    glClearTexImage(renderer.gbuffer().output().id(), 0, GL_RGBA, GL_FLOAT, black);
    frame.setCaptureFaithful(true);
    frame.render(scene, camera, chain.value(), frame::Channel::Output, {});
    frame.setCaptureFaithful(false);
    EXPECT_EQ(readOutput(renderer), ordinary);
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
