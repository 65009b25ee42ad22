// The overlay and its panels, driven through ImGui's input state: the capture panel's button
// asks for a capture and a click elsewhere does not; without the panel there is no button; an
// app's own panel is drawn without editing ui/ and no longer once its handle is gone; the chain
// panel reads the stages' descriptors; two overlays (each its own ImGui context) live in one
// process, on two GL contexts, each drawing its own panels; long warnings wrap to the overlay's
// width and many of them keep it inside a small target (one 300-character warning used to widen
// it over the whole picture); the controls table lists every control; a headless session's
// overlay has the controls panel; the splats panel's sliders set the SH degree (never beyond the
// stored one) and the scale (0.01 to 100).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <imgui.h>

#include "engine/app/Controls.h"
#include "engine/app/Session.h"
#include "engine/core/Registration.h"
#include "engine/gl/Framebuffer.h"
#include "engine/gl/Texture.h"
#include "engine/ui/Controls.h"
#include "engine/ui/Overlay.h"
#include "engine/ui/Panels.h"
#include "engine/ui/PlaybackPanel.h"
#include "engine/ui/SplatsPanel.h"
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

TEST_F(OverlayGL, SplatsPanelSlidersSetTheDegreeAndScaleWithinTheirRanges)
{
    ui::Overlay overlay(*s_context);
    ui::SplatsShown shown;
    shown.count = 1000;
    shown.storedDegree = 3;
    shown.path = "cuda";
    int degree = 3;
    float scale = 1.0f;
    bool changed = false;
    // The last item the panel draws (no counts yet) is the scale slider (its box, label
    // included); the SH-degree slider is the line above it. Both frames are the item width wide.
    ImVec2 scaleMin, scaleMax;
    float line = 0.0f, width = 0.0f;
    const Registration panel = overlay.addPanel({"splats", true, [&] {
                                                     changed |=
                                                         ui::splatsPanel(shown, degree, scale);
                                                     scaleMin = ImGui::GetItemRectMin();
                                                     scaleMax = ImGui::GetItemRectMax();
                                                     line = ImGui::GetFrameHeightWithSpacing();
                                                     width = ImGui::CalcItemWidth();
                                                 }});
    draw(overlay);
    draw(overlay); // the overlay sizes itself to its first frame's contents
    ASSERT_GT(scaleMax.x, scaleMin.x);
    ASSERT_LT(scaleMax.y, static_cast<float>(Height)) << "the panel is inside the target";
    const float scaleY = (scaleMin.y + scaleMax.y) / 2, degreeY = scaleY - line;
    ASSERT_GT(width, 20.0f);
    const float left = scaleMin.x + 1.0f, right = scaleMin.x + width - 1.0f;
    EXPECT_FALSE(changed) << "drawing alone changes nothing";

    click(overlay, left, degreeY);
    EXPECT_TRUE(changed);
    EXPECT_EQ(degree, 0) << "the SH-degree slider's left end";
    EXPECT_EQ(scale, 1.0f) << "the scale slider untouched";
    changed = false;
    click(overlay, right, degreeY);
    EXPECT_TRUE(changed);
    EXPECT_EQ(degree, 3) << "the right end: the stored degree";
    changed = false;
    click(overlay, left, scaleY);
    EXPECT_TRUE(changed);
    EXPECT_FLOAT_EQ(scale, 0.01f);
    click(overlay, right, scaleY);
    EXPECT_FLOAT_EQ(scale, 100.0f);
    EXPECT_EQ(degree, 3);

    // A degree-1 scene asked for degree 3 shows 1, and the request stands until the slider
    // moves; its right end is 1.
    shown.storedDegree = 1;
    changed = false;
    click(overlay, right, degreeY);
    EXPECT_FALSE(changed);
    EXPECT_EQ(degree, 3);
    click(overlay, left, degreeY);
    EXPECT_EQ(degree, 0);
    click(overlay, right, degreeY);
    EXPECT_EQ(degree, 1) << "never beyond the stored degree";

    // No Gaussians: no sliders; a click where they were changes nothing.
    shown.count = 0;
    changed = false;
    draw(overlay);
    click(overlay, left, degreeY);
    click(overlay, right, scaleY - line);
    EXPECT_FALSE(changed);
    EXPECT_EQ(degree, 1);
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

/// The box of the pixels an overlay drew into `target` (not the clear colour): columns [x0,
/// x1), rows [y0, y1) from the top; all 0 when it drew nothing.
struct Drawn {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    std::size_t pixels = 0;
};

Drawn drawnBox(const gl::Texture& target, int width, int height)
{
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * height * 4);
    glGetTextureImage(target.id(), 0, GL_RGBA, GL_UNSIGNED_BYTE,
                      static_cast<GLsizei>(pixels.size()), pixels.data());
    Drawn box{width, height, 0, 0, 0};
    for (int row = 0; row < height; ++row)
        for (int x = 0; x < width; ++x) {
            const std::uint8_t* p = &pixels[(static_cast<std::size_t>(row) * width + x) * 4];
            if (p[0] == 0 && p[1] == 0 && p[2] == 0)
                continue;
            const int y = height - 1 - row; // GL's rows are bottom first
            box.x0 = std::min(box.x0, x);
            box.x1 = std::max(box.x1, x + 1);
            box.y0 = std::min(box.y0, y);
            box.y1 = std::max(box.y1, y + 1);
            ++box.pixels;
        }
    return box.pixels ? box : Drawn{};
}

