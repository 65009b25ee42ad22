#include "engine/app/Options.h"

#include <cstdio>

#include "engine/app/CliRange.h"
#include "engine/capture/CaptureOptions.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Error.h"
#include "engine/core/Log.h"
#include "engine/postfx/Chain.h"

namespace tandem::app {

void addCommonOptions(CLI::App& cli, CommonOptions& o)
{
    cli.add_flag("--headless", o.headless,
                 "render without a window (EGL device platform), writing frames to --out");
    cli.add_option("--size", o.size, "render size WxH (window: initial size)")
        ->capture_default_str();
    cli.add_option("--frames", o.frames,
                   "frames to render, then exit (headless default 1; window: until closed)");
    cli.add_option("--out", o.outDir, "folder for frames and screenshots")->capture_default_str();
    cli.add_flag("--overwrite", o.overwrite, "replace existing frames, videos, traces, reports");
    cli.add_option("--format", o.format,
                   "frame files: png (libspng, off the render thread), png16 (the RGBA16F colour "
                   "target as 16-bit PNG; needs --color-format rgba16f), pam (raw RGBA8), none "
                   "(render only)")
        ->check(CLI::IsMember({"png", "png16", "pam", "none"}))
        ->capture_default_str();
    cli.add_option("--video", o.video,
                   "write an H.264 video (FILE.mp4) through ffmpeg instead of frame files");
    cli.add_option("--fps", o.fps, "frame rate of --video")
        ->check(CliRange(0.1, 1000.0))
        ->capture_default_str();
    cli.add_option("--output-threads", o.outputThreads,
                   "threads encoding and writing frames (default: one per core but one)");
    cli.add_option("--channel", o.channel,
                   "what is shown: the G-buffer colour, a debug view of depth, normals or ids, or "
                   "the post-processed output (the default when --postfx is given)")
        ->check(CLI::IsMember({"color", "depth", "normal", "id", "output"}))
        ->capture_default_str();
    cli.add_option("--color-format", o.colorFormat, "G-buffer colour format")
        ->check(CLI::IsMember({"rgba8", "rgba16f"}))
        ->capture_default_str();
    cli.add_option("--postfx", o.postfx,
                   "post-process chain: none, or stages separated by commas, each with optional "
                   ":key=value parameters (tonemap:exposure=1,blur:radius=4). Stages:\n" +
                       postfx::describeStages())
        ->capture_default_str();
    cli.add_option("--backend", o.backend,
                   "where passes run: auto (CUDA when GL-CUDA interop works, else host), cuda "
                   "(an error if it cannot), host")
        ->check(CLI::IsMember({"auto", "cuda", "host"}))
        ->capture_default_str();
    cli.add_option("--device", o.device, "CUDA device index (default: the first)");
    cli.add_option("--point-size", o.pointSize,
                   "splat diameter in pixels for point clouds (round, 1 to 64)")
        ->check(CliRange(1.0f, 64.0f))
        ->capture_default_str();
    cli.add_option("--point-world-size", o.pointWorldSize,
                   "splat diameter in world units, shrinking with distance (1 to 64 pixels); "
                   "replaces --point-size")
        ->check(CLI::PositiveNumber);
    cli.add_option("--points", o.points,
                   "who draws point clouds: auto (CUDA when the passes run on CUDA, else GL), "
                   "cuda (a CUDA rasterizer in the frame's handoff; an error if it cannot), gl "
                   "(GL_POINTS), host (the CUDA rasterizer's functions on the CPU: exact, slow)")
        ->check(CLI::IsMember({"auto", "cuda", "gl", "host"}))
        ->capture_default_str();
    cli.add_option("--spin", o.spin, "degrees the camera orbits each frame")->capture_default_str();
    cli.add_option("--report", o.reportPath,
                   "write a JSON run report: per-stage GPU/CPU stats (p50/p95/p99, share), "
                   "handoffs and stalls per frame, output, device, driver, interop path, chain");
    cli.add_option("--trace", o.tracePath,
                   "write a Chrome trace (chrome://tracing, Perfetto) of the first --trace-frames "
                   "frames after --warmup");
    cli.add_option("--trace-frames", o.traceFrames, "frames in the trace")->capture_default_str();
    cli.add_option("--camera-path", o.cameraPath,
                   "deterministic camera for benchmarks: 'orbit' (one turn per 360 frames) or a "
                   "JSON file of keyframes");
    cli.add_option("--warmup", o.warmup,
                   "first frames left out of the statistics, trace and report")
        ->capture_default_str();
    cli.add_flag("--overlay", o.overlay,
                 "draw the timing overlay into headless output too (a window always has it; F1 "
                 "toggles)");
    cli.add_flag("--profile-detail", o.profileDetail,
                 "time the geometry pass's visibility and resolve halves apart (one more GPU sync "
                 "point per frame)");
    cli.add_flag("--no-profile", o.noProfile,
                 "no timer queries or events at all (to measure the profiler's own cost)");
    capture::addCaptureOptions(cli, o.capture,
                               "capture this frame (0-based) with RenderDoc, headless too; in a "
                               "window F12 or the overlay's button captures the next");
    cli.add_flag("--capture-no-upload", o.captureNoUpload,
                 "on captured frames, leave CUDA's output out of the GL stream (RenderDoc then "
                 "replays the textures CUDA wrote as they were before the frame)");
    cli.add_option("--egl-device", o.eglDevice, "headless: use this EGL device index");
    cli.add_flag("--no-vsync", o.noVsync, "window: do not wait for vertical sync");
    cli.add_flag("--gl-debug", o.glDebug,
                 "debug GL context with synchronous KHR_debug output (also TANDEM_GL_DEBUG=1)");
    cli.add_flag("-v,--verbose", o.verbose, "print debug messages");
    cli.add_flag("-q,--quiet", o.quiet, "print only warnings and errors (no progress line)");
}

int exitWith(int code, const std::string& message)
{
    if (code == ExitUsage)
        std::fprintf(stderr, "error: %s\nRun with --help for usage.\n", message.c_str());
    else
        std::fprintf(stderr, "error: %s\n", message.c_str());
    return code;
}

int runApp(CLI::App& cli, CommonOptions& options, int argc, char** argv,
           const std::function<int()>& body)
{
    try {
        cli.parse(argc, argv);
        options.channelGiven = cli.count("--channel") > 0;
    } catch (const CLI::CallForHelp&) {
        std::printf("%s", cli.help().c_str());
        return ExitOk;
    } catch (const CLI::ParseError& e) {
        return exitWith(ExitUsage, e.what());
    }
    if (options.verbose)
        log::setLevel(log::Level::Debug);
    else if (options.quiet)
        log::setLevel(log::Level::Warning);
    // However the app ends here (a return, an exception), no temporary of an unfinished output
    // is left behind, even one whose owner's destructor never ran.
    struct Temporaries {
        ~Temporaries() { removeOpenTemporaries(); }
    } temporaries;
    try {
        return body();
    } catch (const Error& e) {
        return exitWith(ExitInput, e.what());
    } catch (const std::exception& e) {
        return exitWith(ExitInput, std::string("unexpected failure: ") + e.what());
    }
}

} // namespace tandem::app
