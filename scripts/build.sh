#!/usr/bin/env bash
# Configures and builds a preset (default: "default", into build/). Used by run.sh and test.sh.
# Usage: scripts/build.sh [PRESET]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)"
