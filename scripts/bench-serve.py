#!/usr/bin/env python3
"""The browser view's benchmark (docs/remote.md): tandem-viewer --headless --serve on a pack,
driven over loopback by WebSocket clients as the page drives it, written with the standard
library only (the GPU host has no browser and no websockets package). Three runs of --seconds
each, alternating as asked by --rounds:

  none   no client: the render loop's own rate (the run report's frames over its loop time;
         its CPU frame p50 beside it, which leaves out the waits of a loop kept a few frames
         ahead of the GPU)
  one    one client at --size: frames/s delivered, bytes a frame, encode ms (the server's),
         input-to-frame latency (a camera drag sent, until a frame drawn after it arrives;
         p50/p95), and the render loop's frame time beside it
  eight  eight clients, one of them never reading its socket: what the seven others receive,
         the render loop's frame time, the server's frames replaced, host RSS

Clients ask for frames as fast as their sockets take them, or, with --max-fps, no faster than
a display of that rate shows them (as the page asks).

Usage: bench-serve.py VIEWER PACK [--size WxH] [--seconds S] [--rounds N] [--json OUT]
       [--commit SHA] [--device TEXT] [--max-fps N] [--overwrite]"""

import argparse
import base64
import datetime
import json
import os
import re
import select
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

# The write rule, from the source tree (python/tandem/_atomic.py needs the standard library only).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python",
                                "tandem"))
import _atomic  # noqa: E402

URL_LINE = re.compile(r"watch and drive it at http://([\d.]+):(\d+)/\?token=([0-9a-f]+)")


