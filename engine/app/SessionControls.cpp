// The session's own window controls: the overlay's panels (channel and timings, the passes, the
// splats, the chain, the list of controls, RenderDoc) and the keys (Esc/Q quit, C channel, S/F2
// screenshot, R reset view, F1 overlay, F12 capture), registered with handles the session holds.
#include "engine/app/Session.h"

#include "engine/app/Controls.h"
#include "engine/app/FrameOutput.h"
#include "engine/capture/FrameCapture.h"
#include "engine/core/Log.h"
#include "engine/frame/Frame.h"
#include "engine/render/GpuScene.h"
#include "engine/render/SplatPass.h"
#include "engine/ui/Panels.h"
#include "engine/ui/SplatsPanel.h"

namespace tandem::app {

void Session::addPanels()
{
    if (!m_overlay)
        return;
    m_own.push_back(m_overlay->addPanel({"", true, [this] {
                                             ui::channelCombo(m_channel);
                                             ui::timingsPanel(*m_profiler, m_history);
                                         }}));
    m_own.push_back(m_overlay->addPanel(
        {"passes", true, [this] {
             ui::interopPanel(m_up.doctor,
                              {std::string(interop::Paths.name(m_up.residence.path)),
                               std::string(frame::Memories.name(m_frame->memory())),
                               m_frame->memoryReason(),
                               std::string(render::RasterPaths.name(m_frame->rasterPath())),
                               m_frame->rasterDecision().reason,
                               std::string(render::PointPaths.name(m_frame->pointPath()))});
         }}));
    m_own.push_back(m_overlay->addPanel(
        {"splats", false, [this] {
             render::SplatPass& pass = m_frame->splatPass();
             ui::SplatsShown shown;
             if (m_shown) {
                 shown.count = m_shown->splats().count();
                 shown.storedDegree = m_shown->splats().shDegree();
             }
             shown.path = std::string(render::SplatPaths.name(pass.splatPath()));
             shown.counts = pass.counts();
             ui::splatsPanel(shown, m_geometry.splatShDegree, m_geometry.splatScale);
         }}));
    m_own.push_back(m_overlay->addPanel({"post-process chain", false, [this] {
                                             ui::chainPanel(m_chain);
                                         }}));
    m_own.push_back(m_overlay->addPanel({"controls", false, [] {
                                             ui::controlsTable(WindowControls);
                                         }}));
    if (m_up.capture)
        m_own.push_back(m_overlay->addPanel({"RenderDoc", true, [this] {
                                                 ui::capturePanel(m_up.capture->captures(),
                                                                  *m_up.capture->requestFlag());
                                             }}));
}

void Session::bindKeys()
{
    using platform::Key;
    const auto bind = [this](Key key, std::function<void()> action) {
        m_own.push_back(m_input.onKey(key, std::move(action)));
    };
    bind(Key::Escape, [this] { m_quit = true; });
    bind(Key::Q, [this] { m_quit = true; });
    bind(Key::C, [this] {
        m_channel = frame::Channels.next(m_channel);
        log::info("showing {}", frame::Channels.name(m_channel));
    });
    bind(Key::S, [this] { m_output->requestScreenshot(); });
    bind(Key::F2, [this] { m_output->requestScreenshot(); });
    bind(Key::R, [this] { m_controller.fit(m_bounds); });
    bind(Key::F1, [this] {
        if (m_overlay)
            m_overlay->toggle();
    });
    bind(Key::F12, [this] {
        if (m_up.capture)
            m_up.capture->request();
        else
            log::warning("F12: RenderDoc is not attached (start with --renderdoc); capture "
                         "disabled");
    });
}

} // namespace tandem::app
