// gpu tier: a frame whose passes all run on CUDA runs resident on CUDA (frame/Frame.h): the same
// passes on CUDA-resident copies of the targets and scene buffers. Its output, read back by CUDA
// copies into the output ring (CUDA events, no GL fence), is byte for byte the frame resident on
// GL presents, and so is what it presents through its one copy into GL; headless it makes no
// handoff once the first frame has brought the scene's GL buffers over, presented exactly one a
// frame; the ring hands every frame on in order, none lost or overwritten (copies held back on
// their stream), drained at the end; frames resident on CUDA, drawn by GL and captured on GL
// alternate in a streamed sequence, each seeing the others' writes.
#include <chrono>
#include <initializer_list>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include <gtest/gtest.h>

#include "engine/frame/OutputRing.h"
#include "engine/render/OrbitController.h"
#include "engine/stream/SampleSource.h"
#include "engine/stream/SequencePlayer.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GpuTestContext.h"
#include "tests/support/RingCollect.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::frame {
namespace {

constexpr int Width = 200, Height = 150;

class ResidentFrameCuda : public test::GpuTest {
protected:
    static std::unique_ptr<test::FrameStack>
    stack(render::ColorFormat format = render::ColorFormat::Rgba8)
    {
        return test::cudaStack(Width, Height, s_doctor, format);
    }

    static render::Scene meshAndPoints()
    {
        render::Scene scene;
        scene.objects.push_back({"floor", test::cubeOnFloor()});
        scene.objects.push_back({"sheet", test::pointSheet(50, 2.0f, 0.8f, {40, 200, 90, 255})});
        return scene;
    }

    /// `frame`'s output read back from CUDA memory once per format (frames 1, 2...), drained.
    static test::RingFrames readResident(Frame& frame, int width, int height,
                                         std::initializer_list<PixelFormat> formats = {
                                             PixelFormat::Rgba8})
    {
        test::RingFrames got;
        const auto output = frame.residentOutput();
        if (!output || !output->image.array) {
            ADD_FAILURE() << "no output in CUDA memory";
            return got;
        }
        OutputRing ring(3);
        std::uint64_t index = 0;
        for (const PixelFormat format : formats)
            ring.readResident(output->image, output->stream, width, height, ++index,
                              test::collectInto(got, ring), format);
        ring.drain(test::collectInto(got, ring));
        return got;
    }

    static render::Camera orbiting(const render::GpuScene& scene, int frame)
    {
        render::OrbitController controller;
        controller.fit(scene.bounds());
        controller.orbit(7.0f * static_cast<float>(frame), 0.0f);
        return controller.camera();
    }
};

void CUDART_CB holdBack(void*)
{
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
}

TEST_F(ResidentFrameCuda, ByteForByteTheFrameResidentOnGl)
{
    const render::GpuScene scene(meshAndPoints(), "floor and sheet");
    struct Case {
        const char* chain;
        Channel channel;
        render::ColorFormat format;
    };
    const Case cases[] = {
        {"tonemap,fxaa", Channel::Output, render::ColorFormat::Rgba8},
        {"ssao,tonemap,fxaa", Channel::Output, render::ColorFormat::Rgba16F},
        {"none", Channel::Depth, render::ColorFormat::Rgba8},
        {"none", Channel::Id, render::ColorFormat::Rgba8},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(c.chain) + ", channel " + std::string(Channels.name(c.channel)));
        const postfx::Chain chain = test::chainOf(c.chain);
        const render::Camera camera = orbiting(scene, 3);
        // On GL: the passes in one handoff on GL's targets, presented.
        auto onGl = stack(c.format);
        onGl->frame.setMemoryChoice(MemoryChoice::Gl);
        const io::Image expected = onGl->render(scene, camera, chain, c.channel);
        EXPECT_EQ(onGl->frame.memory(), Memory::Gl);
        // On CUDA, headless: read back by CUDA copies.
        auto onCuda = stack(c.format);
        onCuda->frame.setPresents(false);
        onCuda->frame.render(scene, camera, chain, c.channel, {});
        ASSERT_EQ(onCuda->frame.memory(), Memory::Cuda) << onCuda->frame.memoryReason();
        const test::RingFrames got = readResident(onCuda->frame, Width, Height);
        ASSERT_EQ(got.indices, std::vector<std::uint64_t>{1});
        EXPECT_EQ(test::differingBytes(got.pixels[0], expected.pixels), 0u)
            << "read back from CUDA";
        // On CUDA, presented: its output copied into GL in one map.
        auto presented = stack(c.format);
        const io::Image shown = presented->render(scene, camera, chain, c.channel);
        EXPECT_EQ(presented->frame.memory(), Memory::Cuda) << presented->frame.memoryReason();
        EXPECT_EQ(test::differingBytes(shown.pixels, expected.pixels), 0u) << "presented from CUDA";
    }
}

