"""The first launch of a fresh process with a warm disk cache takes the kernel's front-end records
(docs/architecture.md, "Front-end records") instead of parsing and checking it, and every change
that could change the compiled code makes it run the front end again: the kernel's source, an
argument's type, a ConstExpr value, an array's launch facts, an option, a global it reads, a
function it calls, weft's headers. Each case runs fresh processes on the CPU target that share
one cache directory and checks each one's result against NumPy (test_warm_first_call_gpu.py runs
them on the GPU)."""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

import weft._runtime

KERNELS = '''
import os
from weft import cutile as ct

SCALE = float(os.environ.get("WARM_SCALE", "2.0"))


def offset():
    return 0.0


def other_offset():
    return 1.0


@ct.function
def twice(t):
    return t * SCALE + offset()


@ct.kernel
def scale_rows(x, out, n: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, n))
    ct.store(out, index=(row, 0), tile=twice(t))


def make_scaler(factor):
    @ct.kernel
    def scale_rows(x, out, n: ct.Constant[int]):
        row = ct.bid(0)
        ct.store(out, index=(row, 0), tile=ct.load(x, index=(row, 0), shape=(1, n)) * factor)

    return scale_rows
'''

# The child: launches scale_rows on seeded data as $WARM_CASE says and prints what it computed,
# what NumPy computes, and how often the kernel ran the front end.
CHILD = '''
import json, os, sys
import numpy as np
from weft import cutile as ct
sys.path.insert(0, os.environ["WARM_DIR"])
import kernels
if os.environ.get("WARM_REBIND"):
    kernels.offset = kernels.other_offset  # what sema reads of `offset` is now another function
scale = float(os.environ.get("WARM_SCALE", "2.0"))
closure = bool(os.environ.get("WARM_CLOSURE"))
kernel = kernels.make_scaler(scale) if closure else kernels.scale_rows
case = os.environ.get("WARM_CASE", "")
dtype = np.float64 if case == "float64" else np.float32
n = 32 if case == "constexpr" else 16
x = np.random.default_rng(7).random((4, 64), dtype=np.float64).astype(dtype)
out = np.zeros_like(x)
if case == "strided":  # inner stride 2: no unit-stride fact
    x, out = x[:, ::2], out[:, ::2]
if os.environ["WEFT_TARGET"] == "gpu":
    import weft
    device_out = weft.to_device(out)
    ct.launch(None, (4,), kernel, (weft.to_device(x), device_out, n))
    out = device_out.copy_to_host()
else:
    ct.launch(None, (4,), kernel, (x, out, n))
offset = 0.0 if closure else 1.0 if os.environ.get("WARM_REBIND") else kernels.offset()
expected = np.zeros_like(out)
expected[:, :n] = x[:, :n] * scale + offset
print(json.dumps({"ok": bool(np.allclose(out, expected)), "front_end_runs": kernel._front_end_runs}))
'''


@pytest.fixture(scope="module")
def target():
    return "cpu"


@pytest.fixture
def warm(tmp_path, target):
    """run(**environment) runs the child in a fresh process on `target`, with the kernels' file,
    the disk cache and any environment variables given; returns its JSON result."""
    (tmp_path / "kernels.py").write_text(KERNELS)
    cache = tmp_path / "cache"

    def run(**variables):
        env = dict(os.environ, WEFT_TARGET=target, WEFT_CACHE_DIR=str(cache), WARM_DIR=str(tmp_path))
        env.update(variables)
        proc = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1])

    run.directory = tmp_path
    return run


def test_warm_first_call_runs_no_front_end(warm):
    cold = warm()
    assert cold == {"ok": True, "front_end_runs": 2}  # the parameters' description, the specialization
    assert warm() == {"ok": True, "front_end_runs": 0}


@pytest.mark.parametrize(
    "change",
    [
        {"WARM_CASE": "float64"},  # an argument's type
        {"WARM_CASE": "constexpr"},  # a ConstExpr value
        {"WARM_CASE": "strided"},  # an array's launch facts
        {"WEFT_DEBUG": "1"},  # an option
    ],
    ids=["argument-type", "constexpr", "launch-facts", "option"],
)
def test_a_new_specialization_runs_the_front_end(warm, change):
    warm()
    assert warm(**change) == {"ok": True, "front_end_runs": 1}  # the description still holds
    assert warm(**change) == {"ok": True, "front_end_runs": 0}


def test_a_changed_global_runs_the_front_end(warm):
    warm()
    # The file is the same; the constant sema baked in is not.
    assert warm(WARM_SCALE="3.0") == {"ok": True, "front_end_runs": 1}
    assert warm(WARM_SCALE="3.0") == {"ok": True, "front_end_runs": 0}
    # One record per key: the last value's, which the first no longer matches.
    assert warm() == {"ok": True, "front_end_runs": 1}


def test_a_rebound_function_runs_the_front_end(warm):
    warm()
    assert warm(WARM_REBIND="1") == {"ok": True, "front_end_runs": 1}


def test_an_edited_source_runs_the_front_end(warm):
    warm()
    path = warm.directory / "kernels.py"
    path.write_text(path.read_text().replace("return 0.0", "return 0.0 + 0.0"))
    assert warm() == {"ok": True, "front_end_runs": 2}
    path.write_text(KERNELS.replace("t * SCALE", "t * SCALE * 1.0"))
    assert warm() == {"ok": True, "front_end_runs": 2}


def test_a_closure_keeps_no_record(warm):
    # What it captures is not in the key, and a fresh process cannot compare it.
    assert warm(WARM_CLOSURE="1") == {"ok": True, "front_end_runs": 2}
    assert warm(WARM_CLOSURE="1", WARM_SCALE="3.0") == {"ok": True, "front_end_runs": 2}


def test_a_function_of_another_module_keeps_no_record(warm):
    # A callee defined in another file: its text is not in the key, so every process checks.
    helper = warm.directory / "helper.py"
    helper.write_text("def offset():\n    return 0.0\n")
    path = warm.directory / "kernels.py"
    path.write_text(KERNELS.replace("def offset():\n    return 0.0\n", "from helper import offset\n"))
    assert warm() == {"ok": True, "front_end_runs": 2}
    assert warm() == {"ok": True, "front_end_runs": 1}  # the description has a record
    helper.write_text("def offset():\n    return 1.0\n")
    assert warm() == {"ok": True, "front_end_runs": 1}


def test_changed_headers_run_the_front_end(warm):
    warm()
    headers = warm.directory / "include"
    shutil.copytree(weft._runtime.include_dir(), headers)
    with open(headers / "weft" / "tiles" / "tiles.h", "a") as header:
        header.write("\n// another build\n")
    assert warm(WEFT_INCLUDE_DIR=str(headers)) == {"ok": True, "front_end_runs": 2}
    assert warm(WEFT_INCLUDE_DIR=str(headers)) == {"ok": True, "front_end_runs": 0}


def test_a_damaged_record_runs_the_front_end(warm):
    warm()
    for record in (warm.directory / "cache").glob("frontend-*"):
        data = bytearray(record.read_bytes())
        data[-1] ^= 0xFF
        record.write_bytes(bytes(data))
    assert warm() == {"ok": True, "front_end_runs": 2}
