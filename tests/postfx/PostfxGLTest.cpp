// The host backend end to end on headless EGL: a known scene through the geometry pass, each
// post-process stage (and a whole chain) on CPU threads via pixel-pack read-back and upload,
// presented, compared with reference images, and visibly different from the unprocessed frame.
#include <gtest/gtest.h>

#include "engine/postfx/PostProcessor.h"
#include "engine/render/GpuMesh.h"
#include "engine/render/OrbitCamera.h"
#include "engine/render/SceneRenderer.h"
#include "engine/ui/PostfxWiring.h"
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
        interop::InteropStatus hostOnly;
        auto processor = PostProcessor::create(BackendChoice::Host, hostOnly);
        EXPECT_TRUE(processor) << processor.error();
        render::GpuMesh mesh(test::cubeOnFloor(), "cubes on a floor");
        render::SceneRenderer renderer(160, 120, render::ColorFormat::Rgba8, true);
        render::OrbitCamera camera;
        camera.fit(mesh.bounds());
        renderer.drawGeometry(mesh, camera, render::GeometryOptions{});
        processor.value()->run(chain, ui::frameInfo(camera, 160, 120),
                               ui::frameTextures(renderer.gbuffer()));
        EXPECT_EQ(processor.value()->path(), interop::Path::Host);
        renderer.present(camera, render::Channel::Output);
        return renderer.readPresented();
    }
};

TEST_F(PostfxHost, EveryStageMatchesReferenceAndChangesTheImage)
{
    const io::Image plain = render("none");
    EXPECT_EQ(test::compareWithReference(plain, references / "none.png"), "");
    for (StageKind kind : allStageKinds()) {
        const std::string name(stageName(kind));
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

TEST_F(PostfxHost, ExplicitCudaFailsCleanlyWithoutInterop)
{
    interop::InteropStatus noInterop;
    noInterop.reason = "GL runs on a software renderer (llvmpipe)";
    auto processor = PostProcessor::create(BackendChoice::Cuda, noInterop);
    ASSERT_FALSE(processor);
    EXPECT_NE(processor.error().find("--backend cuda cannot be used: GL runs on a software"),
              std::string::npos)
        << processor.error();
}

} // namespace
} // namespace tandem::postfx
