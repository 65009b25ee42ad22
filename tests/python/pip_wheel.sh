#!/usr/bin/env bash
# The package installs the way Python users expect: `pip wheel ./python` (offline: no build
# isolation) builds a wheel from an existing build folder, pip installs it into a fresh target,
# and from elsewhere it imports with its own shaders and rasterizes.
# Usage: pip_wheel.sh PYTHON BUILD_DIR WORK_DIR
set -euo pipefail
python=$1 build=$2 work=$3
source_dir="$(cd "$(dirname "$0")/../.." && pwd)"
rm -rf "$work" && mkdir -p "$work"
TANDEM_BUILD_DIR="$build" "$python" -m pip wheel -q --no-build-isolation --no-deps \
    -w "$work/wheels" "$source_dir/python"
wheel=$(ls "$work"/wheels/tandem-*.whl)
"$python" -m pip install -q --no-deps --target "$work/site" "$wheel" 2>&1 | grep -v "as the 'root' user" || true
cd "$work"
env -u TANDEM_DATA_DIR PYTHONPATH="$work/site" "$python" - "$work/site" <<'PY'
import os, sys, torch, tandem
site = sys.argv[1]
assert tandem.__file__.startswith(site), tandem.__file__
assert os.environ["TANDEM_DATA_DIR"] == os.path.join(site, "tandem"), os.environ["TANDEM_DATA_DIR"]
assert os.path.isfile(os.path.join(site, "tandem", "shaders", "render", "ClipResolve.comp.glsl"))
rast = tandem.rasterize(torch.tensor([[-1., -1, 0, 1], [1, -1, 0, 1], [-1, 1, 0, 1]]),
                        torch.tensor([[0, 1, 2]], dtype=torch.int32), (4, 4))
assert rast[0, 0, 0, 3] == 1 and rast[0, 3, 3, 3] == 0, rast[..., 3]
# The write rule travels with the package (tandem/_atomic.py, which scripts load from the tree).
spans = tandem.trace()
spans.events = {"traceEvents": []}
spans.save("trace.json")
with open("trace.json") as f:
    assert f.read() == '{"traceEvents": []}'
print("ok: the wheel installs, imports, rasterizes with its own shaders and writes a trace")
PY