TEST_F(ResidentFrameCuda, ColourAsOutputIsTheColourGlPresents)
{
    // The browser view's frame with no chain: the 8-bit colour written on CUDA as an empty
    // chain's output and read back from CUDA memory, byte for byte the colour GL presents. A
    // float colour stays on GL (encoded on CUDA it differed from GL's present in 5 % of bytes).
    const render::GpuScene scene(meshAndPoints(), "floor and sheet");
    const postfx::Chain chain = test::chainOf("none");
    for (const auto format : {render::ColorFormat::Rgba8, render::ColorFormat::Rgba16F}) {
        SCOPED_TRACE(format == render::ColorFormat::Rgba8 ? "rgba8" : "rgba16f");
        const render::Camera camera = orbiting(scene, 5);
        auto onGl = stack(format);
        onGl->frame.setMemoryChoice(MemoryChoice::Gl);
        const io::Image expected = onGl->render(scene, camera, chain, Channel::Color);
        auto onCuda = stack(format);
        onCuda->frame.setPresents(false);
        onCuda->frame.setColorAsOutput(true);
        onCuda->frame.render(scene, camera, chain, Channel::Color, {});
        if (format == render::ColorFormat::Rgba16F) {
            EXPECT_EQ(onCuda->frame.memory(), Memory::Gl) << onCuda->frame.memoryReason();
            continue;
        }
        ASSERT_EQ(onCuda->frame.memory(), Memory::Cuda) << onCuda->frame.memoryReason();
        const test::RingFrames got = readResident(onCuda->frame, Width, Height);
        ASSERT_EQ(got.pixels.size(), 1u);
        EXPECT_EQ(test::differingBytes(got.pixels[0], expected.pixels), 0u);
        // Without it, the colour stays on GL to be presented.
        auto plain = stack(format);
        plain->frame.setPresents(false);
        plain->frame.render(scene, camera, chain, Channel::Color, {});
        EXPECT_EQ(plain->frame.memory(), Memory::Gl) << plain->frame.memoryReason();
    }
}

TEST_F(ResidentFrameCuda, YuvPlanesAreTheHostConversionOfTheFrame)
{
    // The browser view's read-back: the CUDA pass's planes byte for byte the host twin's of the
    // RGBA frame, at an even size and an odd one (edges repeated as libjpeg-turbo pads).
    const render::GpuScene scene(meshAndPoints(), "floor and sheet");
    for (const auto& [width, height] : {std::pair{Width, Height}, std::pair{203, 117}}) {
        SCOPED_TRACE(std::to_string(width) + "x" + std::to_string(height));
        auto onCuda = test::cudaStack(width, height, s_doctor, render::ColorFormat::Rgba8);
        onCuda->frame.setPresents(false);
        onCuda->frame.render(scene, orbiting(scene, 2), test::chainOf("tonemap,fxaa"),
                             Channel::Output, {});
        ASSERT_EQ(onCuda->frame.memory(), Memory::Cuda) << onCuda->frame.memoryReason();
        const test::RingFrames got =
            readResident(onCuda->frame, width, height, {PixelFormat::Rgba8, PixelFormat::Yuv420});
        ASSERT_EQ(got.indices, (std::vector<std::uint64_t>{1, 2}));
        const Yuv420Layout layout{width, height};
        std::vector<std::uint8_t> expected(layout.bytes());
        rgbaToYuv420(got.pixels[0].data(), static_cast<std::ptrdiff_t>(width) * 4, layout,
                     expected.data());
        EXPECT_EQ(test::differingBytes(got.pixels[1], expected), 0u);
    }
}

TEST_F(ResidentFrameCuda, NoHandoffHeadlessOneWhenPresented)
{
    const render::GpuScene scene(meshAndPoints(), "floor and sheet");
    const postfx::Chain chain = test::chainOf("tonemap,fxaa");
    auto headless = stack();
    headless->frame.setPresents(false);
    headless->frame.render(scene, orbiting(scene, 0), chain, Channel::Output, {});
    // The first frame brings the scene's GL buffers over: one map.
    EXPECT_EQ(headless->frame.handoffs(), 1u);
    for (int i = 1; i <= 5; ++i)
        headless->frame.render(scene, orbiting(scene, i), chain, Channel::Output, {});
    EXPECT_EQ(headless->frame.handoffs(), 1u) << "frames resident on CUDA made handoffs";
    EXPECT_EQ(headless->frame.residentFrames(), 6u);
    headless->frame.synchronize();

    auto window = stack();
    window->frame.render(scene, orbiting(scene, 0), chain, Channel::Output, {});
    const std::uint64_t first = window->frame.handoffs();
    for (int i = 1; i <= 5; ++i)
        window->frame.render(scene, orbiting(scene, i), chain, Channel::Output, {});
    EXPECT_EQ(window->frame.handoffs() - first, 5u) << "presented: one copy into GL a frame";
    EXPECT_EQ(window->frame.memory(), Memory::Cuda);

    auto onGl = stack();
    onGl->frame.setPresentCopy(false);
    for (int i = 0; i < 3; ++i)
        onGl->frame.render(scene, orbiting(scene, i), chain, Channel::Output, {});
    EXPECT_EQ(onGl->frame.handoffs(), 3u) << "resident on GL: one handoff a frame";
    EXPECT_EQ(onGl->frame.memory(), Memory::Gl);
}

