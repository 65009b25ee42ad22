# Sourced by window-driving tests: starts an app in a window under X and drives it with xdotool.
# Needs $out (the test's folder); sets $pid and $wid.

fail() { echo "FAIL: $*"; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; exit 1; }

# Runs COMMAND... in the background, logging to $out/log.txt, and waits for its window, titled
# $window_title (default tandem-raster).
start_window_app() {
    [ -n "${DISPLAY:-}" ] || fail "no DISPLAY for a window test"
    command -v xdotool >/dev/null || fail "xdotool missing (apt-get install xdotool)"
    "$@" >"$out/log.txt" 2>&1 &
    pid=$!
    wid=""
    for _ in $(seq 150); do
        wid=$(xdotool search --name "^${window_title:-tandem-raster}" 2>/dev/null | head -1) &&
            [ -n "$wid" ] && break
        kill -0 "$pid" 2>/dev/null || fail "app exited early: $(cat "$out/log.txt")"
        sleep 0.1
    done
    [ -n "$wid" ] || fail "no window appeared"
    xdotool windowfocus --sync "$wid" 2>/dev/null || true
    sleep 0.5
}

# Presses Esc and expects the app to quit with exit code 0.
quit_window_app() {
    xdotool key Escape
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && fail "Esc did not quit"
    wait "$pid"; local code=$?
    [ $code = 0 ] || fail "exit code $code: $(cat "$out/log.txt")"
}