/// An overlay with the viewer's playback panel showing `warnings`, drawn into a `width` ×
/// `height` target twice (ImGui sizes a window to what it drew the frame before); what it
/// covered.
Drawn drawPlayback(platform::Context& context, const std::vector<std::string>& warnings, int width,
                   int height)
{
    gl::Texture target(GL_RGBA8, width, height, "test.overlay-warnings");
    gl::Framebuffer framebuffer("test.overlay-warnings");
    framebuffer.attach(GL_COLOR_ATTACHMENT0, target);
    framebuffer.setDrawBuffers({GL_COLOR_ATTACHMENT0});
    framebuffer.checkComplete();
    ui::Overlay overlay(context);
    stream::Playback playback(120, 30.0);
    const stream::PlayerStats player;
    const stream::StreamStats streaming;
    const Registration panel =
        overlay.addPanel({"Playback", true, [&] {
                              ui::playbackPanel(playback, player, streaming, warnings, "sample", 0,
                                                app::SequenceControls);
                          }});
    for (int i = 0; i < 3; ++i) {
        clear(target);
        overlay.draw(framebuffer.id(), width, height);
    }
    glFinish();
    return drawnBox(target, width, height);
}

/// `count` warnings as a reader writes them about a frame in a deep folder, each `length`
/// characters.
std::vector<std::string> warnings(int count, std::size_t length)
{
    std::vector<std::string> out;
    for (int i = 0; i < count; ++i) {
        std::string text = "frame " + std::to_string(i) + " skipped: /data/captures/";
        while (text.size() < length)
            text += "session_2026_12_01/take_" + std::to_string(i) + "/";
        out.push_back(text.substr(0, length));
    }
    return out;
}

TEST_F(OverlayGL, LongWarningsWrapToTheOverlaysWidth)
{
    constexpr int W = 1280, H = 720;
    const ui::OverlayBounds bounds = ui::overlayBounds(W, H);
    EXPECT_EQ(bounds.width, 430.0f);
    const Drawn plain = drawPlayback(*s_context, warnings(3, 40), W, H);
    const Drawn wrapped = drawPlayback(*s_context, warnings(3, 300), W, H);
    ASSERT_GT(plain.pixels, 1000u);
    // The window's own edge may be a pixel past its box.
    const int right = static_cast<int>(bounds.margin + bounds.width) + 1;
    EXPECT_LE(plain.x1, right);
    EXPECT_LE(wrapped.x1, right) << "a long warning widened the overlay to " << wrapped.x1 << " of "
                                 << W << " px";
    // Each 300-character warning takes several lines instead of one.
    EXPECT_GE(wrapped.y1 - plain.y1, 3 * 2 * 13) << "the long warnings were not wrapped";
    EXPECT_LT(wrapped.y1, H);
}

