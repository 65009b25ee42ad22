"""The web tier's client side: starts an app with --serve on loopback, reads the URL it prints,
and talks to it as the page does (engine/web/Protocol.h) over Python's websockets; stills are
read with tests/support/png.py so they can be compared pixel for pixel. Every process a test starts is
stopped by the test (App is a context manager)."""

import asyncio
import json
import os
import re
import signal
import sys
import struct
import subprocess
import threading
import time
import urllib.error
import urllib.request

import websockets

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import png as png_reader  # noqa: E402

URL_LINE = re.compile(r"watch and drive it at (http://\S+)")


class App:
    """An app run with --serve 127.0.0.1:0; `url`, `base`, `token`, `port` once it listens."""

    def __init__(self, argv, timeout=120):
        self.argv = argv
        self.timeout = timeout
        self.process = None
        self.log = []

    def __enter__(self):
        self.process = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + self.timeout
        self.url = None
        while self.url is None:
            line = self.process.stderr.readline()
            if not line:
                raise AssertionError("the app ended before it printed its URL:\n" +
                                     "".join(self.log))
            self.log.append(line)
            match = URL_LINE.search(line)
            if match:
                self.url = match.group(1)
            if time.monotonic() > deadline:
                raise AssertionError("no URL printed:\n" + "".join(self.log))
        # The rest of stderr is drained on a thread so the app never blocks on a full pipe.
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()
        self.base, self.token = self.url.split("/?token=")
        self.port = int(self.base.rsplit(":", 1)[1])
        return self

    def _drain(self):
        for line in self.process.stderr:
            self.log.append(line)

    def stop(self):
        """SIGINT, as Ctrl-C; returns the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.reader.join(timeout=10)
        return self.process.returncode

    def __exit__(self, *exc):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.process:
            if getattr(self, "reader", None):
                self.reader.join(timeout=10)
            self.process.stderr.close()

    def socket_url(self, token=None):
        token = self.token if token is None else token
        return self.base.replace("http://", "ws://") + "/socket" + (
            "?token=" + token if token else "")

    def stderr(self):
        return "".join(self.log)


def http_get(url, headers=None):
    """(status, headers, body) of a GET; refusals are answers, not exceptions."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def read_frame(message):
    """(header, image bytes) of a binary frame message."""
    length = struct.unpack("<I", message[:4])[0]
    header = json.loads(message[4:4 + length])
    assert header["type"] == "frame", header
    return header, message[4 + length:]


def jpeg_size(data):
    """(width, height) from a JPEG's SOF marker; asserts it is a whole JPEG."""
    assert data[:2] == b"\xff\xd8", "no JPEG start marker"
    assert data[-2:] == b"\xff\xd9", "no JPEG end marker"
    i = 2
    while i < len(data):
        assert data[i] == 0xFF, f"not a marker at {i}"
        marker = data[i + 1]
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xC3:
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return width, height
        i += 2 + length
    raise AssertionError("no SOF marker")


def rgba(png):
    """(width, height, RGBA bytes rows top to bottom) of PNG bytes (tests/support/png.py)."""
    width, height, rows = png_reader.decode(png)
    return width, height, b"".join(bytes(row) for row in rows)


class Client:
    """One page's socket: frames and texts kept as they come (a reader task)."""

    def __init__(self, socket):
        self.socket = socket
        self.frames = []
        self.texts = []
        self.stats = None
        self.client = None
        self.closed = None
        self.task = asyncio.ensure_future(self._read())

    @classmethod
    async def connect(cls, app, width=160, height=120, quality=80, **kwargs):
        socket = await websockets.connect(app.socket_url(), max_size=None, **kwargs)
        client = cls(socket)
        await client.send({"type": "hello", "width": width, "height": height,
                           "quality": quality})
        return client

    async def _read(self):
        try:
            async for message in self.socket:
                if isinstance(message, bytes):
                    self.frames.append(read_frame(message))
                else:
                    text = json.loads(message)
                    self.texts.append(text)
                    if text["type"] == "stats":
                        self.stats = text
                    elif text["type"] == "welcome":
                        self.client = text["client"]
        except websockets.ConnectionClosed as closed:
            self.closed = closed
        else:
            self.closed = True

    async def send(self, message):
        await self.socket.send(json.dumps(message))

    async def wait_for(self, predicate, what, timeout=120):
        """Waits (polling what the reader kept) until predicate() holds."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if self.closed is not None and not predicate():
                raise AssertionError(f"the socket closed waiting for {what}: {self.closed}")
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {timeout} s for {what}")
            await asyncio.sleep(0.02)

    async def frames_after(self, count):
        start = len(self.frames)
        await self.wait_for(lambda: len(self.frames) >= start + count, f"{count} frames")
        return self.frames[start:start + count]

    async def close(self):
        await self.socket.close()
        await self.task
