#!/usr/bin/env bash
# Window tier: drives tandem-raster's window like a user with xdotool: S saves a screenshot,
# F1 hides the timing overlay, C cycles the channel, a left drag orbits, resizing the window
# resizes the render, Esc quits.
# Usage: raster_window_interactive.sh RASTER PNG_CHECK OUT_DIR
set -uo pipefail
raster=$1; check=$2; out=$3
source "$(dirname "$0")/../support/window_app.sh"
rm -rf "$out"; mkdir -p "$out"
start_window_app "$raster" --size 400x300 --out "$out" --no-vsync

# Presses a key and waits for screenshot N to appear.
shot() {
    local key=$1 n=$2 file
    file=$(printf "%s/screenshot_%05d.png" "$out" "$n")
    xdotool key --delay 50 "$key"
    for _ in $(seq 100); do [ -f "$file" ] && return 0; sleep 0.1; done
    fail "no $file after pressing $key: $(cat "$out/log.txt")"
}

shot s 0
"$check" --size 400x300 "$out/screenshot_00000.png" || fail "first screenshot"
xdotool key F1
shot s 1
cmp -s "$out/screenshot_00000.png" "$out/screenshot_00001.png" && fail "F1 did not hide the overlay"
xdotool key c
shot s 2
cmp -s "$out/screenshot_00001.png" "$out/screenshot_00002.png" && fail "C did not change the channel"
grep -q "showing depth" "$out/log.txt" || fail "no 'showing depth' in the log"

xdotool mousemove --window "$wid" 200 150 mousedown 1 mousemove --window "$wid" 260 170 \
    mousemove --window "$wid" 300 180 mouseup 1
shot s 3
cmp -s "$out/screenshot_00002.png" "$out/screenshot_00003.png" && fail "dragging did not orbit"

xdotool windowsize --sync "$wid" 500 350
sleep 0.5
shot s 4
"$check" --size 500x350 "$out/screenshot_00004.png" || fail "screenshot after resize"

quit_window_app
echo "ok"
