"""web tier: tandem-viewer --headless --serve driven over loopback as the page drives it: the
token guards the page and the socket, frames arrive and change while playing, a drag moves the
camera and the frame then equals a headless render of that camera, the timeline scrubs, keys
step, the stats list the GPU stages, hostile clients lose only their own connection, a client
that never reads holds no one up, the server listens on loopback only and stops with the app;
and (part Window, on an X display) the viewer served beside its window.

Usage: test_serve.py VIEWER OUTPUT_DIR [unittest args]"""

import asyncio
import json
import os
import shutil
import subprocess
import sys
import unittest

import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import App, Client, http_get, jpeg_size, rgba  # noqa: E402

VIEWER = None
OUT = None
SIZE = (160, 120)
SEQUENCE = "sample:points=3000,frames=24"


def viewer(*extra, size=SIZE):
    return [VIEWER, "--headless", "--serve", "0", "--size", f"{size[0]}x{size[1]}", "-q",
            SEQUENCE, *extra]


def run(coroutine):
    return asyncio.run(coroutine)


def listening_addresses(port):
    """The local addresses of sockets listening on `port` (from /proc/net/tcp and tcp6)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        with open(table) as f:
            next(f)
            for line in f:
                fields = line.split()
                address, hexport = fields[1].split(":")
                if int(hexport, 16) == port and fields[3] == "0A":  # LISTEN
                    found.append(address)
    return found


async def still_of(client, size=SIZE):
    """Asks for a PNG and returns (header, (width, height, RGBA bytes)) of the first to come."""
    start = len(client.frames)
    await client.send({"type": "view", "width": size[0], "height": size[1], "format": "png"})
    await client.wait_for(lambda: any(h["format"] == "png" for h, _ in client.frames[start:]),
                          "a PNG")
    header, image = next((h, i) for h, i in client.frames[start:] if h["format"] == "png")
    await client.send({"type": "view", "width": size[0], "height": size[1], "format": "jpeg"})
    return header, rgba(image)


def headless_render(viewer, out, name, frame, camera, size=SIZE, extra=()):
    """The viewer's own headless render of sequence frame `frame` from `camera` (a camera
    path's keyframe, as the stats give it): (width, height, RGBA bytes)."""
    folder = os.path.join(out, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    path = os.path.join(folder, "camera.json")
    with open(path, "w") as f:
        json.dump({"keyframes": [{"frame": 0, **camera}]}, f)
    subprocess.run([viewer, "--headless", "--size", f"{size[0]}x{size[1]}", "-q", SEQUENCE,
                    "--frame-range", f"{frame}:{frame + 1}", "--camera-path", path,
                    "--out", folder, *extra], check=True)
    with open(os.path.join(folder, f"frame_{frame:06d}.png"), "rb") as f:
        return rgba(f.read())


class Security(unittest.TestCase):
    def test_token_guards_page_and_socket(self):
        with App(viewer()) as app:
            status, headers, body = http_get(app.url)
            self.assertEqual(status, 200)
            self.assertIn(b"viewer.js", body)
            cookie = headers.get("Set-Cookie", "")
            self.assertIn(f"tandem_token={app.token}", cookie)
            self.assertIn("HttpOnly", cookie)
            self.assertIn("SameSite=Strict", cookie)
            # The page's other files with the cookie the page got.
            status, _, script = http_get(app.base + "/viewer.js",
                                         {"Cookie": f"tandem_token={app.token}"})
            self.assertEqual(status, 200)
            self.assertIn(b"WebSocket", script)
            for url, headers in ((app.base + "/", {}),
                                 (app.base + "/?token=" + "0" * 32, {}),
                                 (app.base + "/?token=", {}),
                                 (app.base + "/viewer.js", {"Cookie": "tandem_token=nope"}),
                                 (app.base + "/?token=" + app.token[:-1], {})):
                status, _, body = http_get(url, headers)
                self.assertEqual(status, 403, url)
                self.assertNotIn(b"viewer.js", body)

            async def sockets():
                for url, kwargs in ((app.socket_url(""), {}),
                                    (app.socket_url("f" * 32), {}),
                                    (app.socket_url(), {"origin": "http://evil.example"})):
                    with self.assertRaises(websockets.InvalidStatusCode) as refused:
                        async with websockets.connect(url, **kwargs):
                            pass
                    self.assertEqual(refused.exception.status_code, 403, url)
                # The page's own origin, and no origin (a script): both let in.
                for origin in (app.base, None):
                    kwargs = {"origin": origin} if origin else {}
                    client = await Client.connect(app, **kwargs)
                    await client.frames_after(1)
                    await client.close()
            run(sockets())
            self.assertEqual(app.stop(), 130)

    def test_loopback_only_and_stops_with_app(self):
        with App(viewer()) as app:
            addresses = listening_addresses(app.port)
            self.assertEqual(addresses, ["0100007F"], "listens on 127.0.0.1 only")

            async def watch():
                client = await Client.connect(app)
                await client.frames_after(2)
                self.assertEqual(app.stop(), 130)
                await client.wait_for(lambda: client.closed is not None, "the socket to close")
            run(watch())
            self.assertEqual(listening_addresses(app.port), [])
            self.assertIn("stopping after", app.stderr())

    def test_hostile_clients_lose_only_their_connection(self):
        with App(viewer()) as app:
            async def hostile():
                watcher = await Client.connect(app)
                await watcher.frames_after(1)
                cases = [
                    ("malformed", [b"{not json".decode()]),
                    ("unknown type", [json.dumps({"type": "rm -rf"})]),
                    ("bad field", [json.dumps({"type": "view", "width": -5, "height": 10})]),
                    ("100 MB", ["x" * (100 << 20)]),
                    ("binary", [b"\x00" * 16]),
                    ("flood", [json.dumps({"type": "ping", "sent": i}) for i in range(20000)]),
                ]
                for name, messages in cases:
                    socket = await websockets.connect(app.socket_url(), max_size=None)
                    with self.assertRaises(websockets.ConnectionClosed, msg=name):
                        for message in messages:
                            await socket.send(message)
                        # Closed by the server: reading ends.
                        while True:
                            await asyncio.wait_for(socket.recv(), 60)
                    # The watcher is served on.
                    await watcher.frames_after(2)
                    self.assertIsNone(watcher.closed, name)
                await watcher.close()
            run(hostile())
            log = app.stderr()
            for why in ("not JSON", "unknown message type", "'width' is -5", "over 65536 bytes",
                        "a binary message", "messages a second"):
                self.assertIn(why, log)
            self.assertEqual(app.stop(), 130)

    def test_client_limit(self):
        with App(viewer()) as app:
            async def many():
                clients = [await Client.connect(app) for _ in range(16)]
                with self.assertRaises(websockets.InvalidStatusCode) as refused:
                    async with websockets.connect(app.socket_url()):
                        pass
                self.assertEqual(refused.exception.status_code, 503)
                for client in clients:
                    await client.close()
                # A place is free again.
                client = await Client.connect(app)
                await client.frames_after(1)
                await client.close()
            run(many())
            app.stop()


class Viewing(unittest.TestCase):
    def test_frames_change_while_playing_and_stats_list_the_stages(self):
        with App(viewer()) as app:
            async def watch():
                client = await Client.connect(app, width=200, height=150)
                frames = await client.frames_after(6)
                indices = [header["frame"] for header, _ in frames]
                self.assertEqual(indices, sorted(indices))
                self.assertEqual(len(set(indices)), len(indices))
                for header, image in frames[-3:]:
                    self.assertEqual(header["format"], "jpeg")
                    self.assertEqual(jpeg_size(image), (200, 150))
                    self.assertEqual((header["width"], header["height"]), (200, 150))
                self.assertGreater(len({image for _, image in frames}), 1, "frames change")
                # GPU timings come once the GPU has finished the frames they time.
                await client.wait_for(lambda: client.stats and client.stats["gpu"], "GPU stats")
                gpu = [stage["name"] for stage in client.stats["gpu"]]
                self.assertIn("geometry", gpu)
                self.assertTrue(client.stats["cpu"])
                self.assertEqual(client.stats["driver"], client.client)
                self.assertEqual(client.stats["app"]["timeline"]["frames"], 24)
                self.assertEqual(client.stats["app"]["timeline"]["loop"], "loop")
                await client.close()
            run(watch())
            self.assertEqual(app.stop(), 130)

    def test_drag_moves_the_camera_as_a_headless_render_of_it(self):
        with App(viewer()) as app:
            async def drive():
                client = await Client.connect(app, width=SIZE[0], height=SIZE[1])
                await client.frames_after(1)
                await client.send({"type": "input", "seq": 1,
                                   "events": [{"kind": "key", "key": " "}]})  # pause
                await client.wait_for(lambda: client.stats and not client.stats["app"]
                                      ["timeline"]["playing"], "a pause")
                before = dict(client.stats["camera"])
                await client.send({"type": "input", "seq": 2, "events": [
                    {"kind": "down", "x": 80, "y": 60, "button": 0},
                    {"kind": "move", "x": 120, "y": 40},
                    {"kind": "up", "x": 120, "y": 40, "button": 0}]})
                await client.wait_for(lambda: any(h["input_seq"] >= 2 for h, _ in client.frames),
                                      "a frame after the drag")
                header, still = await still_of(client)
                self.assertGreaterEqual(header["input_seq"], 2)
                await client.wait_for(lambda: client.stats["frame"] > header["frame"],
                                      "stats after the still")
                camera = client.stats["camera"]
                self.assertNotEqual((camera["yaw"], camera["pitch"]),
                                    (before["yaw"], before["pitch"]), "the drag orbits")
                shown = client.stats["app"]["timeline"]["frame"]
                await client.close()
                return still, camera, shown
            (width, height, served), camera, shown = run(drive())
            self.assertEqual(app.stop(), 130)
        self.assertEqual((width, height), SIZE)
        _, _, rendered = headless_render(VIEWER, OUT, "drag", shown, camera)
        self.assertEqual(served, rendered, "the served frame is the headless render of its camera")

    def test_scrub_and_step(self):
        with App(viewer()) as app:
            async def scrub():
                client = await Client.connect(app, width=SIZE[0], height=SIZE[1])
                await client.frames_after(1)
                await client.send({"type": "input", "seq": 1,
                                   "events": [{"kind": "key", "key": " "}]})
                await client.wait_for(lambda: client.stats and not client.stats["app"]
                                      ["timeline"]["playing"], "a pause")
                await client.send({"type": "command", "name": "seek", "args": {"frame": 17}})
                await client.wait_for(lambda: client.stats["app"]["timeline"]["frame"] == 17,
                                      "the seek to 17")
                _, at17 = await still_of(client)
                await client.send({"type": "input", "seq": 2,
                                   "events": [{"kind": "key", "key": "ArrowRight"}]})
                await client.wait_for(lambda: client.stats["app"]["timeline"]["frame"] == 18,
                                      "a step to 18")
                _, at18 = await still_of(client)
                camera = client.stats["camera"]
                # An unknown command is answered, not fatal.
                await client.send({"type": "command", "name": "format-disk"})
                await client.wait_for(lambda: any(t["type"] == "error" for t in client.texts),
                                      "the error reply")
                await client.frames_after(1)
                await client.close()
                return at17, at18, camera
            (_, _, at17), (_, _, at18), camera = run(scrub())
            self.assertEqual(app.stop(), 130)
        self.assertNotEqual(at17, at18)
        self.assertEqual(at17, headless_render(VIEWER, OUT, "seek17", 17, camera)[2], "frame 17 as headless")
        self.assertEqual(at18, headless_render(VIEWER, OUT, "step18", 18, camera)[2], "frame 18 as headless")

    def test_the_chain_is_edited_and_the_camera_path_downloaded(self):
        folder = os.path.join(OUT, "chain_out")
        shutil.rmtree(folder, ignore_errors=True)
        with App(viewer("--postfx", "tonemap,fxaa", "--out", folder)) as app:
            async def edit():
                client = await Client.connect(app)
                await client.wait_for(lambda: client.stats, "stats")
                chain = client.stats["chain"]
                self.assertEqual([stage["name"] for stage in chain], ["tonemap", "fxaa"])
                exposure = chain[0]["params"][0]
                self.assertEqual((exposure["name"], exposure["value"], exposure["min"],
                                  exposure["max"]), ("exposure", 0, -16, 16))
                _, plain = await still_of(client)
                await client.send({"type": "command", "name": "postfx",
                                   "args": {"stage": 0, "param": "exposure", "value": 2.5}})
                await client.send({"type": "command", "name": "postfx",
                                   "args": {"stage": 1, "enabled": False}})
                await client.wait_for(
                    lambda: client.stats["chain"][0]["params"][0]["value"] == 2.5
                    and not client.stats["chain"][1]["enabled"], "the chain edited")
                _, brighter = await still_of(client)
                self.assertNotEqual(plain, brighter)
                # Out of range, or no such stage: refused with a reason, nothing changed.
                for args in ({"stage": 0, "param": "exposure", "value": 99},
                             {"stage": 7, "enabled": True},
                             {"stage": 0, "param": "gamma", "value": 1}):
                    before = len([t for t in client.texts if t["type"] == "error"])
                    await client.send({"type": "command", "name": "postfx", "args": args})
                    await client.wait_for(lambda: len([t for t in client.texts
                                                       if t["type"] == "error"]) > before,
                                          f"the refusal of {args}")
                self.assertEqual(client.stats["chain"][0]["params"][0]["value"], 2.5)
                # P: the camera path comes to the browser, once K has added a key; the server
                # writes nothing (the P key itself is not sent on).
                await client.send({"type": "command", "name": "camera_path"})
                await client.wait_for(lambda: any("no camera path" in t.get("message", "")
                                                  for t in client.texts), "no path yet")
                await client.send({"type": "input", "seq": 1, "events": [
                    {"kind": "key", "key": "k"}, {"kind": "key", "key": "p"}]})
                await client.send({"type": "command", "name": "camera_path"})
                await client.wait_for(lambda: any(t["type"] == "download" for t in client.texts),
                                      "the download")
                download = next(t for t in client.texts if t["type"] == "download")
                self.assertEqual(download["name"], "camera_path.json")
                self.assertEqual(len(json.loads(download["text"])["keyframes"]), 1)
                await client.close()
            run(edit())
            self.assertEqual(app.stop(), 130)
        written = os.listdir(folder) if os.path.isdir(folder) else []
        self.assertEqual(written, [], "nothing written on the server")

    def test_watchers_follow_one_driver(self):
        with App(viewer()) as app:
            async def two():
                first = await Client.connect(app)
                second = await Client.connect(app)
                await second.wait_for(lambda: second.stats and second.client, "stats")
                self.assertEqual(second.stats["driver"], first.client)
                # A watcher's input moves nothing; asking to drive passes control.
                await second.send({"type": "input", "seq": 1,
                                   "events": [{"kind": "key", "key": " "}]})
                await second.frames_after(3)
                self.assertTrue(second.stats["app"]["timeline"]["playing"])
                await second.send({"type": "drive"})
                await second.wait_for(lambda: second.stats["driver"] == second.client,
                                      "control to pass")
                # The driver leaving passes control to the longest connected.
                await second.close()
                await first.wait_for(lambda: first.stats["driver"] == first.client,
                                     "control to come back")
                await first.close()
            run(two())
            app.stop()

    def test_a_client_that_never_reads_holds_no_one_up(self):
        with App(viewer(size=(1280, 720))) as app:
            async def slow():
                # The stalled client drives (it came first), asks for big frames at the highest
                # quality and never reads: its socket's buffers fill.
                stalled = await websockets.connect(app.socket_url(), max_size=None,
                                                   read_limit=1024, max_queue=1)
                await stalled.send(json.dumps({"type": "hello", "width": 1280, "height": 720,
                                               "quality": 100}))
                stalled.transport.pause_reading()
                others = [await Client.connect(app, width=1280, height=720) for _ in range(7)]
                # The others are served on, frame after frame, while the stalled client's
                # frames are replaced rather than queued.
                while not (others[0].stats and others[0].stats["serve"]["frames_replaced"] > 0):
                    for client in others:
                        await client.frames_after(1)
                        self.assertIsNone(client.closed)
                for client in others:
                    await client.frames_after(2)
                    self.assertIsNone(client.closed)
                self.assertEqual(others[0].stats["serve"]["clients"], 8)
                for client in others:
                    await client.close()
                stalled.transport.abort()
            run(slow())
            app.stop()


class Window(unittest.TestCase):
    """Beside a window (the window tier's X display): the browser gets the window's frames at the
    window's size, whatever its canvas asks, its drag moves the window's camera, and the app stops
    with Ctrl-C."""

    def test_the_window_is_served(self):
        with App([VIEWER, "--serve", "0", "--size", "320x240", "-q", SEQUENCE]) as app:
            async def watch():
                client = await Client.connect(app, width=200, height=150)
                frames = await client.frames_after(4)
                for header, image in frames[-2:]:
                    self.assertEqual((header["width"], header["height"]), (320, 240))
                    self.assertEqual(jpeg_size(image), (320, 240))
                self.assertGreater(len({image for _, image in frames}), 1, "frames change")
                await client.wait_for(lambda: client.stats, "stats")
                self.assertEqual(client.stats["size"], [320, 240])
                before = dict(client.stats["camera"])
                await client.send({"type": "input", "seq": 1, "events": [
                    {"kind": "down", "x": 160, "y": 120, "button": 0},
                    {"kind": "move", "x": 220, "y": 100},
                    {"kind": "up", "x": 220, "y": 100, "button": 0}]})
                await client.wait_for(lambda: any(h["input_seq"] >= 1 for h, _ in client.frames),
                                      "a frame after the drag")
                await client.wait_for(lambda: client.stats["camera"]["yaw"] != before["yaw"],
                                      "the window's camera orbited by the drag")
                await client.close()
            run(watch())
            self.assertEqual(app.stop(), 130)


if __name__ == "__main__":
    VIEWER, OUT = sys.argv[1], sys.argv[2]
    os.makedirs(OUT, exist_ok=True)
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:])
