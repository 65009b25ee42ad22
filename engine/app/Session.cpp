#include "engine/app/Session.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "engine/capture/FrameCapture.h"
#include "engine/core/File.h"
#include "engine/core/Log.h"
#include "engine/core/Plural.h"
#include "engine/core/Progress.h"
#include "engine/core/StopSignal.h"
#include "engine/cuda/Device.h"
#include "engine/frame/Frame.h"
#include "engine/frame/OutputRing.h"
#include "engine/gl/Debug.h"
#include "engine/gl/Program.h"
#include "engine/io/MeshLoader.h"
#include "engine/io/VideoWriter.h"
#include "engine/platform/Context.h"
#include "engine/profile/Trace.h"
#include "engine/render/GpuScene.h"
#include "engine/render/SceneRenderer.h"
#include "engine/render/SceneTexture.h"
#include "engine/ui/Panels.h"

namespace fs = std::filesystem;

namespace tandem::app {

namespace {

/// Screenshots are read back through the same ring as frames, numbered apart from them.
constexpr std::uint64_t ScreenshotIndex = std::uint64_t{1} << 62;

bool parseSize(const std::string& text, int& width, int& height)
{
    unsigned w = 0, h = 0;
    char x = 0, extra = 0;
    if (std::sscanf(text.c_str(), "%u%c%u%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X'))
        return false;
    if (w < 1 || h < 1 || w > 16384 || h > 16384)
        return false;
    width = static_cast<int>(w);
    height = static_cast<int>(h);
    return true;
}

} // namespace

Session::Session(const AppInfo& info, const CommonOptions& options)
    : m_info(info), m_options(options)
{}

Session::~Session() = default;

std::unique_ptr<Session> Session::open(const AppInfo& info, const CommonOptions& options,
                                       char** argv, OpenFailure& failure)
{
    std::unique_ptr<Session> session(new Session(info, options));
    if (auto failed = session->setUp(argv)) {
        failure = *failed;
        return nullptr;
    }
    return session;
}

std::optional<OpenFailure> Session::setUp(char** argv)
{
    const CommonOptions& o = m_options;
    installStopSignals();
    auto usage = [](std::string message) {
        return OpenFailure{ExitUsage, std::move(message)};
    };
    auto input = [](std::string message) {
        return OpenFailure{ExitInput, std::move(message)};
    };

    // --- the command line (usage errors first: nothing has happened yet) ---
    if (!parseSize(o.size, m_width, m_height))
        return usage(
            fmt::format("--size: expected WxH with each side in 1..16384, got '{}'", o.size));
    const auto channel = frame::parseChannel(o.channel);
    if (!channel)
        return usage("--channel: expected color, depth, normal, id or output");
    if (o.frames == 0 || o.frames < -1)
        return usage("--frames: expected a positive number of frames");
    if (const int last = o.frames > 0 ? o.frames - 1 : (o.headless ? 0 : -1);
        last >= 0 && o.capture.frame > last)
        return usage(fmt::format("--capture-frame {}: the run ends at frame {} ({} frames)",
                                 o.capture.frame, last, last + 1));
    if (o.traceFrames < 1)
        return usage("--trace-frames: expected a positive number of frames");
    if (o.warmup < 0)
        return usage("--warmup: expected zero or more frames");
    auto chain = postfx::parseChain(o.postfx);
    if (!chain)
        return usage(chain.error());
    m_chain = chain.value();
    auto backend = postfx::parseBackendChoice(o.backend);
    if (!backend)
        return usage(backend.error());
    auto format = frame::parseOutputFormat(o.format);
    if (!format)
        return usage(format.error());
    m_colorFormat =
        o.colorFormat == "rgba16f" ? render::ColorFormat::Rgba16F : render::ColorFormat::Rgba8;
    if (format.value() == frame::OutputFormat::Png16 &&
        m_colorFormat != render::ColorFormat::Rgba16F)
        return usage("--format png16 writes the RGBA16F colour target: add --color-format "
                     "rgba16f");
    if (!o.video.empty() && format.value() != frame::OutputFormat::Png)
        return usage("--video writes a video instead of frame files: leave --format out");
    if (auto name = io::checkVideoName(o.video); !o.video.empty() && !name)
        return usage(name.error());
    // With a chain, the output is what is worth seeing, unless a channel was asked for.
    m_channel = m_chain.enabledCount() > 0 && !o.channelGiven ? frame::Channel::Output : *channel;
    if (o.cameraPath == "orbit") {
        m_cameraPath = io::CameraPath::orbit();
    } else if (!o.cameraPath.empty()) {
        auto path = io::readCameraPath(o.cameraPath);
        if (!path)
            return input(path.error());
        m_cameraPath = path.value();
    }
    m_output.dir = o.outDir;
    m_output.format = format.value();
    m_output.video = o.video;
    m_output.fps = o.fps;
    m_output.overwrite = o.overwrite;
    m_output.keepExisting = o.keepExisting;
    m_output.threads = o.outputThreads;
    m_output.name = o.frameName;
    m_geometry.pointSize = o.pointSize;
    m_geometry.pointWorldSize = o.pointWorldSize;
    auto points = render::parsePointChoice(o.points);
    if (!points)
        return usage(points.error());

    // --- RenderDoc must be in the process before any GL library loads ---
    capture::CaptureSettings captureSettings = o.capture;
    captureSettings.name = m_info.name;
    auto opened = capture::FrameCapture::open(captureSettings, argv);
    if (!opened)
        return input(opened.error());
    for (const std::string& warning : opened.warnings())
        log::warning("{}", warning);
    m_capture = std::move(opened.value());
    if (m_capture)
        log::info("{}", m_capture->describe());

    // --- CUDA first, so headless EGL can pick the EGL device of the same GPU ---
    int cudaDevice = -1;
    std::string cudaError = "host backend asked for";
    if (backend.value() != postfx::BackendChoice::Host) {
        auto device = cuda::selectDevice(o.device);
        if (device)
            cudaDevice = device.value().index;
        else
            cudaError = device.error();
    }
    if (backend.value() == postfx::BackendChoice::Cuda && cudaDevice < 0)
        return input("--backend cuda cannot be used: " + cudaError);

    platform::ContextOptions contextOptions;
    contextOptions.width = m_width;
    contextOptions.height = m_height;
    contextOptions.title = m_info.name;
    contextOptions.debug = o.glDebug || gl::debugOutputRequested();
    contextOptions.vsync = !o.noVsync;
    contextOptions.eglDevice = o.eglDevice;
    contextOptions.cudaDevice = cudaDevice;
    auto context = platform::createContext(
        o.headless ? platform::ContextMode::Headless : platform::ContextMode::Auto, contextOptions);
    if (!context)
        return input(context.error());
    m_context = std::move(context.value());
    m_headless = m_context->isHeadless();
    log::info("rendering with {}", m_context->description());
    log::info("{}", gl::describeShaderRoot());

    m_doctor = interop::diagnose(cudaDevice, cudaError, m_context->cudaDevice());
    auto residence = frame::chooseResidence(backend.value(), m_doctor);
    if (!residence)
        return input(residence.error());
    m_residence = residence.value();
    log::info("passes: {}; chain: {}", m_residence.reason, postfx::formatChain(m_chain));

    // --- output: frames headless, and in a window when a frame count was given ---
    m_frames = o.frames > 0 ? o.frames : (m_headless ? 1 : -1);
    m_writeFrames = (m_headless || o.frames > 0) && m_output.format != frame::OutputFormat::None;
    const int width = m_headless ? m_width : m_context->framebufferWidth();
    const int height = m_headless ? m_height : m_context->framebufferHeight();
    if (m_writeFrames && m_output.video.empty()) {
        if (auto ok = prepareOutputDirectory(m_output.dir); !ok)
            return input(ok.error());
        if (!o.overwrite && !o.keepExisting)
            for (int i = 0; i < m_frames; ++i) {
                const fs::path path = frame::framePath(m_output, static_cast<std::uint64_t>(i));
                std::error_code ec;
                if (fs::exists(path, ec))
                    return input(fmt::format("{} already exists (pass --overwrite to replace "
                                             "frames; a batch render keeps "
                                             "them with --resume)",
                                             path.string()));
            }
    }

    // A report or trace that could not be written would fail only after the whole run.
    for (const std::string* file : {&o.reportPath, &o.tracePath})
        if (!file->empty())
            if (auto ok = prepareOutputFile(*file, o.overwrite); !ok)
                return input(ok.error());

    m_renderer = std::make_unique<render::SceneRenderer>(width, height, m_colorFormat, m_headless);
    // The output ring lets the CPU run that many frames ahead of the GPU (headless nothing else
    // holds it back): enough slots that the workers never wait for the GPU, nor the GPU for
    // them. The profiler keeps as many frames in flight, or it would drop the frames whose
    // timings come in later than its ring turns (seen on an H200: 6 of 12 frames dropped).
    const unsigned writers = !m_writeFrames ? 1u
                             : o.outputThreads > 0
                                 ? o.outputThreads
                                 : std::max(1u, std::thread::hardware_concurrency() - 1);
    const int ringDepth = 3 + static_cast<int>(writers);
    profile::ProfilerOptions profilerOptions;
    profilerOptions.enabled = !o.noProfile;
    profilerOptions.warmupFrames = static_cast<std::uint64_t>(o.warmup);
    profilerOptions.depth = ringDepth + 1;
    m_profiler = std::make_unique<profile::Profiler>(profilerOptions);
    m_frame = std::make_unique<frame::Frame>(*m_renderer, m_residence, *m_profiler);
    m_frame->setGeometryDetail(o.profileDetail);
    // Points: CUDA inside the frame's handoff when the passes run there, else GL_POINTS.
    const bool cudaFrame = m_residence.path == interop::Path::Cuda;
    if (points.value() == render::PointChoice::Cuda && !cudaFrame)
        return input("--points cuda needs the passes on CUDA, and they run on the host: " +
                     m_doctor.reason);
    const render::PointPath pointPath =
        points.value() == render::PointChoice::Gl     ? render::PointPath::Gl
        : points.value() == render::PointChoice::Host ? render::PointPath::Host
        : cudaFrame                                   ? render::PointPath::Cuda
                                                      : render::PointPath::Gl;
    m_frame->setPointPath(pointPath);
    log::info("points: {}{}", render::pointPathName(pointPath),
              o.pointWorldSize > 0.0f ? fmt::format(", {} world units across", o.pointWorldSize)
                                      : fmt::format(", {} px across", o.pointSize));
    if (!o.tracePath.empty())
        m_trace = std::make_unique<profile::Trace>(static_cast<std::size_t>(o.traceFrames));

    // The overlay: on in a window (F1 toggles), into headless output with --overlay.
    if (!m_headless || o.overlay) {
        try {
            m_overlay = std::make_unique<ui::Overlay>(*m_context);
        } catch (const Error& e) {
            if (o.overlay)
                return input(std::string("--overlay: ") + e.what());
            log::warning("no overlay: {}", e.what());
        }
    }
    if (m_overlay) {
        m_overlay->addPanel({"", true, [this] {
                                 ui::timingsPanel(*m_profiler, m_history);
                             }});
        m_overlay->addPanel({"passes", true, [this] {
                                 ui::interopPanel(m_doctor, interop::pathName(m_residence.path),
                                                  render::pointPathName(m_frame->pointPath()));
                             }});
        m_overlay->addPanel({"post-process chain", false, [this] {
                                 ui::chainPanel(m_chain);
                             }});
        if (m_capture)
            m_overlay->addPanel({"RenderDoc", true, [this] {
                                     ui::capturePanel(m_capture->captures(),
                                                      *m_capture->requestFlag());
                                 }});
    }

    if (m_writeFrames) {
        auto writer = frame::FrameWriter::open(m_output, width, height, m_profiler.get());
        if (!writer)
            return input(writer.error());
        m_writer = std::move(writer.value());
    }
    if (m_headless)
        m_progress = std::make_unique<Progress>(m_info.name, m_frames, !o.quiet);
    m_ring = std::make_unique<frame::OutputRing>(ringDepth);
    if (!m_headless)
        log::info("controls: left drag orbit, right drag pan, wheel zoom, C channel, S "
                  "screenshot, R reset view, F1 overlay, F12 capture, Esc quit{}{}",
                  m_info.controls.empty() ? "" : ", ", m_info.controls);
    return std::nullopt;
}

Result<bool> Session::load(const std::vector<std::string>& files)
{
    render::Scene scene;
    std::vector<std::string> paths = files;
    if (paths.empty()) {
        paths.push_back((dataRoot() / "assets" / "sample.ply").string());
        log::info("no file given: showing the built-in sample {}", paths.front());
    }
    for (const std::string& file : paths) {
        auto mesh = io::loadMesh(file);
        if (!mesh)
            return fail(mesh.error());
        for (const auto& warning : mesh.warnings())
            log::warning("{}", warning);
        log::info("{}: {} vertices, {} triangles{}{}", file, mesh.value().vertexCount(),
                  mesh.value().triangleCount(), mesh.value().colors.empty() ? "" : ", colours",
                  mesh.value().normals.empty() ? "" : ", normals");
        auto added =
            render::addObject(scene, {fs::path(file).filename().string(), std::move(mesh.value())});
        if (!added)
            return fail(added.error());
        for (const auto& warning : added.warnings())
            log::warning("{}", warning);
    }
    m_files = paths;
    setScene(scene);
    return true;
}

void Session::setScene(const render::Scene& scene)
{
    m_scene.reset(); // its registrations and buffers go before the new ones come
    m_scene = std::make_unique<render::GpuScene>(scene);
    m_shown = m_scene.get();
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

void Session::addPanel(ui::Panel panel)
{
    if (m_overlay)
        m_overlay->addPanel(std::move(panel));
}

void Session::onKey(platform::Key key, std::function<void()> action)
{
    m_keys[key].push_back(std::move(action));
}

void Session::setFrameLimit(int frames)
{
    m_frames = frames;
    if (m_progress)
        m_progress =
            std::make_unique<Progress>(m_info.name, frames > 0 ? frames : 0, !m_options.quiet);
}

void Session::onDrop(std::function<void(const std::string&)> action)
{
    m_drops.push_back(std::move(action));
}

void Session::onReport(std::function<void(Report&)> action)
{
    m_reporters.push_back(std::move(action));
}

bool Session::outputFailed()
{
    if (m_error.empty() && m_writer)
        m_error = m_writer->error();
    return !m_error.empty();
}

bool Session::nextFrame()
{
    if (const int signal = stopSignal(); signal != 0 && m_interrupted == 0) {
        m_interrupted = signal;
        log::warning("{}: stopping after {}; finishing the output", strsignal(signal),
                     counted(m_rendered, "frame", "frames"));
    }
    if (m_quit || m_interrupted != 0 || (m_frames > 0 && m_index >= m_frames) || outputFailed())
        return false;
    m_profiler->beginFrame();
    {
        profile::CpuScope scope(*m_profiler, "input");
        if (!m_headless) {
            m_context->pollEvents();
            if (m_context->shouldClose())
                return false;
            handleInput();
            if (m_quit)
                return false;
            m_renderer->resize(m_context->framebufferWidth(), m_context->framebufferHeight());
        }
        if (m_cameraPath && m_appDrivesPath) {
            // The app sets the pose itself.
        } else if (m_cameraPath) {
            const io::CameraKey key = m_cameraPath->at(static_cast<float>(m_index));
            m_controller.setPose(key.yaw, key.pitch, key.distanceScale, key.target);
        } else if (m_index > 0) {
            m_controller.orbit(m_options.spin, 0.0f);
        }
    }
    return true;
}

void Session::handleInput()
{
    using platform::InputEvent;
    using platform::Key;
    for (const auto& event : m_context->takeEvents()) {
        if (event.type == InputEvent::Type::Drop) {
            for (const auto& action : m_drops)
                action(event.path);
            continue;
        }
        const bool isMouse =
            event.type != InputEvent::Type::Key && event.type != InputEvent::Type::Resize;
        if (isMouse && m_overlay && m_overlay->wantsMouse())
            continue;
        if (!isMouse && m_overlay && m_overlay->wantsKeyboard())
            continue;
        m_input.handle(event, m_controller, m_renderer->height());
        if (event.type != InputEvent::Type::Key || !event.pressed)
            continue;
        switch (event.key) {
        case Key::Escape:
        case Key::Q:
            m_quit = true;
            break;
        case Key::C:
            m_channel = frame::nextChannel(m_channel);
            log::info("showing {}", frame::channelName(m_channel));
            break;
        case Key::S:
        case Key::F2:
            m_screenshotAsked = true;
            break;
        case Key::R:
            m_controller.fit(m_bounds);
            break;
        case Key::F1:
            if (m_overlay)
                m_overlay->toggle();
            break;
        case Key::F12:
            if (m_capture)
                m_capture->request();
            else
                log::warning("F12: RenderDoc is not attached (start with --renderdoc); capture "
                             "disabled");
            break;
        default:
            break;
        }
        if (auto found = m_keys.find(event.key); found != m_keys.end())
            for (const auto& action : found->second)
                action();
    }
}

void Session::renderFrame()
{
    TANDEM_ASSERT(m_shown, "app::Session::renderFrame(): no scene (load(), setScene() or "
                           "showScene() first)");
    m_capturing = m_capture && m_capture->beginFrame(m_index);
    // On captured frames what CUDA wrote also goes through GL, so the capture replays it.
    m_frame->setCaptureFaithful(m_capturing && !m_options.captureNoUpload);
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
    if (m_overlay) {
        profile::GlScope scope(*m_profiler, "overlay");
        m_overlay->draw(m_renderer->presentFramebuffer(), m_renderer->width(),
                        m_renderer->height());
    }
    readBack();
    // After the read-back: the captured frame includes it, and RenderDoc's end of capture
    // leaves the read framebuffer unusable for a following glReadPixels on llvmpipe.
    if (m_capturing)
        m_capture->end();
    {
        profile::CpuScope scope(*m_profiler, "swap");
        m_context->swapBuffers();
    }
    m_profiler->endFrame();
    collect();
    ++m_index;
    ++m_rendered;
    if (m_progress)
        m_progress->update(m_writer ? m_writer->written() : static_cast<std::uint64_t>(m_rendered));
}

void Session::hand(const frame::ReadyFrame& ready)
{
    frame::OutputRing& ring = *m_ring;
    auto release = [&ring, slot = ready.slot] {
        ring.release(slot);
    };
    if (ready.index >= ScreenshotIndex) {
        auto path = m_pendingScreenshots.extract(ready.index);
        if (!path) {
            release();
            return;
        }
        if (!m_screenshots) {
            frame::OutputSettings settings;
            settings.dir = m_output.dir;
            settings.threads = 1;
            auto writer = frame::FrameWriter::open(settings, ready.width, ready.height, nullptr);
            if (!writer) {
                log::error("screenshot: {}", writer.error());
                release();
                return;
            }
            m_screenshots = std::move(writer.value());
        }
        m_screenshots->submit(ready, release, path.mapped());
        return;
    }
    if (m_writer)
        m_writer->submit(ready, release);
    else
        release();
}

void Session::readBack()
{
    const auto sink = [this](const frame::ReadyFrame& ready) {
        hand(ready);
    };
    if (m_writeFrames) {
        if (m_output.format == frame::OutputFormat::Png16)
            m_ring->readTexture(m_renderer->gbuffer().color(), m_renderer->width(),
                                m_renderer->height(), frame::PixelFormat::Rgba16,
                                static_cast<std::uint64_t>(m_index), sink);
        else
            m_ring->readFramebuffer(m_renderer->presentFramebuffer(), m_renderer->width(),
                                    m_renderer->height(), static_cast<std::uint64_t>(m_index),
                                    sink);
    }
    if (m_screenshotAsked) {
        m_screenshotAsked = false;
        takeScreenshot();
    }
    m_ring->collect(sink);
}

void Session::takeScreenshot()
{
    if (auto ok = prepareOutputDirectory(m_output.dir); !ok) {
        log::error("screenshot: {}", ok.error());
        return;
    }
    // The first free name, never one taken by an earlier screenshot still being written.
    fs::path path;
    std::error_code ec;
    do
        path = m_output.dir / fmt::format("screenshot_{:05d}.png", m_nextScreenshot++);
    while (fs::exists(path, ec));
    const std::uint64_t index = ScreenshotIndex + static_cast<std::uint64_t>(m_nextScreenshot);
    m_pendingScreenshots[index] = path;
    m_ring->readFramebuffer(m_renderer->presentFramebuffer(), m_renderer->width(),
                            m_renderer->height(), index,
                            [this](const frame::ReadyFrame& ready) { hand(ready); });
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
    // The last frames are still in flight: wait for them once, after the loop (counted).
    m_ring->drain([this](const frame::ReadyFrame& ready) { hand(ready); });
    int code = ExitOk;
    auto failWith = [&](const std::string& message) {
        if (code == ExitOk)
            code = exitWith(ExitInput, message);
    };
    // Interrupted before the first frame: nothing to keep (an empty video is dropped) and
    // nothing failed; the exit says 128 + the signal.
    const bool nothingToKeep = m_interrupted != 0 && m_rendered == 0;
    if (m_writer && !nothingToKeep)
        if (auto done = m_writer->finish(); !done)
            failWith(done.error());
    if (m_screenshots)
        if (auto done = m_screenshots->finish(); !done)
            log::error("screenshot: {}", done.error());
    m_profiler->flush();
    collect();
    if (m_progress)
        m_progress->finish(m_writer ? m_writer->written() : static_cast<std::uint64_t>(m_rendered));
    if (m_writer && code == ExitOk && !nothingToKeep) {
        if (!m_output.video.empty())
            log::info("wrote {} ({})", m_output.video.string(),
                      counted(m_writer->written(), "frame", "frames"));
        else
            log::info("wrote {} to {}{}", counted(m_writer->written(), "frame", "frames"),
                      m_output.dir.string(),
                      m_writer->framesExisting() > 0
                          ? fmt::format(" ({} more were written meanwhile by another run)",
                                        m_writer->framesExisting())
                          : std::string());
    }
    if (m_trace) {
        m_trace->setTracks(m_profiler->tracks());
        if (auto written = m_trace->write(m_options.tracePath, m_options.overwrite); !written)
            failWith(written.error());
        else
            log::info("wrote {} ({} frames)", m_options.tracePath, m_trace->frameCount());
    }
    if (!m_options.reportPath.empty()) {
        Report report(m_info.name);
        report.setInterop(m_doctor, interop::pathName(m_residence.path), m_residence.reason);
        report.set("postfx", postfx::formatChain(m_chain));
        report.set("points", {{"path", render::pointPathName(m_frame->pointPath())},
                              {"size_pixels", m_geometry.pointSize},
                              {"world_size", m_geometry.pointWorldSize},
                              {"count", m_shown->pointCount()}});
        report.set("channel", std::string(frame::channelName(m_channel)));
        report.set("resolution", {m_renderer->width(), m_renderer->height()});
        report.set("frames", m_rendered);
        report.set("files", m_files);
        report.set("scene", {{"objects", m_shown->objects().size()},
                             {"vertices", m_shown->vertexCount()},
                             {"triangles", m_shown->triangleCount()}});
        report.set("warmup_frames", m_options.warmup);
        report.set("camera_path", m_options.cameraPath.empty() ? "spin" : m_options.cameraPath);
        nlohmann::json output = {{"ring_depth", m_ring->depth()},
                                 {"frames_read_back", m_ring->framesRead()},
                                 {"waits_for_a_worker", m_ring->consumerWaits()}};
        if (m_writer) {
            output["format"] = frame::formatName(m_output.format);
            output["video"] = m_output.video.string();
            output["frames_written"] = m_writer->written();
            output["threads"] = m_writer->threads();
            output["queue_waits"] = m_writer->queueWaits();
            output["mean_write_ms"] = m_writer->meanWriteMs();
        }
        report.set("output", output);
        report.setProfile(*m_profiler);
        for (const auto& reporter : m_reporters)
            reporter(report);
        if (auto written = report.write(m_options.reportPath, m_options.overwrite); !written)
            failWith(written.error());
        else
            log::info("wrote {}", m_options.reportPath);
    }
    if (m_interrupted != 0) {
        // What was written is complete: say what it is, and exit as the signal asks.
        if (m_writer && (nothingToKeep || m_writer->written() == 0))
            log::warning("interrupted: no frames were written");
        else if (m_writer && !m_output.video.empty())
            log::warning("interrupted: {} holds the {} rendered before the signal",
                         m_output.video.string(), counted(m_writer->written(), "frame", "frames"));
        else if (m_writer && m_writer->written() > 0)
            log::warning("interrupted: {} in {} ({} .. {})",
                         counted(m_writer->written(), "complete frame", "complete frames"),
                         m_output.dir.string(), m_writer->framePath(0).filename().string(),
                         m_writer->framePath(m_writer->written() - 1).filename().string());
        if (code == ExitOk)
            code = 128 + m_interrupted;
    }
    if (gl::errorCount() > 0) {
        log::error("{} GL errors were reported", gl::errorCount());
        if (code == ExitOk)
            code = ExitInput;
    }
    if (!m_error.empty() && code == ExitOk)
        code = exitWith(ExitInput, m_error);
    return code;
}

} // namespace tandem::app
