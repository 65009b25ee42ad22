#!/usr/bin/env bash
# Configures and builds a preset (default: "default", into build/). Used by run.sh and test.sh.
# Usage: scripts/build.sh [PRESET]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
# Ninja where installed (install-deps.sh installs it): it compiles a target's files while the
# targets it links are still being linked, where make waits. A build folder keeps the generator
# it was made with (CMake ignores CMAKE_GENERATOR there).
command -v ninja >/dev/null && export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)"
