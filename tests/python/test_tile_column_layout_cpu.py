"""Masks of an mma accumulator built from iotas (sema's markTileLayouts: a local computed
element-wise from ct.arange and scalars takes the row or column layout its broadcasts against an
accumulator demand, and the iota computes each thread's own indices there; docs/tiles.md "How
mma runs"), on the CPU target against NumPy on seeded random data: where(cols < limit, s, ...)
and the causal where(cols <= rows, s, ...) as the attention loop writes them, causal and not, over
a grid of blocks whose shapes do not divide the arrays, the iotas inline and through chains of
locals, a column local also stored and used against a loaded tile (a wrong guess costs a
conversion, never a value), and one broadcast against two accumulators of different rows. The
generated code declares the layouts the pass decides, and compiled for sm_90a the attention
loop's masks add no barrier. test_tile_column_layout_gpu.py runs the kernels again on the GPU."""

import re
import subprocess

import ml_dtypes
import numpy as np
import pytest

from weft import cutile as ct
from test_sm90_ptxas import CUDA, PTXAS, weftc_path
from test_tile_attention_cpu import annotated_example
from test_tiles_cpu import run_tiles


@pytest.fixture(scope="module")
def target():
    return "cpu"


@ct.kernel
def masked_scores(a, b, out, limit: int, shift: int, causal: ct.Constant[bool], m: ct.Constant[int],
                  n: ct.Constant[int], k: ct.Constant[int]):
    # Block (i, j) of s = a @ b, masked past column `limit` and, when causal, after the diagonal
    # moved by `shift` columns.
    i = ct.bid(0)
    j = ct.bid(1)
    rows = ct.reshape(i * m + ct.arange(m), (m, 1))
    s = ct.mma(ct.load(a, (i, 0), (m, k)), ct.load(b, (0, j), (k, n)), ct.zeros((m, n), dtype=ct.float32))
    cols = ct.reshape(j * n + ct.arange(n), (1, n))
    s = ct.where(cols < limit, s, -1e30)
    if causal:
        s = ct.where(cols <= rows + shift, s, -1e30)
    ct.store(out, (i, j), s)


@ct.kernel
def inline_and_chained(a, b, out, limit: int, m: ct.Constant[int], n: ct.Constant[int], k: ct.Constant[int]):
    # The column iota inline in the mask; the row indices through a chain of locals.
    i = ct.bid(0)
    s = ct.mma(ct.load(a, (i, 0), (m, k)), ct.load(b, (0, 0), (k, n)), ct.zeros((m, n), dtype=ct.float32))
    base = ct.arange(m) + i * m
    rows = ct.reshape(base, (m, 1))
    s = ct.where(ct.reshape(ct.arange(n), (1, n)) < limit, s, 0.0)
    s = ct.where(rows % 3 == 0, -s, s)
    ct.store(out, (i, 0), s)


@ct.kernel
def columns_used_elsewhere(a, b, a2, out, out2, col_out, other, limit: int, m: ct.Constant[int],
                           m2: ct.Constant[int], n: ct.Constant[int], k: ct.Constant[int]):
    # cols is broadcast against two accumulators of different rows (the demands conflict) and
    # also stored and added to a loaded tile; within is broadcast against one and stored.
    s = ct.mma(ct.load(a, (0, 0), (m, k)), ct.load(b, (0, 0), (k, n)), ct.zeros((m, n), dtype=ct.float32))
    s2 = ct.mma(ct.load(a2, (0, 0), (m2, k)), ct.load(b, (0, 0), (k, n)), ct.zeros((m2, n), dtype=ct.float32))
    cols = ct.reshape(ct.arange(n), (1, n))
    within = ct.reshape(ct.arange(n) < limit, (1, n))
    ct.store(out, (0, 0), ct.where(cols < limit, s, 0.0))
    ct.store(out2, (0, 0), ct.where(cols >= limit, s2, 0.0))
    ct.store(col_out, (0, 0), ct.where(within, cols, -1))
    ct.store(other, (0, 0), ct.load(other, (0, 0), (1, n)) + cols)


def operands(rng, dtype, *shapes):
    return [rng.standard_normal(shape).astype(dtype) for shape in shapes]


