// tandem-raster: loads a mesh or point cloud and rasterizes it into the G-buffer with an orbit
// camera, in a window or headless (frames written as PNG). Argument parsing and wiring only.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "engine/capture/CaptureOptions.h"
#include "engine/core/Error.h"
#include "engine/core/File.h"
#include "engine/core/Log.h"
#include "engine/gl/Debug.h"
#include "engine/io/CameraPath.h"
#include "engine/io/MeshLoader.h"
#include "engine/platform/Context.h"
#include "engine/postfx/Chain.h"
#include "engine/profile/Profiler.h"
#include "engine/profile/Trace.h"
#include "engine/render/GpuMesh.h"
#include "engine/render/OrbitCamera.h"
#include "engine/render/SceneRenderer.h"
#include "engine/ui/CameraControl.h"
#include "engine/ui/FramePipeline.h"
#include "engine/ui/Overlay.h"
#include "engine/ui/PostfxWiring.h"
#include "engine/ui/Report.h"

namespace fs = std::filesystem;
using namespace tandem;

namespace {

constexpr int ExitUsage = 2;
constexpr int ExitInput = 1;

struct Options {
    std::string file;
    bool headless = false;
    std::string size = "1280x720";
    int frames = -1; // -1: headless 1, window until closed
    std::string outDir = "out";
    std::string channel = "color";
    std::string colorFormat = "rgba8";
    float pointSize = 2.0f;
    float spin = 0.0f;
    bool overwrite = false;
    bool glDebug = false;
    bool verbose = false;
    bool quiet = false;
    bool noVsync = false;
    int eglDevice = -1;
    std::string postfx = "none";
    std::string backend = "auto";
    int device = -1;
    std::string reportPath;
    bool channelGiven = false;
    std::string tracePath;
    int traceFrames = 100;
    std::string cameraPath;
    int warmup = 0;
    bool noProfile = false;
    bool overlay = false;
    bool profileDetail = false;
    bool captureNoUpload = false;
    capture::CaptureSettings capture{false, -1, "captures", "tandem-raster"};
    char** argv = nullptr;
};

int usageError(const std::string& message)
{
    std::fprintf(stderr, "error: %s\nRun with --help for usage.\n", message.c_str());
    return ExitUsage;
}

int inputError(const std::string& message)
{
    std::fprintf(stderr, "error: %s\n", message.c_str());
    return ExitInput;
}

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

fs::path framePath(const fs::path& dir, int frame)
{
    return dir / fmt::format("frame_{:05d}.png", frame);
}

/// The first screenshot_NNNNN.png in `dir` that does not exist yet.
fs::path nextScreenshotPath(const fs::path& dir)
{
    std::error_code ec;
    for (int i = 0;; ++i) {
        fs::path path = dir / fmt::format("screenshot_{:05d}.png", i);
        if (!fs::exists(path, ec))
            return path;
    }
}

int run(const Options& options)
{
    int width = 0, height = 0;
    if (!parseSize(options.size, width, height))
        return usageError(
            fmt::format("--size: expected WxH with each side in 1..16384, got '{}'", options.size));
    const auto channel = render::parseChannel(options.channel);
    if (!channel)
        return usageError("--channel: expected color, depth, normal or id");
    if (options.frames == 0 || options.frames < -1)
        return usageError("--frames: expected a positive number of frames");
    if (const int last = options.frames > 0 ? options.frames - 1 : (options.headless ? 0 : -1);
        last >= 0 && options.capture.frame > last)
        return usageError(fmt::format("--capture-frame {}: the run ends at frame {} (--frames)",
                                      options.capture.frame, last));
    if (options.traceFrames < 1)
        return usageError("--trace-frames: expected a positive number of frames");
    if (options.warmup < 0)
        return usageError("--warmup: expected zero or more frames");
    std::optional<io::CameraPath> cameraPath;
    if (options.cameraPath == "orbit") {
        cameraPath = io::CameraPath::orbit();
    } else if (!options.cameraPath.empty()) {
        auto path = io::readCameraPath(options.cameraPath);
        if (!path)
            return inputError(path.error());
        cameraPath = path.value();
    }
    auto chain = postfx::parseChain(options.postfx);
    if (!chain)
        return usageError(chain.error());
    auto backendChoice = postfx::parseBackendChoice(options.backend);
    if (!backendChoice)
        return usageError(backendChoice.error());

    fs::path file = options.file;
    if (file.empty()) {
        file = dataRoot() / "assets" / "sample.ply";
        log::info("no file given: showing the built-in sample {}", file.string());
    }
    auto mesh = io::loadMesh(file);
    if (!mesh)
        return inputError(mesh.error());
    for (const auto& warning : mesh.warnings())
        log::warning("{}", warning);
    log::info("{}: {} vertices, {} triangles{}{}", file.string(), mesh.value().vertexCount(),
              mesh.value().triangleCount(), mesh.value().colors.empty() ? "" : ", colours",
              mesh.value().normals.empty() ? "" : ", normals");

    // RenderDoc must be in the process before any GL library loads: attach, or re-execute
    // this process with it preloaded.
    auto opened = capture::FrameCapture::open(options.capture, options.argv);
    if (!opened)
        return inputError(opened.error());
    std::unique_ptr<capture::FrameCapture> frameCapture = std::move(opened.value());
    if (frameCapture)
        log::info("{}", frameCapture->describe());

    // CUDA first, so headless EGL can pick the EGL device of the same GPU.
    const ui::CudaChoice cudaChoice = ui::chooseCudaDevice(backendChoice.value(), options.device);
    if (backendChoice.value() == postfx::BackendChoice::Cuda && cudaChoice.device < 0)
        return inputError("--backend cuda cannot be used: " + cudaChoice.error);

    platform::ContextOptions contextOptions;
    contextOptions.width = width;
    contextOptions.height = height;
    contextOptions.title = "tandem-raster — " + file.filename().string();
    contextOptions.debug = options.glDebug || gl::debugOutputRequested();
    contextOptions.vsync = !options.noVsync;
    contextOptions.eglDevice = options.eglDevice;
    contextOptions.cudaDevice = cudaChoice.device;
    auto context = platform::createContext(options.headless ? platform::ContextMode::Headless
                                                            : platform::ContextMode::Auto,
                                           contextOptions);
    if (!context)
        return inputError(context.error());
    platform::Context& ctx = *context.value();
    log::info("rendering with {}", ctx.description());

    auto postfxSetup = ui::setUpPostfx(backendChoice.value(), cudaChoice, ctx);
    if (!postfxSetup)
        return inputError(postfxSetup.error());
    postfx::PostProcessor& processor = *postfxSetup.value().processor;
    const bool runPostfx = chain.value().enabledCount() > 0;
    log::info("post-processing: {}; chain: {}", processor.description(),
              postfx::formatChain(chain.value()));

    const bool headless = ctx.isHeadless();
    const int frames = options.frames > 0 ? options.frames : (headless ? 1 : -1);
    // Frames are written headless, and in a window when a frame count was given (tests, demos).
    const bool writeFrames = headless || options.frames > 0;
    const fs::path outDir = options.outDir;
    if (writeFrames) {
        if (auto ok = prepareOutputDirectory(outDir); !ok)
            return inputError(ok.error());
        if (!options.overwrite)
            for (int i = 0; i < frames; ++i)
                if (fs::exists(framePath(outDir, i)))
                    return inputError(fmt::format("{} already exists (pass --overwrite to replace "
                                                  "frames)",
                                                  framePath(outDir, i).string()));
    }

    int outWidth = headless ? width : ctx.framebufferWidth();
    int outHeight = headless ? height : ctx.framebufferHeight();
    render::GpuMesh gpuMesh(mesh.value(), file.filename().string());
    render::SceneRenderer renderer(outWidth, outHeight,
                                   options.colorFormat == "rgba16f" ? render::ColorFormat::Rgba16F
                                                                    : render::ColorFormat::Rgba8,
                                   headless);
    // Registrations of the G-buffer must go before it does: this guard dies first.
    struct ReleaseOnExit {
        postfx::PostProcessor& processor;
        ~ReleaseOnExit() { processor.releaseTextures(); }
    } releaseOnExit{processor};
    render::OrbitCamera camera;
    camera.fit(gpuMesh.bounds());
    ui::CameraControl cameraControl;
    render::GeometryOptions geometryOptions;
    geometryOptions.pointSize = options.pointSize;
    render::Channel shown = runPostfx && !options.channelGiven ? render::Channel::Output : *channel;
    if (!headless)
        log::info("controls: left drag orbit, right drag pan, wheel zoom, C channel, S screenshot, "
                  "R reset view, Esc quit");

    profile::ProfilerOptions profilerOptions;
    profilerOptions.enabled = !options.noProfile;
    profilerOptions.warmupFrames = static_cast<std::uint64_t>(options.warmup);
    profile::Profiler profiler(profilerOptions);
    ui::FramePipeline pipeline(renderer, processor, profiler);
    pipeline.setGeometryDetail(options.profileDetail);
    std::optional<profile::Trace> trace;
    if (!options.tracePath.empty())
        trace.emplace(static_cast<std::size_t>(options.traceFrames));
    // The overlay: on in a window (F1 toggles), into headless output with --overlay.
    std::optional<ui::Overlay> overlay;
    if (!headless || options.overlay) {
        try {
            overlay.emplace(ctx);
        } catch (const Error& e) {
            if (options.overlay)
                return inputError(std::string("--overlay: ") + e.what());
            log::warning("no overlay: {}", e.what());
        }
    }
    postfx::Chain liveChain = chain.value();
    ui::OverlayView overlayView;
    overlayView.profiler = &profiler;
    overlayView.interop = &postfxSetup.value().doctor;
    overlayView.backend = interop::pathName(processor.path());
    overlayView.backendDescription = processor.description();
    overlayView.chain = &liveChain;

    auto collect = [&] {
        auto finished = profiler.takeFrames();
        if (overlay)
            overlay->addFrames(finished);
        if (trace)
            trace->add(finished);
    };

    int renderedFrames = 0;
    if (frameCapture) {
        overlayView.captures = &frameCapture->captures();
        overlayView.captureRequested = frameCapture->requestFlag();
    }
    for (int frame = 0; frames < 0 || frame < frames; ++frame, ++renderedFrames) {
        profiler.beginFrame();
        bool screenshot = false;
        std::optional<profile::CpuScope> inputScope(std::in_place, profiler, "input");
        if (!headless) {
            ctx.pollEvents();
            if (ctx.shouldClose())
                break;
            bool quit = false;
            for (const auto& event : ctx.takeEvents()) {
                const bool isMouse = event.type != platform::InputEvent::Type::Key &&
                                     event.type != platform::InputEvent::Type::Resize;
                if (isMouse && overlay && overlay->wantsMouse())
                    continue;
                if (!isMouse && overlay && overlay->wantsKeyboard())
                    continue;
                cameraControl.handle(event, camera, renderer.height());
                if (event.type != platform::InputEvent::Type::Key || !event.pressed)
                    continue;
                switch (event.key) {
                case platform::Key::Escape:
                case platform::Key::Q:
                    quit = true;
                    break;
                case platform::Key::C:
                    shown = render::nextChannel(shown);
                    log::info("showing {}", render::channelName(shown));
                    break;
                case platform::Key::S:
                case platform::Key::F2:
                    screenshot = true;
                    break;
                case platform::Key::R:
                    camera.fit(gpuMesh.bounds());
                    break;
                case platform::Key::F1:
                    if (overlay)
                        overlay->toggle();
                    break;
                case platform::Key::F12:
                    if (frameCapture)
                        frameCapture->request();
                    else
                        log::warning("F12: RenderDoc is not attached (start with --renderdoc)");
                    break;
                default:
                    break;
                }
            }
            if (quit)
                break;
            renderer.resize(ctx.framebufferWidth(), ctx.framebufferHeight());
        }
        if (cameraPath) {
            const io::CameraKey key = cameraPath->at(static_cast<float>(frame));
            camera.setPose(key.yaw, key.pitch, key.distanceScale);
        } else if (frame > 0) {
            camera.orbit(options.spin, 0.0f);
        }
        inputScope.reset();
        const bool capturing = frameCapture && frameCapture->beginFrame(frame);
        // On captured frames the CUDA output also goes through GL, so the capture replays it.
        processor.setCaptureFaithful(capturing && !options.captureNoUpload);
        pipeline.render(gpuMesh, camera, liveChain, shown, geometryOptions);
        if (overlay) {
            profile::GlScope scope(profiler, "overlay");
            overlay->draw(overlayView, renderer.presentFramebuffer(), renderer.width(),
                          renderer.height());
        }
        if (writeFrames) {
            const fs::path path = framePath(outDir, frame);
            io::Image image = pipeline.readback();
            profile::CpuScope scope(profiler, "write-png");
            if (auto ok = io::writePng(path, image, options.overwrite); !ok)
                return inputError(ok.error());
            log::debug("wrote {}", path.string());
        }
        // After the read-back: the captured frame includes it, and RenderDoc's end of capture
        // leaves the read framebuffer unusable for a following glReadPixels on llvmpipe.
        if (capturing)
            frameCapture->end();
        if (screenshot) {
            if (auto ok = prepareOutputDirectory(outDir); !ok) {
                log::error("screenshot: {}", ok.error());
            } else {
                const fs::path path = nextScreenshotPath(outDir);
                if (auto written = io::writePng(path, renderer.readPresented(), false); !written)
                    log::error("screenshot: {}", written.error());
                else
                    log::info("screenshot saved to {}", path.string());
            }
        }
        {
            profile::CpuScope scope(profiler, "swap");
            ctx.swapBuffers();
        }
        profiler.endFrame();
        collect();
    }
    // The last frames are still in flight: wait for them once, after the loop (counted).
    profiler.flush();
    collect();
    if (writeFrames)
        log::info("wrote {} frames to {}", renderedFrames, outDir.string());
    if (trace) {
        trace->setTracks(profiler.tracks());
        if (auto written = trace->write(options.tracePath, options.overwrite); !written)
            return inputError(written.error());
        log::info("wrote {} ({} frames)", options.tracePath, trace->frameCount());
    }
    if (!options.reportPath.empty()) {
        ui::Report report("tandem-raster");
        report.setInterop(postfxSetup.value().doctor, interop::pathName(processor.path()),
                          processor.description());
        report.set("postfx", postfx::formatChain(chain.value()));
        report.set("resolution", {renderer.width(), renderer.height()});
        report.set("frames", renderedFrames);
        report.set("file", file.string());
        report.set("warmup_frames", options.warmup);
        report.set("camera_path", options.cameraPath.empty() ? "spin" : options.cameraPath);
        report.setProfile(profiler);
        if (auto written = report.write(options.reportPath, options.overwrite); !written)
            return inputError(written.error());
        log::info("wrote {}", options.reportPath);
    }
    if (gl::errorCount() > 0) {
        log::error("{} GL errors were reported", gl::errorCount());
        return ExitInput;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    Options options;
    CLI::App app{
        "tandem-raster: rasterize a mesh or point cloud (PLY, OBJ) into a G-buffer "
        "and show one of its channels, in a window or headless.\n"
        "Window controls: left drag orbit, right/middle drag pan, wheel zoom, C cycle "
        "channel, S or F2 screenshot (into --out), R reset view, F1 overlay, F12 RenderDoc "
        "capture, Esc or Q quit."};
    app.add_option("FILE", options.file,
                   "mesh or point cloud (.ply, .obj); default: built-in "
                   "sample");
    app.add_flag("--headless", options.headless,
                 "render without a window (EGL device platform), writing frames to --out");
    app.add_option("--size", options.size, "render size WxH (window: initial size)")
        ->capture_default_str();
    app.add_option("--frames", options.frames,
                   "frames to render, then exit (headless default 1; window: until closed)");
    app.add_option("--out", options.outDir, "folder for frames and screenshots")
        ->capture_default_str();
    app.add_option("--channel", options.channel,
                   "channel shown: a G-buffer target, or the post-processed output (the default "
                   "when --postfx is given)")
        ->check(CLI::IsMember({"color", "depth", "normal", "id", "output"}))
        ->capture_default_str();
    std::string stageNames;
    for (auto kind : postfx::allStageKinds())
        stageNames += (stageNames.empty() ? "" : ", ") + std::string(postfx::stageName(kind));
    app.add_option("--postfx", options.postfx,
                   "post-process chain: none, or stages separated by commas, each with optional "
                   ":key=value parameters (tonemap:exposure=1,blur:radius=4). Stages: " +
                       stageNames)
        ->capture_default_str();
    app.add_option("--backend", options.backend,
                   "post-process backend: auto (CUDA when GL-CUDA interop works, else host), "
                   "cuda (an error if it cannot), host")
        ->check(CLI::IsMember({"auto", "cuda", "host"}))
        ->capture_default_str();
    app.add_option("--device", options.device, "CUDA device index (default: the first)");
    app.add_option("--trace", options.tracePath,
                   "write a Chrome trace (chrome://tracing, Perfetto) of the first --trace-frames "
                   "frames after --warmup");
    app.add_option("--trace-frames", options.traceFrames, "frames in the trace")
        ->capture_default_str();
    app.add_option("--camera-path", options.cameraPath,
                   "deterministic camera for benchmarks: 'orbit' (one turn per 360 frames) or a "
                   "JSON file of keyframes");
    app.add_option("--warmup", options.warmup,
                   "first frames left out of the statistics, trace and report")
        ->capture_default_str();
    app.add_flag("--overlay", options.overlay,
                 "draw the timing overlay into headless output too (a window always has it; F1 "
                 "toggles)");
    app.add_flag("--profile-detail", options.profileDetail,
                 "time the geometry pass's visibility and resolve halves apart (one more GPU sync "
                 "point per frame)");
    capture::addCaptureOptions(app, options.capture,
                               "capture this frame (0-based) with RenderDoc, headless too; in a "
                               "window F12 or the overlay's button captures the next");
    app.add_flag("--capture-no-upload", options.captureNoUpload,
                 "on captured frames, leave the CUDA output out of the GL stream (RenderDoc then "
                 "replays the post-process output texture as it was before the frame)");
    app.add_flag("--no-profile", options.noProfile,
                 "no timer queries or events at all (to measure the profiler's own cost)");
    app.add_option("--report", options.reportPath,
                   "write a JSON run report: per-stage GPU/CPU stats (p50/p95/p99, share), "
                   "handoffs and stalls per frame, device, driver, interop path, chain");
    app.add_option("--color-format", options.colorFormat, "G-buffer colour format")
        ->check(CLI::IsMember({"rgba8", "rgba16f"}))
        ->capture_default_str();
    app.add_option("--point-size", options.pointSize, "point size in pixels for point clouds")
        ->check(CLI::Range(1.0f, 64.0f))
        ->capture_default_str();
    app.add_option("--spin", options.spin, "degrees the camera orbits each frame")
        ->capture_default_str();
    app.add_flag("--overwrite", options.overwrite, "replace existing frame files in --out");
    app.add_option("--egl-device", options.eglDevice, "headless: use this EGL device index");
    app.add_flag("--no-vsync", options.noVsync, "window: do not wait for vertical sync");
    app.add_flag("--gl-debug", options.glDebug,
                 "debug GL context with synchronous KHR_debug output (also TANDEM_GL_DEBUG=1)");
    app.add_flag("-v,--verbose", options.verbose, "print debug messages");
    app.add_flag("-q,--quiet", options.quiet, "print only warnings and errors");

    try {
        app.parse(argc, argv);
        options.channelGiven = app.count("--channel") > 0;
    } catch (const CLI::CallForHelp&) {
        std::printf("%s", app.help().c_str());
        return 0;
    } catch (const CLI::ParseError& e) {
        return usageError(e.what());
    }
    options.argv = argv;
    if (options.verbose)
        log::setLevel(log::Level::Debug);
    else if (options.quiet)
        log::setLevel(log::Level::Warning);
    try {
        return run(options);
    } catch (const Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return ExitInput;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: unexpected failure: %s\n", e.what());
        return ExitInput;
    }
}
