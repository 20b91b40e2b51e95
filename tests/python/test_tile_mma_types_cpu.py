"""mma of every tensor-core operand type in tile code: the K loops that sema pipelines
(include/weft/tiles/mma_pipeline.h) for float16, bfloat16, int8, uint8 and float64 operands, on the
CPU target against NumPy on seeded random data with edge tiles, and bit for bit against the same
loop kept as written. test_tile_mma_types_gpu.py runs them again on the GPU, where the pipelined
loop is the cp.async path."""

import ml_dtypes
import numpy as np
import pytest

from weft import cutile as cu
from test_tiles_cpu import run_tiles


@pytest.fixture(scope="module")
def target():
    return "cpu"


# The K loop sema pipelines (the accumulator starts from c, so its type is c's), and the same
# loop kept as written because the loop variable is read after it.
@cu.kernel
def mma_piped(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    acc = cu.load(c, (cu.bid(0), cu.bid(1)), (tm, tn))
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)), cu.load(b, (k, cu.bid(1)), (tk, tn)), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)


@cu.kernel
def mma_plain(a, b, c, last, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    acc = cu.load(c, (cu.bid(0), cu.bid(1)), (tm, tn))
    k = -1
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)), cu.load(b, (k, cu.bid(1)), (tk, tn)), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)
    last[cu.bid(0), cu.bid(1)] = k


def operands(rng, dtype, shape):
    if dtype == np.int8:
        return rng.integers(-128, 128, shape).astype(np.int8)
    if dtype == np.uint8:
        return rng.integers(0, 256, shape).astype(np.uint8)
    return rng.standard_normal(shape).astype(dtype)


ACCUMULATOR = {np.float16: np.float32, ml_dtypes.bfloat16: np.float32, np.int8: np.int32, np.uint8: np.int32,
               np.float64: np.float64}


def run_k_loop(target, rng, dtype, m, n, k, tiles):
    """Runs mma_piped and mma_plain on the same data; returns both results, NumPy's and the
    accumulators' start."""
    tm, tn, tk = tiles
    a, b = operands(rng, dtype, (m, k)), operands(rng, dtype, (k, n))
    acc = ACCUMULATOR[dtype]
    start = (rng.integers(-1000, 1000, (m, n)) if acc == np.int32 else rng.standard_normal((m, n))).astype(acc)
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
    piped, plain = start.copy(), start.copy()
    run_tiles(target, mma_piped, a, b, piped, tm, tn, tk, grid=grid)
    run_tiles(target, mma_plain, a, b, plain, np.zeros(grid, np.int32), tm, tn, tk, grid=grid)
    if acc == np.int32:
        # int32 accumulation wraps: NumPy's int64 products summed, then wrapped.
        want = (start.astype(np.int64) + a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)
    else:
        want = start.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    return piped, plain, want


@pytest.mark.parametrize("dtype, m, n, k, tiles", [
    (np.int8, 200, 136, 200, (64, 64, 64)),
    (np.int8, 64, 64, 64, (64, 64, 32)),
    (np.uint8, 130, 64, 96, (64, 64, 64)),
    (np.float64, 100, 72, 50, (32, 32, 16)),
    (np.float64, 64, 64, 64, (64, 64, 8)),
    (np.float16, 96, 80, 72, (64, 64, 32)),
])
def test_pipelined_k_loops_of_every_type(target, rng, dtype, m, n, k, tiles):
    piped, plain, want = run_k_loop(target, rng, dtype, m, n, k, tiles)
    if piped.dtype == np.int32:
        np.testing.assert_array_equal(piped, want)
    else:
        tolerance = 1e-12 if dtype == np.float64 else 1e-3
        np.testing.assert_allclose(piped, want, rtol=tolerance, atol=tolerance * np.sqrt(k))
    # The same products in the same order: the same bits.
    np.testing.assert_array_equal(piped.view(np.uint8), plain.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.float64])
def test_k_loops_of_these_types_are_pipelined(dtype):
    a, b = np.zeros((64, 64), dtype), np.zeros((64, 64), dtype)
    c = np.zeros((64, 64), ACCUMULATOR[dtype])
    assert "mma_pipeline_arrays<" in mma_piped._emit_cuda(a, b, c, 64, 64, 32, target="cpu")
    assert "mma_pipeline_arrays<" not in mma_plain._emit_cuda(a, b, c, np.zeros((1, 1), np.int32), 64, 64, 32,
                                                              target="cpu")
