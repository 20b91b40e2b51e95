"""The TMA-store epilogue (include/weft/tiles/store_tma.h): a store of a TMA K loop's accumulator,
or of element-wise code of it, into a kernel parameter. On the CPU target against NumPy on seeded
random data, where the store's semantics must be the generic store's: edge tiles (M, N not
multiples of the tile), bfloat16, float16 and float32 outputs, an epilogue `(acc * alpha +
bias).astype(...)` through a local, block indices that are negative or past the array's end, and
arrays TMA cannot address (views with a misaligned base or a row pitch that is not a multiple of 16
bytes); test_tile_store_tma_gpu.py runs them again on an H100, where these are the TMA store and
its fallbacks, and compares them with the generic store bit for bit. Which stores take the TMA
store, and that they compile for sm_90a through ptxas (cp.async.bulk.tensor .global.shared::cta,
stmatrix for 16-bit elements), is checked on the emitted code and PTX; tests/cpp/test_tma_store.cpp
checks sema's marks, maps and shared memory, tests/tiles/test_store_tma.cu the box layout."""

import re
import subprocess

import ml_dtypes
import numpy as np
import pytest

from weft import cutile as cu
from weft import tiles as ct
from test_sm90_ptxas import CUDA, compile_for_sm90, weftc_path
from test_tiles_cpu import run_tiles
from test_tiles_sm90 import ptxas_resources


@pytest.fixture(scope="module")
def target():
    return "cpu"


# The plain GEMM whose accumulator goes straight to c (the TMA store on an H100).
@cu.kernel
def gemm_store(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    acc = cu.zeros((tm, tn), dtype=cu.float32)
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)), cu.load(b, (k, cu.bid(1)), (tk, tn)), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc.astype(c.dtype))


# The same store into a local alias of c: the generic store everywhere.
@cu.kernel
def gemm_store_alias(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    d = c
    acc = cu.zeros((tm, tn), dtype=cu.float32)
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)), cu.load(b, (k, cu.bid(1)), (tk, tn)), acc)
    cu.store(d, (cu.bid(0), cu.bid(1)), acc.astype(d.dtype))


# A fused epilogue through a local, stored `shift` tiles up (negative block indices for the first
# rows of blocks when shift > 0, past the end when shift < 0).
@cu.kernel
def gemm_epilogue(a, b, bias, c, alpha, shift, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    acc = cu.zeros((tm, tn), dtype=cu.float32)
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)), cu.load(b, (k, cu.bid(1)), (tk, tn)), acc)
    out = acc * alpha + cu.load(bias, (0, cu.bid(1)), (1, tn))
    cu.store(c, (cu.bid(0) - shift, cu.bid(1)), out.astype(c.dtype))


# Two stores after one loop (two maps after the loop's), one through a partition view (the seed's
# face).
@ct.kernel
def gemm_two_stores(a, b, c, d, tm: ct.ConstExpr, tn: ct.ConstExpr, tk: ct.ConstExpr):
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(a, (ct.bid(0), k), (tm, tk)), ct.load(b, (k, ct.bid(1)), (tk, tn)), acc)
    ct.store(c, (ct.bid(0), ct.bid(1)), acc)
    v = ct.partition_view(d, (tm, tn))
    v.store((ct.bid(0), ct.bid(1)), ct.astype(acc * 2.0 - 1.0, ct.bfloat16))


