// The host backend end to end on headless EGL: a known scene through the frame (geometry pass,
// each post-process stage and a whole chain on CPU threads via pixel-pack read-back and upload,
// present), compared with reference images, and visibly different from the unprocessed frame.
#include <gtest/gtest.h>

#include "tests/support/FrameFixture.h"
#include "tests/support/GlTestContext.h"
#include "tests/support/ImageCompare.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::postfx {
namespace {

const std::filesystem::path references =
    std::filesystem::path(TANDEM_SOURCE_DIR) / "tests" / "postfx" / "references";

class PostfxHost : public test::GlTest {
protected:
    io::Image render(const std::string& chainText)
    {
        auto chain = parseChain(chainText);
        EXPECT_TRUE(chain) << chain.error();
        return render(chain.value());
    }

    io::Image render(const Chain& chain)
    {
        const render::GpuScene scene = test::sceneOf(test::cubeOnFloor(), "cubes on a floor");
        test::FrameStack stack(160, 120);
        EXPECT_EQ(stack.frame.path(), interop::Path::Host);
        return stack.render(scene, test::fittedCamera(scene.bounds()), chain,
                            frame::Channel::Output);
    }
};

TEST_F(PostfxHost, EveryStageMatchesReferenceAndChangesTheImage)
{
    const io::Image plain = render("none");
    EXPECT_EQ(test::compareWithReference(plain, references / "none.png"), "");
    for (const StageDescriptor& d : stageDescriptors()) {
        const std::string name(d.name);
        const io::Image image = render(name);
        EXPECT_EQ(test::compareWithReference(image, references / (name + ".png")), "") << name;
        std::size_t changed = 0;
        for (std::size_t i = 0; i < image.pixels.size(); ++i)
            changed += image.pixels[i] != plain.pixels[i] ? 1 : 0;
        EXPECT_GT(changed, 100u) << name << " did not visibly change the image";
    }
}

TEST_F(PostfxHost, WholeChainMatchesReference)
{
    const io::Image image = render("bilateral,ssao:strength=1.5,outline,tonemap:exposure=0.5,fxaa");
    EXPECT_EQ(test::compareWithReference(image, references / "chain.png"), "");
}

TEST_F(PostfxHost, DisabledStagesAreSkipped)
{
    auto chain = parseChain("tonemap,outline");
    ASSERT_TRUE(chain);
    chain.value().stages[1].enabled = false;
    EXPECT_EQ(chain.value().enabledCount(), 1u);
    const io::Image withDisabled = render(chain.value());
    EXPECT_EQ(withDisabled.pixels, render("tonemap").pixels);
}

TEST_F(PostfxHost, DebugChannelsAreTheViewStages)
{
    // One definition of each debug view: showing the depth channel is the view-depth stage.
    const render::GpuScene scene = test::sceneOf(test::cubeOnFloor(), "cubes on a floor");
    test::FrameStack stack(160, 120);
    const render::Camera camera = test::fittedCamera(scene.bounds());
    const std::pair<frame::Channel, const char*> views[] = {{frame::Channel::Depth, "view-depth"},
                                                            {frame::Channel::Normal, "view-normal"},
                                                            {frame::Channel::Id, "view-id"}};
    for (const auto& [channel, stage] : views) {
        const io::Image shown = stack.render(scene, camera, Chain{}, channel);
        auto chain = parseChain(stage);
        ASSERT_TRUE(chain);
        const io::Image staged = stack.render(scene, camera, chain.value(), frame::Channel::Output);
        EXPECT_EQ(shown.pixels, staged.pixels) << stage;
    }
}

TEST_F(PostfxHost, ExplicitCudaFailsCleanlyWithoutInterop)
{
    interop::InteropStatus noInterop;
    noInterop.reason = "GL runs on a software renderer (llvmpipe)";
    auto residence = frame::chooseResidence(BackendChoice::Cuda, noInterop);
    ASSERT_FALSE(residence);
    EXPECT_NE(residence.error().find("--backend cuda cannot be used: GL runs on a software"),
              std::string::npos)
        << residence.error();
}

} // namespace
} // namespace tandem::postfx
