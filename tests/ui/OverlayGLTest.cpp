// The overlay and its panels, driven through ImGui's input state: the capture panel's button
// asks for a capture and a click elsewhere does not; without the panel there is no button; an
// app's own panel is drawn without editing ui/ and no longer once its handle is gone; the chain
// panel reads the stages' descriptors; two overlays (each its own ImGui context) live in one
// process, on two GL contexts, each drawing its own panels.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <imgui.h>

#include "engine/core/Registration.h"
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
        const ui::Overlay::Current current(overlay);
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
    const Registration panel = overlay.addPanel({"RenderDoc", true, [&] {
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
    Registration panel = overlay.addPanel({"mine", true, [&] {
                                               ++drawn;
                                               ImGui::Text("an app's own panel");
                                           }});
    draw(overlay);
    EXPECT_EQ(drawn, 1) << "a panel the app added is drawn";
    overlay.toggle();
    draw(overlay);
    EXPECT_EQ(drawn, 1) << "hidden: nothing drawn";
    overlay.toggle();
    panel.reset();
    draw(overlay);
    EXPECT_EQ(drawn, 1) << "a panel whose handle is gone is not drawn";
    EXPECT_EQ(overlay.panelCount(), 0u);
}

TEST_F(OverlayGL, APanelHandleOutlivingItsOverlayDoesNothing)
{
    Registration panel;
    {
        ui::Overlay overlay(*s_context);
        panel = overlay.addPanel({"mine", true, [] {
                                  }});
        EXPECT_TRUE(panel.isActive());
    }
    EXPECT_FALSE(panel.isActive());
    panel.reset(); // the overlay is gone: nothing to remove, nothing touched
}

/// Clears `target` to transparent black.
void clear(const gl::Texture& target)
{
    const std::uint8_t zero[4] = {0, 0, 0, 0};
    glClearTexImage(target.id(), 0, GL_RGBA, GL_UNSIGNED_BYTE, zero);
}

/// What an overlay drew into `target`: pixels that are not the clear colour.
std::size_t drawnPixels(const gl::Texture& target, int width, int height)
{
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * height * 4);
    glGetTextureImage(target.id(), 0, GL_RGBA, GL_UNSIGNED_BYTE,
                      static_cast<GLsizei>(pixels.size()), pixels.data());
    std::size_t drawn = 0;
    for (std::size_t i = 0; i < pixels.size(); i += 4)
        drawn += pixels[i] != 0 || pixels[i + 1] != 0 || pixels[i + 2] != 0 ? 1 : 0;
    return drawn;
}

TEST_F(OverlayGL, TwoOverlaysOnTwoContextsEachDrawTheirOwnPanels)
{
    // Two viewers in one process (a notebook cell run twice): the second overlay used to abort
    // the process in ImGui_ImplOpenGL3_Init ("Already initialized a renderer backend!").
    std::unique_ptr<platform::Context> second = test::otherContext();
    ASSERT_TRUE(second);
    s_context->makeCurrent();
    std::vector<std::string> drawnBy;
    ui::Overlay first(*s_context);
    const Registration a = first.addPanel({"a", true, [&] {
                                               drawnBy.push_back("a");
                                           }});
    clear(target);
    {
        second->makeCurrent();
        gl::Texture target2(GL_RGBA8, Width, Height, "test.overlay2");
        gl::Framebuffer framebuffer2("test.overlay2");
        framebuffer2.attach(GL_COLOR_ATTACHMENT0, target2);
        framebuffer2.setDrawBuffers({GL_COLOR_ATTACHMENT0});
        framebuffer2.checkComplete();
        clear(target2);
        ui::Overlay other(*second);
        const Registration b = other.addPanel({"b", true, [&] {
                                                   drawnBy.push_back("b");
                                               }});
        for (int i = 0; i < 2; ++i) {
            s_context->makeCurrent();
            draw(first);
            second->makeCurrent();
            other.draw(framebuffer2.id(), Width, Height);
        }
        glFinish();
        EXPECT_GT(drawnPixels(target2, Width, Height), 1000u) << "the second overlay drew";
        EXPECT_TRUE(other.isVisible());
    } // the second overlay and its GL objects go while its context is current
    EXPECT_EQ(second->glErrorCount(), 0u);
    s_context->makeCurrent();
    draw(first); // the first lives on after the second is gone
    glFinish();
    EXPECT_GT(drawnPixels(target, Width, Height), 1000u) << "the first overlay drew";
    EXPECT_EQ(drawnBy, (std::vector<std::string>{"a", "b", "a", "b", "a"}));
    second.reset(); // releases whatever context is current
    s_context->makeCurrent();
}

} // namespace
} // namespace tandem
