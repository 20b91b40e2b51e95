"""K loops whose b is K-major: loaded with order=(1, 0) from an N x K array bt (the layout
torch._scaled_mm and cuBLAS's "TN" GEMMs take b in), which sema pipelines like a K x N b
(MmaPipeline::kMajorB): the cp.async ring stages bt's rows as they are and reads b's fragments
with ldmatrix, and on sm_90a the TMA/wgmma path takes float16, bfloat16 and (only so) float8
loops. On the CPU target against NumPy on seeded random data with edge tiles (fp8: float32 sums
in K order, bit for bit), and bit for bit against the same loop kept as written;
test_tile_kmajor_gpu.py runs them again on the GPU. Which loops are pipelined and which take the
TMA path is checked on the emitted code, and the sm_90a and sm_90 code through ptxas."""

import re
import subprocess

import ml_dtypes
import numpy as np
import pytest

from weft import cutile as cu
from weft import tiles as wt
from test_sm90_ptxas import CUDA, compile_for_sm90, weftc_path
from test_tile_mma_types_cpu import check_fp8_products, fp8_operands
from test_tiles_cpu import run_tiles


@pytest.fixture(scope="module")
def target():
    return "cpu"


# b K-major, loaded inside the mma from the kernel's parameter bt (the TMA path where it fits).
@cu.kernel
def kmajor_inline(a, bt, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    acc = cu.load(c, (cu.bid(0), cu.bid(1)), (tm, tn))
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)), cu.load(bt, (k, cu.bid(1)), (tk, tn), order=(1, 0)), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)


# The loads in locals, over aliases of the arrays: pipelined, on the cp.async path everywhere.
@cu.kernel
def kmajor_locals(a, bt, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    x = a
    y = bt
    acc = cu.load(c, (cu.bid(0), cu.bid(1)), (tm, tn))
    for k in range(cu.num_tiles(x, axis=1, shape=(tm, tk))):
        bk = cu.load(y, (k, cu.bid(1)), (tk, tn), order=(1, 0))
        ak = cu.load(x, (cu.bid(0), k), (tm, tk))
        acc = cu.mma(ak, bk, acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)


# The seed's face, with order='F' (reversed: (1, 0)).
@wt.kernel
def kmajor_seed(a, bt, c, tm: wt.ConstExpr, tn: wt.ConstExpr, tk: wt.ConstExpr):
    acc = wt.load(c, (wt.bid(0), wt.bid(1)), (tm, tn))
    for k in range(wt.num_tiles(a, 1, (tm, tk))):
        acc = wt.mma(wt.load(a, (wt.bid(0), k), (tm, tk)), wt.load(bt, (k, wt.bid(1)), (tk, tn), order="F"), acc)
    wt.store(c, (wt.bid(0), wt.bid(1)), acc)


# The transpose of an N x K load (not of fp8 tiles, which only load, store, convert and multiply).
@cu.kernel
def kmajor_transpose(a, bt, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    acc = cu.load(c, (cu.bid(0), cu.bid(1)), (tm, tn))
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)), cu.transpose(cu.load(bt, (cu.bid(1), k), (tn, tk))), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)


# The loop kept as written (its variable is read after it): the reference bits.
@cu.kernel
def kmajor_plain(a, bt, c, last, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    acc = cu.load(c, (cu.bid(0), cu.bid(1)), (tm, tn))
    k = -1
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)), cu.load(bt, (k, cu.bid(1)), (tk, tn), order=(1, 0)), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)
    last[cu.bid(0), cu.bid(1)] = k


# tf32 products of float32 arrays, b K-major.
@cu.kernel
def kmajor_tf32(a, bt, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    acc = cu.load(c, (cu.bid(0), cu.bid(1)), (tm, tn))
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)).astype(cu.tfloat32),
                     cu.load(bt, (k, cu.bid(1)), (tk, tn), order=(1, 0)).astype(cu.tfloat32), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)


