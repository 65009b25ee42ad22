// gpu tier: a streamed sequence uploaded through the copy stream inside the frame's handoff (the
// CUDA path) draws exactly what the same sequence uploaded with glNamedBufferSubData draws,
// frame after frame, points (CUDA point pass) and meshes (GL geometry pass); every frame is
// distinct; the ping-ponged buffers keep their registrations (no re-registration per frame);
// the handoff stays one per frame.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/stream/SampleSource.h"
#include "engine/stream/SequencePlayer.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GpuTestContext.h"

namespace tandem::stream {
namespace {

class StreamCuda : public test::GpuTest {
protected:
    struct Run {
        std::vector<io::Image> images;
        PlayerStats stats;
        std::uint64_t handoffs = 0;
        std::uint64_t registrationsEnd = 0; ///< made by the front scene's registrations
    };

    Run play(const std::string& spec, UploadPath path)
    {
        auto settings = parseSample(spec);
        EXPECT_TRUE(settings) << settings.error();
        auto source = makeSampleSource(settings.value());
        test::FrameStack stack(320, 240, render::ColorFormat::Rgba8, false, s_doctor,
                               postfx::BackendChoice::Cuda);
        EXPECT_EQ(stack.frame.path(), interop::Path::Cuda);
        stack.frame.setPointPath(render::PointPath::Cuda);
        // Frames on GL's memory, passes in one handoff, as this test counts them (frames
        // resident on CUDA: tests/frame/ResidentFrameCudaTest.cpp).
        stack.frame.setMemoryChoice(frame::MemoryChoice::Gl);
        StreamSettings streaming;
        streaming.loaderThreads = 2;
        SequencePlayer player(*source, streaming, path, nullptr);
        Registration upload, join;
        if (path == UploadPath::CudaCopy) {
            upload = stack.frame.addFirstPass(player.uploadPass());
            join = stack.frame.addPass(player.joinPass());
        }
        // Every frame is loaded first, so each next frame is ready for the upload that
        // overlaps the frame before it.
        EXPECT_TRUE(player.preload(true));
        Playback playback(source->frameCount(), source->fps());
        playback.setEveryFrame(true);
        playback.setLoopMode(LoopMode::Once);
        auto chain = postfx::parseChain("tonemap");
        Run run;
        for (int i = 0; i < source->frameCount(); ++i) {
            playback.advance(0.0);
            player.update(playback, true);
            stack.frame.pointPass()->setDevicePoints(player.devicePoints());
            EXPECT_EQ(player.shownFrame(), i);
            const render::Camera camera = test::fittedCamera(*source->bounds());
            run.images.push_back(
                stack.render(*player.scene(), camera, chain.value(), frame::Channel::Output));
        }
        stack.frame.synchronize();
        run.registrationsEnd = player.scene()->registrations().registrationsMade();
        run.stats = player.stats();
        run.handoffs = stack.frame.handoffs();
        return run;
    }

    /// The largest difference of one channel between two images of one size.
    static int maxDifference(const io::Image& a, const io::Image& b)
    {
        EXPECT_EQ(a.pixels.size(), b.pixels.size());
        int most = 0;
        for (std::size_t i = 0; i < a.pixels.size() && i < b.pixels.size(); ++i)
            most = std::max(most, std::abs(int(a.pixels[i]) - int(b.pixels[i])));
        return most;
    }

    /// Points: the GL path expands compact points into vertices (normals decoded from their
    /// packed form) and the point pass packs them again, which may move a normal by one step
    /// of its 16-bit encoding: one level of 8-bit colour at most. Meshes: exact.
    static void expectSame(const Run& cuda, const Run& gl, const std::string& what, int tolerance)
    {
        ASSERT_EQ(cuda.images.size(), gl.images.size());
        for (std::size_t i = 0; i < cuda.images.size(); ++i) {
            EXPECT_LE(maxDifference(cuda.images[i], gl.images[i]), tolerance)
                << what << ": frame " << i << " differs between the upload paths";
            if (i > 0) {
                EXPECT_NE(cuda.images[i].pixels, cuda.images[i - 1].pixels)
                    << what << ": frames " << i - 1 << " and " << i << " look the same";
            }
        }
    }
};

TEST_F(StreamCuda, PointsThroughTheCopyStreamMatchGlUploads)
{
    const std::string spec = "sample:points=20000,frames=8";
    const Run cuda = play(spec, UploadPath::CudaCopy);
    const Run gl = play(spec, UploadPath::GlSubData);
    expectSame(cuda, gl, "points", 1);
    EXPECT_EQ(cuda.stats.shown, 8u);
    EXPECT_EQ(cuda.stats.cudaCopies, 8u) << "every frame of points goes through the copy stream";
    EXPECT_EQ(gl.stats.cudaCopies, 0u);
    EXPECT_EQ(cuda.handoffs, 8u) << "the upload shares the frame's one handoff";
    EXPECT_LE(cuda.registrationsEnd, 5u) << "a ping-ponged buffer is registered once";
}

TEST_F(StreamCuda, MeshesThroughTheCopyStreamMatchGlUploads)
{
    const std::string spec = "sample:mesh,points=20000,frames=5";
    const Run cuda = play(spec, UploadPath::CudaCopy);
    const Run gl = play(spec, UploadPath::GlSubData);
    expectSame(cuda, gl, "mesh", 0);
    EXPECT_EQ(cuda.stats.cudaCopies, 4u);
    EXPECT_EQ(cuda.handoffs, 5u);
}

} // namespace
} // namespace tandem::stream
