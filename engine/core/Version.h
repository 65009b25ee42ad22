// What a build of tandem is: the project's version (CMake's project(VERSION)) and the git
// commit it was configured at, for every app's --version and the run reports. One definition,
// generated at configure time (cmake/TandemVersion.cmake); no git at run time. Any thread.
#pragma once

#include <string>
#include <string_view>

namespace tandem {

/// The project's version: "0.1.0".
std::string_view version();
/// The git commit the build was configured at (12 hex digits), or "unknown" outside a git
/// checkout.
std::string_view commit();
/// What --version prints: "tandem-viewer 0.1.0 (commit 3e72701c1a2b)".
std::string versionLine(std::string_view app);

} // namespace tandem
