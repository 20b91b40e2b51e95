"""Tile kernels (docs/tiles.md) on the CPU target, every operation against NumPy on seeded random
data, in both faces (weft.tiles, the seed's; weft.cutile, cuTile Python's): loads and stores with
edge tiles and every padding, creation, element-wise arithmetic and math, comparisons and where,
shape operations, reductions and scans along every axis, mma/matmul, and the launch rules.

test_tiles_gpu.py runs them again on the GPU (target "gpu")."""

import math
import re

import ml_dtypes
import numpy as np
import pytest

import weft
from weft import cutile as cu
from weft import tiles as ct
from launching import line_of


@pytest.fixture(scope="module")
def target():
    return "cpu"


def run_tiles(target, kernel, *args, grid):
    """Launches the tile kernel on `target` with NumPy arrays (copied to the GPU and back there)."""
    if target == "gpu":
        dev = [weft.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
        weft.launch(kernel, *dev, grid=grid, target="gpu")
        weft.synchronize()
        for a, d in zip(args, dev):
            if isinstance(a, np.ndarray):
                a[...] = d.copy_to_host()
    else:
        weft.launch(kernel, *args, grid=grid, target=target)


# ---- loads, stores, element-wise arithmetic ----


@ct.kernel
def vec_add(a, b, c, n: ct.ConstExpr):
    i = ct.bid(0)
    x = ct.load(a, (i,), (n,))
    y = ct.load(b, (i,), (n,))
    ct.store(c, (i,), x + y)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int8, np.uint16, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("size", [1, 100, 1024, 1500])
def test_vec_add_with_edge_tiles(target, rng, dtype, size):
    tile = 256
    a = (rng.standard_normal(size) * 20).astype(dtype)
    b = (rng.standard_normal(size) * 20).astype(dtype)
    c = np.zeros(size, dtype)
    run_tiles(target, vec_add, a, b, c, tile, grid=(size + tile - 1) // tile)
    np.testing.assert_array_equal(c, (a + b).astype(dtype))


@cu.kernel
def cutile_add_scaled(a, b, c, tile: cu.Constant[int]):
    i = cu.bid(0)
    x = cu.load(a, index=(i,), shape=(tile,))
    y = cu.load(b, index=(i,), shape=(tile,))
    cu.store(c, index=(i,), tile=x * 2 + y)


def test_cutile_face_runs_a_cutile_program(target, rng):
    a = rng.standard_normal(1000).astype(np.float32)
    b = rng.standard_normal(1000).astype(np.float32)
    c = np.zeros(1000, np.float32)
    if target == "gpu":
        dev = [weft.to_device(x) for x in (a, b, c)]
        cu.launch(None, (4,), cutile_add_scaled, (*dev, 256))
        weft.synchronize()
        c = dev[2].copy_to_host()
    else:
        cu.launch(None, (4,), cutile_add_scaled, (a, b, c, 256))
    np.testing.assert_allclose(c, a * 2 + b, rtol=1e-6)


@ct.kernel
def binary_ops(a, b, out, n: ct.ConstExpr):
    x = ct.load(a, (0,), (n,))
    y = ct.load(b, (0,), (n,))
    ct.store(out, (0, 0), ct.reshape(x + y, (1, n)))
    ct.store(out, (1, 0), ct.reshape(x - y, (1, n)))
    ct.store(out, (2, 0), ct.reshape(x * y, (1, n)))
    ct.store(out, (3, 0), ct.reshape(x // y, (1, n)))
    ct.store(out, (4, 0), ct.reshape(x % y, (1, n)))
    ct.store(out, (5, 0), ct.reshape(-x, (1, n)))
    ct.store(out, (6, 0), ct.reshape(ct.maximum(x, y), (1, n)))
    ct.store(out, (7, 0), ct.reshape(ct.minimum(x, y), (1, n)))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_element_wise_operators_follow_python(target, rng, dtype):
    n = 64
    a = (rng.standard_normal(n) * 50).astype(dtype)
    b = (rng.standard_normal(n) * 10).astype(dtype)
    b[b == 0] = 3
    out = np.zeros((8, n), dtype)
    run_tiles(target, binary_ops, a, b, out, n, grid=1)
    expected = [a + b, a - b, a * b, a // b, a % b, -a, np.maximum(a, b), np.minimum(a, b)]
    for row, want in enumerate(expected):
        np.testing.assert_allclose(out[row], want.astype(dtype), rtol=1e-6, err_msg=f"row {row}")


@ct.kernel
def true_divide(a, b, out, n: ct.ConstExpr):
    x = ct.load(a, (0,), (n,))
    y = ct.load(b, (0,), (n,))
    ct.store(out, (0,), x / y)


def test_true_division_of_integer_tiles_gives_floats(target, rng):
    a = rng.integers(-100, 100, 32).astype(np.int32)
    b = rng.integers(1, 9, 32).astype(np.int32)
    out = np.zeros(32, np.float32)
    run_tiles(target, true_divide, a, b, out, 32, grid=1)
    np.testing.assert_allclose(out, (a / b).astype(np.float32), rtol=1e-6)


@ct.kernel
def math_functions(a, out, n: ct.ConstExpr):
    x = ct.load(a, (0,), (n,))
    ct.store(out, (0, 0), ct.reshape(ct.exp(x), (1, n)))
    ct.store(out, (1, 0), ct.reshape(ct.log(ct.abs(x) + 1), (1, n)))
    ct.store(out, (2, 0), ct.reshape(ct.sqrt(ct.abs(x)), (1, n)))
    ct.store(out, (3, 0), ct.reshape(ct.rsqrt(ct.abs(x) + 1), (1, n)))
    ct.store(out, (4, 0), ct.reshape(ct.sin(x), (1, n)))
    ct.store(out, (5, 0), ct.reshape(ct.cos(x), (1, n)))
    ct.store(out, (6, 0), ct.reshape(ct.tanh(x), (1, n)))
    ct.store(out, (7, 0), ct.reshape(ct.exp2(x), (1, n)))
    ct.store(out, (8, 0), ct.reshape(ct.log2(ct.abs(x) + 1), (1, n)))
    ct.store(out, (9, 0), ct.reshape(ct.floor(x), (1, n)))
    ct.store(out, (10, 0), ct.reshape(ct.ceil(x), (1, n)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_math_functions(target, rng, dtype):
    n = 128
    a = (rng.standard_normal(n) * 3).astype(dtype)
    out = np.zeros((11, n), dtype)
    run_tiles(target, math_functions, a, out, n, grid=1)
    expected = [np.exp(a), np.log(np.abs(a) + 1), np.sqrt(np.abs(a)), 1 / np.sqrt(np.abs(a) + 1), np.sin(a), np.cos(a),
                np.tanh(a), np.exp2(a), np.log2(np.abs(a) + 1), np.floor(a), np.ceil(a)]
    for row, want in enumerate(expected):
        np.testing.assert_allclose(out[row], want.astype(dtype), rtol=2e-6 if dtype == np.float32 else 1e-13,
                                   atol=1e-6, err_msg=f"row {row}")


@ct.kernel
def compare_select(a, b, out, n: ct.ConstExpr):
    x = ct.load(a, (0,), (n,))
    y = ct.load(b, (0,), (n,))
    ct.store(out, (0,), ct.where(x < y, x, y * 2))


@ct.kernel
def compare_with_literal(a, out, n: ct.ConstExpr):
    x = ct.load(a, (0,), (n,))
    ct.store(out, (0,), ct.where(2.5 == x, 1, 0))


def test_comparisons_and_where(target, rng):
    a = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    run_tiles(target, compare_select, a, b, out, 64, grid=1)
    np.testing.assert_array_equal(out, np.where(a < b, a, b * 2))
    ints = rng.integers(0, 4, 64).astype(np.int32)
    flags = np.zeros(64, np.int32)
    run_tiles(target, compare_with_literal, ints, flags, 64, grid=1)
    np.testing.assert_array_equal(flags, np.zeros(64, np.int32))


@ct.kernel
def astype_kernel(a, out, n: ct.ConstExpr):
    x = ct.load(a, (0,), (n,))
    ct.store(out, (0,), x.astype(ct.int32))


def test_astype_truncates_toward_zero(target, rng):
    a = (rng.standard_normal(64) * 100).astype(np.float32)
    out = np.zeros(64, np.int32)
    run_tiles(target, astype_kernel, a, out, 64, grid=1)
    np.testing.assert_array_equal(out, np.trunc(a).astype(np.int32))


# ---- padding ----


# Rebound by the test: a global constant a kernel uses is re-checked at every launch.
PADDING = ct.padding_zero


@ct.kernel
def padded_load(a, out):
    x = ct.load(a, (0,), (16,), padding=PADDING)
    ct.store(out, (0,), x)


@pytest.mark.parametrize("padding, value", [("zero", 0.0), ("-0", -0.0), ("+inf", np.inf), ("-inf", -np.inf),
                                            ("nan", np.nan)])
def test_every_padding_mode(target, rng, padding, value):
    global PADDING
    PADDING = padding
    a = rng.standard_normal(10).astype(np.float32)
    out = np.zeros(16, np.float32)
    run_tiles(target, padded_load, a, out, grid=1)
    np.testing.assert_array_equal(out[:10], a)
    np.testing.assert_array_equal(out[10:], np.full(6, value, np.float32))
    if padding == "-0":
        assert np.all(np.signbit(out[10:]))


@cu.kernel
def cutile_padding(a, out):
    x = cu.load(a, (0,), (16,), padding_mode=cu.PaddingMode.NEG_INF)
    cu.store(out, (0,), x)


def test_cutile_padding_mode(target, rng):
    a = rng.standard_normal(5).astype(np.float32)
    out = np.zeros(16, np.float32)
    run_tiles(target, cutile_padding, a, out, grid=1)
    np.testing.assert_array_equal(out[:5], a)
    assert np.all(out[5:] == -np.inf)


# ---- 2-D tiles, reductions, scans ----


@cu.kernel
def softmax_rows(x, out, n: cu.Constant[int]):
    r = cu.bid(0)
    t = cu.load(x, (r, 0), (1, n), padding_mode=cu.PaddingMode.NEG_INF)
    m = cu.max(t, axis=1, keepdims=True)
    e = cu.exp(t - m)
    s = cu.sum(e, axis=1, keepdims=True)
    cu.store(out, (r, 0), e / s)


@pytest.mark.parametrize("cols", [64, 100])
def test_row_softmax(target, rng, cols):
    x = rng.standard_normal((6, cols)).astype(np.float32)
    out = np.zeros_like(x)
    run_tiles(target, softmax_rows, x, out, 128 if cols > 64 else 64, grid=6)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5)


# The row kernels of bench/bench_tiles.py: Triton's arithmetic asked for with numeric modifiers.
@cu.kernel
def softmax_like_triton(x, out, n: cu.Constant[int]):
    r = cu.bid(0)
    t = cu.load(x, (r, 0), (1, n), padding_mode=cu.PaddingMode.NEG_INF).astype(cu.float32)
    e = cu.exp2((t - cu.max(t, axis=1, keepdims=True)) * 1.4426950408889634)
    total = cu.sum(e, axis=1, keepdims=True)
    cu.store(out, (r, 0), cu.truediv(e, total, rounding_mode=cu.RoundingMode.FULL).astype(out.dtype))


@cu.kernel
def layernorm_like_triton(x, w, b, y, n: cu.Constant[int]):
    r = cu.bid(0)
    t = cu.load(x, (r, 0), (1, n)).astype(cu.float32)
    centered = t - cu.sum(t, axis=1, keepdims=True) / n
    var = cu.sum(centered * centered, axis=1, keepdims=True) / n
    rstd = cu.truediv(1.0, cu.sqrt(var + 1e-5, rounding_mode=cu.RoundingMode.APPROX),
                      rounding_mode=cu.RoundingMode.APPROX)
    scale = cu.load(w, (0,), (n,)).astype(cu.float32)
    shift = cu.load(b, (0,), (n,)).astype(cu.float32)
    cu.store(y, (r, 0), (centered * rstd * scale + shift).astype(y.dtype))


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
@pytest.mark.parametrize("cols, layout", [(4096, "contiguous"), (1000, "contiguous"), (4096, "offset"), (1000, "strided")])
def test_row_softmax_and_layernorm_as_bench_tiles_writes_them(target, rng, dtype, cols, layout):
    # Whole rows (vector loads), a short last tile (padding), rows starting one element past an
    # aligned address, and every other column (both element by element).
    rows = 5
    def array(*shape):
        full = (rng.standard_normal(shape[:-1] + (2 * shape[-1] + 1,)) * 3).astype(dtype)
        if layout == "offset":
            return full[..., 1:shape[-1] + 1]
        return full[..., :2 * shape[-1]:2] if layout == "strided" else np.ascontiguousarray(full[..., :shape[-1]])
    x, w, b = array(rows, cols), array(cols), array(cols)
    out, y = np.zeros((rows, cols), dtype), np.zeros((rows, cols), dtype)
    if layout == "strided":
        out, y = np.zeros((rows, 2 * cols), dtype)[:, ::2], np.zeros((rows, 2 * cols), dtype)[:, ::2]
    run_tiles(target, softmax_like_triton, x, out, 4096, grid=rows)
    run_tiles(target, layernorm_like_triton, x, w, b, y, 4096, grid=rows)
    xf = x.astype(np.float64)
    e = np.exp(xf - xf.max(axis=1, keepdims=True))
    centered = xf - xf.mean(axis=1, keepdims=True) * cols / 4096
    if cols != 4096:  # the padding zeros count in the tile's mean and variance
        centered = xf - xf.sum(axis=1, keepdims=True) / 4096
    var = ((centered**2).sum(axis=1, keepdims=True) + (4096 - cols) * (xf.sum(axis=1, keepdims=True) / 4096) ** 2) / 4096
    norm = centered / np.sqrt(var + 1e-5) * w.astype(np.float64) + b.astype(np.float64)
    # float32 sums of 4096 elements in sequence differ from float64 ones by about 1e-4 relative.
    tol = 1e-5 if dtype == np.float32 else 1e-2
    np.testing.assert_allclose(out.astype(np.float64), e / e.sum(axis=1, keepdims=True), rtol=tol, atol=tol * 1e-3)
    np.testing.assert_allclose(y.astype(np.float64), norm, rtol=max(tol, 1e-3), atol=max(tol * 10, 2e-3))


@ct.kernel
def copy_tiles_1d(a, out, n: ct.ConstExpr):
    i = ct.bid(0)
    ct.store(out, (i,), ct.load(a, (i,), (n,)))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.float16, ml_dtypes.bfloat16, np.float32])
@pytest.mark.parametrize("layout", ["contiguous", "offset", "strided"])
def test_narrow_loads_are_exact_at_edges_offsets_and_strides(target, rng, dtype, layout):
    # Narrow elements arrive as 32-bit words: whole vectors, and element by element where a piece
    # is past the end, misaligned or strided; every bit pattern comes back (NaN payloads too).
    size, tile = 1000, 256
    bits = rng.integers(0, 1 << (8 * np.dtype(dtype).itemsize), 2 * size + 1, dtype=np.uint64)
    full = bits.astype(f"u{np.dtype(dtype).itemsize}").view(dtype)
    a = {"contiguous": full[:size].copy(), "offset": full[1:size + 1], "strided": full[:2 * size:2]}[layout]
    out = np.zeros(size, dtype)
    run_tiles(target, copy_tiles_1d, a, out, tile, grid=(size + tile - 1) // tile)
    unsigned = f"u{np.dtype(dtype).itemsize}"
    np.testing.assert_array_equal(out.view(unsigned), a.view(unsigned))



@cu.kernel
def row_tiles_at_edges(x, out, sums, n: cu.Constant[int]):
    r = cu.bid(0)
    c = cu.bid(1)
    t = cu.load(x, (r, c), (1, n))
    cu.store(out, (r, c), t * 2)
    cu.store(sums, (r, c), cu.sum(t.astype(cu.float32), axis=1, keepdims=True))


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
@pytest.mark.parametrize("layout", ["contiguous", "offset", "strided"])
def test_row_tiles_check_each_piece_at_edges_offsets_and_strides(target, rng, dtype, layout):
    # One-row tiles take one path, each piece of a thread's consecutive elements a vector or its
    # elements on its own (memory.h, visit_tile_pieces): whole pieces, a piece cut by the end of a
    # row (997 columns: 5 of a vector of 8, 1 of 4), tiles past the last column and past the last
    # row (padding in, nothing stored), rows starting one element past an aligned address, and
    # every other column.
    rows, cols, n = 5, 997, 64
    grid = (rows + 2, (cols + n - 1) // n + 1)
    full = (rng.standard_normal((rows, 2 * cols + 1)) * 3).astype(dtype)
    x = {"contiguous": np.ascontiguousarray(full[:, :cols]), "offset": full[:, 1:cols + 1],
         "strided": full[:, :2 * cols:2]}[layout]
    out = np.zeros((rows, 2 * cols), dtype)[:, ::2] if layout == "strided" else np.zeros((rows, cols), dtype)
    sums = np.full(grid, -1.0, np.float32)
    run_tiles(target, row_tiles_at_edges, x, out, sums, n, grid=grid)
    np.testing.assert_array_equal(out, (x.astype(np.float32) * 2).astype(dtype))
    padded = np.zeros((grid[0], grid[1] * n), np.float32)
    padded[:rows, :cols] = x.astype(np.float32)
    expected = padded.reshape(grid[0], grid[1], n).sum(axis=2)
    np.testing.assert_allclose(sums, expected, rtol=1e-5, atol=1e-4)


@ct.kernel
def reductions_2d(a, sums0, sums1, maxes1, mins0, prods1, argmax1, argmin0, total):
    t = ct.load(a, (0, 0), (8, 16))
    ct.store(sums0, (0,), ct.sum(t, axis=0))
    ct.store(sums1, (0,), ct.sum(t, 1))
    ct.store(maxes1, (0,), ct.max(t, axis=-1))
    ct.store(mins0, (0,), ct.min(t, axis=0))
    ct.store(prods1, (0,), ct.prod(t, axis=1))
    ct.store(argmax1, (0,), ct.argmax(t, axis=1))
    ct.store(argmin0, (0,), ct.argmin(t, axis=0))
    ct.store(total, (0, 0), ct.sum(t, keepdims=True))


def test_reductions_along_every_axis(target, rng):
    a = rng.standard_normal((8, 16)).astype(np.float32)
    outs = [np.zeros(16, np.float32), np.zeros(8, np.float32), np.zeros(8, np.float32), np.zeros(16, np.float32),
            np.zeros(8, np.float32), np.zeros(8, np.int32), np.zeros(16, np.int32), np.zeros((1, 1), np.float32)]
    run_tiles(target, reductions_2d, a, *outs, grid=1)
    np.testing.assert_allclose(outs[0], a.sum(axis=0), rtol=1e-5)
    np.testing.assert_allclose(outs[1], a.sum(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(outs[2], a.max(axis=1))
    np.testing.assert_array_equal(outs[3], a.min(axis=0))
    np.testing.assert_allclose(outs[4], a.prod(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(outs[5], a.argmax(axis=1))
    np.testing.assert_array_equal(outs[6], a.argmin(axis=0))
    np.testing.assert_allclose(outs[7], [[a.sum()]], rtol=1e-5)


@ct.kernel
def integer_sum(a, out):
    t = ct.load(a, (0, 0), (4, 32))
    ct.store(out, (0,), ct.sum(t, axis=1))


def test_integer_sums_wrap_in_the_element_type(target, rng):
    a = rng.integers(-(2**31), 2**31 - 1, (4, 32), dtype=np.int64).astype(np.int32)
    out = np.zeros(4, np.int32)
    run_tiles(target, integer_sum, a, out, grid=1)
    np.testing.assert_array_equal(out, a.sum(axis=1, dtype=np.int64).astype(np.int32))


@ct.kernel
def scans(a, cs0, cs1, cp1):
    t = ct.load(a, (0, 0), (4, 8))
    ct.store(cs0, (0, 0), ct.cumsum(t, axis=0))
    ct.store(cs1, (0, 0), ct.cumsum(t, axis=1))
    ct.store(cp1, (0, 0), ct.cumprod(t, axis=1))


def test_scans(target, rng):
    a = rng.integers(-3, 4, (4, 8)).astype(np.int32)
    outs = [np.zeros((4, 8), np.int32) for _ in range(3)]
    run_tiles(target, scans, a, *outs, grid=1)
    np.testing.assert_array_equal(outs[0], np.cumsum(a, axis=0))
    np.testing.assert_array_equal(outs[1], np.cumsum(a, axis=1))
    np.testing.assert_array_equal(outs[2], np.cumprod(a, axis=1))


# ---- shape operations ----


@ct.kernel
def shape_ops(a, transposed, permuted, reshaped, expanded, broadcast, joined, piece):
    t = ct.load(a, (0, 0), (4, 8))
    ct.store(transposed, (0, 0), ct.transpose(t))
    p = ct.permute(ct.reshape(t, (2, 2, 8)), (2, 0, 1))
    ct.store(permuted, (0, 0, 0), p)
    ct.store(reshaped, (0, 0), ct.reshape(t, (8, 4)))
    row = ct.load(a, (0, 0), (1, 8))
    ct.store(expanded, (0, 0, 0), ct.expand_dims(row, 0))
    ct.store(broadcast, (0, 0), ct.broadcast_to(row, (4, 8)) + ct.broadcast_to(ct.reshape(ct.sum(t, axis=1), (4, 1)), (4, 8)))
    ct.store(joined, (0, 0), ct.cat((t, t * 2), 0))
    ct.store(piece, (0, 0), ct.extract(t, (1, 1), (2, 4)))


def test_shape_operations(target, rng):
    a = rng.standard_normal((4, 8)).astype(np.float32)
    outs = [np.zeros((8, 4), np.float32), np.zeros((8, 2, 2), np.float32), np.zeros((8, 4), np.float32),
            np.zeros((1, 1, 8), np.float32), np.zeros((4, 8), np.float32), np.zeros((8, 8), np.float32),
            np.zeros((2, 4), np.float32)]
    run_tiles(target, shape_ops, a, *outs, grid=1)
    np.testing.assert_array_equal(outs[0], a.T)
    np.testing.assert_array_equal(outs[1], a.reshape(2, 2, 8).transpose(2, 0, 1))
    np.testing.assert_array_equal(outs[2], a.reshape(8, 4))
    np.testing.assert_array_equal(outs[3], a[None, :1, :])
    np.testing.assert_allclose(outs[4], a[:1] + a.sum(axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_array_equal(outs[5], np.concatenate([a, a * 2], 0))
    np.testing.assert_array_equal(outs[6], a[2:4, 4:8])


@ct.kernel
def creation(f, z, o, r, io):
    ct.store(f, (0,), ct.full((16,), 2.5, ct.float32))
    ct.store(z, (0, 0), ct.zeros((2, 4), ct.int32))
    ct.store(o, (0,), ct.ones((8,), ct.float64))
    ct.store(r, (0,), ct.arange(16, ct.int32) * 3)
    ct.store(io, (0, 0), ct.iota((4, 4), ct.int64))


def test_creation(target):
    outs = [np.zeros(16, np.float32), np.full((2, 4), 7, np.int32), np.zeros(8, np.float64), np.zeros(16, np.int32),
            np.zeros((4, 4), np.int64)]
    run_tiles(target, creation, *outs, grid=1)
    np.testing.assert_array_equal(outs[0], np.full(16, 2.5, np.float32))
    np.testing.assert_array_equal(outs[1], np.zeros((2, 4), np.int32))
    np.testing.assert_array_equal(outs[2], np.ones(8))
    np.testing.assert_array_equal(outs[3], np.arange(16) * 3)
    np.testing.assert_array_equal(outs[4], np.arange(16).reshape(4, 4))


# ---- matrix multiply ----


@cu.kernel
def matmul_kernel(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    bm = cu.bid(0)
    bn = cu.bid(1)
    acc = cu.zeros((tm, tn), dtype=cu.float32)
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        x = cu.load(a, (bm, k), (tm, tk), padding_mode=cu.PaddingMode.ZERO)
        y = cu.load(b, (k, bn), (tk, tn), padding_mode=cu.PaddingMode.ZERO)
        acc = cu.mma(x, y, acc)
    cu.store(c, (bm, bn), acc)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32])
@pytest.mark.parametrize("m, n, k", [(64, 64, 64), (40, 72, 50)])
def test_mma_k_loop_against_numpy(target, rng, dtype, m, n, k):
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    c = np.zeros((m, n), np.float32)
    tm, tn, tk = 32, 32, 16
    run_tiles(target, matmul_kernel, a, b, c, tm, tn, tk, grid=((m + tm - 1) // tm, (n + tn - 1) // tn))
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-3 * math.sqrt(k))


# A K loop that sema lowers as one pipelined operation (include/weft/tiles/mma_pipeline.h), with
# the loads inside the mma and a first step other than 0; and the same loop where reading the
# loop variable afterwards keeps it an ordinary loop of ct.mma.
@cu.kernel
def matmul_pipelined(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int], first: cu.Constant[int]):
    acc = cu.zeros((tm, tn), dtype=cu.float32)
    for k in range(first, cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)), cu.load(b, (k, cu.bid(1)), (tk, tn)), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)


@cu.kernel
def matmul_unpipelined(a, b, c, last, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int],
                       first: cu.Constant[int]):
    acc = cu.zeros((tm, tn), dtype=cu.float32)
    k = -1
    for k in range(first, cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)), cu.load(b, (k, cu.bid(1)), (tk, tn)), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)
    last[cu.bid(0), cu.bid(1)] = k


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("m, n, k, tiles, first", [
    (200, 136, 72, (64, 64, 32), 0),
    (128, 256, 256, (128, 128, 32), 1),
    (300, 200, 250, (128, 256, 64), 0),
    (64, 64, 16, (64, 64, 32), 0),
])
def test_pipelined_k_loop_against_numpy_and_the_plain_loop(target, rng, dtype, m, n, k, tiles, first):
    tm, tn, tk = tiles
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
    piped, plain = np.zeros((m, n), np.float32), np.zeros((m, n), np.float32)
    last = np.zeros(grid, np.int32)
    run_tiles(target, matmul_pipelined, a, b, piped, tm, tn, tk, first, grid=grid)
    run_tiles(target, matmul_unpipelined, a, b, plain, last, tm, tn, tk, first, grid=grid)
    skip = first * tk
    want = a[:, skip:].astype(np.float64) @ b[skip:].astype(np.float64)
    np.testing.assert_allclose(piped, want, rtol=1e-3, atol=1e-3 * math.sqrt(k))
    # Both sum each tile's products in the same order: the results are the same bits.
    np.testing.assert_array_equal(piped, plain)
    np.testing.assert_array_equal(last, (k + tk - 1) // tk - 1 if k > skip else -1)


@cu.kernel(debug=True)
def matmul_checked(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int], first: cu.Constant[int]):
    acc = cu.zeros((tm, tn), dtype=cu.float32)
    for k in range(first, cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)), cu.load(b, (k, cu.bid(1)), (tk, tn)), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)


def test_debug_k_loops_keep_their_load_checks(target, rng):
    """debug=True checks each load of a K loop (a tile wholly outside raises), so the loop is not
    pipelined; without debug the same loop is, and pads."""
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = rng.standard_normal((64, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float32)
    pipelined = re.compile(r"mma_pipeline(_tma)?_arrays<")
    assert not pipelined.search(matmul_checked._emit_cuda(a, b, c, 64, 64, 32, 0, target="cpu"))
    assert pipelined.search(matmul_pipelined._emit_cuda(a, b, c, 64, 64, 32, 0, target="cpu"))
    run_tiles(target, matmul_checked, a, b, c, 64, 64, 32, 0, grid=(1, 1))
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-3, atol=1e-2)
    with pytest.raises(IndexError):
        run_tiles(target, matmul_checked, a, b, c, 64, 64, 32, -1, grid=(1, 1))
    run_tiles(target, matmul_pipelined, a, b, c, 64, 64, 32, -1, grid=(1, 1))
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-3, atol=1e-2)


@ct.kernel
def matmul_operator(a, b, c):
    x = ct.load(a, (0, 0), (16, 32))
    y = ct.load(b, (0, 0), (32, 8))
    ct.store(c, (0, 0), x @ y)


@pytest.mark.parametrize("dtype, acc", [(np.float64, np.float64), (np.int8, np.int32)])
def test_matmul_operator(target, rng, dtype, acc):
    a = (rng.standard_normal((16, 32)) * 10).astype(dtype)
    b = (rng.standard_normal((32, 8)) * 10).astype(dtype)
    c = np.zeros((16, 8), acc)
    run_tiles(target, matmul_operator, a, b, c, grid=1)
    np.testing.assert_allclose(c, a.astype(acc) @ b.astype(acc), rtol=1e-12)


# ---- launch rules and errors at the user's line ----


def test_tile_kernels_take_a_grid_only(target):
    a = np.zeros(16, np.float32)
    with pytest.raises(TypeError, match="tile kernel: launch it with a grid only"):
        weft.launch(vec_add, a, a, a, 16, grid=1, block=128, target=target)
    with pytest.raises(TypeError, match="args must be a tuple"):
        ct.launch(None, 1, vec_add, [a, a, a, 16])


def test_kernel_subscript_launch(target, rng):
    if target == "gpu":
        pytest.skip("NumPy arrays are launched on the CPU target")
    a = rng.standard_normal(32).astype(np.float32)
    c = np.zeros(32, np.float32)
    vec_add[2](a, a, c, 16)
    np.testing.assert_array_equal(c, a + a)


@ct.kernel
def narrowing_kernel(a):
    x = ct.load(a, (0,), (16,))
    ct.store(a, (0,), x * 2.5)


def test_narrowing_is_reported_at_the_users_line(target):
    a = np.zeros(16, np.int32)
    with pytest.raises(weft.CompileError) as error:
        weft.launch(narrowing_kernel, weft.to_device(a) if target == "gpu" else a, grid=1, target=target)
    assert f":{line_of(narrowing_kernel.underlying, 'x * 2.5')}:" in str(error.value)
    assert "[TileNarrowing]" in str(error.value)


# ---- gather and scatter (the seed's pointer tiles) ----


@cu.kernel
def gather_scatter(a, table, out, scattered):
    rows = cu.reshape(cu.arange(8), (8, 1))
    cols = cu.reshape(cu.arange(4) * 3, (1, 4))
    picked = cu.gather(a, (rows, cols), padding_value=-1.0)
    cu.store(out, (0, 0), picked)
    keys = cu.load(table, (0,), (16,))
    cu.scatter(scattered, keys, cu.arange(16).astype(cu.float32), mask=keys >= 0)


def test_gather_and_scatter_with_bounds_and_masks(target, rng):
    a = rng.standard_normal((6, 10)).astype(np.float32)
    table = rng.permutation(20)[:16].astype(np.int32) - 2  # some negative, some past the end
    out = np.zeros((8, 4), np.float32)
    scattered = np.full(12, 100.0, np.float32)
    run_tiles(target, gather_scatter, a, table, out, scattered, grid=1)
    want = np.full((8, 4), -1.0, np.float32)
    for r in range(8):
        for c in range(4):
            if r < 6 and 3 * c < 10:
                want[r, c] = a[r, 3 * c]
    np.testing.assert_array_equal(out, want)
    expected = np.full(12, 100.0, np.float32)
    for i, key in enumerate(table):
        if 0 <= key < 12:
            expected[key] = i
    np.testing.assert_array_equal(scattered, expected)


# ---- numeric modifiers ----


@ct.kernel
def seed_rounding(a, b, out):
    x = ct.load(a, (0,), (16,))
    y = ct.load(b, (0,), (16,))
    ct.store(out, (0, 0), ct.reshape(ct.add(x, y, ct.round_toward_zero), (1, 16)))
    ct.store(out, (1, 0), ct.reshape(ct.add(x, y, ct.round_toward_negative), (1, 16)))
    ct.store(out, (2, 0), ct.reshape(ct.mul(x, y, ct.round_toward_positive), (1, 16)))
    ct.store(out, (3, 0), ct.reshape(ct.div(x, y, ct.round_ties_to_even), (1, 16)))
    ct.store(out, (4, 0), ct.reshape(ct.sub(x, y), (1, 16)))
    ct.store(out, (5, 0), ct.reshape(ct.fma(x, y, x, ct.round_toward_zero), (1, 16)))


@cu.kernel
def cutile_rounding(a, b, out):
    x = cu.load(a, (0,), (16,))
    y = cu.load(b, (0,), (16,))
    cu.store(out, (0, 0), cu.reshape(cu.add(x, y, rounding_mode=cu.RoundingMode.RZ), (1, 16)))
    cu.store(out, (1, 0), cu.reshape(cu.add(x, y, rounding_mode=cu.RoundingMode.RM), (1, 16)))
    cu.store(out, (2, 0), cu.reshape(cu.mul(x, y, rounding_mode=cu.RoundingMode.RP), (1, 16)))
    cu.store(out, (3, 0), cu.reshape(cu.truediv(x, y), (1, 16)))
    cu.store(out, (4, 0), cu.reshape(cu.sub(x, y), (1, 16)))
    cu.store(out, (5, 0), cu.reshape(cu.fma(x, y, x, rounding_mode=cu.RoundingMode.RZ), (1, 16)))


def _directed(a, b, op, direction):
    """float32 op rounded toward zero (0), negative (-1) or positive (+1), from the float64 result."""
    exact = op(a.astype(np.float64), b.astype(np.float64))
    nearest = exact.astype(np.float32)
    down = np.where(nearest.astype(np.float64) > exact, np.nextafter(nearest, np.float32(-np.inf)), nearest)
    up = np.where(nearest.astype(np.float64) < exact, np.nextafter(nearest, np.float32(np.inf)), nearest)
    if direction == 0:
        return np.where(exact >= 0, down, up)
    return down if direction < 0 else up


@pytest.mark.parametrize("kernel", [seed_rounding, cutile_rounding], ids=["seed", "cutile"])
def test_rounding_modes_are_exact(target, rng, kernel):
    a = (rng.standard_normal(16) * 1e3).astype(np.float32)
    b = (rng.standard_normal(16) * 1e-3 + 1.5).astype(np.float32)
    out = np.zeros((6, 16), np.float32)
    run_tiles(target, kernel, a, b, out, grid=1)
    np.testing.assert_array_equal(out[0], _directed(a, b, np.add, 0))
    np.testing.assert_array_equal(out[1], _directed(a, b, np.add, -1))
    np.testing.assert_array_equal(out[2], _directed(a, b, np.multiply, 1))
    np.testing.assert_array_equal(out[3], (a.astype(np.float64) / b).astype(np.float32))
    np.testing.assert_array_equal(out[4], a - b)
    fused = a.astype(np.float64) * b + a  # exact in float64 for these magnitudes
    nearest = fused.astype(np.float32)
    toward_zero = np.where(np.abs(nearest.astype(np.float64)) > np.abs(fused),
                           np.nextafter(nearest, np.float32(0)), nearest)
    np.testing.assert_array_equal(out[5], toward_zero)


@ct.kernel
def nan_modes(a, b, out):
    x = ct.load(a, (0,), (4,))
    y = ct.load(b, (0,), (4,))
    ct.store(out, (0, 0), ct.reshape(ct.maximum(x, y, ct.propagate_nan), (1, 4)))
    ct.store(out, (1, 0), ct.reshape(ct.maximum(x, y, ct.suppress_nan), (1, 4)))
    ct.store(out, (2, 0), ct.reshape(ct.minimum(x, y, ct.propagate_nan), (1, 4)))
    # Without a mode: the seed's default, suppress (a NaN operand gives the other, either side).
    ct.store(out, (3, 0), ct.reshape(ct.maximum(x, y), (1, 4)))
    ct.store(out, (4, 0), ct.reshape(ct.minimum(y, x), (1, 4)))


@cu.kernel
def nan_modes_cutile(a, b, out):
    x = cu.load(a, (0,), (4,))
    y = cu.load(b, (0,), (4,))
    cu.store(out, (0, 0), cu.reshape(cu.maximum(x, y), (1, 4)))
    cu.store(out, (1, 0), cu.reshape(cu.minimum(y, x), (1, 4)))
    cu.store(out, (2, 0), cu.reshape(cu.maximum(y, x, propagate_nan=True), (1, 4)))


def test_nan_propagation_modes(target):
    a = np.array([1.0, np.nan, 3.0, np.nan], np.float32)
    b = np.array([2.0, 5.0, np.nan, np.nan], np.float32)
    out = np.zeros((5, 4), np.float32)
    run_tiles(target, nan_modes, a, b, out, grid=1)
    np.testing.assert_array_equal(out[0], np.maximum(a, b))
    np.testing.assert_array_equal(out[1], np.fmax(a, b))
    np.testing.assert_array_equal(out[2], np.minimum(a, b))
    np.testing.assert_array_equal(out[3], np.fmax(a, b))
    np.testing.assert_array_equal(out[4], np.fmin(b, a))
    out = np.zeros((3, 4), np.float32)
    run_tiles(target, nan_modes_cutile, a, b, out, grid=1)
    np.testing.assert_array_equal(out[0], np.fmax(a, b))
    np.testing.assert_array_equal(out[1], np.fmin(b, a))
    np.testing.assert_array_equal(out[2], np.maximum(b, a))


@cu.kernel
def max_min_narrow(a, b, out):
    x = cu.load(a, (0,), (4,))
    y = cu.load(b, (0,), (4,))
    cu.store(out, (0, 0), cu.reshape(cu.maximum(y, x), (1, 4)))
    cu.store(out, (1, 0), cu.reshape(cu.minimum(x, y), (1, 4)))


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_max_min_of_narrow_floats_suppress_nan(target, dtype):
    a = np.array([1.0, np.nan, 3.0, np.nan], dtype)
    b = np.array([2.0, 5.0, np.nan, np.nan], dtype)
    out = np.zeros((2, 4), dtype)
    run_tiles(target, max_min_narrow, a, b, out, grid=1)
    np.testing.assert_array_equal(out[0].astype(np.float32), np.fmax(b, a).astype(np.float32))
    np.testing.assert_array_equal(out[1].astype(np.float32), np.fmin(a, b).astype(np.float32))


@cu.kernel
def signed_zeros(a, b, out, r):
    x = cu.load(a, (0,), (8,))
    y = cu.load(b, (0,), (8,))
    cu.store(out, (0, 0), cu.reshape(cu.maximum(x, y), (1, 8)))
    cu.store(out, (1, 0), cu.reshape(cu.maximum(y, x), (1, 8)))
    cu.store(out, (2, 0), cu.reshape(cu.minimum(x, y), (1, 8)))
    cu.store(out, (3, 0), cu.reshape(cu.minimum(y, x), (1, 8)))
    pairs = cu.reshape(x, (4, 2))
    cu.store(r, (0, 0), cu.reshape(cu.max(pairs, axis=1), (1, 4)))
    cu.store(r, (1, 0), cu.reshape(cu.min(pairs, axis=1), (1, 4)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16])
def test_max_min_order_negative_zero_below_positive_zero(target, dtype):
    # IEEE 754-2019 maximumNumber/minimumNumber, as the GPU's max.f32/min.f32: -0 < +0, in
    # either operand order, element-wise and in the reductions.
    a = np.array([-0.0, 0.0, -0.0, 0.0, 1.5, -2.0, 0.0, -0.0], dtype)
    b = np.array([0.0, -0.0, -0.0, 0.0, 1.5, 3.0, np.nan, np.nan], dtype)
    out = np.full((4, 8), 7, dtype)
    r = np.full((2, 4), 7, dtype)
    run_tiles(target, signed_zeros, a, b, out, r, grid=1)
    f = lambda v: np.asarray(v, np.float64)  # noqa: E731
    want_max = np.array([0.0, 0.0, -0.0, 0.0, 1.5, 3.0, 0.0, -0.0])
    want_min = np.array([-0.0, -0.0, -0.0, 0.0, 1.5, -2.0, 0.0, -0.0])
    for row, want in ((0, want_max), (1, want_max), (2, want_min), (3, want_min)):
        np.testing.assert_array_equal(f(out[row]), want)
        np.testing.assert_array_equal(np.signbit(f(out[row])), np.signbit(want))
    np.testing.assert_array_equal(np.signbit(f(r[0])), [False, False, False, False])  # max of (-0, +0) pairs
    np.testing.assert_array_equal(np.signbit(f(r[1])), [True, True, True, True])
    np.testing.assert_array_equal(f(r[0]), [0.0, 0.0, 1.5, 0.0])
    np.testing.assert_array_equal(f(r[1]), [-0.0, -0.0, -2.0, -0.0])


@cu.kernel
def half_accumulator(a, c):
    acc = cu.zeros((16, 16), dtype=cu.float16)
    acc = cu.mma(cu.load(a, (0, 0), (16, 16)), cu.load(a, (0, 0), (16, 16)), acc)
    cu.store(c, (0, 0), acc)


def test_mma_takes_only_the_tensor_cores_accumulator_type(target):
    # float16 products accumulate in float32: a float16 accumulator is an error at its line (it
    # used to reach the C++ compiler).
    a = np.ones((16, 16), np.float16)
    with pytest.raises(weft.CompileError,
                       match=r"accumulating float16 products \(use float32\) does not take tiles of float16") as info:
        run_tiles(target, half_accumulator, a, np.zeros((16, 16), np.float16), grid=1)
    assert f":{line_of(half_accumulator.underlying, 'acc = cu.mma')}:" in str(info.value)


# ---- helpers taking and returning tiles ----


def scaled_rows(t: ct.tile[ct.float32, (4, 8)], factor) -> ct.tile[ct.float32, (4, 8)]:
    return t * factor


@ct.kernel
def uses_helper(a, out):
    t = ct.load(a, (0, 0), (4, 8))
    ct.store(out, (0, 0), scaled_rows(t, 3))


def test_helpers_take_and_return_annotated_tiles(target, rng):
    a = rng.standard_normal((4, 8)).astype(np.float32)
    out = np.zeros_like(a)
    run_tiles(target, uses_helper, a, out, grid=1)
    np.testing.assert_allclose(out, a * 3, rtol=1e-6)
    assert repr(ct.tile[ct.float32, (4, 8)]).endswith(", (4, 8)]")


# ---- scalar code in tile kernels: one logical thread ----


@ct.kernel
def scalar_side_effects(a, counts, total):
    t = ct.load(a, (ct.bid(0),), (32,))
    s = ct.sum(t).item()
    total[ct.bid(0)] = s
    counts[ct.bid(0)] = counts[ct.bid(0)] + 1
    print("block", ct.bid(0), "sum", s)


def test_scalar_stores_and_print_happen_once_per_tile_block(target, rng, capfd):
    a = rng.integers(-50, 50, 64).astype(np.int32)
    counts = np.zeros(2, np.int32)
    total = np.zeros(2, np.int32)
    run_tiles(target, scalar_side_effects, a, counts, total, grid=2)
    np.testing.assert_array_equal(counts, [1, 1])
    np.testing.assert_array_equal(total, a.reshape(2, 32).sum(axis=1))
    out = capfd.readouterr().out
    assert out.count("block 0 sum") == 1 and out.count("block 1 sum") == 1, out


@ct.kernel
def block_positions(out):
    b = ct.bid()
    g = ct.num_blocks()
    out[b.y, b.x, 0] = b.x
    out[b.y, b.x, 1] = b.y
    out[b.y, b.x, 2] = g.x
    out[b.y, b.x, 3] = g.y
    out[b.y, b.x, 4] = ct.bid(0) + 10 * ct.bid(1)
    out[b.y, b.x, 5] = ct.num_blocks(0) * ct.num_blocks(1)


def test_block_positions_in_both_spellings(target):
    out = np.zeros((2, 3, 6), np.int32)
    run_tiles(target, block_positions, out, grid=(3, 2))
    for y in range(2):
        for x in range(3):
            np.testing.assert_array_equal(out[y, x], [x, y, 3, 2, x + 10 * y, 6])


# ---- atomics ----


@ct.kernel
def seed_histogram(keys, hist, old_sum):
    k = ct.load(keys, (ct.bid(0),), (64,))
    old = ct.atomic_add(hist, k, 1, order="relaxed", scope="device")
    ct.atomic_max(old_sum, ct.zeros((64,), ct.int32), old)


@cu.kernel
def cutile_atomics(values, slots, best):
    v = cu.load(values, (cu.bid(0),), (32,))
    idx = cu.arange(32) % 4
    cu.atomic_add(slots, idx, v, memory_order=cu.MemoryOrder.RELAXED, memory_scope=cu.MemoryScope.DEVICE)
    cu.atomic_max(best, idx, v)
    cu.atomic_min(best, idx + 4, v)


def test_atomics_in_both_faces(target, rng):
    keys = rng.integers(-2, 20, 256).astype(np.int32)  # some keys fall outside the histogram
    hist = np.zeros(16, np.int32)
    old_sum = np.zeros(1, np.int32)
    run_tiles(target, seed_histogram, keys, hist, old_sum, grid=4)
    inside = keys[(keys >= 0) & (keys < 16)]
    np.testing.assert_array_equal(hist, np.bincount(inside, minlength=16))
    assert old_sum[0] == np.bincount(inside).max() - 1  # the last add at the fullest bin saw count - 1
    values = rng.standard_normal(128).astype(np.float32)
    slots = np.zeros(4, np.float32)
    best = np.concatenate([np.full(4, -np.inf), np.full(4, np.inf)]).astype(np.float32)
    run_tiles(target, cutile_atomics, values, slots, best, grid=4)
    by_slot = values.reshape(-1, 4)
    np.testing.assert_allclose(slots, by_slot.sum(axis=0), rtol=1e-5)
    np.testing.assert_array_equal(best[:4], by_slot.max(axis=0))
    np.testing.assert_array_equal(best[4:], by_slot.min(axis=0))


# ---- decorators, options, hints ----


@ct.function
def doubled(t):
    return t + t


@ct.kernel(debug=True, fastmath=False)
def with_options(a, out):
    t = ct.load(a, (0,), (16,), latency=3)
    ct.store(out, (0,), doubled(t), allow_tma=False)


@ct.kernel
def transposed_order(a, out):
    ct.store(out, (0, 0), ct.load(a, (0, 0), (4, 4), order="F"))


def test_function_decorator_options_and_hints(target, rng):
    a = rng.standard_normal(16).astype(np.float32)
    out = np.zeros(16, np.float32)
    run_tiles(target, with_options, a, out, grid=1)
    np.testing.assert_array_equal(out, a + a)
    assert with_options.debug
    m = rng.standard_normal((4, 4)).astype(np.float32)
    transposed = np.zeros_like(m)
    run_tiles(target, transposed_order, m, transposed, grid=1)
    np.testing.assert_array_equal(transposed, m.T)
    with pytest.raises(TypeError, match="unknown keyword"):
        ct.kernel(threads=64)
