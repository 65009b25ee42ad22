"""web tier, in a browser: Debian's chromium, headless (its software rendering), opens the URL
tandem-viewer --headless --serve prints and is driven over the DevTools protocol (Python's
websockets; no other driver): the page shows frames that change while playing; without the
token the page is refused; a drag on the canvas moves the camera, and the frame then equals the
viewer's own headless render of that camera; the timeline slider scrubs to frame 17 and the
frame equals headless frame 17; a key press steps a frame; the stats table lists the GPU
stages; the page's own frame rate and latency readouts are printed (docs/remote.md quotes
them). A Python client watching beside the page asks for the lossless stills compared.
Chromium and the viewer listen on 127.0.0.1 only and are stopped by the test.

Usage: test_page.py VIEWER OUTPUT_DIR [unittest args]"""

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import App, Client  # noqa: E402
from test_serve import SEQUENCE, headless_render, still_of  # noqa: E402

VIEWER = None
OUT = None
# The page's canvas is what the side panel (320 CSS px) leaves of the window.
WINDOW = (960, 360)
CANVAS = (640, 360)
DEVTOOLS_LINE = re.compile(r"DevTools listening on (ws://127\.0\.0\.1:(\d+)/\S+)")


def chromium_binary():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """Headless chromium with a DevTools port on loopback, showing `url`; stopped on exit."""

    def __init__(self, url):
        self.url = url

    def __enter__(self):
        self.profile = tempfile.mkdtemp(prefix="tandem-chromium-")
        argv = [chromium_binary(), "--headless=new", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--metrics-recording-only", "--force-device-scale-factor=1",
                f"--user-data-dir={self.profile}", f"--window-size={WINDOW[0]},{WINDOW[1]}",
                "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", self.url]
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        text=True)
        deadline = time.monotonic() + 120
        for line in self.process.stderr:
            match = DEVTOOLS_LINE.search(line)
            if match:
                self.port = int(match.group(2))
                break
            if time.monotonic() > deadline:
                break
        else:
            raise AssertionError("chromium printed no DevTools address")
        # The rest of its stderr is drained so it never blocks.
        threading.Thread(target=lambda: [None for _ in self.process.stderr], daemon=True).start()
        return self

    def page_socket(self):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list") as r:
                for target in json.load(r):
                    if target["type"] == "page":
                        return target["webSocketDebuggerUrl"]
            time.sleep(0.2)
        raise AssertionError("no page target")

    def __exit__(self, *exc):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)


class DevTools:
    """One page's DevTools session: commands by id, events ignored."""

    def __init__(self, socket):
        self.socket = socket
        self.next_id = 0

    async def call(self, method, **params):
        self.next_id += 1
        mine = self.next_id
        await self.socket.send(json.dumps({"id": mine, "method": method, "params": params}))
        while True:
            message = json.loads(await asyncio.wait_for(self.socket.recv(), 120))
            if message.get("id") == mine:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message.get("result", {})

    async def evaluate(self, expression):
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                                 awaitPromise=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def until(self, expression, what, timeout=120):
        deadline = time.monotonic() + timeout
        while True:
            value = await self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {timeout} s for {what}: {expression}")
            await asyncio.sleep(0.05)

    async def mouse(self, kind, x, y, buttons=1):
        await self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
                        buttons=buttons, clickCount=1 if kind != "mouseMoved" else 0)

    async def key(self, key, code, keycode):
        for kind in ("keyDown", "keyUp"):
            await self.call("Input.dispatchKeyEvent", type=kind, key=key, code=code,
                            windowsVirtualKeyCode=keycode)


def page_frame():
    return "Number((document.body && document.body.dataset.frame) || -1)"


def timeline_frame():
    return "Number(document.getElementById('frame-number').textContent)"


