// The overlay and its panels, driven through ImGui's input state: the capture panel's button
// asks for a capture and a click elsewhere does not; without the panel there is no button; an
// app's own panel is drawn without editing ui/; the chain panel reads the stages' descriptors.
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <imgui.h>

#include "engine/gl/Framebuffer.h"
#include "engine/gl/Texture.h"
#include "engine/ui/Overlay.h"
#include "engine/ui/Panels.h"
#include "tests/support/GlTestContext.h"

namespace tandem {
namespace {

class OverlayGL : public test::GlTest {
protected:
    static constexpr int Width = 640, Height = 480;
    OverlayGL() : target(GL_RGBA8, Width, Height, "test.overlay"), framebuffer("test.overlay")
    {
        framebuffer.attach(GL_COLOR_ATTACHMENT0, target);
        framebuffer.setDrawBuffers({GL_COLOR_ATTACHMENT0});
        framebuffer.checkComplete();
    }
    void draw(ui::Overlay& overlay) { overlay.draw(framebuffer.id(), Width, Height); }
    /// A left click at (x, y): pressed in one frame, released in the next.
    void click(ui::Overlay& overlay, float x, float y)
    {
        ImGuiIO& io = ImGui::GetIO();
        io.MousePos = ImVec2(x, y);
        io.MouseDown[0] = true;
        draw(overlay);
        io.MouseDown[0] = false;
        draw(overlay);
    }
    gl::Texture target;
    gl::Framebuffer framebuffer;
};

TEST_F(OverlayGL, CapturePanelButtonAsksForACapture)
{
    ui::Overlay overlay(*s_context);
    bool requested = false;
    const std::vector<std::string> captures{"captures/tandem-raster_frame0002.rdc"};
    std::optional<std::array<float, 2>> button;
    overlay.addPanel({"RenderDoc", true, [&] {
                          button = ui::capturePanel(captures, requested);
                      }});
    draw(overlay);
    ASSERT_TRUE(button) << "no capture button drawn";
    EXPECT_FALSE(requested);

    click(overlay, Width - 5.0f, Height - 5.0f); // far from the overlay
    EXPECT_FALSE(requested);
    click(overlay, (*button)[0], (*button)[1]);
    EXPECT_TRUE(requested);
}

TEST_F(OverlayGL, PanelsAreWhatTheAppComposes)
{
    ui::Overlay overlay(*s_context);
    int drawn = 0;
    overlay.addPanel({"mine", true, [&] {
                          ++drawn;
                          ImGui::Text("an app's own panel");
                      }});
    draw(overlay);
    EXPECT_EQ(drawn, 1) << "a panel the app added is drawn";
    overlay.toggle();
    draw(overlay);
    EXPECT_EQ(drawn, 1) << "hidden: nothing drawn";
}

TEST_F(OverlayGL, ChainPanelEditsTheChainThroughTheDescriptors)
{
    ui::Overlay overlay(*s_context);
    auto chain = postfx::parseChain("fxaa");
    ASSERT_TRUE(chain);
    bool changed = false;
    overlay.addPanel({"post-process chain", true, [&] {
                          changed |= ui::chainPanel(chain.value());
                      }});
    draw(overlay);
    EXPECT_FALSE(changed) << "drawing alone changes nothing";
    EXPECT_EQ(chain.value().stages.size(), 1u);
}

} // namespace
} // namespace tandem
