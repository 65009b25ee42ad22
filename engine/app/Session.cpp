#include "engine/app/Session.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "engine/app/Controls.h"
#include "engine/app/FrameOutput.h"
#include "engine/app/RemoteView.h"
#include "engine/app/SceneFiles.h"
#include "engine/capture/FrameCapture.h"
#include "engine/core/File.h"
#include "engine/core/Log.h"
#include "engine/core/Plural.h"
#include "engine/core/Progress.h"
#include "engine/core/Version.h"
#include "engine/frame/Frame.h"
#include "engine/gl/Gl.h"
#include "engine/platform/Context.h"
#include "engine/profile/Trace.h"
#include "engine/render/GpuScene.h"
#include "engine/render/SceneRenderer.h"
#include "engine/ui/Panels.h"

namespace tandem::app {

Session::Session(const AppInfo& app, const SessionSettings& settings)
    : m_app(app), m_settings(settings)
{}

Session::~Session() = default;

std::unique_ptr<Session> Session::open(const AppInfo& app, const SessionSettings& settings,
                                       OpenFailure& failure)
{
    std::unique_ptr<Session> session(new Session(app, settings));
    if (auto failed = session->setUp()) {
        failure = *failed;
        return nullptr;
    }
    return session;
}

std::optional<OpenFailure> Session::setUp()
{
    const SessionSettings& s = m_settings;
    auto input = [this](std::string message) { // cut short by a stop: 128 + the signal
        return OpenFailure{setUpExit(m_app.stop, ExitInput), std::move(message)};
    };
    // Usage errors first: nothing has happened yet.
    if (auto valid = validate(s); !valid)
        return OpenFailure{ExitUsage, valid.error()};
    m_chain = s.chain;
    m_channel = s.shownChannel();
    m_frames = s.frameLimit();
    m_geometry.pointSize = s.pointSize;
    m_geometry.pointWorldSize = s.pointWorldSize.value_or(0.0f);
    m_geometry.splatScale = s.splatScale;
    m_geometry.splatShDegree = s.shDegree;
    if (s.cameraPath && s.cameraPath->orbit) {
        m_cameraPath = io::CameraPath::orbit();
    } else if (s.cameraPath) {
        auto path = io::readCameraPath(s.cameraPath->file);
        if (!path)
            return input(path.error());
        m_cameraPath = path.value();
    }

    auto up = bringUp(m_app, s);
    if (!up)
        return input(up.error());
    m_up = std::move(up.value());
    m_headless = m_up.context->isHeadless();
    log::info("passes: {}; chain: {}", m_up.residence.reason, postfx::formatChain(m_chain));

    // Frames are written headless, and in a window when a frame count was given. The profiler
    // keeps as many frames in flight as the output ring, or it would drop the frames whose
    // timings come in later than its ring turns (seen on an H200: 6 of 12 frames dropped).
    // A browser-viewed run without a frame count runs until stopped: it writes no frames.
    const bool writeFrames = (m_headless || s.frames) && s.format != frame::OutputFormat::None &&
                             !(s.serve && !s.frames);
    m_writesFrames = writeFrames;
    const int ringDepth = FrameOutput::ringDepth(s, writeFrames);
    profile::ProfilerOptions profilerOptions;
    profilerOptions.enabled = s.profile;
    profilerOptions.warmupFrames = static_cast<std::uint64_t>(s.warmup);
    profilerOptions.depth = ringDepth + 1;
    m_profiler = std::make_unique<profile::Profiler>(profilerOptions);
    const int width = m_headless ? s.size.width : m_up.context->framebufferWidth();
    const int height = m_headless ? s.size.height : m_up.context->framebufferHeight();
    auto output = FrameOutput::open(s, m_frames, writeFrames, width, height, ringDepth,
                                    m_profiler.get(), m_app.stop);
    if (!output)
        return input(output.error());
    m_output = std::move(output.value());
    // A report or trace that could not be written would fail only after the whole run.
    for (const auto* file : {&s.report, &s.trace})
        if (*file)
            if (auto ok = prepareOutputFile(**file, s.overwrite); !ok)
                return input(ok.error());

    m_renderer = std::make_unique<render::SceneRenderer>(width, height, s.colorFormat, m_headless);
    m_frame = std::make_unique<frame::Frame>(*m_renderer, m_up.residence, *m_profiler);
    m_frame->setGeometryDetail(s.profileDetail);
    m_frame->setPointPath(m_up.paths.points);
    m_frame->setRaster(m_up.paths.raster, m_up.paths.rasterReason);
    m_frame->setMemoryChoice(s.frameMemory);
    // 16-bit PNGs are read from the colour target through GL.
    m_frame->setReadsTargets(s.format == frame::OutputFormat::Png16);
    log::info("meshes: {}", m_up.paths.rasterReason);
    log::info("points: {}{}", render::PointPaths.name(m_up.paths.points),
              s.pointWorldSize ? fmt::format(", {} world units across", *s.pointWorldSize)
                               : fmt::format(", {} px across", s.pointSize));
    if (s.trace)
        m_trace = std::make_unique<profile::Trace>(static_cast<std::size_t>(s.traceFrames));

    // The overlay: on in a window (F1 toggles), into headless output with --overlay.
    if (!m_headless || s.overlay) {
        try {
            m_overlay = std::make_unique<ui::Overlay>(*m_up.context);
        } catch (const Error& e) {
            if (s.overlay)
                return input(std::string("--overlay: ") + e.what());
            log::warning("no overlay: {}", e.what());
        }
    }
    if (s.serve) {
        auto remote = RemoteView::open(
            *s.serve, m_app.name, std::string(version()),
            // At least two: a frame's bands are encoded side by side (web/JpegBands.h); half
            // the cores at most, and eight.
            static_cast<int>(std::clamp(std::thread::hardware_concurrency() / 2, 2u, 8u)));
        if (!remote)
            return input(remote.error());
        m_remote = std::move(remote.value());
        addRemoteCommands();
    }
    addPanels();
    bindKeys();
    if (m_headless)
        m_progress = std::make_unique<Progress>(m_app.name, m_frames, !s.quiet);
    else
        log::info("controls: {}{}{}", ui::controlsHelp(WindowControls),
                  m_app.controls.empty() ? "" : ", ", m_app.controls);
    return std::nullopt;
}

Result<bool> Session::load(const std::vector<std::string>& files)
{
    auto scene = loadSceneFiles(files, m_settings.up);
    if (!scene)
        return fail(scene.error());
    m_files = scene.value().files;
    setScene(scene.value().scene);
    return true;
}

void Session::setScene(const render::Scene& scene)
{
    m_scene.reset(); // its registrations and buffers go before the new ones come
    m_scene = std::make_unique<render::GpuScene>(scene);
    m_shown = m_scene.get();
    m_frame->remeasureRaster(); // --raster auto times the new scene
    const std::size_t freeBytes = gl::freeVideoMemory();
    log::info("scene on the GPU: {:.1f} MiB ({} vertices, {} triangles, {} points){}",
              static_cast<double>(m_scene->gpuBytes()) / (1024.0 * 1024.0), m_scene->vertexCount(),
              m_scene->triangleCount(), m_scene->pointCount(),
              freeBytes > 0 ? fmt::format("; {:.1f} GiB left free", static_cast<double>(freeBytes) /
                                                                        (1024.0 * 1024.0 * 1024.0))
                            : std::string());
    fitCamera(scene.bounds());
}

void Session::showScene(const render::GpuScene* scene)
{
    m_shown = scene;
}

void Session::compare(const render::GpuScene* second, render::CompareMode mode, float divider)
{
    m_second = second;
    m_compareMode = mode;
    m_divider = divider;
    if (second && !m_comparePass)
        m_comparePass = std::make_unique<render::ComparePass>();
}

void Session::fitCamera(const io::Bounds& bounds)
{
    m_bounds = bounds;
    m_controller.fit(m_bounds);
}

Registration Session::addPanel(ui::Panel panel)
{
    return m_overlay ? m_overlay->addPanel(std::move(panel)) : Registration();
}

Registration Session::onKey(platform::Key key, std::function<void()> action)
{
    return m_input.onKey(key, std::move(action));
}

Registration Session::onDrop(std::function<void(const std::string&)> action)
{
    return m_input.onDrop(std::move(action));
}

Registration Session::onStats(std::function<void(nlohmann::json&)> action)
{
    return m_statsSections.add(std::move(action));
}

Registration Session::onReport(std::function<void(Report&)> action)
{
    return m_reporters.add(std::move(action));
}

void Session::setFrameLimit(int frames)
{
    m_frames = frames;
    if (m_progress)
        m_progress =
            std::make_unique<Progress>(m_app.name, frames > 0 ? frames : 0, !m_settings.quiet);
}

bool Session::outputFailed()
{
    if (m_error.empty())
        m_error = m_output->error();
    return !m_error.empty();
}

bool Session::nextFrame()
{
    if (m_interrupted == 0)
        if (const int signal = m_app.stop.stopRequested(); signal != 0) {
            m_interrupted = signal;
            log::warning("{}: stopping after {}; finishing the output", strsignal(signal),
                         counted(m_rendered, "frame", "frames"));
        }
    // A frame another run has committed since this one planned it (--resume) is not rendered.
    while (m_frames > 0 && m_index < m_frames && m_output->isPresent(m_index))
        ++m_index;
    if (m_quit || m_interrupted != 0 || (m_frames > 0 && m_index >= m_frames) || outputFailed())
        return false;
    m_profiler->beginFrame();
    {
        profile::CpuScope scope(*m_profiler, "input");
        if (!m_headless) {
            m_up.context->pollEvents();
            if (m_up.context->shouldClose())
                return false;
            m_input.route(m_up.context->takeEvents(), m_overlay.get(), m_controller,
                          m_renderer->height());
            if (m_quit)
                return false;
            m_renderer->resize(m_up.context->framebufferWidth(), m_up.context->framebufferHeight());
        }
        if (m_remote)
            serve();
        if (m_quit)
            return false;
        if (m_cameraPath && m_appDrivesPath) {
            // The app sets the pose itself.
        } else if (m_cameraPath) {
            const io::CameraKey key = m_cameraPath->at(static_cast<float>(m_index));
            m_controller.setPose(key.yaw, key.pitch, key.distanceScale, key.target);
        } else if (m_index > 0) {
            m_controller.orbit(m_settings.spin, 0.0f);
        }
    }
    return true;
}

void Session::renderFrame()
{
    TANDEM_ASSERT(m_shown, "app::Session::renderFrame(): no scene (load(), setScene() or "
                           "showScene() first)");
    m_capturing = m_up.capture && m_up.capture->beginFrame(m_index);
    // On captured frames what CUDA wrote also goes through GL, so the capture replays it.
    m_frame->setCaptured(m_capturing);
    m_frame->setCaptureFaithful(m_capturing && !m_settings.captureNoUpload);
    // GL shows the frame after it in a window, with the overlay, a compare view or where the
    // embedding reads the presented image; else a frame all on CUDA needs no GL at all.
    // The browser view reads a frame all on CUDA from CUDA memory.
    m_frame->setPresents(!m_headless || m_overlay || m_second || m_keepPresenting);
    // With no chain the browser view still reads a frame all on CUDA: the colour as its output.
    m_frame->setColorAsOutput(m_remote != nullptr);
    m_frame->render(*m_shown, m_controller.camera(), m_chain, m_channel, m_geometry);
    if (m_second) {
        // The second sequence through the same frame and camera; both presented images then
        // make one.
        const GLuint present = m_renderer->presentFramebuffer();
        const int width = m_renderer->width(), height = m_renderer->height();
        m_comparePass->capture(present, width, height, false);
        m_frame->render(*m_second, m_controller.camera(), m_chain, m_channel, m_geometry);
        m_comparePass->capture(present, width, height, true);
        m_comparePass->compose(present, width, height, m_compareMode, m_divider);
    }
    // The browser draws its own overlay: its frame is read before the window's.
    if (m_remote) {
        profile::GlScope scope(*m_profiler, "serve.readback");
        m_remote->readBack(*m_renderer, *m_frame, static_cast<std::uint64_t>(m_index));
    }
    if (m_overlay) {
        profile::GlScope scope(*m_profiler, "overlay");
        m_overlay->draw(m_renderer->presentFramebuffer(), m_renderer->width(),
                        m_renderer->height());
    }
    m_output->readBack(*m_renderer, *m_frame, static_cast<std::uint64_t>(m_index));
    // After the read-back: the captured frame includes it, and RenderDoc's end of capture
    // leaves the read framebuffer unusable for a following glReadPixels on llvmpipe.
    if (m_capturing)
        m_up.capture->end();
    {
        profile::CpuScope scope(*m_profiler, "swap");
        m_up.context->swapBuffers();
    }
    m_profiler->endFrame();
    collect();
    if (m_remote && m_remote->statsDue())
        m_remote->publishStats(remoteStats());
    m_lastFrameAt = std::chrono::steady_clock::now();
    if (m_rendered == 0)
        m_firstFrameAt = m_lastFrameAt;
    ++m_index;
    ++m_rendered;
    if (m_progress)
        m_progress->update(m_output->writesFrames() ? m_output->settled()
                                                    : static_cast<std::uint64_t>(m_rendered));
}

void Session::collect()
{
    auto finished = m_profiler->takeFrames();
    for (auto& frame : finished) {
        if (m_trace)
            m_trace->add({frame});
        m_history.push_back(std::move(frame));
        if (m_history.size() > ui::TimingHistoryFrames)
            m_history.pop_front();
    }
}

int Session::finish()
{
    int code = ExitOk;
    auto failWith = [&](const std::string& message) {
        if (code == ExitOk)
            code = exitWith(ExitInput, message);
    };
    // Interrupted before the first frame: nothing to keep (an empty video is dropped) and
    // nothing failed; the exit says 128 + the signal.
    const bool nothingToKeep = m_interrupted != 0 && m_rendered == 0;
    if (auto done = m_output->finish(!nothingToKeep); !done)
        failWith(done.error());
    if (m_remote)
        m_remote->finish();
    m_profiler->flush();
    collect();
    if (m_progress)
        m_progress->finish(m_output->writesFrames() ? m_output->settled()
                                                    : static_cast<std::uint64_t>(m_rendered));
    if (code == ExitOk)
        m_output->logWritten();
    if (m_trace) {
        m_trace->setTracks(m_profiler->tracks());
        if (auto written = m_trace->write(*m_settings.trace, m_settings.overwrite); !written)
            failWith(written.error());
        else
            log::info("wrote {} ({} frames)", m_settings.trace->string(), m_trace->frameCount());
    }
    if (m_settings.report) {
        Report report = makeReport();
        m_reporters.forEach([&report](const auto& reporter) { reporter(report); });
        if (auto written = report.write(*m_settings.report, m_settings.overwrite); !written)
            failWith(written.error());
        else
            log::info("wrote {}", m_settings.report->string());
    }
    if (m_interrupted != 0) {
        // What was written is complete: say what it is, and exit as the signal asks.
        m_output->logInterrupted();
        if (code == ExitOk)
            code = 128 + m_interrupted;
    }
    if (const std::uint64_t errors = m_up.context->glErrorCount(); errors > 0) {
        log::error("{} GL errors were reported", errors);
        if (code == ExitOk)
            code = ExitInput;
    }
    if (!m_error.empty() && code == ExitOk)
        code = exitWith(ExitInput, m_error);
    return code;
}

} // namespace tandem::app
