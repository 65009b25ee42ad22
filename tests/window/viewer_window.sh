#!/usr/bin/env bash
# Window tier: drives tandem-viewer's playback keys with xdotool on the built-in sample: Space
# pauses, Home shows frame 0, Right frame 1, End frame 59, S saves a screenshot of the frame
# shown, Esc quits.
# The overlay is hidden (F1) so a screenshot shows the sequence frame only: paused, screenshots
# of one frame are identical, those of different frames differ, and each is the headless render
# of its frame byte for byte.
# Usage: viewer_window.sh VIEWER PNG_CHECK OUT_DIR
set -uo pipefail
viewer=$1; check=$2; out=$3
source "$(dirname "$0")/../support/window_app.sh"
rm -rf "$out"; mkdir -p "$out"
[ -n "${DISPLAY:-}" ] || fail "no DISPLAY for a window test"
command -v xdotool >/dev/null || fail "xdotool missing (apt-get install xdotool)"

sample=sample:points=20000,frames=60
"$viewer" --headless "$sample" --every-frame --size 320x240 --out "$out/headless" -q \
    || fail "headless render"

window_title=tandem-viewer
start_window_app "$viewer" "$sample" --size 320x240 --out "$out" --no-vsync

# Presses S and waits for screenshot N.
shot() {
    local n=$1 file
    file=$(png "$n")
    xdotool key --delay 50 s
    for _ in $(seq 100); do [ -f "$file" ] && [ -s "$file" ] && return 0; sleep 0.1; done
    fail "no $file after pressing S: $(cat "$out/log.txt")"
}
png() { printf "%s/screenshot_%05d.png" "$out" "$1"; }
# A key takes effect on the frame after the one it arrives in (and a jump may wait for its frame
# to load), so after each key: screenshots until two in a row are identical, at most 10. Paused,
# that is the frame the key chose; playing, it never settles.
n=0
settle() {
    local prev=""
    sleep 0.2
    for _ in $(seq 10); do
        shot $n
        if [ -n "$prev" ] && cmp -s "$prev" "$(png $n)"; then
            settled=$(png $n); n=$((n + 1)); return 0
        fi
        prev=$(png $n); n=$((n + 1))
    done
    fail "after $1 the window never showed one frame twice in a row (not paused?)"
}

xdotool key F1
xdotool key space
settle Space
xdotool key Home
settle Home; first=$settled
xdotool key Right
settle Right; step=$settled
xdotool key End
settle End; last=$settled
# A camera key at the last frame from the current view, then the path saved into --out.
xdotool key k
xdotool key p
for _ in $(seq 1 50); do
    [ -f "$out/camera_path_000.json" ] && break
    sleep 0.1
done
quit_window_app
[ -f "$out/camera_path_000.json" ] || fail "K then P saved no camera path"
python3 - "$out/camera_path_000.json" <<'PY' || fail "the saved camera path is wrong"
import json, sys
keys = json.load(open(sys.argv[1]))["keyframes"]
assert len(keys) == 1 and keys[0]["frame"] == 59, keys
assert abs(keys[0]["distance"] - 1.0) < 1e-3, keys
PY

"$check" --size 320x240 --min-fraction 0.02 "$step" "$first" "$last" || fail "screenshots"
cmp -s "$first" "$step" && fail "Right showed the same frame as Home"
cmp -s "$first" "$last" && fail "End showed the same frame as Home"
cmp -s "$step" "$last" && fail "End showed the same frame as Right"
cmp -s "$first" "$out/headless/frame_00000.png" || fail "Home: not frame 0 as rendered headless"
cmp -s "$step" "$out/headless/frame_00001.png" || fail "Right: not frame 1 as rendered headless"
cmp -s "$last" "$out/headless/frame_00059.png" || fail "End: not frame 59 as rendered headless"
echo "ok"
