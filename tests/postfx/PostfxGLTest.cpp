// The host backend end to end on headless EGL: a known scene through the frame (geometry pass,
// each post-process stage and a whole chain on CPU threads via pixel-pack read-back and upload,
// present), compared with reference images, and visibly different from the unprocessed frame;
// colours of known value through no chain, tonemap and tonemap,fxaa against the formulas.
#include <gtest/gtest.h>

#include "tests/postfx/ColourScene.h"
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

TEST_F(PostfxHost, KnownColoursAreEncodedOnceThroughEveryChain)
{
    // Files hold sRGB, the G-buffer linear colour, the output sRGB once: with no chain the
    // file's bytes come back, and tonemap is the sRGB encoding of the tone curve of the decoded
    // colour (the background #17171C stays dark; it came out #5D5D69 when the colours were
    // encoded twice). FXAA leaves flat regions alone. GL_POINTS and the host point pass, RGBA8
    // and RGBA16F colour targets.
    const render::GeometryOptions options = test::colourOptions();
    EXPECT_EQ(glm::u8vec3(options.background[0], options.background[1], options.background[2]),
              glm::u8vec3(0x17, 0x17, 0x1c))
        << "the one definition of the background";
    const render::GpuScene scene = test::colourScene();
    const render::Camera camera = test::colourCamera();
    for (const render::ColorFormat format :
         {render::ColorFormat::Rgba8, render::ColorFormat::Rgba16F})
        for (const render::PointPath path : {render::PointPath::Gl, render::PointPath::Host}) {
            const std::string what =
                fmt::format("{} points, {}", render::PointPaths.name(path),
                            format == render::ColorFormat::Rgba8 ? "rgba8" : "rgba16f");
            test::FrameStack stack(test::ColourSceneSize, test::ColourSceneSize, format);
            stack.frame.setPointPath(path);
            const auto shown = [&](const char* chainText, frame::Channel channel) {
                return stack.render(scene, camera, parseChain(chainText).value(), channel, options);
            };
            using test::ColourChain;
            EXPECT_EQ(
                test::checkColours(shown("none", frame::Channel::Color), ColourChain::None, 0), "")
                << what << ", none, the G-buffer colour presented";
            EXPECT_EQ(
                test::checkColours(shown("none", frame::Channel::Output), ColourChain::None, 0), "")
                << what << ", none, through the chain's store";
            EXPECT_EQ(test::checkColours(shown("tonemap", frame::Channel::Output),
                                         ColourChain::Tonemap, 1),
                      "")
                << what << ", tonemap";
            EXPECT_EQ(test::checkColours(shown("tonemap:exposure=1.5", frame::Channel::Output),
                                         ColourChain::Tonemap, 1, 1.5),
                      "")
                << what << ", tonemap:exposure=1.5";
            EXPECT_EQ(test::checkColours(shown("tonemap,fxaa", frame::Channel::Output),
                                         ColourChain::Tonemap, 1),
                      "")
                << what << ", tonemap,fxaa";
        }
}

TEST_F(PostfxHost, DebugViewsAreDataNotEncodedColour)
{
    // view-depth maps the near plane to 1 and the far plane to 0.15, and the store keeps the
    // value: a point 3 units away with near 0.1 and far 100 is 1 - 0.85 * 2.9 / 99.9 = 0.975,
    // byte 249 (sRGB-encoding it would give 252).
    const render::GpuScene scene = test::colourScene();
    test::FrameStack stack(test::ColourSceneSize, test::ColourSceneSize);
    const io::Image image =
        stack.render(scene, test::colourCamera(), parseChain("view-depth").value(),
                     frame::Channel::Output, test::colourOptions());
    const glm::ivec2 centre = test::patchPixel(4);
    const std::uint8_t* p = image.row(centre.y) + centre.x * 4;
    const double value = 1.0 - 0.85 * (3.0 - 0.1) / (100.0 - 0.1);
    EXPECT_NEAR(p[0], value * 255.0, 0.6);
    EXPECT_EQ(p[0], p[1]);
    EXPECT_EQ(image.row(1)[4], 0) << "background: depth 0 is black";
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
