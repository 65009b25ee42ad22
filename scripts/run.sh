#!/usr/bin/env bash
# Installs what is missing, builds, and plays the built-in sample (or what the arguments say) in
# tandem-viewer: in a window when a display is present, else headless, writing frames to out/.
# Extra arguments go to the viewer, e.g. scripts/run.sh scans/  or  scripts/run.sh sample:mesh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh default
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec build/bin/tandem-viewer --out out "$@"
fi
echo "run: no display: rendering the first 30 frames headless into out/"
exec build/bin/tandem-viewer --headless --frames 30 --out out --overwrite "$@"