class Page(unittest.TestCase):
    def test_without_the_token_the_page_is_refused(self):
        with App(viewer_argv()) as app, Browser(app.base + "/") as browser:
            async def look():
                async with websockets.connect(browser.page_socket(), max_size=None) as socket:
                    tools = DevTools(socket)
                    text = await tools.until("document.body && document.body.innerText",
                                             "the refusal")
                    self.assertIn("open the URL the app printed", text)
                    self.assertFalse(await tools.evaluate("!!document.getElementById('frame')"))
            asyncio.run(look())
            app.stop()

    def test_the_page_plays_drags_scrubs_steps_and_shows_the_stages(self):
        with App(viewer_argv()) as app, Browser(app.url) as browser:
            async def drive():
                async with websockets.connect(browser.page_socket(), max_size=None) as socket:
                    tools = DevTools(socket)
                    # The viewport exactly (a headless window's size includes its frame).
                    await tools.call("Emulation.setDeviceMetricsOverride", width=WINDOW[0],
                                     height=WINDOW[1], deviceScaleFactor=1, mobile=False)
                    # Frames arrive and change while playing; the token left the address bar.
                    first = await tools.until(f"{page_frame()} >= 0 && {page_frame()}",
                                              "a frame drawn")
                    await tools.until(f"{page_frame()} > {first} + 5", "frames that change")
                    self.assertNotIn("token", await tools.evaluate("location.href"))
                    # Frames at the canvas's size in device pixels.
                    await tools.until(
                        "document.getElementById('frame').width == %d &&"
                        " document.getElementById('frame').height == %d" % CANVAS,
                        f"frames of {CANVAS[0]}x{CANVAS[1]}")
                    await tools.until("document.getElementById('role').textContent == 'driving'",
                                      "the page to drive")
                    # The stats table lists the GPU stages.
                    await tools.until(
                        "[...document.querySelectorAll('#stages tbody tr')]"
                        ".some(r => r.cells[0].textContent == 'geometry'"
                        " && r.cells[1].textContent == 'gpu')", "the GPU stages")
                    # The server's encoding, a frame in bands (two encoders at least).
                    await tools.until(
                        "/^\\d+\\.\\d\\d \\([2-9] bands/"
                        ".test(document.getElementById('encode').textContent)",
                        "the encode time of a frame in bands")

                    # A watcher beside the page: its stills are the frames compared.
                    watcher = await Client.connect(app, width=CANVAS[0], height=CANVAS[1])
                    await watcher.wait_for(lambda: watcher.stats, "stats")
                    # The chain's sliders (from the stage descriptors) edit the run's chain.
                    await tools.until("!!document.querySelector('#chain-stages input[type=range]"
                                      "[data-param=exposure]')", "the tonemap stage's slider")
                    async def exposure(value):
                        # The slider snaps to its step; what it holds is what it sends.
                        sent = await tools.evaluate(
                            "(() => { const s = document.querySelector('#chain-stages"
                            f" input[data-param=exposure]'); s.value = {value};"
                            " s.dispatchEvent(new Event('input')); return Number(s.value); })()")
                        await watcher.wait_for(
                            lambda: abs(watcher.stats["chain"][0]["params"][0]["value"] - sent)
                            < 1e-4, f"the exposure set to {sent} from the page")
                    await exposure(-1.5)
                    await exposure(0)
                    # Pause (Space on the canvas), then drag on the canvas.
                    await tools.key(" ", "Space", 32)
                    await watcher.wait_for(lambda: not watcher.stats["app"]["timeline"]
                                           ["playing"], "the pause")
                    before = dict(watcher.stats["camera"])
                    await tools.mouse("mouseMoved", 300, 180, buttons=0)
                    await tools.mouse("mousePressed", 300, 180)
                    for x in range(300, 381, 20):
                        await tools.mouse("mouseMoved", x, 180 - (x - 300) // 4)
                    await tools.mouse("mouseReleased", 380, 160, buttons=0)
                    await watcher.wait_for(lambda: watcher.stats["camera"]["yaw"]
                                           != before["yaw"], "the drag to orbit")
                    # Every move the page sent is in a frame it received, so the camera has
                    # settled; the stats compared are ones sent after that, around the still.
                    await tools.until("state.pendingInput.length == 0 && state.sentAt.size == 0",
                                      "the page's input all drawn")
                    settled = watcher.stats
                    await watcher.wait_for(lambda: watcher.stats is not settled, "fresh stats")
                    camera, shown = watcher.stats["camera"], watcher.stats["app"]["timeline"]["frame"]
                    dragged = await still_of(watcher, CANVAS)
                    settled = watcher.stats
                    await watcher.wait_for(lambda: watcher.stats is not settled, "fresh stats")
                    self.assertEqual(watcher.stats["camera"], camera, "the camera held still")

                    # The slider scrubs to frame 17.
                    await tools.evaluate(
                        "(() => { const s = document.getElementById('timeline');"
                        " s.value = 17; s.dispatchEvent(new Event('input')); })()")
                    await tools.until(f"{timeline_frame()} == 17", "the slider's frame 17")
                    await watcher.wait_for(lambda: watcher.stats["app"]["timeline"]["frame"] == 17,
                                           "frame 17")
                    at17 = await still_of(watcher, CANVAS)
                    # A key press steps a frame.
                    await tools.key("ArrowRight", "ArrowRight", 39)
                    await tools.until(f"{timeline_frame()} == 18", "the step to 18")
                    # The page's own readouts, for the docs.
                    await tools.key(" ", "Space", 32)
                    await asyncio.sleep(3)
                    readouts = await tools.evaluate(
                        "({fps: document.getElementById('fps').textContent,"
                        " latency: document.getElementById('latency').textContent,"
                        " rtt: document.getElementById('rtt').textContent,"
                        " kb: document.getElementById('bytes').textContent,"
                        " encode: document.getElementById('encode').textContent})")
                    print(f"\npage at {CANVAS[0]}x{CANVAS[1]} in headless chromium: "
                          f"{readouts['fps']} frames/s delivered, round trip {readouts['rtt']} ms, "
                          f"input to frame {readouts['latency']} ms, {readouts['kb']} KB a frame, "
                          f"encode {readouts['encode']} ms", flush=True)
                    await watcher.close()
                    return dragged, camera, shown, at17
            (_, (_, _, dragged)), camera, shown, (_, (_, _, at17)) = asyncio.run(drive())
            self.assertEqual(app.stop(), 130)
        tonemap = ("--postfx", "tonemap")
        self.assertEqual(dragged, headless_render(VIEWER, OUT, "page-drag", shown, camera, CANVAS,
                                                  tonemap)[2],
                         "the frame after the page's drag is the headless render of its camera")
        self.assertEqual(at17, headless_render(VIEWER, OUT, "page-17", 17, camera, CANVAS,
                                               tonemap)[2],
                         "the scrubbed frame is headless frame 17")


def viewer_argv():
    return [VIEWER, "--headless", "--serve", "0", "--size", f"{CANVAS[0]}x{CANVAS[1]}", "-q",
            "--postfx", "tonemap", SEQUENCE]


if __name__ == "__main__":
    if chromium_binary() is None:
        print("skip: chromium is not installed (scripts/install-deps.sh installs it)")
        sys.exit(77)  # ctest: skipped, not passed
    VIEWER, OUT = sys.argv[1], sys.argv[2]
    os.makedirs(OUT, exist_ok=True)
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:])
