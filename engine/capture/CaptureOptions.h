// The capture flags every app that renders offers, for CLI11.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "engine/capture/FrameCapture.h"

namespace tandem::capture {

/// Adds --renderdoc, --capture-dir and, unless `frameHelp` is empty, --capture-frame.
inline void addCaptureOptions(CLI::App& app, CaptureSettings& settings,
                              const std::string& frameHelp)
{
    app.add_flag("--renderdoc", settings.renderdoc,
                 "load RenderDoc into the process (re-executes with it preloaded) so frames can "
                 "be captured; librenderdoc.so from $TANDEM_RENDERDOC_LIBRARY, LD_LIBRARY_PATH "
                 "or /usr/lib");
    if (!frameHelp.empty())
        app.add_option("--capture-frame", settings.frame, frameHelp)->check(CLI::NonNegativeNumber);
    app.add_option("--capture-dir", settings.captureDir, "folder for RenderDoc captures")
        ->capture_default_str();
}

} // namespace tandem::capture
