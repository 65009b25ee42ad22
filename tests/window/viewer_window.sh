#!/usr/bin/env bash
# Window tier: drives tandem-viewer's playback with xdotool on the built-in sample: Space
# pauses, Home shows frame 0, Right frame 1, End frame 59, K and P save a camera key, Space plays
# (the picture moves) and pauses again, a click on the overlay's timeline slider scrubs to the
# middle and a drag along it to four fifths, S saves a screenshot of the frame shown, Esc quits.
# The overlay is hidden (F1) before each screenshot so it shows the sequence frame only: paused,
# screenshots of one frame are identical, those of different frames differ, and each is the
# headless render of its frame byte for byte. The slider's place comes from the viewer's debug
# log (-v), so the test does not depend on the overlay's layout.
# Usage: viewer_window.sh VIEWER PNG_CHECK OUT_DIR
set -uo pipefail
viewer=$1; check=$2; out=$3
source "$(dirname "$0")/../support/window_app.sh"
rm -rf "$out"; mkdir -p "$out"
[ -n "${DISPLAY:-}" ] || fail "no DISPLAY for a window test"
command -v xdotool >/dev/null || fail "xdotool missing (apt-get install xdotool)"

sample=sample:points=20000,frames=60
size=480x720 # tall enough for the overlay down to its timeline slider
"$viewer" --headless "$sample" --every-frame --size $size --out "$out/headless" -q \
    || fail "headless render"

window_title=tandem-viewer
start_window_app "$viewer" "$sample" --size $size --out "$out" --no-vsync -v

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

# The headless frame a screenshot equals, or -1.
which_frame() {
    local i
    for i in $(seq 0 59); do
        cmp -s "$1" "$(printf "%s/headless/frame_%06d.png" "$out" "$i")" && { echo "$i"; return; }
    done
    echo -1
}
# The timeline slider's bar in window pixels, as last logged: x0 y0 x1 y1.
slider() {
    grep -o "timeline slider at [0-9]* [0-9]* [0-9]* [0-9]*" "$out/log.txt" | tail -1 | cut -d' ' -f4-
}
# X of the fraction $1 along the bar, and its middle Y.
slider_x() { read -r x0 _ x1 _ <<<"$(slider)"; echo $((x0 + (x1 - x0) * $1 / 100)); }
slider_y() { read -r _ y0 _ y1 <<<"$(slider)"; echo $(((y0 + y1) / 2)); }
# Checks that the settled screenshot is frame $2 give or take one (a slider maps pixels to
# frames with its grab's width), after $1.
expect_near() {
    local got
    got=$(which_frame "$settled")
    [ "$got" -ge $(($2 - 1)) ] && [ "$got" -le $(($2 + 1)) ] ||
        fail "after $1 the window shows frame $got, not about $2"
    echo "$1: frame $got"
}

sleep 1 # the overlay's layout settles (the timing panel fills)
[ -n "$(slider)" ] || fail "the viewer logged no timeline slider: $(tail -5 "$out/log.txt")"
read -r _ _ _ bottom <<<"$(slider)"
[ "$bottom" -lt 720 ] || fail "the timeline slider ($(slider)) is below the window"

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

# Space plays (from the end it loops to the start): the picture moves; Space pauses again.
xdotool key space
sleep 0.3; shot $n; a=$(png $n); n=$((n + 1))
sleep 0.6; shot $n; b=$(png $n); n=$((n + 1))
cmp -s "$a" "$b" && fail "after Space (play) the picture did not move"
xdotool key space
settle "Space (pause)"

# Scrub: a click in the middle of the slider, then a drag from a tenth to four fifths.
xdotool key F1
sleep 0.3
xdotool mousemove --window "$wid" "$(slider_x 50)" "$(slider_y)" click 1
sleep 0.3
xdotool key F1
settle "a click on the slider"
expect_near "a click in the middle of the slider" 30
xdotool key F1
sleep 0.3
xdotool mousemove --window "$wid" "$(slider_x 10)" "$(slider_y)" mousedown 1
sleep 0.3
xdotool mousemove --window "$wid" "$(slider_x 45)" "$(slider_y)"
sleep 0.3
xdotool mousemove --window "$wid" "$(slider_x 80)" "$(slider_y)"
sleep 0.3
xdotool mouseup 1
sleep 0.3
xdotool key F1
settle "a drag along the slider"
expect_near "a drag to four fifths of the slider" 48

quit_window_app
[ -f "$out/camera_path_000.json" ] || fail "K then P saved no camera path"
python3 - "$out/camera_path_000.json" <<'PY' || fail "the saved camera path is wrong"
import json, sys
keys = json.load(open(sys.argv[1]))["keyframes"]
assert len(keys) == 1 and keys[0]["frame"] == 59, keys
assert abs(keys[0]["distance"] - 1.0) < 1e-3, keys
PY

"$check" --size $size --min-fraction 0.02 "$step" "$first" "$last" || fail "screenshots"
cmp -s "$first" "$step" && fail "Right showed the same frame as Home"
cmp -s "$first" "$last" && fail "End showed the same frame as Home"
cmp -s "$step" "$last" && fail "End showed the same frame as Right"
cmp -s "$first" "$out/headless/frame_000000.png" || fail "Home: not frame 0 as rendered headless"
cmp -s "$step" "$out/headless/frame_000001.png" || fail "Right: not frame 1 as rendered headless"
cmp -s "$last" "$out/headless/frame_000059.png" || fail "End: not frame 59 as rendered headless"
echo "ok"
