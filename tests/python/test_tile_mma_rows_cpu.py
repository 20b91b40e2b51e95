"""Tile code whose variables hold values computed from an mma accumulator (sema's markTileLayouts:
the accumulator's layout, or its row layout for reductions of its rows; docs/tiles.md "How mma
runs"), on the CPU target against NumPy on seeded random data: a row softmax of a product
carried through variables, row statistics kept across loop steps, a variable assigned both an
accumulator's value and a blocked one (it keeps the default layout), a column mask and a row
vector broadcast into the accumulator's layout, and the rows of one accumulator scaling another
of other columns. The same kernels compile for sm_90 through NVRTC and ptxas, with the layouts
declared as the pass decides. test_tile_mma_rows_gpu.py runs them again on the GPU."""

import math
import pathlib
import re
import subprocess

import ml_dtypes
import numpy as np
import pytest

from weft import cutile as ct
from test_sm90_ptxas import CUDA, compile_for_sm90, weftc_path
from test_tiles_cpu import run_tiles


@pytest.fixture(scope="module")
def target():
    return "cpu"


@ct.kernel
def softmax_of_product(a, b, out, rowmax, m: ct.Constant[int], n: ct.Constant[int], k: ct.Constant[int]):
    i = ct.bid(0)
    s = ct.mma(ct.load(a, (i, 0), (m, k)), ct.load(b, (0, 0), (k, n)), ct.zeros((m, n), dtype=ct.float32))
    top = ct.max(s, axis=1, keepdims=True)
    e = ct.exp(s - top)
    total = ct.sum(e, axis=1, keepdims=True)
    ct.store(out, (i, 0), e / total)
    ct.store(rowmax, (i, 0), top)


@ct.kernel
def running_rows(a, b, c, out, stats, m: ct.Constant[int], n: ct.Constant[int], k: ct.Constant[int],
                 n2: ct.Constant[int], steps: ct.Constant[int], limit: int):
    # Over `steps` column blocks of b: the running row maximum of s = a @ b_j (masked past column
    # `limit`) and acc = acc * exp(max_old - max_new) + exp(s - max_new) @ c_j, as attention's
    # loop runs; `mixed` is assigned an accumulator's value and a loaded (blocked) one.
    x = ct.load(a, (0, 0), (m, k))
    top = ct.full((m, 1), -math.inf, dtype=ct.float32)
    acc = ct.zeros((m, n2), dtype=ct.float32)
    mixed = ct.load(stats, (0, 0), (m, n)) * 0.0
    for j in range(steps):
        s = ct.mma(x, ct.load(b, (0, j), (k, n)), ct.zeros((m, n), dtype=ct.float32))
        cols = ct.reshape(j * n + ct.arange(n), (1, n))
        s = ct.where(cols < limit, s, -1e30)
        new_top = ct.maximum(top, ct.max(s, axis=1, keepdims=True))
        e = ct.exp(s - new_top)
        acc = ct.mma(e.astype(a.dtype), ct.load(c, (j, 0), (n, n2)), acc * ct.exp(top - new_top))
        top = new_top
        mixed = mixed + e
    ct.store(out, (0, 0), acc)
    ct.store(stats, (0, 0), mixed)


