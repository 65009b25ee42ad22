// The command-line options every app that renders shares, added to a CLI11 parser in one call:
// output (size, frames, folder, format, video), what is shown (channel, colour format,
// post-process chain, backend, device), timing (trace, report, warm-up, camera path, overlay,
// profiler), RenderDoc capture, and the context (headless, EGL device, vsync, GL debug, log
// level). Plain data; Session::open() validates it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "engine/capture/FrameCapture.h"

namespace tandem::app {

struct CommonOptions {
    bool headless = false;
    std::string size = "1280x720";
    int frames = -1; ///< -1: headless 1, a window until it is closed
    std::string outDir = "out";
    bool overwrite = false;
    std::string format = "png";
    std::string video;
    double fps = 30.0;
    unsigned outputThreads = 0;
    std::string channel = "color";
    bool channelGiven = false; ///< set after parsing: --channel was on the command line
    std::string colorFormat = "rgba8";
    std::string postfx = "none";
    std::string backend = "auto";
    int device = -1;
    float pointSize = 2.0f;
    float pointWorldSize = 0.0f; ///< 0: --point-size
    std::string points = "auto";
    float spin = 0.0f;
    std::string reportPath;
    std::string tracePath;
    int traceFrames = 100;
    std::string cameraPath;
    int warmup = 0;
    bool overlay = false;
    bool noProfile = false;
    bool profileDetail = false;
    bool captureNoUpload = false;
    capture::CaptureSettings capture;
    int eglDevice = -1;
    bool noVsync = false;
    bool glDebug = false;
    bool verbose = false;
    bool quiet = false;
    /// Set by the app, not the command line: names frame files (frame::OutputSettings::name).
    std::function<std::string(std::uint64_t index)> frameName;
    /// Set by the app (a batch render's --resume): a frame already at its name is another
    /// run's, done (frame::OutputSettings::keepExisting).
    bool keepExisting = false;
};

/// Adds every common option to `cli`, bound to `options`.
void addCommonOptions(CLI::App& cli, CommonOptions& options);

/// Parses `argc`/`argv` with `cli` and runs `body` (the app: open a session, render, finish),
/// mapping the outcome to an exit code: --help prints and returns 0, a usage error prints
/// "error: …" and returns 2, a tandem::Error (a setup failure) or any other exception prints
/// "error: …" and returns 1. Sets the log level from -v/-q.
int runApp(CLI::App& cli, CommonOptions& options, int argc, char** argv,
           const std::function<int()>& body);

/// Prints "error: `message`" (and, for a usage error, a pointer to --help) and returns `code`.
int exitWith(int code, const std::string& message);

/// Exit codes.
inline constexpr int ExitOk = 0;
inline constexpr int ExitInput = 1; ///< missing or malformed input, unwritable output, no context
inline constexpr int ExitUsage = 2; ///< a bad command line

} // namespace tandem::app
