// The session's side of the browser view (--serve, RemoteView): the driving client's input
// routed as the window's is, its canvas size taken headless, and the stats the page draws its
// timings table, frame-time plot and the app's sections from.
#include "engine/app/Session.h"

#include <fmt/format.h>

#include "engine/app/RemoteView.h"
#include "engine/render/SceneRenderer.h"

namespace tandem::app {

namespace {

/// Frame times the page plots.
constexpr std::size_t PlottedFrames = 120;

/// The chain as the page edits it: each stage with its parameters' values and ranges (from the
/// stage descriptors, as the overlay's sliders).
nlohmann::json chainJson(const postfx::Chain& chain)
{
    nlohmann::json stages = nlohmann::json::array();
    for (const postfx::Stage& stage : chain.stages) {
        const postfx::StageDescriptor& d = stage.descriptor();
        nlohmann::json params = nlohmann::json::array();
        for (int i = 0; i < d.paramCount; ++i) {
            const postfx::ParamDescriptor& p = d.params[static_cast<std::size_t>(i)];
            params.push_back({{"name", p.name},
                              {"value", stage.params[static_cast<std::size_t>(i)]},
                              {"min", p.min},
                              {"max", p.max},
                              {"integer", p.integer},
                              {"help", p.help}});
        }
        stages.push_back(
            {{"name", d.name}, {"help", d.help}, {"enabled", stage.enabled}, {"params", params}});
    }
    return stages;
}

nlohmann::json stageRows(const profile::Window& window)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const std::string& name : window.names()) {
        const profile::Summary summary = window.summary(name);
        rows.push_back(
            {{"name", name}, {"last", summary.last}, {"p50", summary.p50}, {"p95", summary.p95}});
    }
    return rows;
}

} // namespace

void Session::addRemoteCommands()
{
    // The page's chain panel: {"stage": index, "enabled": bool} or {"stage", "param", "value"}.
    m_own.push_back(m_remote->onCommand("postfx", [this](const nlohmann::json& args) {
        const auto error = [](std::string message) {
            return RemoteView::Reply(nlohmann::json{{"type", "error"}, {"message", message}});
        };
        const auto index = args.find("stage");
        if (index == args.end() || !index->is_number_integer() || index->get<int>() < 0 ||
            index->get<std::size_t>() >= m_chain.stages.size())
            return error("postfx: no such stage");
        postfx::Stage& stage = m_chain.stages[index->get<std::size_t>()];
        if (const auto enabled = args.find("enabled"); enabled != args.end()) {
            if (!enabled->is_boolean())
                return error("postfx: 'enabled' is not true or false");
            stage.enabled = enabled->get<bool>();
            return RemoteView::Reply();
        }
        const auto param = args.find("param");
        const auto value = args.find("value");
        if (param == args.end() || !param->is_string() || value == args.end() ||
            !value->is_number() || !stage.setParam(param->get<std::string>(), value->get<float>()))
            return error(fmt::format("postfx: {} has no such parameter, or the value is out of its "
                                     "range",
                                     stage.name()));
        return RemoteView::Reply();
    }));
}

void Session::serve()
{
    m_remote->takeMessages([this](const std::vector<platform::InputEvent>& events) {
        m_input.route(events, nullptr, m_controller, m_renderer->height());
    });
    // Headless, frames take the driving browser's canvas size (written frames keep theirs).
    if (m_headless && !m_writesFrames)
        if (const auto size = m_remote->wantedSize();
            size && (size->width != m_renderer->width() || size->height != m_renderer->height()))
            m_renderer->resize(size->width, size->height);
}

nlohmann::json Session::remoteStats() const
{
    nlohmann::json stats{{"frame", m_index},
                         {"gpu", stageRows(m_profiler->gpuStats())},
                         {"cpu", stageRows(m_profiler->cpuStats())}};
    // Frame times: from one frame's start to the next's, on the CPU.
    nlohmann::json frameMs = nlohmann::json::array();
    const std::size_t first =
        m_history.size() > PlottedFrames + 1 ? m_history.size() - PlottedFrames - 1 : 0;
    for (std::size_t i = first + 1; i < m_history.size(); ++i)
        frameMs.push_back(m_history[i].cpuStartMs - m_history[i - 1].cpuStartMs);
    if (m_history.size() >= 2) {
        const double span = m_history.back().cpuStartMs - m_history[first].cpuStartMs;
        stats["fps"] =
            span > 0 ? 1000.0 * static_cast<double>(m_history.size() - 1 - first) / span : 0.0;
    }
    stats["frame_ms"] = std::move(frameMs);
    stats["size"] = {m_renderer->width(), m_renderer->height()};
    stats["chain"] = chainJson(m_chain);
    stats["channel"] = frame::Channels.name(m_channel);
    // The pose as a camera path's keyframe holds it (--camera-path renders the same view).
    const glm::vec3 target = m_controller.targetOffset();
    stats["camera"] = {{"yaw", m_controller.yaw()},
                       {"pitch", m_controller.pitch()},
                       {"distance", m_controller.distanceScale()},
                       {"target", {target.x, target.y, target.z}}};
    nlohmann::json app = nlohmann::json::object();
    m_statsSections.forEach([&app](const auto& section) { section(app); });
    stats["app"] = std::move(app);
    return stats;
}

} // namespace tandem::app