def padded_product(a, b, tm, tn):
    """a @ b in float64 over the zero-padded tiles: (gm * tm) x (gn * tn), gm, gn the grid."""
    gm, gn = -(-a.shape[0] // tm), -(-b.shape[1] // tn)
    ap = np.zeros((gm * tm, a.shape[1]))
    bp = np.zeros((b.shape[0], gn * tn))
    ap[:a.shape[0]] = a.astype(np.float64)
    bp[:, :b.shape[1]] = b.astype(np.float64)
    return ap @ bp


def shifted(start, tiles, tm, shift):
    """start with the rows of blocks of `tiles` stored `shift` blocks up, clipped to its bounds."""
    want = start.astype(np.float64)
    for i in range(tiles.shape[0] // tm):
        row = (i - shift) * tm
        if row < 0 or row >= start.shape[0]:
            continue
        rows = min(tm, start.shape[0] - row)
        want[row:row + rows] = tiles[i * tm:i * tm + rows, :start.shape[1]]
    return want


def tolerance(dtype, k):
    # float32 sums of k products against float64; then one rounding to the output type.
    rtol = {np.float32: 1e-5, np.float16: 2 ** -10, ml_dtypes.bfloat16: 2 ** -7}[dtype]
    return dict(rtol=rtol, atol=1e-4 * np.sqrt(k) + rtol)


STORE_CASES = [
    (ml_dtypes.bfloat16, 300, 520, 130, (128, 256, 64)),
    (np.float32, 300, 520, 130, (128, 256, 64)),
    (np.float16, 200, 260, 70, (128, 128, 64)),
    (np.float32, 130, 200, 64, (64, 64, 64)),
    (ml_dtypes.bfloat16, 260, 130, 64, (256, 128, 64)),
]


@pytest.mark.parametrize("out, m, n, k, tiles", STORE_CASES)
def test_stores_of_the_accumulator(target, rng, out, m, n, k, tiles):
    tm, tn, tk = tiles
    a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((k, n)).astype(ml_dtypes.bfloat16)
    start = rng.standard_normal((m, n)).astype(out)
    grid = (-(-m // tm), -(-n // tn))
    tma, alias = start.copy(), start.copy()
    run_tiles(target, gemm_store, a, b, tma, tm, tn, tk, grid=grid)
    run_tiles(target, gemm_store_alias, a, b, alias, tm, tn, tk, grid=grid)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(tma.astype(np.float64), want, **tolerance(out, k))
    # The same sums stored two ways: the same bits.
    np.testing.assert_array_equal(tma, alias)


def test_two_stores_after_one_loop(target, rng):
    m, n, k, (tm, tn, tk) = 200, 300, 100, (128, 128, 64)
    a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((k, n)).astype(ml_dtypes.bfloat16)
    c = rng.standard_normal((m, n)).astype(np.float32)
    d = rng.standard_normal((m, n)).astype(ml_dtypes.bfloat16)
    run_tiles(target, gemm_two_stores, a, b, c, d, tm, tn, tk, grid=(-(-m // tm), -(-n // tn)))
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, **tolerance(np.float32, k))
    np.testing.assert_allclose(d.astype(np.float64), want * 2 - 1, **tolerance(ml_dtypes.bfloat16, k))


@pytest.mark.parametrize("shift", [0, 1, 2, -1])
@pytest.mark.parametrize("out", [ml_dtypes.bfloat16, np.float32])
def test_an_epilogue_stored_at_shifted_block_indices(target, rng, out, shift):
    # shift 1 and 2: the first rows of blocks store at negative block indices (nothing), the
    # others a block or two up, their zero-padded rows past m included where they land inside;
    # -1: the last row of blocks stores past the end (nothing).
    m, n, k, (tm, tn, tk) = 300, 520, 130, (128, 256, 64)
    a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((k, n)).astype(ml_dtypes.bfloat16)
    gn = -(-n // tn)
    bias = rng.standard_normal((1, gn * tn)).astype(np.float32)
    alpha = np.float32(0.75)
    start = rng.standard_normal((m, n)).astype(out)
    c = start.copy()
    run_tiles(target, gemm_epilogue, a, b, bias, c, alpha, shift, tm, tn, tk, grid=(-(-m // tm), gn))
    tiles = padded_product(a, b, tm, tn) * np.float64(alpha) + bias.astype(np.float64)
    want = shifted(start, tiles, tm, shift)
    np.testing.assert_allclose(c.astype(np.float64), want, **tolerance(out, k))
    untouched = shifted(start, np.full_like(tiles, np.nan), tm, shift)
    np.testing.assert_array_equal(c[~np.isnan(untouched)], start[~np.isnan(untouched)])


@pytest.mark.parametrize("out, pitch, offset", [
    # Views TMA cannot address: rows 3 bfloat16 (6 bytes) apart beyond the view's, and a base 2
    # bytes past 16; and one it can (rows 16 bytes apart beyond the view's).
    (ml_dtypes.bfloat16, 3, 0),
    (ml_dtypes.bfloat16, 8, 1),
    (np.float32, 4, 0),
])
def test_stores_into_views(target, rng, out, pitch, offset):
    m, n, k, (tm, tn, tk) = 200, 260, 70, (128, 128, 64)
    a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((k, n)).astype(ml_dtypes.bfloat16)
    wide = rng.standard_normal((m, n + pitch)).astype(out)
    start = wide.copy()
    grid = (-(-m // tm), -(-n // tn))
    if target == "gpu":
        import weft
        dwide = weft.to_device(wide)
        weft.launch(gemm_store, weft.to_device(a), weft.to_device(b), dwide[:, offset:offset + n], tm, tn, tk,
                    grid=grid, target="gpu")
        weft.synchronize()
        wide = dwide.copy_to_host()
    else:
        run_tiles(target, gemm_store, a, b, wide[:, offset:offset + n], tm, tn, tk, grid=grid)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(wide[:, offset:offset + n].astype(np.float64), want, **tolerance(out, k))
    outside = np.ones(wide.shape, bool)
    outside[:, offset:offset + n] = False
    np.testing.assert_array_equal(wide[outside], start[outside])


# ---- which stores take the TMA store, in the emitted code and the sm_90a PTX ----

needs_toolkit = pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")

GEMM = """
from weft import cutile as cu

@cu.kernel
def gemm(a: cu.bfloat16[:, :], b: cu.bfloat16[:, :], c: cu.{out}[:, :], bias: cu.float32[:, :]):
    acc = cu.zeros(({tm}, {tn}), dtype=cu.float32)
    for k in range(cu.num_tiles(a, axis=1, shape=({tm}, 64))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), ({tm}, 64)), cu.load(b, (k, cu.bid(1)), (64, {tn})), acc)
    {epilogue}
"""
PLAIN = "cu.store(c, (cu.bid(0), cu.bid(1)), acc.astype(c.dtype))"
BIAS = "cu.store(c, (cu.bid(0), cu.bid(1)), (acc * 0.5 + cu.load(bias, (0, cu.bid(1)), (1, {tn}))).astype(c.dtype))"


def emitted(tmp_path, source):
    src = tmp_path / "gemm.py"
    src.write_text(source)
    proc = subprocess.run([weftc_path(), str(src), "--emit-cuda"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@needs_toolkit
@pytest.mark.parametrize("out, epilogue, tma", [
    ("bfloat16", PLAIN, True),
    ("float32", PLAIN, True),
    ("float16", BIAS, True),
    # Stored transposed, a store of a tile loaded from an array, 8-bit elements.
    ("float32", "cu.store(c, (cu.bid(1), cu.bid(0)), acc, order='F')", False),
    ("float32", "cu.store(c, (0, 0), cu.load(bias, (0, 0), ({tm}, {tn})))", False),
    ("int8", PLAIN, False),
])
def test_which_stores_take_the_tma_store(tmp_path, out, epilogue, tma):
    code = emitted(tmp_path, GEMM.format(out=out, tm=128, tn=128, epilogue=epilogue.format(tm=128, tn=128)))
    assert ("weft::tiles::store_array_tma(" in code) == tma
    # The store's map follows the loop's two.
    assert ("tensor_map weft_map2, const unsigned weft_map_mask" in code) == tma
    assert "tensor_map weft_map1" in code


@needs_toolkit
@pytest.mark.parametrize("out, tiles", [("bfloat16", (128, 256)), ("float32", (128, 128)), ("float16", (64, 64))])
def test_the_tma_store_compiles_for_sm90a(tmp_path, out, tiles):
    # The box written by stmatrix (16-bit) or 8-byte shared stores (32-bit), one TMA store a
    # 128-byte slab; the generic store is there too (negative indices, maps it cannot take).
    tm, tn = tiles
    source = GEMM.format(out=out, tm=tm, tn=tn, epilogue=BIAS.format(tn=tn))
    _, ptx = compile_for_sm90(tmp_path, "gemm_a", source, arch="sm_90a")
    slabs = tn * (4 if out == "float32" else 2) // 128
    assert len(re.findall(r"cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.bulk_group", ptx)) == slabs
    assert "cp.async.bulk.wait_group 0;" in ptx and "fence.proxy.async.shared::cta;" in ptx
    assert ("stmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx) == (out != "float32")
    assert "st.global.v4.u32" in ptx
    assert ".local" not in ptx
    # sm_90 (no a): neither wgmma nor TMA.
    _, ptx = compile_for_sm90(tmp_path, "gemm", source, arch="sm_90")
    assert "cp.async.bulk.tensor" not in ptx and "stmatrix" not in ptx


BENCH_GEMM = """
from weft import tiles as ct

@ct.kernel
def gemm(a: ct.bfloat16[:, :], b: ct.bfloat16[:, :], c: ct.{out}[:, :]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.zeros((128, 256), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(128, 64))):
        acc = ct.mma(ct.load(a, (bm, k), (128, 64)), ct.load(b, (k, bn), (64, 256)), acc)
    ct.store(c, (bm, bn), acc.astype(c.dtype))
"""


@needs_toolkit
@pytest.mark.parametrize("out", ["bfloat16", "float32"])
def test_the_128x256_gemm_keeps_its_registers(tmp_path, out):
    # bench_tiles.py's GEMM as written there (128 x 256 x 64 tiles, 256 threads): ptxas gave it 255
    # registers and 80 bytes of spill stores and loads (in the K loop's paths) before the TMA store,
    # and gives it no more with it.
    source = BENCH_GEMM.format(out=out)
    _, ptx = compile_for_sm90(tmp_path, "gemm", source, arch="sm_90a")
    assert "cp.async.bulk.tensor.2d.global.shared::cta" in ptx
    (registers, spills), = ptxas_resources(tmp_path, ptx, arch="sm_90a").values()
    assert registers <= 255 and spills <= 80, (registers, spills)
