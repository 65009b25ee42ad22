#!/usr/bin/python3
"""Capture tier: an app captures frames with RenderDoc; each capture opens in RenderDoc's replay
(Debian's python3-renderdoc, which needs an X display) with the named passes and their draws,
and the image in the app's output texture at the end of the replayed frame matches the PNG the
app wrote for that frame.
Usage: capture_replay.py raster TANDEM_RASTER MESH OUT_DIR
       capture_replay.py bench TANDEM_BENCH OUT_DIR
       capture_replay.py groups CAPTURE.rdc GROUP,... CALL,...
         (a window's capture: replays to the last draw, whose target must hold an image, not
         one flat colour)
       capture_replay.py replay CAPTURE.rdc IMAGE.png TEXTURE GROUP,... CALL,... [LABEL,...]
                         [--mismatch] [--trace TRACE.json] [--absent GROUP,...]
         checks a capture made elsewhere (a GPU machine's, say): LABELs are textures it must
         hold; --mismatch expects the replayed image NOT to match (a negative control); every
         GPU span in TRACE (same configuration) must be a debug group of the same name; no
         debug group may be one of --absent's"""
import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import png  # noqa: E402

FRAME_GROUPS = ["geometry", "geometry.visibility", "geometry.resolve", "handoff", "present"]
FRAME_CALLS = ["glDrawElements", "glDispatchCompute", "glDrawArrays"]
_renderdoc = None


def fail(message):
    sys.exit("FAIL: " + message)


def replay_module():
    global _renderdoc
    if _renderdoc is None:
        import renderdoc
        renderdoc.InitialiseReplay(renderdoc.GlobalEnvironment(), [])
        _renderdoc = renderdoc
    return _renderdoc


def gpu_span_names(trace):
    """The names of a --trace file's GL and CUDA spans (frames left out)."""
    events = json.load(open(trace))["traceEvents"]
    gpu = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"
           and e["args"]["name"] in ("GL", "CUDA")}
    return {e["name"] for e in events
            if e["ph"] == "X" and e["pid"] in gpu and not e["name"].startswith("frame ")}


def check_capture(capture, image, texture, groups, calls, labels=(), mismatch=False, trace=None,
                  absent=()):
    """Opens `capture`, asserts its debug groups, calls and texture labels, replays to the end of
    the frame and compares `texture` there with the PNG `image`: they must match (or, with
    `mismatch`, must not). With `trace` (a --trace file of the same configuration), every GPU
    span the profiler names must be a debug group of the same name; no group may be named as one
    of `absent`."""
    rd = replay_module()
    name = os.path.basename(capture)
    cap = rd.OpenCaptureFile()
    if cap.OpenFile(capture, "", None) != rd.ResultCode.Succeeded:
        fail(f"RenderDoc cannot open {capture}")
    if not cap.LocalReplaySupport():
        fail(f"{name} cannot be replayed here")
    result, controller = cap.OpenCapture(rd.ReplayOptions(), None)
    if result != rd.ResultCode.Succeeded:
        fail(f"replay of {name} did not start: {result}")
    structured = controller.GetStructuredFile()
    seen_groups, seen_calls, last, actions = set(), set(), 0, []
    pending = list(controller.GetRootActions())
    while pending:
        action = pending.pop()
        actions.append(action)
        label = action.GetName(structured)
        if action.flags & rd.ActionFlags.PushMarker:
            seen_groups.add(label)
        if action.flags & (rd.ActionFlags.Drawcall | rd.ActionFlags.Dispatch):
            seen_calls.add(label.split("(")[0])
        last = max(last, action.eventId)
        pending.extend(action.children)
    for group in groups:
        if group not in seen_groups:
            fail(f"{name}: no debug group '{group}'; groups: {sorted(seen_groups)}")
    for group in absent:
        if group in seen_groups:
            fail(f"{name}: a debug group '{group}', which this frame should not have")
    if trace:
        missing = gpu_span_names(trace) - seen_groups
        if missing:
            fail(f"{name}: profiler spans with no debug group of that name: {sorted(missing)}")
    for call in calls:
        if call not in seen_calls:
            fail(f"{name}: no {call}; calls: {sorted(seen_calls)}")

    controller.SetFrameEvent(last, True)
    textures = [r for r in controller.GetResources() if r.type == rd.ResourceType.Texture]
    for label in labels:
        if label not in [r.name for r in textures]:
            fail(f"{name}: no texture labelled '{label}'; textures: {[r.name for r in textures]}")
    if texture == "@window":
        # A window's frame ends in the default framebuffer: the last draw's colour target.
        draws = [a for a in actions if a.flags & rd.ActionFlags.Drawcall]
        controller.SetFrameEvent(max(a.eventId for a in draws), True)
        target = controller.GetPipelineState().GetOutputTargets()[0].resourceId
    else:
        targets = [r for r in textures if r.name == texture]
        if not targets:
            fail(f"{name}: no texture named {texture}")
        target = targets[0].resourceId
    data = bytes(controller.GetTextureData(target, rd.Subresource(0, 0, 0)))
    controller.Shutdown()
    cap.Shutdown()
    if image is None:
        if len(set(data[i:i + 3] for i in range(0, len(data), 4))) < 2:
            fail(f"{name}: the replayed {texture} is one flat colour")
        print(f"{name}: replays; groups {sorted(seen_groups)}")
        return

    width, height, rows = png.load(image)
    if len(data) != width * height * 4:
        fail(f"{name}: replayed {texture} has {len(data)} bytes, expected {width * height * 4}")
    # GL rows run bottom to top; the PNG's top to bottom.
    differing, worst = 0, 0
    for y in range(height):
        replayed = data[(height - 1 - y) * width * 4:(height - y) * width * 4]
        expected = rows[y]
        for x in range(0, width * 4, 4):
            delta = max(abs(replayed[x + c] - expected[x + c]) for c in range(3))
            if delta:
                worst = max(worst, delta)
                differing += delta > 2
    fraction = differing / (width * height)
    print(f"{name}: replayed {texture} vs {os.path.basename(image)}: {fraction:.4%} of pixels "
          f"differ by more than 2 (max {worst}); groups {sorted(seen_groups)}")
    if mismatch:
        if fraction <= 0.001:
            fail(f"{name}: the replayed frame matches, but was expected to differ")
    elif fraction > 0.001:
        fail(f"{name}: the replayed frame does not match the frame the app wrote")


def captures_in(folder):
    return sorted(os.path.basename(f) for f in glob.glob(os.path.join(folder, "*.rdc")))


def fresh(folder):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    return folder


def raster(app, mesh, out):
    chain = "tonemap,fxaa"
    captures, frames = os.path.join(fresh(out), "captures"), os.path.join(out, "frames")
    trace = os.path.join(out, "trace.json")
    command = [app, "--headless", "--renderdoc", "--capture-frame", "2", "--capture-dir",
               captures, "--frames", "4", "--size", "160x120", "--spin", "20", "--postfx", chain,
               "--overlay", "--trace", trace, "--trace-frames", "4", "--out", frames, mesh]
    subprocess.run(command, check=True)
    # The camera moves: a replay showing the frame before would not pass.
    if png.load(os.path.join(frames, "frame_000001.png")) == \
            png.load(os.path.join(frames, "frame_000002.png")):
        fail("frames 1 and 2 are the same image; the comparison would prove nothing")
    if captures_in(captures) != ["tandem-raster_frame0002.rdc"]:
        fail(f"expected tandem-raster_frame0002.rdc, found {captures_in(captures)}")
    check_capture(os.path.join(captures, "tandem-raster_frame0002.rdc"),
                  os.path.join(frames, "frame_000002.png"), "present.output",
                  FRAME_GROUPS + chain.split(",") + ["overlay"], FRAME_CALLS, trace=trace)
    # Meshes drawn off GL by the mesh pass's host twin (--raster host): no geometry pass, the
    # G-buffer uploaded inside the frame, and the replay still ends on the frame the app wrote.
    host = os.path.join(out, "raster-host")
    subprocess.run([app, "--headless", "--renderdoc", "--capture-frame", "1", "--capture-dir",
                    host, "--frames", "2", "--size", "160x120", "--spin", "20", "--postfx", chain,
                    "--raster", "host", "--out", host, mesh], check=True)
    check_capture(os.path.join(host, "tandem-raster_frame0001.rdc"),
                  os.path.join(host, "frame_000001.png"), "present.output",
                  ["meshes.raster", "meshes.resolve", "meshes.host.upload", "handoff", "present"]
                  + chain.split(","), ["glDrawArrays"],
                  absent=["geometry", "geometry.visibility", "geometry.resolve"])
    # Gaussian splats beside the mesh, drawn by the splat pass (its host twin here: a GPU-less
    # machine): the pass's stage and its upload are debug groups, and the replay still ends on
    # the frame the app wrote.
    splats = os.path.join(out, "splats")
    ring = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "splats",
                        "ring.ply")
    subprocess.run([app, "--headless", "--renderdoc", "--capture-frame", "1", "--capture-dir",
                    splats, "--frames", "2", "--size", "160x120", "--spin", "20", "--postfx", chain,
                    "--out", splats, ring, mesh], check=True)
    check_capture(os.path.join(splats, "tandem-raster_frame0001.rdc"),
                  os.path.join(splats, "frame_000001.png"), "present.output",
                  FRAME_GROUPS + ["splats.host", "splats.host.upload"] + chain.split(","),
                  FRAME_CALLS)
    # Started under renderdoccmd instead of --renderdoc, the app finds RenderDoc in the process.
    under = os.path.join(out, "under-renderdoccmd")
    subprocess.run(["renderdoccmd", "capture", "-w", "-d", os.path.abspath(out), app,
                    "--headless", "--capture-frame", "1", "--capture-dir", under, "--frames", "2",
                    "--size", "160x120", "--spin", "20", "--out", under, mesh], check=True)
    if captures_in(under) != ["tandem-raster_frame0001.rdc"]:
        fail(f"under renderdoccmd: expected tandem-raster_frame0001.rdc in {under}, found "
             f"{captures_in(under)}")
    check_capture(os.path.join(under, "tandem-raster_frame0001.rdc"),
                  os.path.join(under, "frame_000001.png"), "present.output", FRAME_GROUPS[:3],
                  FRAME_CALLS)
    # A second run into the same folder keeps the first capture.
    subprocess.run(command + ["--overwrite"], check=True)
    if captures_in(captures) != ["tandem-raster_frame0002-2.rdc", "tandem-raster_frame0002.rdc"]:
        fail(f"a second capture of frame 2 should be added beside the first: "
             f"{captures_in(captures)}")


def bench(app, out):
    captures = os.path.join(fresh(out), "captures")
    subprocess.run([app, "raster", "--renderdoc", "--capture-dir", captures, "--triangles", "1000",
                    "--frames", "3", "--warmup", "0"], check=True)
    subprocess.run([app, "overhead", "--renderdoc", "--capture-dir", captures, "--frames", "3",
                    "--warmup", "0"], check=True)
    expected = {
        "raster-1080p-engine": ("gbuffer.color", ["geometry", "geometry.visibility",
                                                  "geometry.resolve"],
                                ["glDrawElements", "glDispatchCompute"]),
        "raster-1080p-bare": ("bench.bare.color", ["bare"], ["glDrawElements"]),
        "overhead-1080p-frame": ("present.output", FRAME_GROUPS + ["tonemap", "fxaa"],
                                 FRAME_CALLS),
    }
    if captures_in(captures) != sorted(stem + ".rdc" for stem in expected):
        fail(f"expected captures {sorted(expected)}, found {captures_in(captures)}")
    for stem, (texture, groups, calls) in expected.items():
        check_capture(os.path.join(captures, stem + ".rdc"),
                      os.path.join(captures, stem + ".png"), texture, groups, calls)


def main(argv):
    if len(argv) == 4 and argv[0] == "raster":
        raster(*argv[1:])
    elif len(argv) == 3 and argv[0] == "bench":
        bench(*argv[1:])
    elif len(argv) == 4 and argv[0] == "groups":
        check_capture(argv[1], None, "@window", argv[2].split(","), argv[3].split(","),
                      ["overlay.font"])
    elif len(argv) >= 6 and argv[0] == "replay":
        rest = argv[6:]
        mismatch = "--mismatch" in rest
        rest = [a for a in rest if a != "--mismatch"]
        trace = None
        if "--trace" in rest:
            i = rest.index("--trace")
            trace = rest[i + 1]
            del rest[i:i + 2]
        absent = []
        if "--absent" in rest:
            i = rest.index("--absent")
            absent = rest[i + 1].split(",")
            del rest[i:i + 2]
        if len(rest) > 1:
            sys.exit(__doc__)
        labels = rest[0].split(",") if rest else []
        check_capture(argv[1], argv[2], argv[3], argv[4].split(","), argv[5].split(","), labels,
                      mismatch, trace, absent)
    else:
        sys.exit(__doc__)
    print("ok")


def main_in_child(argv):
    """Runs main() in a child process. RenderDoc's replay library (in-process, on llvmpipe) has
    crashed with a signal now and then on a capture it replays fine the next time (once in a
    CI run of five); a crash by signal is said and the child run once more. A failed check
    (exit 1) is never retried, nor a second crash."""
    command = [sys.executable, os.path.abspath(__file__)] + argv
    env = dict(os.environ, TANDEM_CAPTURE_REPLAY_CHILD="1")
    for attempt in (1, 2):
        code = subprocess.run(command, env=env).returncode
        if code >= 0 or attempt == 2:
            return 128 - code if code < 0 else code
        print(f"capture_replay: the replay crashed with signal {-code} (inside RenderDoc's "
              "replay library); once more", flush=True)
    return 1


if __name__ == "__main__":
    if os.environ.get("TANDEM_CAPTURE_REPLAY_CHILD"):
        main(sys.argv[1:])
    else:
        sys.exit(main_in_child(sys.argv[1:]))