class Socket:
    """A minimal RFC 6455 client: the handshake, masked text out, frames in (pings answered)."""

    def __init__(self, host, port, token, read=True):
        self.sock = socket.create_connection((host, port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if not read:
            # A client that never reads: the smallest receive buffer, so it fills soon.
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /socket?token={token} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                           f"Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                          .encode())
        self.buffer = bytearray()
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("the server closed during the handshake")
            self.buffer += chunk
        head, rest = bytes(self.buffer).split(b"\r\n\r\n", 1)
        # A growing bytearray: a 1080p frame arrives in many reads, joined without copying it
        # over and over (a client this slow would measure itself).
        self.buffer = bytearray(rest)
        if not head.startswith(b"HTTP/1.1 101"):
            raise RuntimeError(f"handshake refused: {head[:80]!r}")

    def send(self, message, opcode=0x1):
        data = json.dumps(message).encode() if opcode == 0x1 else message
        header = bytes([0x80 | opcode])
        n = len(data)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _need(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise EOFError
            self.buffer += chunk

    def receive(self):
        """(opcode, payload) of the next whole message; pings are answered on the way."""
        payload, first_opcode = b"", None
        while True:
            self._need(2)
            b0, b1 = self.buffer[0], self.buffer[1]
            n, at = b1 & 0x7F, 2
            if n == 126:
                self._need(4)
                n, at = struct.unpack(">H", self.buffer[2:4])[0], 4
            elif n == 127:
                self._need(10)
                n, at = struct.unpack(">Q", self.buffer[2:10])[0], 10
            self._need(at + n)
            data = bytes(self.buffer[at:at + n])
            del self.buffer[:at + n]
            opcode = b0 & 0x0F
            if opcode == 0x9:
                self.send(data, opcode=0xA)
                continue
            if opcode == 0x8:
                raise EOFError
            if opcode != 0x0:
                first_opcode = opcode
            payload += data
            if b0 & 0x80:
                return first_opcode, payload

    def close(self):
        self.sock.close()


def frame_header(payload):
    length = struct.unpack("<I", payload[:4])[0]
    return json.loads(payload[4:4 + length]), len(payload) - 4 - length


class Driver(threading.Thread):
    """A reading client; with `drive`, it drags the camera a little every 100 ms and measures
    how long until a frame drawn after the drag arrives."""

    def __init__(self, address, hello, drive, seconds):
        super().__init__(daemon=True)
        self.socket = Socket(*address)
        self.hello = hello
        self.size = hello["width"], hello["height"]
        self.drive, self.seconds = drive, seconds
        self.frames, self.bytes, self.encode_ms, self.latencies = 0, [], [], []
        self.render_fps = []
        self.stats = None

    def run(self):
        w, h = self.size
        self.socket.send(self.hello)
        sent = {}
        seq, next_input = 0, time.monotonic() + 1.0
        start = end = None
        try:
            while True:
                now = time.monotonic()
                if self.drive and now >= next_input:
                    seq += 1
                    x = w / 2 + (seq % 2) * 4
                    self.socket.send({"type": "input", "seq": seq, "events": [
                        {"kind": "down", "x": x, "y": h / 2, "button": 0},
                        {"kind": "move", "x": x + 2, "y": h / 2},
                        {"kind": "up", "x": x + 2, "y": h / 2, "button": 0}]})
                    sent[seq] = time.monotonic()
                    next_input = now + 0.1
                readable, _, _ = select.select([self.socket.sock], [], [], 0.01)
                if not readable and not self.socket.buffer:
                    continue
                opcode, payload = self.socket.receive()
                now = time.monotonic()
                if opcode == 0x2:
                    header, size = frame_header(payload)
                    if start is None:
                        start, end = now, now + self.seconds
                    if now > end:
                        break
                    self.frames += 1
                    self.bytes.append(size)
                    self.encode_ms.append(header["encode_ms"])
                    for s in [s for s in sent if s <= header["input_seq"]]:
                        self.latencies.append(1e3 * (now - sent.pop(s)))
                elif opcode == 0x1:
                    message = json.loads(payload)
                    if message["type"] == "stats":
                        self.stats = message
                        if "fps" in message and start is not None:
                            self.render_fps.append(message["fps"])
        except EOFError:
            pass
        self.elapsed = (time.monotonic() - start) if start else 0.0


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else None


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def run(args, clients, work):
    report = os.path.join(work, f"report-{clients}-{time.monotonic_ns()}.json")
    argv = [args.viewer, "--headless", "--serve", "0", "--size", args.size, "-q",
            "--report", report, args.pack]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    address = None
    log = []
    for line in process.stderr:
        log.append(line)
        match = URL_LINE.search(line)
        if match:
            address = (match.group(1), int(match.group(2)), match.group(3))
            break
    if address is None:
        raise RuntimeError("the viewer printed no URL:\n" + "".join(log))
    threading.Thread(target=lambda: [log.append(l) for l in process.stderr], daemon=True).start()
    w, h = (int(v) for v in args.size.split("x"))
    # Every client asks alike: the canvas, the default quality, and the most frames a second it
    # can show where --max-fps says (a page asks its display's rate).
    hello = {"type": "hello", "width": w, "height": h, "quality": 80}
    if args.max_fps:
        hello["max_fps"] = args.max_fps
    result = {"clients": clients}
    # Clients from (almost) the start, so the loop's rate over the whole run (the report's) is
    # its rate with them; every case starts alike.
    time.sleep(0.5)
    if clients == 0:
        time.sleep(args.seconds)
    else:
        stalled = Socket(*address, read=False) if clients > 1 else None
        if stalled:
            stalled.send(hello)
        readers = [Driver(address, hello, drive=(i == 0 and clients == 1), seconds=args.seconds)
                   for i in range(clients - (1 if stalled else 0))]
        rss = [rss_kib(process.pid)]
        for reader in readers:
            reader.start()
        for _ in range(int(args.seconds)):
            time.sleep(1.0)
            rss.append(rss_kib(process.pid))
        for reader in readers:
            reader.join(args.seconds + 30)
        first = readers[0]
        result.update({
            "delivered_fps": [r.frames / r.elapsed if r.elapsed else 0 for r in readers],
            "bytes_per_frame_p50": statistics.median(first.bytes) if first.bytes else None,
            "encode_ms_p50": statistics.median(first.encode_ms) if first.encode_ms else None,
            "render_fps_seen": statistics.median(first.render_fps) if first.render_fps else None,
            "host_rss_mib": [round(v / 1024, 1) for v in rss],
            "server": first.stats["serve"] if first.stats else None,
        })
        if first.latencies:
            result["input_to_frame_ms_p50"] = percentile(first.latencies, 0.5)
            result["input_to_frame_ms_p95"] = percentile(first.latencies, 0.95)
            result["input_samples"] = len(first.latencies)
        for reader in readers:
            reader.socket.close()
        if stalled:
            stalled.close()
    process.send_signal(signal.SIGINT)
    process.wait(60)
    with open(report) as f:
        whole = json.load(f)
    profile = whole["profile"]
    # Where the frames ran (a frame all on CUDA is read back from CUDA memory), and why.
    result["memory"] = whole.get("memory")
    # The loop's own rate over the whole run (the pace of a loop kept a few frames ahead of
    # the GPU; its CPU frame time leaves the waits out).
    result["loop_fps"] = (whole.get("loop") or {}).get("frames_per_second")
    frame = next((s for s in profile["cpu_stages"] if s.get("name") == "frame"), None) \
        if isinstance(profile["cpu_stages"], list) else profile["cpu_stages"].get("frame")
    result["render_frame_ms_p50"] = frame["p50_ms"] if frame else None
    # Where a frame's time went, stage by stage (the profiler's window: the run's last frames).
    result["stages"] = {
        kind: {name: {"p50_ms": s["p50_ms"], "mean_ms": s["mean_ms"]}
               for name, s in profile[f"{kind}_stages"].items()}
        for kind in ("gpu", "cpu") if isinstance(profile.get(f"{kind}_stages"), dict)}
    result["stalls_by_cause"] = profile.get("stalls_by_cause")
    result["serve_report"] = whole.get("serve")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("viewer")
    parser.add_argument("pack")
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--clients", default="0,1,8",
                        help="the cases in their order: 0, 1 and 8 clients (one never reading)")
    parser.add_argument("--json")
    parser.add_argument("--commit", default="unknown")
    parser.add_argument("--device", default="")
    parser.add_argument("--max-fps", type=int, default=0,
                        help="the clients' display rate, asked in their hello (0: none, as fast "
                        "as their sockets take frames)")
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args()
    if args.json and os.path.exists(args.json) and not args.overwrite:
        sys.exit(f"error: {args.json} exists (--overwrite replaces it)")
    for path in (args.viewer, args.pack):
        if not os.path.exists(path):
            sys.exit(f"error: {path}: no such file")
    cases = [int(c) for c in args.clients.split(",")]
    if any(c not in (0, 1, 8) for c in cases):
        sys.exit(f"error: --clients {args.clients}: cases are 0, 1 and 8")
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for round_ in range(args.rounds):
            for clients in cases:
                row = run(args, clients, work)
                row["round"] = round_
                rows.append(row)
                print(json.dumps(row), flush=True)
    def median_of(clients, key):
        values = [r[key] for r in rows if r["clients"] == clients and r.get(key) is not None]
        return statistics.median(values) if values else None
    def server_of(clients, key):
        values = [r["server"][key] for r in rows if r["clients"] == clients and r.get("server")
                  and r["server"].get(key) is not None]
        return statistics.median(values) if values else None
    base = median_of(0, "render_frame_ms_p50")
    def slowdown(n):
        value = median_of(n, "render_frame_ms_p50")
        return value / base - 1 if base and value is not None else None
    base_fps = median_of(0, "loop_fps")
    def rate_change(n):
        value = median_of(n, "loop_fps")
        return value / base_fps - 1 if base_fps and value is not None else None
    def fps(n, pick):
        values = [pick(r["delivered_fps"]) for r in rows if r["clients"] == n]
        return statistics.median(values) if values else None
    summary = {
        "render_frame_ms_p50": {n: median_of(n, "render_frame_ms_p50") for n in (0, 1, 8)},
        "render_slowdown": {n: slowdown(n) for n in (1, 8)},
        "loop_fps": {n: median_of(n, "loop_fps") for n in (0, 1, 8)},
        "loop_rate_change": {n: rate_change(n) for n in (1, 8)},
        "delivered_fps_one_client": fps(1, lambda v: v[0]),
        "delivered_fps_min_of_seven": fps(8, min),
        "input_to_frame_ms_p95": median_of(1, "input_to_frame_ms_p95"),
        "input_to_frame_ms_p50": median_of(1, "input_to_frame_ms_p50"),
        "bytes_per_frame_p50": median_of(1, "bytes_per_frame_p50"),
        "encode_ms_p50": median_of(1, "encode_ms_p50"),
        "encode_cpu_ms_p50": server_of(1, "encode_cpu_ms_p50"),
        "encode_bands": server_of(1, "encode_bands"),
        "frames_read_as_planes": server_of(1, "frames_read_as_planes"),
        "frames_read": server_of(1, "frames_read"),
    }
    print("summary:", json.dumps(summary, indent=1))
    if args.json:
        out = {"benchmark": "serve", "device": args.device, "commit": args.commit,
               "date": datetime.date.today().isoformat(), "size": args.size,
               "max_fps": args.max_fps,
               "pack": os.path.basename(args.pack), "seconds": args.seconds,
               "summary": summary, "runs": rows}
        _atomic.write_file(args.json, json.dumps(out, indent=1), replace=args.overwrite)


if __name__ == "__main__":
    main()