def product(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("m, n, k, rows, columns", [(64, 64, 32, 150, 200), (32, 16, 16, 70, 37), (16, 64, 32, 40, 130)])
def test_masks_of_an_accumulator(target, rng, dtype, causal, m, n, k, rows, columns):
    a, b = operands(rng, dtype, (rows, k), (k, columns))
    limit = int(rng.integers(1, columns))
    shift = int(rng.integers(-m, n))
    out = np.full((rows, columns), np.nan, dtype=np.float32)
    grid = ((rows + m - 1) // m, (columns + n - 1) // n, 1)
    run_tiles(target, masked_scores, a, b, out, limit, shift, causal, m, n, k, grid=grid)
    i, j = np.arange(rows)[:, None], np.arange(columns)[None, :]
    keep = (j < limit) & ((j <= i + shift) if causal else True)
    want = np.where(keep, product(a, b), -1e30)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("m, n, k", [(64, 64, 32), (32, 128, 16), (16, 32, 64)])
def test_inline_iota_and_chained_locals(target, rng, m, n, k):
    a, b = operands(rng, ml_dtypes.bfloat16, (3 * m, k), (k, n))
    limit = int(rng.integers(1, n))
    out = np.full((3 * m, n), np.nan, dtype=np.float32)
    run_tiles(target, inline_and_chained, a, b, out, limit, m, n, k, grid=(3, 1, 1))
    s = np.where(np.arange(n)[None, :] < limit, product(a, b), 0.0)
    want = np.where(np.arange(3 * m)[:, None] % 3 == 0, -s, s)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("m, n, k", [(64, 64, 32), (32, 16, 16)])
def test_a_column_local_used_elsewhere(target, rng, m, n, k):
    a, b, a2 = operands(rng, np.float16, (m, k), (k, n), (2 * m, k))
    limit = int(rng.integers(1, n))
    out = np.full((m, n), np.nan, dtype=np.float32)
    out2 = np.full((2 * m, n), np.nan, dtype=np.float32)
    col_out = np.full((1, n), 99, dtype=np.int32)
    other = rng.integers(-100, 100, (1, n)).astype(np.int32)
    start = other.copy()
    run_tiles(target, columns_used_elsewhere, a, b, a2, out, out2, col_out, other, limit, m, 2 * m, n, k,
              grid=(1, 1, 1))
    j = np.arange(n)[None, :]
    np.testing.assert_allclose(out, np.where(j < limit, product(a, b), 0.0), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(out2, np.where(j >= limit, product(a2, b), 0.0), rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(col_out, np.where(j < limit, j, -1))
    np.testing.assert_array_equal(other, start + j)


# ---- compiled for sm_90a ----

needs_toolkit = pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")


def generated_cuda(tmp_path, source):
    path = tmp_path / "kernel.py"
    path.write_text(source)
    cuda = subprocess.run([weftc_path(), str(path), "--emit-cuda"], capture_output=True, text=True, timeout=300)
    assert cuda.returncode == 0, cuda.stderr
    return cuda.stdout


def declarations(code):
    """Each local's declaration line in generated code, by its Python name."""
    return {name: line for line in code.splitlines() for name in re.findall(r"\bv_([a-z_]+)_\d+\{\};", line)}


@needs_toolkit
def test_the_attention_masks_are_declared_in_the_scores_layouts(tmp_path):
    code = generated_cuda(tmp_path, annotated_example("bfloat16", True, 64, 64, 128))
    declared = declarations(code)
    assert "accumulator_columns_t<weft::tiles::tile<int64_t, weft::tiles::shape<1u, 64u>>" in declared["cols"]
    assert "accumulator_rows_t<weft::tiles::tile<int32_t, weft::tiles::shape<64u, 1u>>" in declared["rows"]
    # Both iotas compute each thread's own indices in those layouts.
    assert "weft::tiles::iota<weft::tiles::accumulator_columns_t<weft::tiles::tile<int32_t, weft::tiles::shape<64u>>" in code
    assert "weft::tiles::iota<weft::tiles::accumulator_rows_t<weft::tiles::tile<int32_t, weft::tiles::shape<64u>>" in code


def loop_barriers(ptx):
    """The barriers (bar.sync) of the smallest loop (a label and a branch back to it) that holds
    every mma.sync of the kernel: the attention's key loop, counted in the PTX, whatever branches
    of it run."""
    lines = ptx.splitlines()
    labels = {match.group(1): i for i, line in enumerate(lines) if (match := re.match(r"^(\$L__\w+):", line))}
    products = [i for i, line in enumerate(lines) if "mma.sync" in line]
    loops = []
    for i, line in enumerate(lines):
        branch = re.search(r"\bbra(?:\.uni)?\s+(\$L__\w+);", line)
        if branch and labels.get(branch.group(1), i) < products[0] and i > products[-1]:
            loops.append((labels[branch.group(1)], i))
    start, end = min(loops, key=lambda loop: loop[1] - loop[0])
    return sum(1 for line in lines[start:end] if re.search(r"\b(bar|barrier)\.sync\b", line))


def attention_ptx(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    ptx = tmp_path / f"{name}.ptx"
    proc = subprocess.run([weftc_path(), str(path), "--ptx", "-arch", "sm_90a", "-o", str(ptx)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    if PTXAS.exists():
        proc = subprocess.run([str(PTXAS), "-arch=sm_90a", str(ptx), "-o", str(tmp_path / f"{name}.cubin")],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
    return ptx.read_text()


@needs_toolkit
def test_the_attention_masks_add_no_barrier(tmp_path):
    # The key loop's barriers with the masks (causal and not) and without any: the same. Before
    # the column layout the masks' broadcasts went through shared memory: 15 barriers in the loop
    # with causal=True, 9 without, 7 with no masks (one per step on the path the prefetch ring
    # runs, six in the branch that reads a stage without the ring).
    source = annotated_example("bfloat16", True, 64, 64, 128)
    unmasked, count = re.subn(r"s = ct\.where\(.*?\)\n", "s = s\n", source)
    assert count == 2, "examples/tile_attention.py no longer masks s with two ct.where"
    causal = loop_barriers(attention_ptx(tmp_path, "causal", source))
    full = loop_barriers(attention_ptx(tmp_path, "full", annotated_example("bfloat16", False, 64, 64, 128)))
    none = loop_barriers(attention_ptx(tmp_path, "none", unmasked))
    assert causal == full == none, (causal, full, none)
