"""The files the package and its benchmark write follow the engine's write rule
(python/tandem/_atomic.py): tandem.trace().save(), tandem.merge_traces(out_path=...) and
scripts/bench-rasterize.py's results. A link planted at the old fixed temporary (NAME.partial)
is neither followed nor destroyed, an existing file is kept unless overwrite is asked, and a
write that fails leaves nothing behind. No device is used."""
import importlib.util
import json
import os
import tempfile
import unittest

import tandem

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def bench_rasterize():
    """scripts/bench-rasterize.py as a module (its main() is not run)."""
    spec = importlib.util.spec_from_file_location(
        "bench_rasterize", os.path.join(ROOT, "scripts", "bench-rasterize.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def finished_trace(events):
    """A tandem.trace() as its `with` block leaves it."""
    spans = tandem.trace()
    spans.events = events
    return spans


# Each writer as write(path, data, overwrite): what it writes is `data` as JSON.
def save_trace(path, data, overwrite):
    finished_trace(data).save(path, overwrite=overwrite)


def merge(path, data, overwrite):
    # A PyTorch trace with one clock marker paired with tandem's: the merge adds the alignment.
    torch_trace = {"traceEvents": [{"name": "tandem.clock_sync", "ph": "X", "ts": 1000.0,
                                    "dur": 2.0, "pid": 1, "tid": 1}]}
    tandem_trace = dict(data, tandem_clock_markers_ms=[1.0])
    tandem.merge_traces(torch_trace, tandem_trace, path, overwrite=overwrite)


def save_bench(path, data, overwrite):
    bench_rasterize().save(path, data, overwrite)


WRITERS = {"trace.save": save_trace, "merge_traces": merge, "bench-rasterize": save_bench}


def read(path):
    with open(path, "rb") as f:
        return f.read()


def run(label, args=None):
    """Trace data with one event named `label` (and `args`, which may not be JSON)."""
    return {"traceEvents": [{"name": label, "ph": "X", "ts": 0.0, "dur": 1.0, "pid": 0, "tid": 0,
                             "args": args or {}}]}


def names(path):
    """The names of the events in the JSON trace at `path`."""
    return [event["name"] for event in json.loads(read(path))["traceEvents"]]


class Writers(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def test_links_at_the_old_temporary_name_are_neither_followed_nor_destroyed(self):
        for name, write in WRITERS.items():
            with self.subTest(writer=name):
                folder = os.path.join(self.path, name)
                os.mkdir(folder)
                precious, hard = os.path.join(folder, "precious"), os.path.join(folder, "hard")
                for path in (precious, hard):
                    with open(path, "wb") as f:
                        f.write(b"precious")
                out, other = os.path.join(folder, "t.json"), os.path.join(folder, "u.json")
                os.symlink(precious, out + ".partial")
                os.link(hard, other + ".partial")
                write(out, run("t"), False)
                write(other, run("u"), False)
                self.assertEqual(read(precious), b"precious", "the symlink's target was written")
                self.assertEqual(read(hard), b"precious", "the hard link's file was written")
                self.assertEqual(os.stat(hard).st_nlink, 2, "the hard link was destroyed")
                self.assertTrue(os.path.islink(out + ".partial"))
                self.assertIn("t", names(out))
                self.assertIn("u", names(other))
                self.assertFalse(os.path.islink(out))
                self.assertEqual(sorted(os.listdir(folder)),
                                 ["hard", "precious", "t.json", "t.json.partial", "u.json",
                                  "u.json.partial"])

    def test_an_existing_file_is_kept_unless_overwrite_is_asked(self):
        for name, write in WRITERS.items():
            with self.subTest(writer=name):
                out = os.path.join(self.path, name + ".json")
                with open(out, "wb") as f:
                    f.write(b"an earlier run's")
                with self.assertRaises(FileExistsError):
                    write(out, run("run 2"), False)
                self.assertEqual(read(out), b"an earlier run's")
                write(out, run("run 3"), True)
                self.assertIn("run 3", names(out))
        self.assertEqual(sorted(os.listdir(self.path)),
                         sorted(name + ".json" for name in WRITERS))

    def test_a_failed_write_leaves_nothing(self):
        for name, write in WRITERS.items():
            with self.subTest(writer=name):
                out = os.path.join(self.path, name + ".json")
                with self.assertRaises(TypeError):
                    write(out, run("broken", {"not json": object()}), False)
                self.assertEqual(os.listdir(self.path), [], "a file or temporary was left")


if __name__ == "__main__":
    unittest.main()
