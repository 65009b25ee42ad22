"""The one atomic write in Python, with the same rules and temporary names as the engine's
(engine/core/AtomicFile.h), so either side finds the other's stale temporaries: a file is
written under a hidden temporary beside it, unique to the writer
(.NAME.~HOST~PID~SERIALRANDOM.partial, created with O_CREAT | O_EXCL | O_NOFOLLOW), synced, and
renamed into place only when complete, never replacing a file unless asked (link(), which
refuses an existing name atomically), the folder synced; the temporary is removed on failure.
A temporary of a process that died on this host is removed by remove_stale_temporaries(); a
live writer's, or another host's, never.

Its users: the package's writers (tandem.trace().save(), merge_traces()) and the scripts
(scripts/batch/merge.py, scripts/gpu-server/collect.py, scripts/bench-rasterize.py,
scripts/bench-serve.py, scripts/make-point-cloud.py). It needs the standard library only, so the scripts load it from
the source tree without importing the package (whose __init__ needs torch and the native
module): sys.path.insert(0, "<repository>/python/tandem"); import _atomic.

    with AtomicFile("out/v.mp4", replace=False) as f:
        f.write(b"...")       # or let a program write f.temporary
        f.commit()            # raises FileExistsError when another writer won
"""
import errno
import itertools
import os
import random
import re
import socket

SUFFIX = ".partial"
_serial = itertools.count()


def host_tag():
    """This host's name as temporaries carry it: letters, digits, '-' and '_', 40 at most."""
    name = socket.gethostname() or "host"
    return "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_" for c in name)[:40]


def temporary_for(path, pid=None):
    """A temporary name for `path` no other writer uses (`pid`: whose it says it is)."""
    folder, name = os.path.split(path)
    name = name.encode()[:160].decode(errors="ignore")
    return os.path.join(folder, f".{name}.~{host_tag()}~{os.getpid() if pid is None else pid}~"
                                f"{next(_serial):x}{random.getrandbits(32):08x}{SUFFIX}")


_TEMPORARY = re.compile(r"^\..+\.~([A-Za-z0-9_-]+)~([0-9]{1,10})~[^~]*" + re.escape(SUFFIX) + "$")


def parse_temporary(name):
    """(host, pid) that a temporary's file name records, or None when it is not one."""
    found = _TEMPORARY.match(name)
    return (found.group(1), int(found.group(2))) if found and int(found.group(2)) > 0 else None


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True


def remove_stale_temporaries(folder):
    """Removes the temporaries in `folder` of writers on this host whose process is gone;
    returns their paths. A live writer's, another host's, and links are kept."""
    removed = []
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return removed
    for name in names:
        parsed = parse_temporary(name)
        if not parsed or parsed[0] != host_tag() or _alive(parsed[1]):
            continue
        path = os.path.join(folder, name)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        try:
            os.unlink(path)
            removed.append(path)
        except OSError:
            pass
    return removed


def sync_folder(folder):
    fd = os.open(folder or ".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno != errno.EINVAL:  # some file systems cannot
            raise
    finally:
        os.close(fd)


class AtomicFile:
    """Writes `path` atomically; see the module's description. Not committed: removed."""

    def __init__(self, path, replace=False):
        self.path = path
        self.replace = replace
        if os.path.isdir(path):
            raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", path)
        if not replace and os.path.lexists(path):
            raise FileExistsError(errno.EEXIST, "already exists (--overwrite replaces it)", path)
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        for _ in range(16):
            self.temporary = temporary_for(path)
            try:
                self.fd = os.open(self.temporary, flags, 0o666)
                return
            except FileExistsError:
                continue
        raise FileExistsError(errno.EEXIST, "cannot make a temporary file beside it", path)

    def write(self, data):
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]

    def commit(self):
        """Syncs the file, renames it into place (refusing an existing file unless `replace`:
        FileExistsError) and syncs the folder. The temporary is gone afterwards either way."""
        try:
            os.fsync(self.fd)
            os.close(self.fd)
            self.fd = -1
            if self.replace:
                os.replace(self.temporary, self.path)
            else:
                os.link(self.temporary, self.path)  # fails on an existing name, atomically
                os.unlink(self.temporary)
        finally:
            self.abandon()
        sync_folder(os.path.dirname(self.path))

    def abandon(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        try:
            os.unlink(self.temporary)
        except FileNotFoundError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.abandon()
        return False


def write_file(path, data, replace=False):
    """Writes `data` (bytes or str) to `path` atomically."""
    with AtomicFile(path, replace) as f:
        f.write(data.encode() if isinstance(data, str) else data)
        f.commit()


def copy_file(source, path, replace=False):
    """Copies `source` to `path` atomically."""
    with open(source, "rb") as src, AtomicFile(path, replace) as f:
        while chunk := src.read(1 << 20):
            f.write(chunk)
        f.commit()


def mp4_problem(path):
    """None when `path` is a whole MP4 (its top-level boxes add up to the file's size; ftyp,
    moov and mdat among them), else what is wrong. ffmpeg 5.1 exits 0 when writing the end of
    the file fails on a full disk, leaving no moov box."""
    seen, offset = set(), 0
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        while offset < size:
            f.seek(offset)
            header = f.read(16)
            if len(header) < 8:
                return f"the box header at byte {offset} is cut short"
            box, kind, head = int.from_bytes(header[:4], "big"), header[4:8], 8
            if box == 1:
                if len(header) < 16:
                    return f"the box header at byte {offset} is cut short"
                box, head = int.from_bytes(header[8:16], "big"), 16
            elif box == 0:
                box = size - offset
            if box < head or box > size - offset:
                return (f"the {kind.decode('latin-1')} box at byte {offset} claims {box} bytes, "
                        f"{size - offset} are left")
            seen.add(kind)
            offset += box
    for kind in (b"ftyp", b"moov", b"mdat"):
        if kind not in seen:
            return f"no {kind.decode()} box"
    return None
