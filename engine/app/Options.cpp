#include "engine/app/Options.h"

#include <cmath>
#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "engine/app/EnumOption.h"
#include "engine/app/VersionOption.h"
#include "engine/capture/CaptureOptions.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Error.h"
#include "engine/core/Log.h"
#include "engine/postfx/Chain.h"

namespace tandem::app {

namespace {

/// An option whose value, when given, is stored in `target`.
template <class T> CLI::Option* addOptional(CLI::App& cli, const std::string& name,
                                            std::optional<T>& target, const std::string& help)
{
    return cli.add_option_function<T>(
        name, [&target](const T& value) { target = value; }, help);
}

/// A path option (empty text is no path).
CLI::Option* addPath(CLI::App& cli, const std::string& name,
                     std::optional<std::filesystem::path>& target, const std::string& help)
{
    return cli.add_option_function<std::string>(
        name,
        [&target](const std::string& text) {
            if (!text.empty())
                target = std::filesystem::path(text);
        },
        help);
}

/// A memory size given in MiB, stored in bytes (its range is validate()'s).
CLI::Option* addMebibytes(CLI::App& cli, const std::string& name, std::size_t& bytes,
                          const std::string& help)
{
    return cli.add_option_function<double>(
        name,
        [&bytes, name](double mb) {
            // Anything past a petabyte fails validate() as it stands; only what cannot be a
            // size at all is refused here.
            if (!(mb >= 0.0) || !std::isfinite(mb))
                throw CLI::ValidationError(name, fmt::format("{} is not a size in MiB", mb));
            bytes = static_cast<std::size_t>(std::min(mb, 1e12) * 1048576.0);
        },
        help);
}

} // namespace

void addCommonOptions(CLI::App& cli, SessionSettings& s, const std::string& headlessFrames)
{
    cli.add_flag("--headless", s.headless,
                 "render without a window (EGL device platform), writing frames to --out");
    cli.add_option_function<std::string>(
           "--size",
           [&s](const std::string& text) {
               auto size = parseSize(text);
               if (!size)
                   throw CLI::ValidationError("--size", size.error());
               s.size = size.value();
           },
           "render size WxH (window: initial size)")
        ->default_str(formatSize(s.size));
    addOptional(cli, "--frames", s.frames,
                fmt::format("frames to render, then exit (default: headless {}; in a window "
                            "until it is closed)",
                            headlessFrames));
    cli.add_option_function<std::string>(
           "--out", [&s](const std::string& text) { s.outDir = text; },
           "folder for frames and screenshots")
        ->default_str(s.outDir.string());
    cli.add_flag("--overwrite", s.overwrite, "replace existing frames, videos, traces, reports");
    addEnumOption(cli, "--format", s.format, frame::OutputFormats, "frame files");
    addPath(cli, "--video", s.video,
            "write an H.264 video (FILE.mp4) through ffmpeg instead of frame files");
    cli.add_option("--fps", s.fps, "frame rate of --video (0.1 to 1000)")->capture_default_str();
    addOptional(cli, "--output-threads", s.outputThreads,
                "threads encoding and writing frames (default: one per core but one)");
    addEnumOption(cli, "--channel", s.channel, frame::Channels,
                  "what is shown (default: color, or output when --postfx is given)");
    addEnumOption(cli, "--color-format", s.colorFormat, render::ColorFormats,
                  "G-buffer colour format");
    cli.add_option_function<std::string>(
           "--postfx",
           [&s](const std::string& text) {
               auto chain = postfx::parseChain(text);
               if (!chain)
                   throw CLI::ValidationError(chain.error()); // names --postfx itself
               s.chain = chain.value();
           },
           "post-process chain: none, or stages separated by commas, each with optional "
           ":key=value parameters (tonemap:exposure=1,blur:radius=4). Stages:\n" +
               postfx::describeStages())
        ->default_str("none");
    addEnumOption(cli, "--backend", s.backend, postfx::BackendChoices, "where passes run");
    addOptional(cli, "--device", s.cudaDevice, "CUDA device index (default: the first)");
    cli.add_option("--point-size", s.pointSize,
                   "splat diameter in pixels for point clouds (round, 1 to 64)")
        ->capture_default_str();
    addOptional(cli, "--point-world-size", s.pointWorldSize,
                "splat diameter in world units, shrinking with distance (1 to 64 pixels); "
                "replaces --point-size");
    addEnumOption(cli, "--points", s.points, render::PointChoices, "who draws point clouds");
    cli.add_option("--splat-scale", s.splatScale,
                   "multiplies every Gaussian splat's scales (0.01 to 100)")
        ->capture_default_str();
    cli.add_option("--sh-degree", s.shDegree,
                   "the highest spherical-harmonic degree splats are drawn with (0 to 3)")
        ->capture_default_str();
    addEnumOption(cli, "--raster", s.raster, render::RasterChoices, "who draws meshes");
    addEnumOption(cli, "--frame-memory", s.frameMemory, frame::MemoryChoices,
                  "where a frame's targets live");
    cli.add_option("--spin", s.spin, "degrees the camera orbits each frame")->capture_default_str();
    addPath(cli, "--report", s.report,
            "write a JSON run report: per-stage GPU/CPU stats (p50/p95/p99, share), handoffs "
            "and stalls per frame, output, device, driver, interop path, chain");
    addPath(cli, "--trace", s.trace,
            "write a Chrome trace (chrome://tracing, Perfetto) of the first --trace-frames frames "
            "after --warmup");
    cli.add_option("--trace-frames", s.traceFrames, "frames in the trace")->capture_default_str();
    cli.add_option_function<std::string>(
        "--camera-path", [&s](const std::string& text) { s.cameraPath = cameraPathChoice(text); },
        "deterministic camera for benchmarks: 'orbit' (one turn per 360 frames) or a JSON file "
        "of keyframes");
    cli.add_option("--warmup", s.warmup,
                   "first frames left out of the statistics, trace and report")
        ->capture_default_str();
    cli.add_flag("--overlay", s.overlay,
                 "draw the timing overlay into headless output too (a window always has it; F1 "
                 "toggles)");
    cli.add_flag("--profile-detail", s.profileDetail,
                 "time the geometry pass's visibility and resolve halves apart (one more GPU sync "
                 "point per frame)");
    cli.add_flag_function(
        "--no-profile", [&s](std::int64_t) { s.profile = false; },
        "no timer queries or events at all (to measure the profiler's own cost)");
    capture::addCaptureOptions(cli, s.capture,
                               "capture this frame (0-based) with RenderDoc, headless too; in a "
                               "window F12 or the overlay's button captures the next");
    cli.add_flag("--capture-no-upload", s.captureNoUpload,
                 "on captured frames, leave CUDA's output out of the GL stream (RenderDoc then "
                 "replays the textures CUDA wrote as they were before the frame)");
    addOptional(cli, "--egl-device", s.eglDevice, "headless: use this EGL device index");
    cli.add_flag_function(
        "--no-vsync", [&s](std::int64_t) { s.vsync = false; },
        "window: do not wait for vertical sync");
    cli.add_flag("--gl-debug", s.glDebug,
                 "debug GL context with synchronous KHR_debug output (also TANDEM_GL_DEBUG=1)");
    cli.add_option_function<std::string>(
           "--serve",
           [&s](const std::string& text) {
               auto address = parseServeAddress(text);
               if (!address)
                   throw CLI::ValidationError("--serve", address.error());
               s.serve = address.value();
           },
           "watch and drive this run from a browser: serve a page and a WebSocket at "
           "[HOST:]PORT (127.0.0.1 unless a host is given; 0: any free port) and print the URL "
           "to open, with its token; headless without --frames it runs until stopped (Ctrl-C) "
           "and writes no frames")
        ->type_name("[HOST:]PORT");
    cli.add_flag("-v,--verbose", s.verbose, "print debug messages");
    cli.add_flag("-q,--quiet", s.quiet, "print only warnings and errors (no progress line)");
}

void addSequenceOptions(CLI::App& cli, SequenceSettings& s)
{
    cli.add_option(
        "SEQUENCE", s.spec,
        "a folder of frames (.ply/.obj/.drc/.glb/.gltf meshes and point clouds, .cwipcdump "
        "point clouds, or splats: 3DGS PLY, .splat, .spz; natural order), a .json manifest, a "
        "pattern (frame_*.ply, frame_%04d.ply), a .tdpk pack, or "
        "sample[:mesh,points=N,frames=N,fps=F] (default: the built-in sample)");
    cli.add_flag("--every-frame", s.everyFrame,
                 "show every sequence frame once, in order, whatever the time (headless: render "
                 "each frame; default: the sequence clock)");
    cli.add_flag("--preload", s.preload,
                 "load the whole sequence into staging memory before playing (--cache-mb must "
                 "hold it)");
    cli.add_option("--speed", s.speed, "playback speed, 0.1 to 8 (default 1)");
    addEnumOption(cli, "--loop", s.loop, stream::LoopModes,
                  "what happens at the end (default: once headless, loop in a window)");
    addMebibytes(cli, "--cache-mb", s.stream.budgetBytes,
                 "staging memory for loaded frames, MiB, 16 to 1048576 (default 1024): host "
                 "memory stays within it whatever the sequence length");
    addMebibytes(cli, "--gpu-memory-mb", s.stream.gpuBudgetBytes,
                 "GPU memory the streamed frames' buffers may take, MiB, 1 to 1048576 (both "
                 "buffer sets; default: what the GPU has free); a frame that needs more is "
                 "skipped, named");
    cli.add_option("--loader-threads", s.stream.loaderThreads,
                   fmt::format("threads reading and decoding frames, 1 to {} (default: three "
                               "quarters of the cores, 1 to 12)",
                               stream::MaxLoaderThreads));
    addEnumOption(cli, "--upload", s.upload, UploadChoices, "how streamed frames reach the GPU");
    CLI::Option* compare =
        addOptional(cli, "--compare", s.compare,
                    "a second sequence on the same timeline and camera (ground truth against "
                    "reconstruction), shown as --compare-mode says");
    // Without a second sequence they would change nothing: a usage error, not ignored.
    addEnumOption(cli, "--compare-mode", s.compareMode, render::CompareModes,
                  "how --compare shows the two")
        ->needs(compare);
    cli.add_option("--divider", s.divider, "--compare split: where the line is, 0..1 of the width")
        ->needs(compare);
    cli.add_option_function<double>(
        "--sequence-fps",
        [&s](double fps) {
            s.sequence.fps = fps;
            s.sequence.fpsGiven = true;
        },
        "frame rate of a folder or pattern of files, 0.1 to 1000 (default 30; a manifest or "
        "pack says its own)");
}

int exitWith(int code, const std::string& message)
{
    if (code > 128) {
        // A stop asked for (128 + the signal): nothing failed, the run was cut short.
        log::warning("{}", message);
        return code;
    }
    if (code == ExitUsage)
        std::fprintf(stderr, "error: %s\nRun with --help for usage.\n", message.c_str());
    else
        std::fprintf(stderr, "error: %s\n", message.c_str());
    return code;
}

int setUpExit(const StopToken& stop, int code)
{
    const int signal = stop.stopRequested();
    return signal != 0 ? 128 + signal : code;
}

int runApp(CLI::App& cli, SessionSettings& settings, AppInfo info, int argc, char** argv,
           const std::function<int(const AppInfo&)>& body)
{
    addVersionOption(cli, info.name);
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::printf("%s", cli.help().c_str());
        return ExitOk;
    } catch (const CLI::CallForVersion& call) {
        return printVersion(call);
    } catch (const CLI::ParseError& e) {
        return exitWith(ExitUsage, e.what());
    }
    if (settings.verbose)
        log::setLevel(log::Level::Debug);
    else if (settings.quiet)
        log::setLevel(log::Level::Warning);
    // However the app ends here (a return, an exception), no temporary of an unfinished output
    // is left behind, even one whose owner's destructor never ran.
    struct Temporaries {
        ~Temporaries() { removeOpenTemporaries(); }
    } temporaries;
    // The process's signals are the entry point's: the session only polls the token.
    const StopSignals signals;
    info.argv = argv;
    info.stop = signals.token();
    try {
        return body(info);
    } catch (const Error& e) {
        return exitWith(ExitInput, e.what());
    } catch (const std::exception& e) {
        return exitWith(ExitInput, std::string("unexpected failure: ") + e.what());
    }
}

} // namespace tandem::app
