// The browser page's files (engine/web/page: HTML, CSS, JavaScript as they are in the
// repository), built into the binary by CMake (cmake/TandemEmbed.cmake), so an app serves them
// from wherever it runs and nothing is loaded from elsewhere. Any thread.
#pragma once

#include <vector>

#include "engine/web/Server.h"

namespace tandem::web {

/// Every page file: "/" (index.html), "/viewer.js", "/viewer.css".
std::vector<PageFile> pageFiles();

} // namespace tandem::web
