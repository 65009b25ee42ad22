// The overlay's RenderDoc section, driven through ImGui's input state: its button asks for a
// capture, a click elsewhere does not, and without RenderDoc there is no button.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <imgui.h>

#include "engine/gl/Framebuffer.h"
#include "engine/gl/Texture.h"
#include "engine/ui/Overlay.h"
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
    void draw(ui::Overlay& overlay, const ui::OverlayView& view)
    {
        overlay.draw(view, framebuffer.id(), Width, Height);
    }
    /// A left click at (x, y): pressed in one frame, released in the next.
    void click(ui::Overlay& overlay, const ui::OverlayView& view, float x, float y)
    {
        ImGuiIO& io = ImGui::GetIO();
        io.MousePos = ImVec2(x, y);
        io.MouseDown[0] = true;
        draw(overlay, view);
        io.MouseDown[0] = false;
        draw(overlay, view);
    }
    gl::Texture target;
    gl::Framebuffer framebuffer;
};

TEST_F(OverlayGL, CaptureButtonAsksForACapture)
{
    ui::Overlay overlay(*s_context);
    bool requested = false;
    const std::vector<std::string> captures{"captures/tandem-raster_frame0002.rdc"};
    ui::OverlayView view;
    view.captureRequested = &requested;
    view.captures = &captures;
    draw(overlay, view);
    const auto button = overlay.captureButtonCenter();
    ASSERT_TRUE(button) << "no capture button drawn";
    EXPECT_FALSE(requested);

    click(overlay, view, Width - 5.0f, Height - 5.0f); // far from the overlay
    EXPECT_FALSE(requested);
    click(overlay, view, (*button)[0], (*button)[1]);
    EXPECT_TRUE(requested);
}

TEST_F(OverlayGL, NoCaptureButtonWithoutRenderDoc)
{
    ui::Overlay overlay(*s_context);
    draw(overlay, ui::OverlayView{});
    EXPECT_FALSE(overlay.captureButtonCenter());
}

} // namespace
} // namespace tandem
