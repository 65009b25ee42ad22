#!/usr/bin/env bash
# Capture tier, in a window: tandem-raster started with --renderdoc; F12 captures the next
# frame, and so does a second F12 (two captures, two names); the captures replay with the named
# passes, the overlay's included. Usage: capture_window.sh RASTER OUT_DIR
set -uo pipefail
raster=$1; out=$2
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../support/window_app.sh"
rm -rf "$out"; mkdir -p "$out"
start_window_app "$raster" --renderdoc --size 320x240 --spin 5 --no-vsync --postfx tonemap,fxaa \
    --capture-dir "$out/captures" --out "$out"
grep -q "RenderDoc (API .*) attached" "$out/log.txt" || fail "RenderDoc not attached: $(cat "$out/log.txt")"

# Presses F12 and waits for capture number N to be logged.
capture() {
    xdotool key F12
    for _ in $(seq 150); do
        [ "$(grep -c "captured .*\.rdc" "$out/log.txt")" -ge "$1" ] && return 0
        sleep 0.1
    done
    fail "no capture $1 after F12: $(cat "$out/log.txt")"
}
capture 1
capture 2
quit_window_app

mapfile -t files < <(ls "$out"/captures/*.rdc 2>/dev/null)
[ "${#files[@]}" = 2 ] || fail "expected 2 captures, found: ${files[*]}"
for f in "${files[@]}"; do
    case "$(basename "$f")" in tandem-raster_frame[0-9][0-9][0-9][0-9].rdc) ;; *) fail "unexpected name $f" ;; esac
done
/usr/bin/python3 "$here/capture_replay.py" groups "${files[0]}" \
    geometry,geometry.visibility,geometry.resolve,handoff,tonemap,fxaa,present,overlay \
    glDrawElements,glDispatchCompute,glDrawArrays || fail "replay of ${files[0]}"
echo "ok"