TEST_F(ResidentFrameCuda, RingHandsEveryFrameOnInOrderAndDrains)
{
    const render::GpuScene scene(meshAndPoints(), "floor and sheet");
    const postfx::Chain chain = test::chainOf("tonemap,fxaa");
    constexpr int Frames = 12;
    std::vector<std::vector<std::uint8_t>> expected;
    {
        auto onGl = stack();
        onGl->frame.setMemoryChoice(MemoryChoice::Gl);
        for (int i = 0; i < Frames; ++i)
            expected.push_back(
                onGl->render(scene, orbiting(scene, i), chain, Channel::Output).pixels);
    }
    auto onCuda = stack();
    onCuda->frame.setPresents(false);
    // Deeper than the read-back's three staging buffers (as the apps' rings are: 3 + writers),
    // so the ring's own waits do not hide a staging buffer refilled before its crossing.
    OutputRing ring(8);
    test::RingFrames got;
    const OutputRing::Sink sink = test::collectInto(got, ring);
    for (int i = 0; i < Frames; ++i) {
        onCuda->frame.render(scene, orbiting(scene, i), chain, Channel::Output, {});
        const auto output = onCuda->frame.residentOutput();
        ASSERT_TRUE(output);
        // The crossing held back on its stream: the frames queued meanwhile must wait for it
        // before they refill its staging buffer.
        if (void* copy = ring.copyStream()) {
            ASSERT_EQ(cudaLaunchHostFunc(static_cast<cudaStream_t>(copy), holdBack, nullptr),
                      cudaSuccess);
        }
        ring.readResident(output->image, output->stream, Width, Height,
                          static_cast<std::uint64_t>(i), sink);
    }
    ring.drain(sink);
    ASSERT_EQ(got.indices.size(), static_cast<std::size_t>(Frames)) << "frames lost";
    for (int i = 0; i < Frames; ++i) {
        EXPECT_EQ(got.indices[static_cast<std::size_t>(i)], static_cast<std::uint64_t>(i));
        // A frame's output written again before its copy was done would show the next one.
        EXPECT_EQ(test::differingBytes(got.pixels[static_cast<std::size_t>(i)],
                                       expected[static_cast<std::size_t>(i)]),
                  0u)
            << "frame " << i;
    }
    EXPECT_EQ(ring.framesRead(), static_cast<std::uint64_t>(Frames));
}

TEST_F(ResidentFrameCuda, FramesOnGlAndOnCudaSeeEachOthersWrites)
{
    // A streamed mesh sequence, its frames uploaded into whichever copy the frame uses: frames
    // resident on CUDA (the upload writes the CUDA copies, the scene's objects come from the
    // host), frames GL draws (the CUDA copies brought over first), frames a capture records
    // (on GL's memory, CUDA meshes reading GL's copies brought up to date), in turn. Every
    // frame shows what the sequence shows on GL's memory alone.
    const auto play = [&](bool mixed) {
        auto settings = stream::parseSample("sample:mesh,points=4000,frames=9");
        EXPECT_TRUE(settings) << settings.error();
        auto source = stream::makeSampleSource(settings.value());
        // The same rasterizers frame by frame in both runs: only where the frames run differs.
        auto s = stack();
        if (!mixed)
            s->frame.setMemoryChoice(MemoryChoice::Gl);
        stream::StreamSettings streaming;
        streaming.loaderThreads = 2;
        stream::SequencePlayer player(*source, streaming, stream::UploadPath::CudaCopy, nullptr);
        const Registration upload = s->frame.addFirstPass(player.uploadPass());
        const Registration join = s->frame.addPass(player.joinPass());
        EXPECT_TRUE(player.preload(true));
        stream::Playback playback(source->frameCount(), source->fps());
        playback.setEveryFrame(true);
        playback.setLoopMode(stream::LoopMode::Once);
        const postfx::Chain chain = test::chainOf("tonemap,fxaa");
        std::vector<std::vector<std::uint8_t>> images;
        std::vector<Memory> memories;
        for (int i = 0; i < source->frameCount(); ++i) {
            playback.advance(0.0);
            player.update(playback, true);
            const int turn = i % 3;
            s->frame.setRaster(turn == 1 ? render::RasterChoice::Gl : render::RasterChoice::Cuda,
                               "test");
            s->frame.setCaptureFaithful(mixed && turn == 2);
            const render::Camera camera = test::fittedCamera(*source->bounds());
            images.push_back(s->render(*player.scene(), camera, chain, Channel::Output).pixels);
            memories.push_back(s->frame.memory());
        }
        s->frame.synchronize();
        return std::make_pair(images, memories);
    };
    const auto [want, onGl] = play(false);
    const auto [got, memories] = play(true);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(onGl[i], Memory::Gl);
        EXPECT_EQ(memories[i], i % 3 == 0 ? Memory::Cuda : Memory::Gl) << "frame " << i;
        EXPECT_EQ(test::differingBytes(got[i], want[i]), 0u) << "frame " << i;
        if (i > 0) {
            EXPECT_NE(want[i], want[i - 1]) << "frames " << i - 1 << " and " << i << " look alike";
        }
    }
}

} // namespace
} // namespace tandem::frame