@cu.kernel
def kmajor_tf32_plain(a, bt, c, last, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    acc = cu.load(c, (cu.bid(0), cu.bid(1)), (tm, tn))
    k = -1
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)).astype(cu.tfloat32),
                     cu.load(bt, (k, cu.bid(1)), (tk, tn), order=(1, 0)).astype(cu.tfloat32), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)
    last[cu.bid(0), cu.bid(1)] = k


FP8 = [ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2]
ACCUMULATOR = {np.int8: np.int32, np.uint8: np.int32, np.float64: np.float64}


def operands(rng, dtype, shape):
    if dtype in (np.int8, np.uint8):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max + 1, shape).astype(dtype)
    return (rng.standard_normal(shape) * 2.0).astype(dtype)


def run_all(target, rng, dtype, m, n, k, tiles, kernels=(kmajor_inline, kmajor_locals, kmajor_seed)):
    """Each kernel and kmajor_plain on the same a (m x k) and bt (n x k); returns their results
    (kmajor_plain's last), the accumulators' start, a and bt."""
    tm, tn, tk = tiles
    a, bt = operands(rng, dtype, (m, k)), operands(rng, dtype, (n, k))
    acc = ACCUMULATOR.get(dtype, np.float32)
    start = (rng.integers(-1000, 1000, (m, n)) if acc == np.int32 else rng.standard_normal((m, n))).astype(acc)
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
    results = []
    for kernel in kernels:
        c = start.copy()
        run_tiles(target, kernel, a, bt, c, tm, tn, tk, grid=grid)
        results.append(c)
    plain = start.copy()
    run_tiles(target, kmajor_plain, a, bt, plain, np.zeros(grid, np.int32), tm, tn, tk, grid=grid)
    return results + [plain], start, a, bt


# Tile shapes the TMA path takes on an H100 (fp8: K tiles of one and two 128-byte slabs; one and
# two warpgroups) and ones it does not (the cp.async path), with edge tiles.
FP8_CASES = [
    (256, 256, 256, (128, 128, 128)),
    (200, 300, 260, (128, 256, 128)),   # edge tiles, 256 threads
    (130, 70, 300, (64, 64, 256)),
    (100, 72, 50, (32, 32, 32)),        # not the TMA path's tiles
    (96, 80, 72, (32, 16, 128)),        # one K step, mostly padding
]


@pytest.mark.parametrize("dtype", FP8, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("m, n, k, tiles", FP8_CASES)
def test_float8_k_loops_with_b_k_major(target, rng, dtype, m, n, k, tiles):
    results, start, a, bt = run_all(target, rng, dtype, m, n, k, tiles)
    for got in results:
        check_fp8_products(target, got, start, a, bt.T)
    if target == "cpu":
        # The CPU target sums in K order whatever the path: the plain loop's bits.
        for got in results[:-1]:
            np.testing.assert_array_equal(got.view(np.uint32), results[-1].view(np.uint32))
    else:
        # The cp.async paths (aliases; every one off sm_90a) give the plain loop's bits.
        np.testing.assert_array_equal(results[1].view(np.uint32), results[-1].view(np.uint32))


SIXTEEN_BIT_CASES = [
    (np.float16, 256, 512, 192, (128, 256, 64)),
    (ml_dtypes.bfloat16, 300, 500, 200, (128, 256, 64)),
    (ml_dtypes.bfloat16, 130, 200, 300, (64, 128, 128)),
    (np.float16, 260, 130, 70, (256, 128, 64)),
    (ml_dtypes.bfloat16, 100, 72, 50, (32, 32, 32)),
    (np.float16, 40, 48, 24, (16, 16, 16)),
]


@pytest.mark.parametrize("dtype, m, n, k, tiles", SIXTEEN_BIT_CASES)
def test_sixteen_bit_k_loops_with_b_k_major(target, rng, dtype, m, n, k, tiles):
    results, start, a, bt = run_all(target, rng, dtype, m, n, k, tiles,
                                    kernels=(kmajor_inline, kmajor_locals, kmajor_seed, kmajor_transpose))
    want = start.astype(np.float64) + a.astype(np.float64) @ bt.astype(np.float64).T
    for got in results:
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.sqrt(k))
    # The cp.async path (and on the CPU target every path) gives the plain loop's bits.
    compared = results[:-1] if target == "cpu" else results[1:2]
    for got in compared:
        np.testing.assert_array_equal(got, results[-1])


