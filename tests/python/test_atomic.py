"""python/tandem/_atomic.py, the write rule of the package's writers and of the scripts
(merge.py, collect.py, bench-rasterize.py): nothing at the name until commit, never replacing
unless asked (also a file that appears meanwhile), links at the old NAME.partial or the final
name neither followed nor destroyed, temporaries named as the engine names them and removed only
when their process is gone, the MP4 box walk. Standard library only: loaded as the scripts load
it, without the package (no torch needed).
Usage: test_atomic.py [PACKAGE_DIR]"""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, sys.argv.pop(1) if len(sys.argv) > 1 else
                os.path.join(os.path.dirname(__file__), "..", "..", "python", "tandem"))
import _atomic as atomic_file  # noqa: E402


def read(path):
    with open(path, "rb") as f:
        return f.read()


class AtomicFileTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def names(self):
        return sorted(os.listdir(self.path))

    def test_nothing_appears_until_commit_and_nothing_is_left(self):
        out = os.path.join(self.path, "v.mp4")
        with atomic_file.AtomicFile(out) as f:
            f.write(b"half")
            self.assertFalse(os.path.exists(out))
            self.assertTrue(atomic_file.parse_temporary(os.path.basename(f.temporary)))
            f.write(b" and half")
            f.commit()
        self.assertEqual(read(out), b"half and half")
        with atomic_file.AtomicFile(os.path.join(self.path, "gone.json")) as f:
            f.write(b"abandoned")
        self.assertEqual(self.names(), ["v.mp4"])

    def test_never_replaces_unless_asked(self):
        out = os.path.join(self.path, "frame_000001.png")
        atomic_file.write_file(out, b"first")
        with self.assertRaises(FileExistsError):
            atomic_file.write_file(out, b"second")
        late = os.path.join(self.path, "late.mp4")
        f = atomic_file.AtomicFile(late)
        f.write(b"mine")
        with open(late, "wb") as other:
            other.write(b"theirs")
        with self.assertRaises(FileExistsError):
            f.commit()
        self.assertEqual(read(late), b"theirs")
        atomic_file.write_file(out, "replaced", replace=True)
        self.assertEqual(read(out), b"replaced")
        self.assertEqual(self.names(), ["frame_000001.png", "late.mp4"])

    def test_links_at_old_or_final_names_are_not_followed(self):
        target = os.path.join(self.path, "precious")
        hard = os.path.join(self.path, "hard")
        atomic_file.write_file(target, b"precious")
        atomic_file.write_file(hard, b"also precious")
        os.symlink(target, os.path.join(self.path, "v.mp4.partial"))
        os.link(hard, os.path.join(self.path, "plan.json.partial"))
        os.symlink(target, os.path.join(self.path, "linked.mp4"))
        atomic_file.write_file(os.path.join(self.path, "v.mp4"), b"video")
        atomic_file.write_file(os.path.join(self.path, "plan.json"), b"{}")
        with self.assertRaises(FileExistsError):
            atomic_file.write_file(os.path.join(self.path, "linked.mp4"), b"video")
        atomic_file.write_file(os.path.join(self.path, "linked.mp4"), b"video", replace=True)
        self.assertEqual(read(target), b"precious")
        self.assertEqual(read(hard), b"also precious")
        self.assertFalse(os.path.islink(os.path.join(self.path, "linked.mp4")))

    def test_only_dead_writers_temporaries_on_this_host_are_removed(self):
        dead = subprocess.Popen(["true"])
        dead.wait()
        live = subprocess.Popen(["sleep", "60"])
        try:
            made = {}
            for who, pid in (("dead", dead.pid), ("live", live.pid)):
                made[who] = atomic_file.temporary_for(os.path.join(self.path, f"{who}.png"), pid)
                atomic_file.write_file(made[who], who)
            other_host = os.path.join(self.path, ".x.png.~elsewhere~%d~0.partial" % dead.pid)
            atomic_file.write_file(other_host, "another host's")
            atomic_file.write_file(os.path.join(self.path, "plain.png.partial"), "not ours")
            removed = atomic_file.remove_stale_temporaries(self.path)
            self.assertEqual(removed, [made["dead"]])
            self.assertTrue(os.path.exists(made["live"]))
            self.assertTrue(os.path.exists(other_host))
        finally:
            live.kill()
            live.wait()

    def test_names_are_the_engines(self):
        # .NAME.~HOST~PID~SERIALRANDOM.partial, as engine/core/AtomicFile.cpp makes them.
        name = os.path.basename(atomic_file.temporary_for("out/frame_000007.png", 4242))
        self.assertTrue(name.startswith(f".frame_000007.png.~{atomic_file.host_tag()}~4242~"))
        self.assertTrue(name.endswith(".partial"))
        self.assertEqual(atomic_file.parse_temporary(name), (atomic_file.host_tag(), 4242))
        self.assertIsNone(atomic_file.parse_temporary("frame_000007.png.partial"))

    def test_mp4_box_walk(self):
        def box(kind, body=b"", size=None):
            return (size if size is not None else 8 + len(body)).to_bytes(4, "big") + kind + body
        whole = box(b"ftyp", b"isom") + box(b"free") + box(b"mdat", b"x" * 100) + box(b"moov", b"m" * 8)
        cases = {
            whole: None,
            box(b"ftyp", b"isom") + box(b"free") + box(b"mdat", b"x" * 100, 0): "no moov box",
            whole[:-3]: "the moov box at byte 128 claims 16 bytes, 13 are left",
            whole + b"abc": "the box header at byte 144 is cut short",
        }
        for data, problem in cases.items():
            path = os.path.join(self.path, "v.mp4")
            with open(path, "wb") as f:
                f.write(data)
            self.assertEqual(atomic_file.mp4_problem(path), problem)


if __name__ == "__main__":
    unittest.main()