TEST_F(OverlayGL, ManyWarningsKeepTheOverlayInsideASmallTarget)
{
    constexpr int W = 640, H = 240;
    const ui::OverlayBounds bounds = ui::overlayBounds(W, H);
    const Drawn drawn = drawPlayback(*s_context, warnings(40, 200), W, H);
    ASSERT_GT(drawn.pixels, 1000u);
    EXPECT_LE(drawn.x1, static_cast<int>(bounds.margin + bounds.width) + 1);
    EXPECT_LE(drawn.y1, static_cast<int>(bounds.margin + bounds.maxHeight) + 1)
        << "the overlay runs off the bottom";
    // A third of the picture stays free: the overlay is at most 438 of its 640 columns.
    EXPECT_LE(static_cast<double>(drawn.x1 - drawn.x0) / W, 0.69);
    // A narrow target: the overlay is narrower than 430 px.
    const ui::OverlayBounds narrow = ui::overlayBounds(300, 200);
    EXPECT_EQ(narrow.width, 284.0f);
    EXPECT_EQ(narrow.maxHeight, 184.0f);
    const Drawn small = drawPlayback(*s_context, warnings(40, 200), 300, 200);
    EXPECT_LE(small.x1, 8 + 284 + 1);
    EXPECT_LE(small.y1, 8 + 184 + 1);
}

/// ImGui's log of the text a panel drew, through the clipboard hook of its context.
std::string loggedText(ui::Overlay& overlay, const std::function<void()>& draw, GLuint framebuffer,
                       int width, int height)
{
    static std::string captured; // ImGui's clipboard hook is a plain function pointer
    captured.clear();
    {
        const ui::Overlay::Current current(overlay);
        ImGui::GetIO().SetClipboardTextFn = [](void*, const char* text) {
            captured = text;
        };
    }
    const Registration panel = overlay.addPanel({"logged", true, [&] {
                                                     ImGui::LogToClipboard();
                                                     draw();
                                                     ImGui::LogFinish();
                                                 }});
    overlay.draw(framebuffer, width, height);
    return captured;
}

TEST_F(OverlayGL, TheControlsTableListsEveryControl)
{
    ui::Overlay overlay(*s_context);
    const std::string text = loggedText(
        overlay, [] { ui::controlsTable(app::WindowControls); }, framebuffer.id(), Width, Height);
    for (const ui::Control& control : app::WindowControls) {
        EXPECT_NE(text.find(control.input), std::string::npos) << control.input << " in " << text;
        EXPECT_NE(text.find(control.action), std::string::npos) << control.action << " in " << text;
    }
}

TEST_F(OverlayGL, AHeadlessSessionsOverlayListsTheControls)
{
    app::SessionSettings settings;
    settings.headless = true;
    settings.size = {320, 240};
    settings.frames = 1;
    settings.format = frame::OutputFormat::None;
    settings.backend = postfx::BackendChoice::Host;
    settings.overlay = true;
    settings.quiet = true;
    app::OpenFailure failure;
    auto session = app::Session::open({"tandem-test"}, settings, failure);
    ASSERT_TRUE(session) << failure.message;
    ASSERT_TRUE(session->overlay());
    const std::vector<std::string> titles = session->overlay()->panelTitles();
    EXPECT_NE(std::find(titles.begin(), titles.end(), "controls"), titles.end())
        << "no controls panel among the session's";
    EXPECT_EQ(session->finish(), 0);
    session.reset(); // its context goes with it
    s_context->makeCurrent();
}

} // namespace
} // namespace tandem
