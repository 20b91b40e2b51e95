"""Floating-point control on the CPU target (docs/cpu.md): loading a kernel, fastmath=True or not,
leaves the process's floating-point environment as it was (the launching thread's, and that of
threads it creates later), and a kernel's threads run with the kernel's own: IEEE 754's defaults,
or with fastmath=True subnormals flushed to zero as --use_fast_math flushes float32 ones on the GPU.
Checked against NumPy on seeded random data; the process-wide checks run in a child process, whose
environment no earlier test has touched.

test_float_control_gpu.py runs the kernel tests on the GPU by overriding the `target` fixture.
"""

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cuda import device
from launching import run


@pytest.fixture(scope="module")
def target():
    return "cpu"


def keeps_subnormals():
    """Whether arithmetic in the calling thread keeps subnormals (NumPy's float32 and Python's float)."""
    return bool(np.float32(1e-40) * np.float32(1) != 0) and 5e-324 * 1.0 != 0


# ---- a child process: the launching thread, and a thread it creates afterwards ----

CHILD = """
import ctypes, platform, sys, threading
import numpy as np
import weft
from cuda import device

@device.kernel(fastmath=True)
def halve(x, out):
    i = device.tid(1)
    if i < x.size:
        out[i] = x[i] * 0.5

def state():
    # Whether arithmetic keeps subnormals, and on x86-64 the FTZ and DAZ bits of MXCSR.
    kept = bool(np.float32(1e-40) * np.float32(1) != 0) and 5e-324 * 1.0 != 0
    bits = 0
    if platform.machine() == "x86_64":
        env = ctypes.create_string_buffer(32)  # glibc's fenv_t: the x87 environment, then MXCSR
        ctypes.CDLL("libm.so.6").fegetenv(env)
        bits = int.from_bytes(env.raw[28:32], "little") & 0x8040
    return kept, bits

def in_new_thread():
    result = []
    thread = threading.Thread(target=lambda: result.append(state()))
    thread.start()
    thread.join()
    return result[0]

x = np.random.default_rng(int(sys.argv[1])).uniform(-4, 4, 1000).astype(np.float32)
out = np.zeros_like(x)
before = [state(), in_new_thread()]
weft.launch(halve, x, out, grid=8, block=128, target="cpu")
after = [state(), in_new_thread()]
assert np.array_equal(out, x * np.float32(0.5)), "wrong results"
print(before, after)
assert before == after == [(True, 0), (True, 0)], (before, after)
"""


@pytest.mark.parametrize("cached", [False, True], ids=["compiled", "from the disk cache"])
def test_loading_a_fastmath_kernel_leaves_the_process_floating_point_alone(tmp_path, rng, cached):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(CHILD))
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(__file__).parent), WEFT_CACHE_DIR=str(tmp_path / "cache"))
    seed = int(rng.integers(1 << 30))
    runs = 2 if cached else 1  # the second run loads the shared object the first one stored
    for _ in range(runs):
        result = subprocess.run([sys.executable, str(script), str(seed)], capture_output=True, text=True,
                                timeout=240, env=env)
        assert result.returncode == 0, result.stdout + result.stderr


# ---- the kernel's threads: IEEE 754 defaults, or subnormals flushed with fastmath=True ----


@device.kernel(fastmath=True)
def fast_products(x, y, out, x64, y64, out64):
    i = device.tid(1)
    if i < x.size:
        out[i] = x[i] * y[i]
        out64[i] = x64[i] * y64[i]


@device.kernel
def exact_products(x, y, out, x64, y64, out64):
    i = device.tid(1)
    if i < x.size:
        out[i] = x[i] * y[i]
        out64[i] = x64[i] * y64[i]


def product_data(rng, n):
    """Operands whose products are normal for a third of the elements, subnormal for a third, and
    whose first operand is subnormal for the rest (float32 and float64)."""
    kind = rng.integers(0, 3, n)
    x = rng.uniform(1, 2, n) * np.where(kind == 0, 1.0, np.where(kind == 1, 1e-20, 1e-40))
    y = rng.uniform(1, 2, n) * np.where(kind == 1, 1e-20, 1.0)
    x64 = rng.uniform(1, 2, n) * np.where(kind == 0, 1.0, np.where(kind == 1, 1e-160, 1e-310))
    y64 = rng.uniform(1, 2, n) * np.where(kind == 1, 1e-160, 1.0)
    return kind, x.astype(np.float32), y.astype(np.float32), x64, y64


def launch_products(target, kernel, x, y, x64, y64):
    out = np.full_like(x, np.nan)
    out64 = np.full_like(x64, np.nan)
    run(target, kernel, x, y, out, x64, y64, out64, grid=(x.size + 127) // 128, block=128)
    return out, out64


def test_fastmath_kernels_flush_subnormals_and_others_keep_them(target, rng):
    n = 3000
    kind, x, y, x64, y64 = product_data(rng, n)
    normal = kind == 0
    exact, exact64 = x * y, x64 * y64
    assert (exact[~normal] != 0).all() and (np.abs(exact[~normal]) < np.finfo(np.float32).tiny).all()
    # Exact, fast, then exact again: the blocks of the last launch run on the threads and stacks
    # the fastmath launch ran on.
    for kernel in (exact_products, fast_products, exact_products):
        out, out64 = launch_products(target, kernel, x, y, x64, y64)
        if kernel is exact_products:
            np.testing.assert_array_equal(out, exact)
            np.testing.assert_array_equal(out64, exact64)
            continue
        np.testing.assert_allclose(out[normal], exact[normal], rtol=1e-6)
        assert (out[~normal] == 0).all()
        np.testing.assert_allclose(out64[normal], exact64[normal], rtol=1e-15)
        # One flush-to-zero bit covers every precision on the CPU; the GPU flushes float32 only.
        if target == "cpu":
            assert (out64[~normal] == 0).all()
        else:
            np.testing.assert_array_equal(out64[~normal], exact64[~normal])
    assert keeps_subnormals()
