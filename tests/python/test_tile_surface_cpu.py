"""The tile faces' reduce()/scan() with a user's combining function, assume hints, restricted
element types, load orders and partition views (docs/tiles.md) on the CPU target against NumPy,
on seeded random data, in both faces. test_tiles_gpu.py runs them again on the GPU."""

import math

import ml_dtypes
import numpy as np
import pytest

import weft
from weft import cutile as cu
from weft import tiles as ct
from launching import line_of
from test_tiles_cpu import run_tiles
from test_tile_mma_types_cpu import check_fp8_products


@pytest.fixture(scope="module")
def target():
    return "cpu"


# ---- reduce() and scan() with a combining function ----


@ct.function
def larger(a, b):
    return a if a > b else b


@ct.kernel
def seed_reduce(a, s0, m1, total, kept, c1, low: ct.ConstExpr):
    t = ct.load(a, (0, 0), (8, 16))
    ct.store(s0, (0,), ct.reduce(t, 0, lambda x, y: x + y, 0))
    ct.store(m1, (0,), ct.reduce(t, axis=1, func=larger, identity=low))
    ct.store(total, (0, 0), ct.reduce(t, None, lambda x, y: x + y, 0, keepdims=True))
    ct.store(kept, (0, 0), ct.reduce(t, 1, larger, low, keepdims=True))
    ct.store(c1, (0, 0), ct.scan(t, 1, lambda x, y: x + y, 0))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8, np.uint16, np.float32, np.float64, np.float16,
                                   ml_dtypes.bfloat16])
