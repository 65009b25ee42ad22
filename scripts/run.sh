#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main app on the built-in sample: in a window
# when a display is present, else headless, writing frames to out/.
# Extra arguments go to the app, e.g. scripts/run.sh --channel normal my_mesh.ply
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh default
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec build/bin/tandem-raster --out out "$@"
fi
echo "run: no display: rendering headless into out/"
exec build/bin/tandem-raster --headless --frames 3 --spin 30 --out out --overwrite "$@"