@pytest.mark.parametrize("dtype, m, n, k, tiles", [
    (np.int8, 100, 72, 150, (64, 64, 64)),
    (np.uint8, 64, 128, 96, (32, 64, 32)),
    (np.float64, 70, 50, 40, (32, 32, 16)),
])
def test_other_k_loops_with_b_k_major(target, rng, dtype, m, n, k, tiles):
    results, start, a, bt = run_all(target, rng, dtype, m, n, k, tiles, kernels=(kmajor_inline, kmajor_locals))
    if dtype == np.float64:
        want = start + a @ bt.T
        for got in results:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * k)
    else:
        want = (start.astype(np.int64) + a.astype(np.int64) @ bt.astype(np.int64).T).astype(np.int32)
        for got in results:
            np.testing.assert_array_equal(got, want)


def test_tf32_k_loop_with_b_k_major(target, rng):
    m, n, k, tiles = 100, 72, 90, (64, 64, 32)
    tm, tn, tk = tiles
    a, bt = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((n, k)).astype(np.float32)
    start = rng.standard_normal((m, n)).astype(np.float32)
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
    piped, plain = start.copy(), start.copy()
    run_tiles(target, kmajor_tf32, a, bt, piped, tm, tn, tk, grid=grid)
    run_tiles(target, kmajor_tf32_plain, a, bt, plain, np.zeros(grid, np.int32), tm, tn, tk, grid=grid)
    # tf32 keeps 10 bits of each operand's mantissa.
    want = start.astype(np.float64) + a.astype(np.float64) @ bt.astype(np.float64).T
    np.testing.assert_allclose(piped, want, rtol=2e-3, atol=2e-3 * np.sqrt(k))
    np.testing.assert_array_equal(piped, plain)


def test_an_empty_k_loop_keeps_the_accumulator(target, rng):
    a = np.zeros((128, 0), ml_dtypes.float8_e4m3fn)
    bt = np.zeros((128, 0), ml_dtypes.float8_e4m3fn)
    start = rng.standard_normal((128, 128)).astype(np.float32)
    c = start.copy()
    run_tiles(target, kmajor_inline, a, bt, c, 128, 128, 128, grid=(1, 1))
    np.testing.assert_array_equal(c, start)


@pytest.mark.parametrize("pad", [1, 16])
def test_arrays_the_ring_cannot_address_fall_back(target, rng, pad):
    # Views of wider arrays: bt's rows of k + 1 bytes (a stride neither TMA nor cp.async takes:
    # the fragments from global memory) and of k + 16 (both take it) give the same answers.
    m, n, k, tiles = 200, 260, 300, (128, 128, 128)
    tm, tn, tk = tiles
    dtype = ml_dtypes.float8_e4m3fn
    a = fp8_operands(rng, dtype, (m, k))
    bt_wide = fp8_operands(rng, dtype, (n, k + pad))
    bt = bt_wide[:, :k]
    start = rng.standard_normal((m, n)).astype(np.float32)
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
    c = start.copy()
    if target == "gpu":
        import weft
        dc = weft.to_device(c)
        weft.launch(kmajor_inline, weft.to_device(a), weft.to_device(bt_wide)[:, :k], dc, tm, tn, tk, grid=grid,
                    target="gpu")
        weft.synchronize()
        c = dc.copy_to_host()
    else:
        run_tiles(target, kmajor_inline, a, bt, c, tm, tn, tk, grid=grid)
    check_fp8_products(target, c, start, a, bt.T)


# ---- which loops are pipelined and which take the TMA path, in the emitted code ----

needs_toolkit = pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")