def test_seed_reduce_and_scan_with_functions(target, rng, dtype):
    a = rng.integers(-5, 6, (8, 16)).astype(dtype) if np.dtype(dtype).kind in "iu" and dtype != np.uint16 else \
        rng.integers(0, 9, (8, 16)).astype(dtype)
    s0, m1 = np.zeros(16, dtype), np.zeros(8, dtype)
    total, kept, c1 = np.zeros((1, 1), dtype), np.zeros((8, 1), dtype), np.zeros((8, 16), dtype)
    low = 0 if dtype == np.uint16 else -100
    run_tiles(target, seed_reduce, a, s0, m1, total, kept, c1, low, grid=1)
    wide = a.astype(np.float64)
    # Sums accumulate in the element type: bfloat16 rounds above 256, integers wrap.
    rtol = 2**-7 if dtype == ml_dtypes.bfloat16 else 0
    np.testing.assert_allclose(s0.astype(np.float64), wide.sum(axis=0).astype(dtype).astype(np.float64), rtol=rtol)
    np.testing.assert_array_equal(m1, a.max(axis=1))
    np.testing.assert_allclose(total.astype(np.float64), [[float(wide.sum().astype(dtype))]], rtol=rtol)
    np.testing.assert_array_equal(kept, a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(c1.astype(np.float64), np.cumsum(wide, axis=1).astype(dtype).astype(np.float64),
                               rtol=rtol)


@cu.kernel
def cutile_reduce(a, p0, n1, sc0, rows: cu.Constant[int]):
    t = cu.load(a, index=(cu.bid(0), 0), shape=(rows, 32))
    cu.store(p0, index=(cu.bid(0),), tile=cu.reduce(t, axis=1, func=lambda x, y: x * y, identity=1.0))
    cu.store(n1, index=(0,), tile=cu.reduce(t, 0, lambda x, y: min(x, y), math.inf))
    cu.store(sc0, index=(cu.bid(0), 0), tile=cu.scan(t, axis=0, func=lambda x, y: x * y, identity=1.0))


def test_cutile_reduce_and_scan_keywords(target, rng):
    a = rng.uniform(0.5, 1.5, (4, 32)).astype(np.float32)
    p0, n1, sc0 = np.zeros(4, np.float32), np.zeros(32, np.float32), np.zeros((4, 32), np.float32)
    run_tiles(target, cutile_reduce, a, p0, n1, sc0, 4, grid=1)
    np.testing.assert_allclose(p0, a.prod(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(n1, a.min(axis=0))
    np.testing.assert_allclose(sc0, np.cumprod(a, axis=0), rtol=1e-5)


@ct.kernel
def reduce_3d(a, r0, r1, r2, s2):
    t = ct.load(a, (0, 0, 0), (4, 8, 16))
    ct.store(r0, (0, 0), ct.reduce(t, 0, lambda x, y: x ^ y, 0))
    ct.store(r1, (0, 0), ct.reduce(t, 1, lambda x, y: x | y, 0))
    ct.store(r2, (0, 0), ct.reduce(t, -1, lambda x, y: x & y, -1))
    ct.store(s2, (0, 0, 0), ct.scan(t, 2, lambda x, y: x ^ y, 0))


@cu.kernel
def cutile_reverse_scans(a, r0, r1, r2):
    t = cu.load(a, (0, 0, 0), (4, 8, 16))
    cu.store(r0, (0, 0, 0), cu.scan(t, 0, lambda x, y: x + y, 0, reverse=True))
    cu.store(r1, (0, 0, 0), cu.scan(t, axis=1, func=lambda x, y: x + y, identity=0, reverse=True))
    cu.store(r2, (0, 0, 0), cu.scan(t, -1, lambda x, y: max(x, y), -(2**31), reverse=True))


def test_reverse_scans_along_every_axis(target, rng):
    a = rng.integers(-1000, 1000, (4, 8, 16)).astype(np.int32)
    outs = [np.zeros_like(a) for _ in range(3)]
    run_tiles(target, cutile_reverse_scans, a, *outs, grid=1)
    for axis, out in enumerate(outs[:2]):
        np.testing.assert_array_equal(out, np.flip(np.cumsum(np.flip(a, axis), axis), axis))
    np.testing.assert_array_equal(outs[2], np.flip(np.maximum.accumulate(np.flip(a, 2), 2), 2))


def test_reduce_every_axis_of_a_3d_tile(target, rng):
    a = rng.integers(-(2**31), 2**31 - 1, (4, 8, 16), dtype=np.int64).astype(np.int32)
    r0, r1, r2 = np.zeros((8, 16), np.int32), np.zeros((4, 16), np.int32), np.zeros((4, 8), np.int32)
    s2 = np.zeros((4, 8, 16), np.int32)
    run_tiles(target, reduce_3d, a, r0, r1, r2, s2, grid=1)
    np.testing.assert_array_equal(r0, np.bitwise_xor.reduce(a, axis=0))
    np.testing.assert_array_equal(r1, np.bitwise_or.reduce(a, axis=1))
    np.testing.assert_array_equal(r2, np.bitwise_and.reduce(a, axis=2))
    np.testing.assert_array_equal(s2, np.bitwise_xor.accumulate(a, axis=2))


@ct.kernel
def bad_combiner(a):
    t = ct.load(a, (0,), (16,))
    s = ct.reduce(t, 0, lambda x: x, 0)


@ct.kernel
def bad_identity(a, n):
    t = ct.load(a, (0,), (16,))
    s = ct.reduce(t, 0, lambda x, y: x + y, n)


def test_reduce_errors_at_the_users_line(target):
    a = np.zeros(16, np.float32)
    with pytest.raises(weft.CompileError, match=r"two float32 values.*TileCombiner") as info:
        run_tiles(target, bad_combiner, a, grid=1)
    assert f":{line_of(bad_combiner.underlying, 'lambda x: x')}:" in str(info.value)
    with pytest.raises(weft.CompileError, match=r"identity of ct.reduce.*NotConstant"):
        run_tiles(target, bad_identity, a, 3, grid=1)


# ---- assume_* hints ----


@ct.kernel
def seed_assumptions(a, out, n):
    i = ct.assume_bounded(ct.bid(0), 0, 1 << 20)
    m = ct.assume_divisible(n, 16)
    lo = ct.assume_bounded_below(m, 0)
    hi = ct.assume_bounded_above(lo, 4096)
    t = ct.load(a, (i,), (16,))
    ct.store(out, (i,), t + hi)


@cu.kernel
def cutile_assumption(a, out, n):
    m = cu.assume_divisible_by(n, 8)
    cu.store(out, index=(cu.bid(0),), tile=cu.load(a, index=(cu.bid(0),), shape=(8,)) * m)


@pytest.mark.parametrize("debug", [False, True])
def test_assumptions_are_hints(target, rng, debug):
    a = rng.integers(-100, 100, 64).astype(np.int32)
    out = np.zeros(64, np.int32)
    kernel = ct.kernel(debug=debug)(seed_assumptions.underlying) if debug else seed_assumptions
    run_tiles(target, kernel, a, out, 48, grid=4)
    np.testing.assert_array_equal(out, a + 48)
    b = rng.standard_normal(32).astype(np.float32)
    out2 = np.zeros(32, np.float32)
    kernel = cu.kernel(debug=debug)(cutile_assumption.underlying) if debug else cutile_assumption
    run_tiles(target, kernel, b, out2, 24, grid=4)
    np.testing.assert_allclose(out2, b * 24, rtol=1e-6)


def test_false_assumptions_raise_under_debug(target, rng):
    a = rng.integers(-100, 100, 64).astype(np.int32)
    out = np.zeros(64, np.int32)
    checked = ct.kernel(debug=True)(seed_assumptions.underlying)
    with pytest.raises(AssertionError, match="assume_divisible"):
        run_tiles(target, checked, a, out, 40, grid=4)
    with pytest.raises(AssertionError, match="assume_bounded_above"):
        run_tiles(target, checked, a, out, 8192, grid=4)
    b = np.zeros(32, np.float32)
    with pytest.raises(AssertionError, match="assume_divisible_by"):
        run_tiles(target, cu.kernel(debug=True)(cutile_assumption.underlying), b, b.copy(), 12, grid=4)


@ct.kernel
def bad_divisor(n):
    m = ct.assume_divisible(n, 0)


@ct.kernel
def bad_bounds(n):
    m = ct.assume_bounded(n, 5, 1)


@ct.kernel
def variable_divisor(n, k):
    m = ct.assume_divisible(n, k)


def test_assumption_errors(target):
    with pytest.raises(weft.CompileError, match=r"divisor must be positive.*TileAssume"):
        run_tiles(target, bad_divisor, 3, grid=1)
    with pytest.raises(weft.CompileError, match=r"hold for no value.*TileAssume"):
        run_tiles(target, bad_bounds, 3, grid=1)
    with pytest.raises(weft.CompileError, match=r"k of ct.assume_divisible\(\).*NotConstant"):
        run_tiles(target, variable_divisor, 3, 4, grid=1)


# ---- order= on load and store ----


@cu.kernel
def cutile_transposed(a, out, tm: cu.Constant[int], tn: cu.Constant[int]):
    i, j = cu.bid(0), cu.bid(1)
    t = cu.load(a, (j, i), shape=(tn, tm), order=(1, 0), padding_mode=cu.PaddingMode.NAN)
    cu.store(out, (j, i), t)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_cutile_load_order_transposes_with_edge_tiles(target, rng, dtype):
    # t[y, x] = a[i*tm + x, j*tn + y]: out (N x M) is a.T, NaN where the tile passes a's edge.
    m, n, tm, tn = 20, 12, 8, 16
    a = rng.standard_normal((m, n)).astype(dtype)
    out = np.zeros((n, m), dtype)
    run_tiles(target, cutile_transposed, a, out, tm, tn, grid=(3, 1))
    np.testing.assert_array_equal(out, a.T)


@ct.kernel
def seed_orders(a, f, p, s, st):
    ct.store(f, (0, 0, 0), ct.load(a, (0, 0, 0), (16, 8, 4), order="F"))
    ct.store(p, (0, 0, 0), ct.load(a, (0, 0, 0), (8, 16, 4), order=(1, 2, 0)))
    t = ct.load(a, (0, 0, 0), (4, 8, 16), order="C")
    ct.store(s, (0, 0, 0), t * 2, order=(2, 0, 1))
    ct.store(st, (0, 0, 1), ct.load(a, (0, 0, 1), (2, 8, 4)), order="F")


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint64, np.float32, ml_dtypes.bfloat16])
def test_load_and_store_orders_of_every_axis(target, rng, dtype):
    a = (rng.standard_normal((4, 8, 16)) * 50).astype(dtype)
    f, p = np.zeros((16, 8, 4), dtype), np.zeros((8, 16, 4), dtype)
    s = np.zeros((8, 16, 4), dtype)
    st = np.zeros((8, 8, 2), dtype)
    run_tiles(target, seed_orders, a, f, p, s, st, grid=1)
    np.testing.assert_array_equal(f, a.transpose(2, 1, 0))
    np.testing.assert_array_equal(p, a.transpose(1, 2, 0))
    # store with order: the array seen with its axes permuted receives the tile.
    np.testing.assert_array_equal(s.transpose(2, 0, 1), (a * 2).astype(dtype))
    expected = np.zeros((8, 8, 2), dtype)
    expected[4:8, :, :] = a[0:2, :, 4:8].transpose(2, 1, 0)
    np.testing.assert_array_equal(st, expected)


@ct.kernel
def bad_order(a):
    t = ct.load(a, (0, 0), (4, 4), order=(0, 0))


def test_bad_order_is_an_error(target):
    with pytest.raises(weft.CompileError, match=r"order=\(0, 0\).*TilePermutation"):
        run_tiles(target, bad_order, np.zeros((4, 4), np.float32), grid=1)


# ---- restricted element types (fp8): load, store, astype and mma only ----

FP8 = [ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2]


@ct.kernel
def fp8_round_trip(a, widened, narrowed, copied, f):
    t = ct.load(a, (ct.bid(0), 0), (4, 16), padding="nan")
    ct.store(copied, (ct.bid(0), 0), t)
    w = ct.astype(t, ct.float32)
    ct.store(widened, (ct.bid(0), 0), w)
    ct.store(narrowed, (ct.bid(0), 0), (ct.load(f, (ct.bid(0), 0), (4, 16)) * 2).astype(t.dtype))


@pytest.mark.parametrize("dtype", FP8)
def test_fp8_load_store_and_convert(target, rng, dtype):
    # 6 rows: the second tile block's last two rows are outside the array.
    a = rng.standard_normal((6, 16)).astype(dtype)
    f = rng.standard_normal((6, 16)).astype(np.float32)
    widened, copied = np.zeros((6, 16), np.float32), np.zeros((6, 16), dtype)
    narrowed = np.zeros((6, 16), dtype)
    run_tiles(target, fp8_round_trip, a, widened, narrowed, copied, f, grid=2)
    np.testing.assert_array_equal(copied.astype(np.float32), a.astype(np.float32))
    np.testing.assert_array_equal(widened, a.astype(np.float32))
    np.testing.assert_array_equal(narrowed.astype(np.float32), (f * 2).astype(dtype).astype(np.float32))


@cu.kernel
def fp8_ordered(a, out):
    cu.store(out, (0, 0), cu.load(a, (0, 0), (8, 4), order="F").astype(cu.float32))


def test_fp8_load_with_order(target, rng):
    a = rng.standard_normal((4, 8)).astype(ml_dtypes.float8_e5m2)
    out = np.zeros((8, 4), np.float32)
    run_tiles(target, fp8_ordered, a, out, grid=1)
    np.testing.assert_array_equal(out, a.T.astype(np.float32))


@ct.kernel
def fp8_matmul(a, b, c):
    c_tile = ct.mma(ct.load(a, (0, 0), (16, 32)), ct.load(b, (0, 0), (32, 16)), ct.zeros((16, 16), ct.float32))
    ct.store(c, (0, 0), c_tile)


@pytest.mark.parametrize("dtype", FP8)
def test_fp8_mma_against_numpy(target, rng, dtype):
    a = rng.standard_normal((16, 32)).astype(dtype)
    b = rng.standard_normal((32, 16)).astype(dtype)
    c = np.zeros((16, 16), np.float32)
    run_tiles(target, fp8_matmul, a, b, c, grid=1)
    # The CPU target's bits are float32 sums in K order; the GPU's tensor cores sum in their own
    # precision (docs/tiles.md, "How mma runs").
    check_fp8_products(target, c, np.zeros_like(c), a, b)


@ct.kernel
def fp8_arithmetic(a):
    t = ct.load(a, (0,), (16,))
    u = t + t


@ct.kernel
def fp8_reduction(a):
    s = ct.sum(ct.load(a, (0,), (16,)))


@cu.kernel
def fp8_mixed(a, f):
    u = cu.load(f, (0,), (16,)) * cu.load(a, (0,), (16,))


@ct.kernel
def fp8_reshape(a):
    r = ct.reshape(ct.load(a, (0,), (16,)), (4, 4))


@ct.kernel
def fp8_inf_padding(a):
    t = ct.load(a, (0,), (16,), padding="+inf")


@pytest.mark.parametrize("kernel, what", [(fp8_arithmetic, "element-wise"), (fp8_reduction, "sum()"),
                                          (fp8_mixed, "element-wise"), (fp8_reshape, "reshape()")])
def test_fp8_elsewhere_is_an_error_at_the_users_line(target, kernel, what):
    a = np.zeros(16, ml_dtypes.float8_e4m3fn)
    args = (a, np.zeros(16, np.float32)) if kernel is fp8_mixed else (a,)
    with pytest.raises(weft.CompileError, match=rf"float8e4m3 \(a restricted type\).*{what}.*TileRestrictedType") as info:
        run_tiles(target, kernel, *args, grid=1)
    line = {fp8_arithmetic: "t + t", fp8_reduction: "ct.sum", fp8_mixed: "*", fp8_reshape: "ct.reshape"}[kernel]
    assert f":{line_of(kernel.underlying, line)}:" in str(info.value)


def test_fp8_e4m3_has_no_infinite_padding(target):
    with pytest.raises(weft.CompileError, match="for an array of float8e4m3.*TilePadding"):
        run_tiles(target, fp8_inf_padding, np.zeros(16, ml_dtypes.float8_e4m3fn), grid=1)


@cu.kernel
def cutile_fp8_names(a, out, narrowed):
    t = cu.load(a, (0,), (16,))
    cu.store(out, (0,), t.astype(cu.float32))
    cu.store(narrowed, (0,), (t.astype(cu.float32) + 1).astype(cu.float8_e5m2))


def test_cutile_fp8_type_names(target, rng):
    assert cu.float8_e4m3fn is cu.float8e4m3 and cu.float8_e5m2 is cu.float8e5m2
    a = rng.standard_normal(16).astype(ml_dtypes.float8_e4m3fn)
    out, narrowed = np.zeros(16, np.float32), np.zeros(16, ml_dtypes.float8_e5m2)
    run_tiles(target, cutile_fp8_names, a, out, narrowed, grid=1)
    np.testing.assert_array_equal(out, a.astype(np.float32))
    np.testing.assert_array_equal(narrowed, (a.astype(np.float32) + 1).astype(ml_dtypes.float8_e5m2))


# ---- tensor spans and partition views (the seed's face) ----


@ct.function
def view_tile_sum(v, i, j):
    return ct.sum(v.load((i, j)))


@ct.kernel
def view_copy(a, out, counts, sums, th: ct.ConstExpr, tw: ct.ConstExpr):
    span = ct.tensor_span(a)
    v = ct.partition_view(span, (th, tw), padding="-inf")
    o = ct.partition_view(out, (th, tw))
    i, j = ct.bid(0), ct.bid(1)
    t = v.load((i, j))
    o.store((i, j), ct.where(t == -math.inf, 0.0, t) * 2)
    ct.store(o, (i, j), ct.load(o, (i, j)) + 1)
    if i == 0 and j == 0:
        counts[0] = v.num_tiles(0)
        counts[1] = ct.num_tiles(v, 1)
    sums[i, j] = view_tile_sum(o, i, j).item()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("shape", [(32, 64), (20, 50), (3, 7)])
def test_partition_views_with_edge_tiles(target, rng, dtype, shape):
    th, tw = 8, 16
    a = rng.standard_normal(shape).astype(dtype)
    out = np.zeros(shape, dtype)
    grid = (-(-shape[0] // th), -(-shape[1] // tw))
    counts = np.zeros(2, np.int32)
    sums = np.zeros(grid, dtype)
    run_tiles(target, view_copy, a, out, counts, sums, th, tw, grid=grid)
    np.testing.assert_array_equal(out, (a * 2 + 1).astype(dtype))
    assert list(counts) == list(grid)
    padded = np.zeros((grid[0] * th, grid[1] * tw), np.float64)
    padded[: shape[0], : shape[1]] = out
    expected = padded.reshape(grid[0], th, grid[1], tw).sum(axis=(1, 3))
    np.testing.assert_allclose(sums.astype(np.float64), expected, rtol=2e-2 if dtype == np.float16 else 1e-5,
                               atol=0.5 if dtype == np.float16 else 1e-5)


@ct.kernel
def view_3d(a, out, t0: ct.ConstExpr, t1: ct.ConstExpr, t2: ct.ConstExpr):
    v = ct.partition_view(a, (t0, t1, t2))
    w = ct.partition_view(ct.tensor_span(out), (t0, t1, t2))
    for k in range(v.num_tiles(2)):
        index = (ct.bid(0), ct.bid(1), k)
        w.store(index, ct.load(v, index) * 3)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint16, np.int64, ml_dtypes.bfloat16])
def test_integer_and_3d_partition_views(target, rng, dtype):
    a = (rng.standard_normal((5, 6, 40)) * 20).astype(dtype)
    out = np.zeros_like(a)
    run_tiles(target, view_3d, a, out, 4, 4, 16, grid=(2, 2))
    np.testing.assert_array_equal(out, (a * 3).astype(dtype))


@ct.kernel
def view_wrong_tile(a):
    v = ct.partition_view(a, (16,))
    v.store((0,), ct.zeros((8,), ct.float32))


@ct.kernel
def view_with_shape(a):
    v = ct.partition_view(a, (16,))
    t = ct.load(v, (0,), (16,))


@ct.kernel
def view_unknown_method(a):
    v = ct.partition_view(a, (16,))
    t = v.gather((0,))


def test_partition_view_errors(target):
    a = np.zeros(16, np.float32)
    with pytest.raises(weft.CompileError, match=r"\(8,\) is not the partition view's tile shape \(16,\).*TileViewShape"):
        run_tiles(target, view_wrong_tile, a, grid=1)
    with pytest.raises(weft.CompileError, match=r"DuplicateArgument"):
        run_tiles(target, view_with_shape, a, grid=1)
    with pytest.raises(weft.CompileError, match=r"gather.*UnknownAttribute"):
        run_tiles(target, view_unknown_method, a, grid=1)
