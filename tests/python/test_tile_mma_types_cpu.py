"""mma of every tensor-core operand type in tile code: the K loops that sema pipelines
(include/weft/tiles/mma_pipeline.h) for float16, bfloat16, int8, uint8, float64, float8 (e4m3,
e5m2) and tfloat32 (float32 arrays converted with astype) operands, on the CPU target against
NumPy on seeded random data with edge tiles (float8: bit for bit with float32 sums in K order),
and bit for bit against the same loop kept as written. test_tile_mma_types_gpu.py runs them again on the GPU, where the pipelined
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


# ---- tfloat32: a restricted tile element type (astype and mma only) ----

import weft  # noqa: E402
from weft import tiles as ct  # noqa: E402
from launching import line_of  # noqa: E402


def tf32(x):
    """NumPy's reference of astype(tfloat32) of float32 values: the mantissa rounded to 10 bits,
    ties away from zero (the GPU's cvt.rna.tf32.f32), as float32 values."""
    bits = np.asarray(x, np.float32).view(np.uint32)
    return ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)


@ct.kernel
def tf32_round_trip(a, out, n: ct.ConstExpr):
    i = ct.bid(0)
    ct.store(out, (i,), ct.astype(ct.load(a, (i,), (n,)), ct.tfloat32).astype(ct.float32))


@cu.kernel
def tf32_round_trip_cutile(a, out, n: cu.Constant[int]):
    i = cu.bid(0)
    cu.store(out, (i,), cu.load(a, (i,), (n,)).astype(cu.tfloat32).astype(cu.float32))


@pytest.mark.parametrize("kernel", [tf32_round_trip, tf32_round_trip_cutile])
def test_astype_tfloat32_rounds_ties_away_from_zero(target, rng, kernel):
    a = (rng.standard_normal(1000) * 10.0 ** rng.integers(-30, 30, 1000)).astype(np.float32)
    # Exact ties (the 13 dropped bits 0x1000), of both signs, and values next to them.
    ties = (rng.integers(0, 0x7F800000 >> 13, 200, dtype=np.uint32) << np.uint32(13)) | np.uint32(0x1000)  # finite
    a[:200] = ties.view(np.float32) * np.where(np.arange(200) % 2 == 0, 1, -1).astype(np.float32)
    a[200:220] = (ties[:20] - np.uint32(1)).view(np.float32)
    a[220:224] = [np.inf, -np.inf, 0.0, -0.0]
    out = np.zeros_like(a)
    run_tiles(target, kernel, a, out, 128, grid=(1000 + 127) // 128)  # an edge tile
    np.testing.assert_array_equal(out.view(np.uint32), tf32(a).view(np.uint32))


@ct.kernel
def tf32_k_loop(a, b, c, tm: ct.ConstExpr, tn: ct.ConstExpr, tk: ct.ConstExpr):
    acc = ct.load(c, (ct.bid(0), ct.bid(1)), (tm, tn))
    for k in range(ct.num_tiles(a, 1, (tm, tk))):
        x = ct.astype(ct.load(a, (ct.bid(0), k), (tm, tk)), ct.tfloat32)
        y = ct.astype(ct.load(b, (k, ct.bid(1)), (tk, tn)), ct.tfloat32)
        acc = ct.mma(x, y, acc)
    ct.store(c, (ct.bid(0), ct.bid(1)), acc)


@cu.kernel
def tf32_matmul_cutile(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    x = cu.load(a, (cu.bid(0), 0), (tm, tk)).astype(cu.tfloat32)
    y = cu.load(b, (0, cu.bid(1)), (tk, tn)).astype(cu.tfloat32)
    cu.store(c, (cu.bid(0), cu.bid(1)), x @ y)


@pytest.mark.parametrize("m, n, k, tiles", [(96, 80, 72, (64, 32, 16)), (64, 64, 64, (32, 64, 8)), (40, 24, 20, (16, 8, 8))])
def test_tfloat32_mma_against_numpy(target, rng, m, n, k, tiles):
    tm, tn, tk = tiles
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    start = rng.standard_normal((m, n)).astype(np.float32)
    c = start.copy()
    run_tiles(target, tf32_k_loop, a, b, c, tm, tn, tk, grid=((m + tm - 1) // tm, (n + tn - 1) // tn))
    want = start.astype(np.float64) + tf32(a).astype(np.float64) @ tf32(b).astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * np.sqrt(k))
    # The products of tf32 values are exact in float32: only the sums round.
    full = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(c - start - full).max() > np.abs(c - want).max()


# The tf32 K loop sema pipelines (float32 arrays, both loads converted with astype(tfloat32)),
# and the same loop kept as written because the loop variable is read after it.
@cu.kernel
def tf32_piped(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    acc = cu.load(c, (cu.bid(0), cu.bid(1)), (tm, tn))
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)).astype(cu.tfloat32),
                     cu.load(b, (k, cu.bid(1)), (tk, tn)).astype(cu.tfloat32), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)


@cu.kernel
def tf32_plain(a, b, c, last, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    acc = cu.load(c, (cu.bid(0), cu.bid(1)), (tm, tn))
    k = -1
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)).astype(cu.tfloat32),
                     cu.load(b, (k, cu.bid(1)), (tk, tn)).astype(cu.tfloat32), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)
    last[cu.bid(0), cu.bid(1)] = k


def test_tf32_k_loops_are_pipelined():
    a, b, c = (np.zeros((64, 64), np.float32) for _ in range(3))
    assert "mma_pipeline_arrays<" in tf32_piped._emit_cuda(a, b, c, 64, 64, 32, target="cpu")
    assert "mma_pipeline_arrays<" in tf32_k_loop._emit_cuda(a, b, c, 64, 64, 32, target="cpu")
    assert "mma_pipeline_arrays<" not in tf32_plain._emit_cuda(a, b, c, np.zeros((1, 1), np.int32), 64, 64, 32,
                                                               target="cpu")


@pytest.mark.parametrize("m, n, k, tiles", [(100, 72, 50, (64, 32, 16)), (96, 80, 72, (32, 64, 32)), (64, 64, 64, (64, 64, 8))])
def test_pipelined_tf32_k_loop(target, rng, m, n, k, tiles):
    tm, tn, tk = tiles
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    start = rng.standard_normal((m, n)).astype(np.float32)
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
    piped, plain = start.copy(), start.copy()
    run_tiles(target, tf32_piped, a, b, piped, tm, tn, tk, grid=grid)
    run_tiles(target, tf32_plain, a, b, plain, np.zeros(grid, np.int32), tm, tn, tk, grid=grid)
    want = start.astype(np.float64) + tf32(a).astype(np.float64) @ tf32(b).astype(np.float64)
    np.testing.assert_allclose(piped, want, rtol=1e-5, atol=1e-5 * np.sqrt(k))
    # The operands round to tf32 in the pipeline as astype(tfloat32) rounds them: the same bits.
    np.testing.assert_array_equal(piped.view(np.uint32), plain.view(np.uint32))


def test_tfloat32_matmul_in_the_cutile_face(target, rng):
    a = rng.standard_normal((64, 32)).astype(np.float32)
    b = rng.standard_normal((32, 48)).astype(np.float32)
    c = np.zeros((64, 48), np.float32)
    run_tiles(target, tf32_matmul_cutile, a, b, c, 32, 16, 32, grid=(2, 3))
    want = tf32(a).astype(np.float64) @ tf32(b).astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * np.sqrt(32))


@ct.kernel
def tf32_arithmetic(a):
    t = ct.astype(ct.load(a, (0,), (16,)), ct.tfloat32)
    u = t * 2


@ct.kernel
def tf32_reduction(a):
    s = ct.sum(ct.astype(ct.load(a, (0,), (16,)), ct.tfloat32))


@cu.kernel
def tf32_reshape(a):
    r = cu.reshape(cu.load(a, (0,), (16,)).astype(cu.tfloat32), (4, 4))


@ct.kernel
def tf32_full(a):
    ct.store(a, (0,), ct.full((16,), 1.0, ct.tfloat32).astype(ct.float32))


@pytest.mark.parametrize("kernel, what, line", [(tf32_arithmetic, "element-wise", "t * 2"), (tf32_reduction, "sum()", "ct.sum"),
                                                (tf32_reshape, "reshape()", "cu.reshape"), (tf32_full, "full()", "ct.full")])
def test_tfloat32_elsewhere_is_an_error_at_the_users_line(target, kernel, what, line):
    with pytest.raises(weft.CompileError, match=rf"tfloat32 \(a restricted type\).*{what}.*TileRestrictedType") as info:
        run_tiles(target, kernel, np.zeros(16, np.float32), grid=1)
    assert f":{line_of(kernel.underlying, line)}:" in str(info.value)


@ct.kernel
def tf32_accumulator(a, c):
    x = ct.astype(ct.load(a, (0, 0), (16, 16)), ct.tfloat32)
    ct.store(c, (0, 0), ct.mma(x, x, x).astype(ct.float32))


def test_tfloat32_accumulates_in_float32_only(target):
    with pytest.raises(weft.CompileError, match=r"tfloat32.*use float32.*TileElementType") as info:
        run_tiles(target, tf32_accumulator, np.zeros((16, 16), np.float32), np.zeros((16, 16), np.float32), grid=1)
    assert f":{line_of(tf32_accumulator.underlying, 'ct.mma')}:" in str(info.value)


@weft.kernel
def simt_tf32(a):
    a[0] = weft.tfloat32(1.0)


def test_tfloat32_is_a_tile_element_type_only():
    assert ct.tfloat32 is cu.tfloat32 and not hasattr(weft, "tfloat32")
    with pytest.raises(TypeError, match="tile element type only"):
        ct.tfloat32.dtype
    with pytest.raises(weft.CompileError):
        weft.launch(simt_tf32, np.zeros(4, np.float32), grid=1, block=1, target="cpu")


# ---- float8 (e4m3, e5m2): mma.sync m16n8k32 on sm_89+, float32 accumulators ----

FLOAT8 = [ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2]


def fp8_operands(rng, dtype, shape):
    """Random fp8 values of both signs over several binades (rounded to the type)."""
    return (rng.standard_normal(shape) * 2.0).astype(dtype)


def ordered_sums(start, a, b):
    """start + a @ b as the CPU target computes it: float32 products (exact for fp8) added to the
    float32 accumulator in K order."""
    acc = start.astype(np.float32)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    for k in range(a.shape[1]):
        acc = acc + a32[:, k:k + 1] * b32[k:k + 1, :]
    return acc


def check_fp8_products(target, got, start, a, b):
    """On the CPU target, the bits of ordered_sums; on the GPU, where the tensor cores sum each
    instruction's 32 products in their own order and precision, within 2^-10 of the sum of the
    magnitudes (docs/tiles.md, "How mma runs")."""
    if target == "cpu":
        np.testing.assert_array_equal(got.view(np.uint32), ordered_sums(start, a, b).view(np.uint32))
    else:
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        want = start.astype(np.float64) + a64 @ b64
        magnitude = np.abs(start.astype(np.float64)) + np.abs(a64) @ np.abs(b64)
        assert np.all(np.abs(got - want) <= 2.0 ** -10 * magnitude), np.abs(got - want).max()


@pytest.mark.parametrize("dtype", FLOAT8, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("m, n, k, tiles", [
    (64, 64, 64, (64, 64, 32)),
    (100, 72, 50, (32, 32, 32)),     # edge tiles, K not a multiple of the K tile
    (130, 64, 200, (64, 64, 64)),
    (96, 80, 72, (32, 16, 128)),     # one K step, mostly padding
])
def test_pipelined_float8_k_loops(target, rng, dtype, m, n, k, tiles):
    tm, tn, tk = tiles
    a, b = fp8_operands(rng, dtype, (m, k)), fp8_operands(rng, dtype, (k, n))
    start = rng.standard_normal((m, n)).astype(np.float32)
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
    piped, plain = start.copy(), start.copy()
    run_tiles(target, mma_piped, a, b, piped, tm, tn, tk, grid=grid)
    run_tiles(target, mma_plain, a, b, plain, np.zeros(grid, np.int32), tm, tn, tk, grid=grid)
    check_fp8_products(target, piped, start, a, b)
    # The same products in the same order (the pipeline's mma.sync sequence is the plain loop's).
    np.testing.assert_array_equal(piped.view(np.uint32), plain.view(np.uint32))


@ct.kernel
def fp8_mma_once(a, b, c, tm: ct.ConstExpr, tn: ct.ConstExpr, tk: ct.ConstExpr):
    acc = ct.load(c, (ct.bid(0), ct.bid(1)), (tm, tn))
    ct.store(c, (ct.bid(0), ct.bid(1)), ct.mma(ct.load(a, (ct.bid(0), 0), (tm, tk)), ct.load(b, (0, ct.bid(1)), (tk, tn)), acc))


@pytest.mark.parametrize("dtype", FLOAT8, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("m, n, k, tiles", [
    (64, 64, 64, (64, 64, 64)),      # the tensor cores' shape
    (48, 40, 128, (32, 16, 128)),    # edge tiles
    (16, 16, 16, (16, 16, 16)),      # K below the instruction's 32: the generic path
    (8, 8, 32, (8, 8, 32)),          # M below the instruction's 16: the generic path
])
def test_float8_mma_of_one_tile(target, rng, dtype, m, n, k, tiles):
    tm, tn, tk = tiles
    a, b = fp8_operands(rng, dtype, (m, k)), fp8_operands(rng, dtype, (k, n))
    start = rng.standard_normal((m, n)).astype(np.float32)
    c = start.copy()
    run_tiles(target, fp8_mma_once, a, b, c, tm, tn, tk, grid=((m + tm - 1) // tm, (n + tn - 1) // tn))
    check_fp8_products(target, c, start, a, b)


@pytest.mark.parametrize("dtype", FLOAT8, ids=lambda d: np.dtype(d).name)
def test_float8_k_loops_are_pipelined(dtype):
    a, b = np.zeros((64, 64), dtype), np.zeros((64, 64), dtype)
    c = np.zeros((64, 64), np.float32)
    code = mma_piped._emit_cuda(a, b, c, 64, 64, 32, target="cpu")
    assert "mma_pipeline_arrays<" in code and "mma_pipeline_tma_arrays<" not in code
    assert "mma_pipeline_arrays<" not in mma_plain._emit_cuda(a, b, c, np.zeros((1, 1), np.int32), 64, 64, 32,
                                                              target="cpu")
