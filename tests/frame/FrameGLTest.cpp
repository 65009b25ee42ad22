// The frame and its output ring on headless EGL: frames read back through the ring arrive in
// order, equal to the image presented, without one stall in the loop (waits for the GPU that
// drain it; a throttle is allowed); RGBA16F colour reads back as 16 bits; extra passes run in
// order on their path; a pass that throws inside its stage leaves the debug groups balanced; a
// debug channel never shows a stale image.
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "engine/core/Srgb.h"
#include "engine/core/Stall.h"
#include "engine/frame/OutputRing.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GlTestContext.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::frame {
namespace {

class FrameGL : public test::GlTest {};

/// Stalls `counter` counted (waits that drain the GPU; throttles are not).
std::uint64_t stallsSoFar(const StallCounter& counter)
{
    std::uint64_t total = 0;
    const auto counts = counter.counts();
    for (std::size_t i = 0; i < StallCauseCount; ++i)
        if (isStall(static_cast<StallCause>(i)))
            total += counts[i];
    return total;
}

TEST_F(FrameGL, RingHandsFramesOnInOrderEqualToThePresentedImageWithoutStalling)
{
    const render::GpuScene scene = test::sceneOf(test::cubeOnFloor());
    test::FrameStack stack(96, 64);
    render::OrbitController controller;
    controller.fit(scene.bounds());
    auto chain = postfx::parseChain("tonemap");
    ASSERT_TRUE(chain);
    // What each frame presents, read the slow way first.
    constexpr int Frames = 9;
    std::vector<std::vector<std::uint8_t>> expected;
    for (int i = 0; i < Frames; ++i) {
        controller.setPose(20.0f * i, 20.0f, 1.0f);
        io::Image image = stack.render(scene, controller.camera(), chain.value(), Channel::Output);
        image.flipVertically(); // the ring keeps GL's rows, bottom to top
        expected.push_back(image.pixels);
    }
    OutputRing ring(4);
    std::vector<std::uint64_t> order;
    std::vector<std::vector<std::uint8_t>> got;
    auto sink = [&](const ReadyFrame& frame) {
        order.push_back(frame.index);
        got.emplace_back(frame.pixels, frame.pixels + frame.rowBytes() * frame.height);
        ring.release(frame.slot);
    };
    // This thread's waits on the GPU, counted here (as a profiler's frames count them).
    StallCounter stalls;
    StallScope counting(stalls);
    const std::uint64_t before = stallsSoFar(stalls);
    for (int i = 0; i < Frames; ++i) {
        controller.setPose(20.0f * i, 20.0f, 1.0f);
        stack.frame.render(scene, controller.camera(), chain.value(), Channel::Output, {});
        ring.readFramebuffer(stack.renderer.presentFramebuffer(), 96, 64,
                             static_cast<std::uint64_t>(i), sink);
    }
    // The host backend reads the G-buffer back by design (one counted read-back per frame);
    // the ring itself adds none.
    EXPECT_EQ(stallsSoFar(stalls) - before, static_cast<std::uint64_t>(Frames))
        << "the output ring stalled";
    ring.drain(sink);
    ASSERT_EQ(order.size(), static_cast<std::size_t>(Frames));
    for (int i = 0; i < Frames; ++i) {
        EXPECT_EQ(order[static_cast<std::size_t>(i)], static_cast<std::uint64_t>(i));
        EXPECT_EQ(got[static_cast<std::size_t>(i)], expected[static_cast<std::size_t>(i)])
            << "frame " << i;
    }
    EXPECT_EQ(ring.framesRead(), static_cast<std::uint64_t>(Frames));
}

TEST_F(FrameGL, WithoutPostProcessingTheLoopNeverStalls)
{
    const render::GpuScene scene = test::sceneOf(test::colouredCube());
    test::FrameStack stack(64, 48);
    OutputRing ring(3);
    int handed = 0;
    auto sink = [&](const ReadyFrame& frame) {
        ++handed;
        ring.release(frame.slot);
    };
    StallCounter stalls;
    StallScope counting(stalls);
    const std::uint64_t before = stallsSoFar(stalls);
    const render::Camera camera = test::fittedCamera(scene.bounds());
    for (int i = 0; i < 12; ++i) {
        stack.frame.render(scene, camera, postfx::Chain{}, Channel::Color, {});
        ring.readFramebuffer(stack.renderer.presentFramebuffer(), 64, 48,
                             static_cast<std::uint64_t>(i), sink);
    }
    EXPECT_EQ(stallsSoFar(stalls), before) << "a frame with output waited for the GPU to drain";
    ring.drain(sink);
    EXPECT_EQ(handed, 12);
}

TEST_F(FrameGL, Rgba16FColourReadsBackAsSixteenBits)
{
    const render::GpuScene scene = test::sceneOf(test::colouredCube());
    test::FrameStack stack(32, 24, render::ColorFormat::Rgba16F);
    stack.frame.render(scene, test::fittedCamera(scene.bounds()), postfx::Chain{}, Channel::Color,
                       {});
    OutputRing ring(2);
    std::vector<std::uint16_t> wide;
    ring.readTexture(stack.renderer.gbuffer().color(), 32, 24, PixelFormat::Rgba16, 0,
                     [](const ReadyFrame&) {});
    ring.drain([&](const ReadyFrame& frame) {
        EXPECT_EQ(frame.format, PixelFormat::Rgba16);
        EXPECT_EQ(frame.rowBytes(), 32u * 8u);
        const auto* p = reinterpret_cast<const std::uint16_t*>(frame.pixels);
        wide.assign(p, p + 32 * 24 * 4);
        ring.release(frame.slot);
    });
    const io::Image presented = stack.renderer.readPresented();
    ASSERT_EQ(wide.size(), 32u * 24u * 4u);
    // 16-bit samples of linear colour, sRGB-encoded (as the png16 writer does), agree with the
    // 8-bit presentation within a step, and use the extra bits.
    bool finer = false;
    for (int y = 0; y < 24; ++y)
        for (int x = 0; x < 32; ++x)
            for (int c = 0; c < 3; ++c) {
                const int v16 =
                    linearToSrgb16(wide[(static_cast<std::size_t>(23 - y) * 32 + x) * 4 + c]);
                const int v8 = presented.row(y)[x * 4 + c];
                EXPECT_NEAR(v16 / 257.0, v8, 1.01) << x << "," << y;
                finer = finer || v16 % 257 != 0;
            }
    EXPECT_TRUE(finer) << "16-bit values that are only 8-bit values scaled";
}

/// A host pass that records when it ran.
class Recorder final : public interop::Pass {
public:
    Recorder(const char* name, std::vector<std::string>& log) : m_name(name), m_log(log) {}
    const char* name() const override { return m_name; }
    bool isEnabled() const override { return enabled; }
    interop::Path path() const override { return interop::Path::Host; }
    void run(const interop::MappedView* view, interop::PassHooks& hooks) override
    {
        EXPECT_EQ(view, nullptr) << "host passes get no mapped view";
        hooks.beginStage(m_name, nullptr);
        m_log.push_back(m_name);
        hooks.endStage(m_name, nullptr);
    }
    bool enabled = true;

private:
    const char* m_name;
    std::vector<std::string>& m_log;
};

TEST_F(FrameGL, ExtraPassesRunAfterPostProcessingInOrderWhenEnabled)
{
    const render::GpuScene scene = test::sceneOf(test::colouredCube());
    test::FrameStack stack(32, 24, render::ColorFormat::Rgba8, true);
    std::vector<std::string> log;
    Recorder a("pass-a", log), b("pass-b", log);
    Registration addedA = stack.frame.addPass(a);
    Registration addedB = stack.frame.addPass(b);
    EXPECT_FALSE(stack.frame.addPass(a).isActive()) << "once only";
    const render::Camera camera = test::fittedCamera(scene.bounds());
    stack.profiler.beginFrame();
    stack.frame.render(scene, camera, postfx::Chain{}, Channel::Color, {});
    stack.profiler.endFrame();
    EXPECT_EQ(log, (std::vector<std::string>{"pass-a", "pass-b"}));
    b.enabled = false;
    stack.frame.render(scene, camera, postfx::Chain{}, Channel::Color, {});
    EXPECT_EQ(log.size(), 3u);
    addedA.reset();
    stack.frame.render(scene, camera, postfx::Chain{}, Channel::Color, {});
    EXPECT_EQ(log.size(), 3u) << "a pass whose handle is gone no longer runs";
    stack.profiler.flush();
    bool timed = false;
    for (const auto& record : stack.profiler.takeFrames())
        for (const auto& span : record.spans)
            timed = timed || std::string(span.name) == "pass-b";
    EXPECT_TRUE(timed) << "a pass's stages are profiler spans";
    EXPECT_EQ(stack.frame.handoffs(), 0u) << "the host path makes no handoff";
}

/// A host pass that begins a stage and throws inside it (a Python hook that raised).
class Thrower final : public interop::Pass {
public:
    const char* name() const override { return "thrower"; }
    bool isEnabled() const override { return enabled; }
    interop::Path path() const override { return interop::Path::Host; }
    void run(const interop::MappedView*, interop::PassHooks& hooks) override
    {
        hooks.beginStage("thrower", nullptr);
        throw std::runtime_error("the pass failed");
    }
    bool enabled = true;
};

GLint debugGroupDepth()
{
    GLint depth = 0;
    glGetIntegerv(GL_DEBUG_GROUP_STACK_DEPTH, &depth);
    return depth;
}

TEST_F(FrameGL, APassThatThrowsInsideAStageLeavesTheDebugGroupsBalanced)
{
    // The stage it began was left pushed: every failed frame deepened the stack, and the pops
    // after it went to the wrong groups (a re-entrant Python hook ended in GL_STACK_UNDERFLOW).
    const render::GpuScene scene = test::sceneOf(test::colouredCube());
    test::FrameStack stack(32, 24, render::ColorFormat::Rgba8, true);
    Thrower thrower;
    Registration added = stack.frame.addPass(thrower);
    const render::Camera camera = test::fittedCamera(scene.bounds());
    const GLint depth = debugGroupDepth();
    for (int i = 0; i < 3; ++i) {
        stack.profiler.beginFrame();
        EXPECT_THROW(stack.frame.render(scene, camera, postfx::Chain{}, Channel::Color, {}),
                     std::runtime_error);
        EXPECT_EQ(debugGroupDepth(), depth) << "after failed frame " << i;
    }
    thrower.enabled = false;
    stack.profiler.beginFrame();
    const io::Image image =
        stack.render(scene, camera, postfx::Chain{}, Channel::Color); // the frame goes on
    stack.profiler.endFrame();
    EXPECT_EQ(debugGroupDepth(), depth);
    EXPECT_FALSE(image.pixels.empty());
}

TEST_F(FrameGL, OutputChannelWithoutAChainShowsTheColour)
{
    // The output channel with nothing to post-process still shows this frame (an empty chain
    // encodes the colour), never a stale output texture.
    const render::GpuScene scene = test::sceneOf(test::colouredCube());
    test::FrameStack stack(48, 32);
    const render::Camera camera = test::fittedCamera(scene.bounds());
    const io::Image color = stack.render(scene, camera, postfx::Chain{}, Channel::Color);
    const io::Image output = stack.render(scene, camera, postfx::Chain{}, Channel::Output);
    EXPECT_EQ(color.pixels, output.pixels);
}

} // namespace
} // namespace tandem::frame
