// tandem-viewer: plays volumetric video — sequences of per-frame point clouds or meshes (a
// folder, a manifest, a pattern, a .tdpk pack, or the built-in sample) — streamed to the GPU, in
// a window or headless, with the post-process chain, the overlay, capture and frame output.
// Wiring only: app::Session and app::SequenceRun do the rest.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "engine/app/Batch.h"
#include "engine/app/CliRange.h"
#include "engine/app/Options.h"
#include "engine/app/SequenceRun.h"
#include "engine/app/Session.h"
#include "engine/core/Log.h"
#include "engine/stream/Open.h"

using namespace tandem;

int main(int argc, char** argv)
{
    app::CommonOptions options;
    app::SequenceSettings settings;
    std::string spec = "sample";
    double cacheMb = 1024.0;
    const std::string description = fmt::format(
        "tandem-viewer: play a volumetric video sequence (per-frame PLY/OBJ point clouds or "
        "meshes) streamed to the GPU, in a window or headless (--headless renders the sequence "
        "once to --out or --video).\n"
        "Window controls: {}; left drag orbit, right/middle drag pan, wheel zoom, C cycle "
        "channel, S or F2 screenshot, R reset view, F1 overlay, F12 RenderDoc capture, Esc or Q "
        "quit; drop a file or folder on the window to open it.",
        app::sequenceKeysHelp());
    CLI::App cli{description};
    cli.add_option("SEQUENCE", spec,
                   "a folder of .ply/.obj frames (natural order), a .json manifest, a pattern "
                   "(frame_*.ply, frame_%04d.ply), a .tdpk pack, or sample[:mesh,points=N,"
                   "frames=N,fps=F] (default: the built-in sample)");
    cli.add_flag("--every-frame", settings.everyFrame,
                 "show every sequence frame once, in order, whatever the time (headless: render "
                 "each frame; default: the sequence clock)");
    cli.add_flag("--preload", settings.preload,
                 "load the whole sequence into staging memory before playing (--cache-mb must "
                 "hold it)");
    cli.add_option("--speed", settings.speed, "playback speed, 0.1 to 8 (default 1)");
    cli.add_option("--loop", settings.loop,
                   "loop, ping-pong or once (default: once headless, loop in a window)");
    cli.add_option("--cache-mb", cacheMb,
                   "staging memory for loaded frames, MiB (default 1024): host memory stays "
                   "within it whatever the sequence length")
        ->check(app::CliRange(16.0, 1048576.0));
    double gpuMemoryMb = 0.0;
    cli.add_option("--gpu-memory-mb", gpuMemoryMb,
                   "GPU memory the streamed frames' buffers may take, MiB (both buffer sets; "
                   "default: what the GPU has free); a frame that needs more is skipped, named")
        ->check(app::CliRange(1.0, 1048576.0));
    cli.add_option(
           "--loader-threads", settings.stream.loaderThreads,
           "threads reading and decoding frames (default: three quarters of the cores, 1 to 12)")
        ->check(CLI::Range(0, stream::MaxLoaderThreads));
    cli.add_option("--upload", settings.upload,
                   "auto, cuda (a copy stream inside the frame's handoff) or gl "
                   "(glNamedBufferSubData); auto: cuda when the passes run on CUDA");
    std::string compare;
    cli.add_option("--compare", compare,
                   "a second sequence on the same timeline and camera (ground truth against "
                   "reconstruction), shown as --compare-mode says");
    cli.add_option("--compare-mode", settings.compareMode,
                   "side (the middle half of each, side by side), split (at --divider, "
                   "draggable in the overlay) or difference (|A - B| x 4); default split");
    cli.add_option("--divider", settings.divider, "where the split is, 0..1 of the width");
    cli.add_option("--sequence-fps", settings.sequence.fps,
                   "frame rate of a folder or pattern of files (default 30; a manifest or pack "
                   "says its own)")
        ->check(app::CliRange(stream::MinFps, stream::MaxFps));
    app::BatchOptions batch;
    app::addBatchOptions(cli, batch);
    app::addCommonOptions(cli, options);
    return app::runApp(cli, options, argc, argv, [&] {
        settings.stream.budgetBytes = static_cast<std::size_t>(cacheMb * 1048576.0);
        settings.stream.gpuBudgetBytes = static_cast<std::size_t>(gpuMemoryMb * 1048576.0);
        settings.sequence.fpsGiven = cli.count("--sequence-fps") > 0;
        settings.framesGiven = options.frames;
        settings.outputFps = options.fps;
        settings.quiet = options.quiet;
        if (auto valid = app::SequenceRun::validate(settings); !valid)
            return app::exitWith(app::ExitUsage, valid.error());
        // The sequence first: a missing or broken one fails before any context is made.
        auto source = stream::openSource(spec, settings.sequence);
        if (!source)
            return app::exitWith(app::ExitInput, source.error());
        for (const std::string& warning : source.warnings())
            tandem::log::warning("{}", warning);
        if (batch.active()) {
            bool usage = false;
            auto plan = app::prepareBatch(batch, options, source.value()->frameCount(),
                                          source.value()->fps(), spec, usage);
            if (!plan)
                return app::exitWith(usage ? app::ExitUsage : app::ExitInput, plan.error());
            if (!plan.value())
                return app::ExitOk; // the plan written, or nothing left to render
            settings.batch = plan.value();
            settings.everyFrame = true;
        }
        std::unique_ptr<stream::Source> second;
        if (!compare.empty()) {
            auto opened = stream::openSource(compare, settings.sequence);
            if (!opened)
                return app::exitWith(app::ExitInput, opened.error());
            for (const std::string& warning : opened.warnings())
                tandem::log::warning("{}", warning);
            second = std::move(opened.value());
        }
        // Headless, the session knows the run's length from the start (--capture-frame is
        // checked against it).
        if (options.headless && options.frames <= 0) {
            options.frames = app::SequenceRun::headlessFrames(settings, *source.value());
            // Every planned frame's name is checked before the run: bound what that can take.
            if (options.frames > stream::MaxPlannedFrames)
                return app::exitWith(
                    app::ExitUsage,
                    fmt::format("{}: {} frames at {:g} fps played at speed {:g} into {:g} fps "
                                "output plan {} output frames, more than {}: give --frames or "
                                "--every-frame",
                                spec, source.value()->frameCount(), source.value()->fps(),
                                settings.speed, settings.outputFps, options.frames,
                                stream::MaxPlannedFrames));
        }
        app::OpenFailure failure;
        auto session = app::Session::open({"tandem-viewer", ""}, options, argv, failure);
        if (!session)
            return app::exitWith(failure.exitCode, failure.message);
        bool usage = false;
        auto run = app::SequenceRun::open(*session, std::move(source.value()), settings, usage,
                                          std::move(second));
        if (!run)
            return app::exitWith(usage ? app::ExitUsage : app::ExitInput, run.error());
        while (session->nextFrame()) {
            run.value()->update();
            session->renderFrame();
        }
        return session->finish();
    });
}