def reference_running_rows(a, b, c, steps, n, limit):
    a64, b64, c64 = (x.astype(np.float64) for x in (a, b, c))
    m, n2 = a.shape[0], c.shape[1]
    top = np.full((m, 1), -np.inf)
    acc = np.zeros((m, n2))
    mixed = np.zeros((m, n))
    for j in range(steps):
        s = a64 @ b64[:, j * n:(j + 1) * n]
        s = np.where(np.arange(j * n, (j + 1) * n)[None, :] < limit, s, -1e30)
        new_top = np.maximum(top, s.max(axis=1, keepdims=True))
        e = np.exp(s - new_top)
        p = e.astype(np.float32).astype(a.dtype).astype(np.float64)
        acc = acc * np.exp(top - new_top) + p @ c64[j * n:(j + 1) * n, :]
        top = new_top
        mixed = mixed + e
    return acc, mixed


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("m, n, k", [(64, 64, 32), (32, 128, 16), (128, 16, 64)])
def test_row_softmax_of_a_product(target, rng, dtype, m, n, k):
    a = rng.standard_normal((2 * m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    out = np.zeros((2 * m, n), dtype=np.float32)
    rowmax = np.zeros((2 * m, 1), dtype=np.float32)
    run_tiles(target, softmax_of_product, a, b, out, rowmax, m, n, k, grid=(2, 1, 1))
    s = a.astype(np.float64) @ b.astype(np.float64)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(rowmax, s.max(axis=1, keepdims=True), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("m, n, k, n2", [(64, 64, 32, 128), (32, 32, 16, 32)])
def test_rows_kept_across_loop_steps(target, rng, m, n, k, n2):
    steps = 3
    limit = int(rng.integers(n + 1, steps * n))
    a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((k, steps * n)).astype(ml_dtypes.bfloat16)
    c = rng.standard_normal((steps * n, n2)).astype(ml_dtypes.bfloat16)
    out = np.zeros((m, n2), dtype=np.float32)
    stats = rng.standard_normal((m, n)).astype(np.float32)
    run_tiles(target, running_rows, a, b, c, out, stats, m, n, k, n2, steps, limit, grid=(1, 1, 1))
    want_acc, want_mixed = reference_running_rows(a, b, c, steps, n, limit)
    # P is rounded to bfloat16 before the second product: the sums carry its 8-bit precision.
    scale = np.abs(want_acc).max()
    np.testing.assert_allclose(out, want_acc, rtol=2e-2, atol=2e-2 * scale)
    np.testing.assert_allclose(stats, want_mixed, rtol=1e-5, atol=1e-3)


# ---- compiled for sm_90 ----

ANNOTATED = """
import math
from weft import cutile as ct

m = 64
n = 64
k = 32
n2 = 128
steps = 3

@ct.kernel
def running_rows(a: ct.bfloat16[:, :], b: ct.bfloat16[:, :], c: ct.bfloat16[:, :], out: ct.float32[:, :],
                 stats: ct.float32[:, :], limit: ct.int32):
"""


def annotated_running_rows():
    """running_rows as written in this file, with annotated parameters and its constants as
    globals (weftc compiles annotated kernels only)."""
    text = pathlib.Path(__file__).read_text()
    body = re.search(r"def running_rows\(.*?\):\n(.*?)\n\n\n", text, flags=re.S).group(1)
    return ANNOTATED + body + "\n"


@pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")
def test_the_layouts_reach_the_generated_code_and_ptxas(tmp_path):
    source = annotated_running_rows()
    path = tmp_path / "rows.py"
    path.write_text(source)
    cuda = subprocess.run([weftc_path(), str(path), "--emit-cuda"], capture_output=True, text=True, timeout=300)
    assert cuda.returncode == 0, cuda.stderr
    declared = {name: line for line in cuda.stdout.splitlines()
                for name in re.findall(r"\bv_([a-z_]+)_\d+\{\};", line)}
    # s (assigned the first product, then masked) and e hold its layout, top and new_top its rows,
    # acc the second's; mixed is also assigned a loaded tile, x is a load: both keep the default
    # layout.
    assert "mma_accumulator_t" in declared["s"] and "accumulator_layout_t" in declared["e"]
    assert "accumulator_rows_t" in declared["top"] and "accumulator_rows_t" in declared["new_top"]
    assert "mma_accumulator_t" in declared["acc"] and "accumulator" not in declared["mixed"]
    assert "accumulator" not in declared["x"]
    # Broadcasts land in the layout the element-wise operation computes in; the zeros of the first
    # product are made in its accumulator's layout.
    assert "weft::tiles::broadcast_lazily<" in cuda.stdout
    assert "weft::tiles::mma(" in cuda.stdout and "weft::tiles::full<weft::tiles::mma_accumulator_t<" in cuda.stdout
    _, ptx = compile_for_sm90(tmp_path, "rows", source)
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx
