"""One timeline with PyTorch: tandem's GL, CUDA and CPU spans merged into a torch.profiler
Chrome trace, the clocks aligned through markers both traces record.

    with torch.profiler.profile() as prof, tandem.trace() as spans:
        ...                                   # tandem calls among PyTorch operators
    prof.export_chrome_trace("torch.json")
    tandem.merge_traces("torch.json", spans, "merged.json")   # open in Perfetto or chrome://tracing

How the clocks are aligned: tandem's spans are placed on its own timeline (its CPU clock; GL and
CUDA timestamps are calibrated onto it). Entering and leaving tandem.trace() records three
markers each: a torch.profiler.record_function("tandem.clock_sync") range, and inside it tandem's
clock. The marker whose range is shortest gives the offset between the timelines (its range's
midpoint against tandem's reading), good to half that range (reported in the merged trace as
tandem_clock_alignment)."""
import errno
import json
import os

import torch

from . import _atomic
from ._raster import renderer

SYNC = "tandem.clock_sync"
# tandem's processes (CPU, GL, CUDA) are moved to pids no PyTorch trace uses.
PID_BASE = 1_000_000


class trace:
    """Records tandem's spans for the calls made inside the `with` block on `device`'s renderer
    (default: the CPU renderer; pass the CUDA device the tensors live on), at most `max_calls`
    calls. For a merged timeline, enter it inside torch.profiler.profile() so the clock markers
    land in PyTorch's trace. Leaving waits for the calls in flight (one wait for the GPU)."""

    def __init__(self, device=None, max_calls=10000):
        self._device = device
        self._max_calls = int(max_calls)
        self._native = None
        self.markers_ms = []
        self.events = None

    def __enter__(self):
        self._native = renderer(self._device)
        self._native.start_trace(self._max_calls)
        self._sync()
        return self

    def __exit__(self, *exc):
        self._sync()
        self.events = json.loads(self._native.stop_trace())
        self.events["tandem_clock_markers_ms"] = self.markers_ms
        return False

    def _sync(self):
        for _ in range(3):
            with torch.profiler.record_function(SYNC):
                self.markers_ms.append(self._native.now_ms())

    def save(self, path, overwrite=False):
        """Writes tandem's own trace (Chrome JSON, its markers included) to `path`, by the
        engine's write rule: an existing file is replaced only with overwrite=True (else
        FileExistsError), nothing is left behind on failure."""
        _write(path, _load(self), overwrite)


def _load(trace_or_path):
    if isinstance(trace_or_path, trace):
        if trace_or_path.events is None:
            raise ValueError("tandem_trace: the tandem.trace() block has not ended")
        return trace_or_path.events
    if isinstance(trace_or_path, (str, os.PathLike)):
        with open(trace_or_path) as f:
            trace_or_path = json.load(f)
    # The Chrome trace format allows a bare array of events (older PyTorch writes one).
    if isinstance(trace_or_path, list):
        return {"traceEvents": trace_or_path}
    if isinstance(trace_or_path, dict):
        return trace_or_path
    raise ValueError(f"trace: expected a path, a dict or a list, got {type(trace_or_path).__name__}")


def _write(path, data, overwrite):
    """Writes `data` as JSON to `path` by the write rule (_atomic): a temporary of this writer's
    own, synced, renamed into place; an existing file (also one made meanwhile) is kept unless
    `overwrite`: FileExistsError."""
    text = json.dumps(data)  # before any file exists: what cannot be serialized leaves nothing
    try:
        _atomic.write_file(os.fspath(path), text, replace=overwrite)
    except FileExistsError:
        raise FileExistsError(errno.EEXIST, "already exists (overwrite=True, or --overwrite, "
                              "replaces it)", os.fspath(path)) from None


def clock_offset_us(torch_trace, tandem_trace):
    """(offset, uncertainty) in microseconds: tandem's time t (ms) is PyTorch's t * 1000 +
    offset. Raises ValueError when the markers cannot be paired."""
    torch_events = _load(torch_trace)
    tandem_events = _load(tandem_trace)
    markers = tandem_events.get("tandem_clock_markers_ms") or []
    ranges = sorted((e for e in torch_events.get("traceEvents", [])
                     if e.get("name") == SYNC and e.get("ph") == "X"
                     and not str(e.get("cat", "")).startswith("gpu")),
                    key=lambda e: float(e["ts"]))
    if not markers or len(ranges) != len(markers):
        raise ValueError(f"torch_trace: {len(ranges)} '{SYNC}' ranges for {len(markers)} tandem "
                         "markers: enter tandem.trace() inside torch.profiler.profile()")
    best = min(zip(ranges, markers), key=lambda pair: float(pair[0].get("dur", 0)))
    event, marker = best
    duration = float(event.get("dur", 0))
    return float(event["ts"]) + duration / 2 - marker * 1000.0, duration / 2


def merge_traces(torch_trace, tandem_trace, out_path=None, overwrite=False):
    """Merges tandem's spans into a torch.profiler Chrome trace on one timeline.

    torch_trace: the path prof.export_chrome_trace() wrote, or its loaded dict.
    tandem_trace: a finished tandem.trace(), the path its save() wrote, or its dict.
    out_path: where to write the merged trace (by the engine's write rule: a temporary of its
        own, synced, then renamed; an existing file, also one made meanwhile, is replaced only
        with overwrite=True, else FileExistsError); None: only return it.

    Returns the merged trace (a dict): PyTorch's events unchanged, tandem's CPU, GL and CUDA
    tracks added as processes "tandem CPU", "tandem GL", "tandem CUDA", shifted onto PyTorch's
    clock, and "tandem_clock_alignment" with the offset and its uncertainty in microseconds."""
    torch_events = _load(torch_trace)
    tandem_events = _load(tandem_trace)
    offset, uncertainty = clock_offset_us(torch_events, tandem_events)
    merged = dict(torch_events)
    events = list(torch_events.get("traceEvents", []))
    for event in tandem_events.get("traceEvents", []):
        event = dict(event)
        if "pid" in event:
            event["pid"] = PID_BASE + int(event["pid"])
        if event.get("ph") == "M":
            if event.get("name") == "process_name":
                event["args"] = {"name": "tandem " + event["args"]["name"]}
        elif "ts" in event:
            event["ts"] = float(event["ts"]) + offset
        events.append(event)
    merged["traceEvents"] = events
    merged["tandem_clock_alignment"] = {"offset_us": offset, "uncertainty_us": uncertainty}
    if out_path is not None:
        _write(out_path, merged, overwrite)
    return merged


def main(argv=None):
    """python3 -m tandem.trace_merge TORCH_JSON TANDEM_JSON -o OUT [--overwrite]"""
    import argparse
    parser = argparse.ArgumentParser(
        prog="python3 -m tandem.trace_merge",
        description="Merge tandem's trace (tandem.trace().save()) into a torch.profiler Chrome "
                    "trace on one timeline.")
    parser.add_argument("torch_trace")
    parser.add_argument("tandem_trace")
    parser.add_argument("-o", "--out", required=True)
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args(argv)
    try:
        merged = merge_traces(args.torch_trace, args.tandem_trace, args.out, args.overwrite)
    except (OSError, ValueError) as e:
        raise SystemExit(f"error: {e}")
    alignment = merged["tandem_clock_alignment"]
    print(f"wrote {args.out}: clocks aligned to ±{alignment['uncertainty_us']:.1f} µs")
