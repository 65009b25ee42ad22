// tandem-viewer: plays volumetric video — sequences of per-frame point clouds or meshes (a
// folder, a manifest, a pattern, a .tdpk pack, or the built-in sample) — streamed to the GPU, in
// a window or headless, with the post-process chain, the overlay, capture and frame output.
// Wiring only: app::Session and app::SequenceRun do the rest.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "engine/app/Batch.h"
#include "engine/app/Controls.h"
#include "engine/app/EnumOption.h"
#include "engine/app/Options.h"
#include "engine/app/SceneFiles.h"
#include "engine/app/SequenceRun.h"
#include "engine/app/Session.h"
#include "engine/core/Log.h"
#include "engine/stream/Open.h"

using namespace tandem;

namespace {

/// Opens a sequence, logging the source's warnings; `stop` ends the listing of its frames.
Result<std::unique_ptr<stream::Source>>
openLogged(const std::string& spec, const stream::SequenceOptions& options, const StopToken& stop)
{
    auto source = stream::openSource(spec, options, stop);
    if (source)
        for (const std::string& warning : source.warnings())
            tandem::log::warning("{}", warning);
    return source;
}

} // namespace

int main(int argc, char** argv)
{
    app::SessionSettings settings;
    app::SequenceSettings sequence;
    app::BatchOptions batch;
    CLI::App cli{fmt::format(
        "tandem-viewer: play a volumetric video sequence (per-frame PLY/OBJ point clouds or "
        "meshes, or Gaussian splats: 3DGS/compressed PLY, .splat, .spz) streamed to the GPU, in a "
        "window or headless (--headless renders the sequence "
        "once to --out or --video).\n"
        "Window controls: {}; {}.",
        app::sequenceKeysHelp(), ui::controlsHelp(app::WindowControls))};
    app::addSequenceOptions(cli, sequence);
    app::addBatchOptions(cli, batch);
    app::addCommonOptions(cli, settings, app::headlessFramesHelp());
    app::addEnumOption(cli, "--up", settings.up, app::UpAxes,
                       "which axis of the frames points up (each frame is turned as it loads; "
                       "COLMAP and 3DGS training: -y)");
    return app::runApp(cli, settings, {"tandem-viewer", ""}, argc, argv, [&](const auto& info) {
        if (auto valid = app::validate(sequence); !valid)
            return app::exitWith(app::ExitUsage, valid.error());
        // A signal during set-up ends the step it interrupts (listing, planning, checking).
        const auto failed = [&info](int code, const std::string& message) {
            return app::exitWith(app::setUpExit(info.stop, code), message);
        };
        sequence.sequence.turn = app::upTurn(settings.up);
        // The sequence first: a missing or broken one fails before any context is made.
        auto source = openLogged(sequence.spec, sequence.sequence, info.stop);
        if (!source)
            return failed(app::ExitInput, source.error());
        if (batch.active()) {
            bool usage = false;
            auto plan = app::prepareBatch(batch, settings, source.value()->frameCount(),
                                          source.value()->fps(), sequence.spec, usage, info.stop);
            if (!plan)
                return failed(usage ? app::ExitUsage : app::ExitInput, plan.error());
            if (!plan.value())
                return app::ExitOk; // the plan written, or nothing left to render
            sequence.batch = plan.value();
            sequence.everyFrame = true;
        }
        std::unique_ptr<stream::Source> second;
        if (sequence.compare) {
            auto opened = openLogged(*sequence.compare, sequence.sequence, info.stop);
            if (!opened)
                return failed(app::ExitInput, opened.error());
            second = std::move(opened.value());
        }
        // Headless, the session knows the run's length from the start (--capture-frame is
        // checked against it); watched from a browser without --frames, it runs until stopped.
        if (settings.headless && !settings.frames && !settings.serve) {
            settings.frames = app::SequenceRun::headlessFrames(settings, sequence, *source.value());
            // Every planned frame's name is checked before the run: bound what that can take.
            if (*settings.frames > stream::MaxPlannedFrames)
                return app::exitWith(
                    app::ExitUsage,
                    fmt::format("{}: {} frames at {:g} fps played at speed {:g} into {:g} fps "
                                "output plan {} output frames, more than {}: give --frames or "
                                "--every-frame",
                                sequence.spec, source.value()->frameCount(), source.value()->fps(),
                                sequence.speed, settings.fps, *settings.frames,
                                stream::MaxPlannedFrames));
        }
        app::OpenFailure failure;
        auto session = app::Session::open(info, settings, failure);
        if (!session)
            return app::exitWith(failure.exitCode, failure.message);
        bool usage = false;
        auto run = app::SequenceRun::open(*session, std::move(source.value()), sequence, usage,
                                          std::move(second));
        if (!run)
            return failed(usage ? app::ExitUsage : app::ExitInput, run.error());
        while (session->nextFrame()) {
            run.value()->update();
            session->renderFrame();
        }
        // The session's last words, then the sequence's: what was skipped, and whether that
        // fails the run.
        return run.value()->finish(session->finish());
    });
}
