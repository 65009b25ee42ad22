// --version for every app, for CLI11: prints "tandem-viewer 0.1.0 (commit 3e72701c1a2b)"
// (core/Version.h) to stdout and exits 0. Header-only, so apps that do not link tandem_app
// (tandem-pack) add it the same way. Main thread, while parsing.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "engine/core/Version.h"

namespace tandem::app {

/// Adds --version to `cli`: parsing it throws CLI::CallForVersion carrying versionLine(`app`),
/// which the entry point prints (printVersion()) before exiting 0.
inline CLI::Option* addVersionOption(CLI::App& cli, const std::string& app)
{
    return cli.set_version_flag("--version", versionLine(app),
                                "print the version and the commit it was built from, and exit");
}

/// Prints what --version asked for (`call`'s message, one line) and returns the exit code, 0.
inline int printVersion(const CLI::CallForVersion& call)
{
    std::printf("%s\n", call.what());
    return 0;
}

} // namespace tandem::app
