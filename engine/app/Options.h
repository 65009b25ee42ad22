// The command line of the apps that render, for CLI11: the options every such app shares,
// parsed straight into SessionSettings (sizes, enums through their tables, the chain, paths),
// the options of a played sequence into SequenceSettings, and runApp(), an app's entry point:
// it parses, validates, owns the process's stop signals while the app runs, and maps the
// outcome to an exit code.
#pragma once

#include <functional>
#include <string>

#include "engine/app/Settings.h"
#include "engine/core/StopToken.h"

// Declared, not included: CLI11 2.1's header defines its validators as constants in every file
// that includes it (about 100 KB of code, 5 to 9 s of compiling a file), and this header reaches
// every file that includes Session.h. What calls CLI::App includes <CLI/CLI.hpp> itself.
namespace CLI {
class App;
}

namespace tandem::app {

/// Adds every common option to `cli`, parsed into `settings` (which must outlive parsing).
/// `headlessFrames` says in --frames' help what a headless run renders without it (the
/// session's default, SessionSettings::frameLimit(), is 1; a sequence's is its own).
void addCommonOptions(CLI::App& cli, SessionSettings& settings,
                      const std::string& headlessFrames = "1");
/// Adds the options of a played sequence (SEQUENCE, --every-frame, --preload, --speed, --loop,
/// --cache-mb, --gpu-memory-mb, --loader-threads, --upload, --compare, --compare-mode,
/// --divider, --sequence-fps) to `cli`, parsed into `settings`. --compare-mode and --divider
/// need --compare (a usage error without it).
void addSequenceOptions(CLI::App& cli, SequenceSettings& settings);

/// Who a run is for, and what its entry point gives it.
struct AppInfo {
    AppInfo(std::string name, std::string controls = {}, char** argv = nullptr, StopToken stop = {})
        : name(std::move(name)), controls(std::move(controls)), argv(argv), stop(std::move(stop))
    {}
    std::string name;     ///< "tandem-raster": logs, the window title, capture file names
    std::string controls; ///< extra window controls for the start-up log, or empty
    /// The command line, for RenderDoc's re-execution with it preloaded; null: none (Python).
    char** argv = nullptr;
    /// Asks the run to stop (runApp's: SIGINT and SIGTERM).
    StopToken stop;
};

/// An app's entry point: parses `argc`/`argv` with `cli` and checks `settings` (validate()),
/// then, with SIGINT and SIGTERM asking to stop (StopSignals), runs `body` with `info`
/// completed (argv and the stop token), mapping the outcome to an exit code: --help prints and
/// returns 0, a usage error prints "error: …" and returns 2, a tandem::Error (a setup failure)
/// or any other exception prints "error: …" and returns 1. Sets the log level from -v/-q.
int runApp(CLI::App& cli, SessionSettings& settings, AppInfo info, int argc, char** argv,
           const std::function<int(const AppInfo&)>& body);

/// Prints "error: `message`" (and, for a usage error, a pointer to --help) and returns `code`;
/// a `code` past 128 (a stop: 128 + the signal) prints `message` as a warning instead.
int exitWith(int code, const std::string& message);
/// The exit code for a step of set-up that failed with code `code`: 128 + the signal when
/// `stop` has asked meanwhile (the step was cut short by it, or would be by the next), else
/// `code`. For exitWith().
int setUpExit(const StopToken& stop, int code);

/// Exit codes.
inline constexpr int ExitOk = 0;
inline constexpr int ExitInput = 1; ///< missing or malformed input, unwritable output, no context
inline constexpr int ExitUsage = 2; ///< a bad command line

} // namespace tandem::app