GEMM = """
from weft import cutile as cu

@cu.kernel
def gemm(a: cu.{dtype}[:, :], b: cu.{dtype}[:, :], c: cu.float32[:, :]):
    acc = cu.zeros(({tm}, {tn}), dtype=cu.float32)
    for k in range(cu.num_tiles(a, axis=1, shape=({tm}, {tk}))):
        acc = cu.mma({load_a}, {load_b}, acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)
"""
LOAD_A = "cu.load(a, (cu.bid(0), k), ({tm}, {tk}))"
K_MAJOR_B = "cu.load(b, (k, cu.bid(1)), ({tk}, {tn}), order=(1, 0))"
N_MAJOR_B = "cu.load(b, (k, cu.bid(1)), ({tk}, {tn}))"


def gemm_source(dtype, tiles, load_b=K_MAJOR_B, load_a=LOAD_A):
    tm, tn, tk = tiles
    source = GEMM.format(dtype=dtype, tm=tm, tn=tn, tk=tk, load_a=load_a.format(tm=tm, tk=tk),
                         load_b=load_b.format(tk=tk, tn=tn))
    return source.replace("cu.float32", "cu.int32") if dtype in ("int8", "uint8") else source


def emitted(tmp_path, source):
    src = tmp_path / "gemm.py"
    src.write_text(source)
    proc = subprocess.run([weftc_path(), str(src), "--emit-cuda"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@needs_toolkit
@pytest.mark.parametrize("dtype, tiles, load_b, call", [
    # K-major b over the kernel's parameters: the TMA path where the tiles fit (fp8's K tile is
    # whole 128-byte slabs), with KMajorB.
    ("float8e4m3", (128, 128, 128), K_MAJOR_B, "mma_pipeline_tma_arrays<{a}, {b}, 2, 4, true>("),
    ("float8e5m2", (128, 256, 128), K_MAJOR_B, "mma_pipeline_tma_arrays<{a}, {b}, 2, 4, true>("),
    ("bfloat16", (128, 256, 64), K_MAJOR_B, "mma_pipeline_tma_arrays<{a}, {b}, 2, 4, true>("),
    ("float16", (64, 64, 64), K_MAJOR_B, "mma_pipeline_tma_arrays<{a}, {b}, 4, 4, true>("),
    # fp8 K tiles of 64 bytes: the cp.async path, K-major.
    ("float8e4m3", (128, 128, 64), K_MAJOR_B, "mma_pipeline_arrays<{a}, {b}, 4, void, true>("),
    ("int8", (64, 64, 64), K_MAJOR_B, "mma_pipeline_arrays<{a}, {b}, 4, void, true>("),
    # fp8 b N-major: the cp.async path (wgmma reads fp8 b K-major only), as before.
    ("float8e4m3", (128, 128, 128), N_MAJOR_B, "mma_pipeline_arrays<{a}, {b}, 2>("),
    # The transpose of an N x K load written out is the same loop.
    ("bfloat16", (128, 128, 64), "cu.transpose(cu.load(b, (cu.bid(1), k), ({tn}, {tk})))",
     "mma_pipeline_tma_arrays<{a}, {b}, 2, 4, true>("),
])
def test_which_k_major_loops_take_which_path(tmp_path, dtype, tiles, load_b, call):
    tm, tn, tk = tiles
    code = emitted(tmp_path, gemm_source(dtype, tiles, load_b))
    shapes = {"a": f"weft::tiles::shape<{tm}u, {tk}u>", "b": f"weft::tiles::shape<{tk}u, {tn}u>"}
    assert "weft::tiles::" + call.format(**shapes) in code
    assert ("weft_map1" in code) == ("_tma_" in call)


@needs_toolkit
@pytest.mark.parametrize("load_a, load_b, pipelined", [
    # An a loaded with an order (M-major) is not pipelined: the loop runs as written.
    ("cu.load(a, (cu.bid(0), k), ({tm}, {tk}), order=(1, 0))", K_MAJOR_B, False),
    # A b loaded with order='F' is order=(1, 0).
    (LOAD_A, "cu.load(b, (k, cu.bid(1)), ({tk}, {tn}), order='F')", True),
    # A b loaded K-major with a padding other than zero is not pipelined.
    (LOAD_A, "cu.load(b, (k, cu.bid(1)), ({tk}, {tn}), order=(1, 0), padding_mode=cu.PaddingMode.NAN)", False),
])
def test_which_order_loads_are_pipelined(tmp_path, load_a, load_b, pipelined):
    code = emitted(tmp_path, gemm_source("bfloat16", (64, 64, 64), load_b, load_a))
    assert bool(re.search(r"weft::tiles::mma_pipeline(_tma)?_arrays<", code)) == pipelined


@needs_toolkit
@pytest.mark.parametrize("dtype, tiles", [
    ("float8e4m3", (128, 256, 128)), ("float8e5m2", (128, 128, 128)), ("float8e4m3", (64, 128, 256)),
])
def test_float8_k_loops_with_b_k_major_take_wgmma_on_sm90a(tmp_path, dtype, tiles):
    tm, tn, tk = tiles
    kind = dtype[len("float8"):]
    _, ptx = compile_for_sm90(tmp_path, "gemm", gemm_source(dtype, tiles), arch="sm_90a")
    assert f"wgmma.mma_async.sync.aligned.m64n{tn}k32.f32.{kind}.{kind}" in ptx
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes" in ptx
    # The launches the maps cannot take read fragments: no cp.async ring in the sm_90a kernel.
    assert "cp.async.cg.shared.global" not in ptx
    # fp8 loops of b N-major stay off wgmma.
    _, ptx = compile_for_sm90(tmp_path, "gemm_n", gemm_source(dtype, tiles, N_MAJOR_B), arch="sm_90a")
    assert "wgmma" not in ptx and "cp.async.bulk.tensor" not in ptx


@needs_toolkit
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_sixteen_bit_k_loops_with_b_k_major_take_wgmma_on_sm90a(tmp_path, dtype):
    kind = {"bfloat16": "bf16", "float16": "f16"}[dtype]
    _, ptx = compile_for_sm90(tmp_path, "gemm", gemm_source(dtype, (128, 256, 64)), arch="sm_90a")
    # The last immediate is wgmma's transpose-b: 0, b K-major (1 for the N-major b of a K x N array).
    assert re.search(rf"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.{kind}\.{kind} .*, p, 1, 1, 0, 0;", ptx)
    assert not re.search(r"p, 1, 1, 0, 1;", ptx)
    assert "cp.async.bulk.tensor" in ptx


@needs_toolkit
@pytest.mark.parametrize("dtype, kind, tiles", [
    ("float8e4m3", "f32.e4m3.e4m3.f32", (128, 128, 64)),
    ("float8e5m2", "f32.e5m2.e5m2.f32", (64, 64, 128)),
    ("int8", "s32.s8.s8.s32", (64, 64, 64)),
])
def test_eight_bit_k_loops_with_b_k_major_copy_and_ldmatrix(tmp_path, dtype, kind, tiles):
    # sm_90 (no wgmma): the cp.async ring stages bt's rows as they are and reads every fragment
    # by ldmatrix (not transposed): no byte-by-byte reads of the stages, which b N-major needs.
    source = gemm_source(dtype, tiles)
    _, ptx = compile_for_sm90(tmp_path, "gemm", source, arch="sm_90")
    assert f"mma.sync.aligned.m16n8k32.row.col.{kind}" in ptx
    assert "cp.async.cg.shared.global" in ptx and "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx
    assert "ld.shared.u8" not in ptx and "ldmatrix.sync.aligned.m8n8.x4.trans" not in ptx
    _, ptx = compile_for_sm90(tmp_path, "gemm_n", source.replace(", order=(1, 0)", ""), arch="sm_90")
    assert "ld.shared.u8" in ptx


@needs_toolkit
def test_sixteen_bit_k_loop_with_b_k_major_needs_no_transposed_ldmatrix(tmp_path):
    _, ptx = compile_for_sm90(tmp_path, "gemm", gemm_source("bfloat16", (128, 128, 64)), arch="sm_90")
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx and "ldmatrix.sync.aligned.m8n8.x4.trans" not in ptx
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx
