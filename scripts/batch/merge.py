#!/usr/bin/env python3
"""Merges the pieces of a batch render (tandem-viewer --headless --frame-range / --camera-paths)
into one verified output: checks that every frame the plan names is present exactly once (in
OUT, or gathered from other folders with --from, where a frame found twice must be the same
bytes), that each is a complete image of the plan's size (PNG: every chunk's CRC, the whole
zlib stream, IEND; PAM: header and length), removes the temporary files of runs that died on
this host (never a live render's), and with --video assembles one H.264 video per camera path
with ffmpeg, kept only when its MP4 boxes add up. Every file it writes follows the engine's
write rule (python/tandem/_atomic.py).

The plan comes from `tandem-viewer --headless SEQ --frame-range A:B [--camera-paths P...]
--batch-plan PLAN.json` with the same range, paths, --size and --format as the pieces.

Usage: scripts/batch/merge.py PLAN.json OUT [--from DIR...] [--video FILE.mp4] [--fps F]
       [--overwrite] [-q]
Exit status: 0 when complete (and the video written), 1 when frames are missing, damaged or
conflicting (each named), 2 for a bad command line."""
import argparse
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

# The write rule is the package's (python/tandem/_atomic.py), loaded without the package.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python", "tandem"))
import _atomic as atomic_file  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def read(path):
    """The file's bytes, or the reason it cannot be read (a str)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as error:
        return f"cannot read: {error.strerror}"


def check_png(path, width, height):
    """None when `path` is a complete PNG of width x height, else what is wrong."""
    data = read(path)
    if isinstance(data, str):
        return data
    if not data.startswith(PNG_SIGNATURE):
        return "not a PNG"
    offset, size, idat, ended = len(PNG_SIGNATURE), None, zlib.decompressobj(), False
    while offset + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        crc = data[offset + 8 + length:offset + 12 + length]
        if len(body) != length or len(crc) != 4:
            return f"truncated in chunk {kind.decode('latin-1')}"
        if struct.unpack(">I", crc)[0] != zlib.crc32(kind + body):
            return f"CRC of chunk {kind.decode('latin-1')} does not match"
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            try:
                idat.decompress(body)
            except zlib.error as error:
                return f"image data damaged ({error})"
        elif kind == b"IEND":
            ended = True
            break
        offset += 12 + length
    if size is None:
        return "no IHDR chunk"
    if not ended:
        return "truncated: no IEND chunk"
    if not idat.eof:
        return "image data incomplete"
    if size != (width, height):
        return f"{size[0]}x{size[1]}, the plan says {width}x{height}"
    return None


def check_pam(path, width, height):
    data = read(path)
    if isinstance(data, str):
        return data
    end = data.find(b"ENDHDR\n")
    if not data.startswith(b"P7\n") or end < 0:
        return "not a PAM file"
    fields = dict(line.split(b" ", 1) for line in data[3:end].split(b"\n") if b" " in line)
    try:
        w, h, depth = int(fields[b"WIDTH"]), int(fields[b"HEIGHT"]), int(fields[b"DEPTH"])
    except (KeyError, ValueError):
        return "PAM header incomplete"
    if (w, h) != (width, height):
        return f"{w}x{h}, the plan says {width}x{height}"
    if len(data) - (end + 7) != w * h * depth:
        return "truncated"
    return None


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def ranges(numbers):
    """[3, 4, 5, 9] -> '3-5, 9'."""
    out, start, last = [], None, None
    for n in sorted(numbers):
        if start is None:
            start = last = n
        elif n == last + 1:
            last = n
        else:
            out.append(f"{start}-{last}" if last > start else f"{start}")
            start = last = n
    if start is not None:
        out.append(f"{start}-{last}" if last > start else f"{start}")
    return ", ".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("plan")
    parser.add_argument("out")
    parser.add_argument("--from", dest="sources", nargs="+", default=[],
                        help="folders holding pieces, gathered into OUT")
    parser.add_argument("--video", help="FILE.mp4: one video per camera path (FILE_<path>.mp4 "
                                        "when there are several)")
    parser.add_argument("--fps", type=float, help="video frame rate (default: the plan's)")
    parser.add_argument("--overwrite", action="store_true", help="replace existing videos")
    parser.add_argument("-q", "--quiet", action="store_true")
    args = parser.parse_args()

    try:
        with open(args.plan) as f:
            plan = json.load(f)
        if plan.get("tandem_batch_plan") != 1:
            raise ValueError("not a tandem batch plan (tandem-viewer --batch-plan writes one)")
        width, height = (int(v) for v in plan["size"].split("x"))
        extension = plan["extension"]
        paths = plan["camera_paths"]
        first = plan["range"][0]
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"error: {args.plan}: {error}", file=sys.stderr)
        return 1
    check = check_png if extension == ".png" else check_pam if extension == ".pam" else None
    if check is None:
        print(f"error: {args.plan}: frames of {extension} are not checked here", file=sys.stderr)
        return 1
    if args.video and not args.video.lower().endswith(".mp4"):
        parser.error(f"--video {args.video}: videos are written as H.264 in MP4, so the name "
                     f"must end in .mp4")
    os.makedirs(args.out, exist_ok=True)
    # A run killed while writing left a temporary: never a frame. A live render's is its own.
    for folder in [args.out] + args.sources:
        for removed in atomic_file.remove_stale_temporaries(folder):
            if not args.quiet:
                print(f"removed {removed} (left by a run that died)")

    problems, expected = [], 0
    for path in paths:
        missing = []
        for index, name in enumerate(path["files"]):
            expected += 1
            target = os.path.join(args.out, name)
            found = [os.path.join(folder, name) for folder in [args.out] + args.sources
                     if os.path.isfile(os.path.join(folder, name))]
            if not found:
                missing.append(first + index)
                continue
            if len({digest(p) for p in found}) > 1:
                problems.append(f"{name}: present in {len(found)} places with different "
                                f"contents: {', '.join(found)}")
                continue
            damage = check(found[0], width, height)
            if damage:
                # Set aside, so that a resumed render (--resume skips files that exist) draws it
                # again: a crash after the rename but before the data reached the disk, say.
                for copy in found:
                    os.replace(copy, copy + ".damaged")
                problems.append(f"{found[0]}: {damage} (set aside as {os.path.basename(found[0])}"
                                f".damaged: a render with --resume draws it again)")
                continue
            if found[0] != target and not os.path.exists(target):
                try:
                    atomic_file.copy_file(found[0], target)
                except FileExistsError:
                    pass  # put there meanwhile (a render writing OUT): checked next time
        if missing:
            label = f" along {path['name']}" if path["name"] else ""
            problems.append(f"{len(missing)} frames missing{label}: {ranges(missing)}")
    if problems:
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        print(f"error: {args.out}: incomplete ({len(problems)} problems above)", file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"{args.out}: all {expected} frames present once and complete "
              f"({len(paths)} camera path{'s' if len(paths) > 1 else ''}, frames "
              f"{first}-{plan['range'][1] - 1}, {width}x{height})")
    if args.video:
        if extension != ".png":
            print("error: --video assembles PNG frames", file=sys.stderr)
            return 1
        if shutil.which("ffmpeg") is None:
            print("error: --video needs ffmpeg (apt-get install ffmpeg)", file=sys.stderr)
            return 1
        stem, suffix = os.path.splitext(args.video)
        os.makedirs(os.path.dirname(os.path.abspath(args.video)), exist_ok=True)
        for path in paths:
            video = args.video if len(paths) == 1 else f"{stem}_{path['name']}{suffix}"
            pattern = os.path.join(args.out, f"frame_{path['name'] + '_' if path['name'] else ''}"
                                             f"%06d{extension}")
            try:
                output = atomic_file.AtomicFile(video, replace=args.overwrite)
            except OSError as error:
                print(f"error: {video}: {error.strerror}", file=sys.stderr)
                return 1
            with output:
                # ffmpeg writes the temporary made above (-y: it exists), in MP4 whatever its
                # name says.
                command = ["ffmpeg", "-nostdin", "-loglevel", "error", "-y",
                           "-framerate", str(args.fps or plan["fps"]), "-start_number", str(first),
                           "-i", pattern, "-frames:v", str(len(path["files"])), "-c:v",
                           "libx264", "-pix_fmt", "yuv420p", "-f", "mp4",
                           "file:" + output.temporary]
                result = subprocess.run(command)
                if result.returncode != 0:
                    print(f"error: ffmpeg failed ({result.returncode}) making {video}",
                          file=sys.stderr)
                    return 1
                problem = atomic_file.mp4_problem(output.temporary)
                if problem:
                    print(f"error: {video}: ffmpeg exited 0 but wrote an incomplete MP4 (a full "
                          f"disk?): {problem}", file=sys.stderr)
                    return 1
                try:
                    output.commit()
                except FileExistsError:
                    print(f"error: {video}: already exists (--overwrite replaces it)",
                          file=sys.stderr)
                    return 1
            if not args.quiet:
                print(f"wrote {video} ({len(path['files'])} frames)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
