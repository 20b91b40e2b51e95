"""The K loops that may take the sm_90a TMA/wgmma path (include/weft/tiles/mma_pipeline_tma.h):
float16 and bfloat16 loops over arrays that are parameters of the launched kernel. On the CPU
target against NumPy on seeded random data with edge tiles (M, N, K not multiples of the tile),
and against the same loop over an alias of the arrays, which keeps the cp.async path;
test_tile_wgmma_gpu.py runs them again on the GPU, where the first is the TMA/wgmma path on an
H100 and the second the mma.sync path. Which loops take which path, and that both compile for
sm_90a through ptxas, is checked on the emitted code, as is the fallback of both paths (operand
fragments read from global memory, test_the_fallback_of_the_pipelines_reads_fragments; its bits
against the cp.async path's on the GPU in test_tile_wgmma_gpu.py)."""

import subprocess

import ml_dtypes
import numpy as np
import pytest

from weft import cutile as cu
from test_sm90_ptxas import CUDA, compile_for_sm90, weftc_path
from test_tiles_cpu import run_tiles


@pytest.fixture(scope="module")
def target():
    return "cpu"


# The plain tile GEMM: a K loop of mma over the kernel's parameters a and b (the TMA path).
@cu.kernel
def gemm_tma(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    acc = cu.load(c, (cu.bid(0), cu.bid(1)), (tm, tn))
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)), cu.load(b, (k, cu.bid(1)), (tk, tn)), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)


# The same loop over locals that alias a and b: pipelined, but not over kernel parameters, so it
# keeps the cp.async/mma.sync path.
@cu.kernel
def gemm_alias(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    x = a
    y = b
    acc = cu.load(c, (cu.bid(0), cu.bid(1)), (tm, tn))
    for k in range(cu.num_tiles(x, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(x, (cu.bid(0), k), (tm, tk)), cu.load(y, (k, cu.bid(1)), (tk, tn)), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)


# A fused epilogue: the element-wise code after the loop runs on the accumulator as the loop left
# it (bias, ReLU, narrowing store).
@cu.kernel
def gemm_bias_relu(a, b, bias, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    acc = cu.zeros((tm, tn), dtype=cu.float32)
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (tm, tk)), cu.load(b, (k, cu.bid(1)), (tk, tn)), acc)
    out = cu.maximum(acc + cu.load(bias, (0, cu.bid(1)), (1, tn)).astype(cu.float32), 0.0)
    cu.store(c, (cu.bid(0), cu.bid(1)), out.astype(c.dtype))


def run_gemms(target, rng, dtype, m, n, k, tiles):
    """gemm_tma and gemm_alias on the same data; returns both results and NumPy's (float64)."""
    tm, tn, tk = tiles
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    start = rng.standard_normal((m, n)).astype(np.float32)
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
    tma, alias = start.copy(), start.copy()
    run_tiles(target, gemm_tma, a, b, tma, tm, tn, tk, grid=grid)
    run_tiles(target, gemm_alias, a, b, alias, tm, tn, tk, grid=grid)
    return tma, alias, start.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)


# Tile shapes the TMA path takes (one and two warpgroups; one and two 64-row wgmma blocks a
# warpgroup; K tiles of one and two 128-byte slabs) and problem sizes with edge tiles.
WGMMA_CASES = [
    (ml_dtypes.bfloat16, 256, 512, 192, (128, 256, 64)),
    (ml_dtypes.bfloat16, 300, 500, 200, (128, 256, 64)),
    (np.float16, 200, 260, 130, (128, 128, 64)),
    (ml_dtypes.bfloat16, 130, 200, 300, (64, 128, 128)),
    (np.float16, 260, 130, 70, (256, 128, 64)),
    (ml_dtypes.bfloat16, 64, 64, 64, (64, 64, 64)),
    # A grid of 21 x 3 blocks: one group of 16 rows and one of 5 (block.h's bid()).
    (ml_dtypes.bfloat16, 64 * 21 - 5, 64 * 3, 130, (64, 64, 64)),
]


@pytest.mark.parametrize("dtype, m, n, k, tiles", WGMMA_CASES)
def test_k_loops_of_the_tma_path(target, rng, dtype, m, n, k, tiles):
    tma, alias, want = run_gemms(target, rng, dtype, m, n, k, tiles)
    # float32 sums of k products of 16-bit values: about k * 2^-24 relative, far below this.
    np.testing.assert_allclose(tma, want, rtol=1e-4, atol=1e-4 * np.sqrt(k))
    np.testing.assert_allclose(alias, want, rtol=1e-4, atol=1e-4 * np.sqrt(k))
    if target == "cpu":
        np.testing.assert_array_equal(tma, alias)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_epilogue_after_the_tma_loop(target, rng, dtype):
    m, n, k, tiles = 200, 300, 150, (128, 128, 64)
    tm, tn, tk = tiles
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    bias = rng.standard_normal((1, n)).astype(dtype)
    c = np.zeros((m, n), dtype)
    run_tiles(target, gemm_bias_relu, a, b, bias, c, tm, tn, tk, grid=((m + tm - 1) // tm, (n + tn - 1) // tn))
    want = np.maximum(a.astype(np.float64) @ b.astype(np.float64) + bias.astype(np.float64), 0.0)
    # One rounding to the 16-bit type at the end (bfloat16: 8 bits of precision).
    np.testing.assert_allclose(c.astype(np.float64), want, rtol=2 ** -7, atol=1e-2)


@pytest.mark.parametrize("pad", [1, 8])
def test_arrays_tma_cannot_address_fall_back(target, rng, pad):
    # Views of wider arrays: rows of k + 1 elements (a stride TMA cannot take, nor cp.async: the
    # loop as written) and of k + 8 (TMA can: the Hopper path) give the same answers.
    m, n, k, tiles = 200, 260, 130, (128, 128, 64)
    tm, tn, tk = tiles
    a_wide = rng.standard_normal((m, k + pad)).astype(ml_dtypes.bfloat16)
    b_wide = rng.standard_normal((k, n + pad)).astype(ml_dtypes.bfloat16)
    a, b = a_wide[:, :k], b_wide[:, :n]
    start = rng.standard_normal((m, n)).astype(np.float32)
    c = start.copy()
    if target == "gpu":
        import weft
        da, db, dc = weft.to_device(a_wide), weft.to_device(b_wide), weft.to_device(c)
        weft.launch(gemm_tma, da[:, :k], db[:, :n], dc, tm, tn, tk, grid=((m + tm - 1) // tm, (n + tn - 1) // tn),
                    target="gpu")
        weft.synchronize()
        c = dc.copy_to_host()
    else:
        run_tiles(target, gemm_tma, a, b, c, tm, tn, tk, grid=((m + tm - 1) // tm, (n + tn - 1) // tn))
    want = start.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4 * np.sqrt(k))


def test_an_empty_k_loop_keeps_the_accumulator(target, rng):
    a = np.zeros((128, 0), ml_dtypes.bfloat16)
    b = np.zeros((0, 256), ml_dtypes.bfloat16)
    start = rng.standard_normal((128, 256)).astype(np.float32)
    c = start.copy()
    run_tiles(target, gemm_tma, a, b, c, 128, 256, 64, grid=(1, 1))
    np.testing.assert_array_equal(c, start)


# ---- which loops take the TMA path, in the emitted code ----

needs_toolkit = pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")

GEMM = """
from weft import cutile as cu
from weft import tiles as ct

@cu.kernel
def gemm(a: cu.{dtype}[:, :], b: cu.{dtype}[:, :], c: cu.float32[:, :]):
    acc = cu.zeros(({tm}, {tn}), dtype=cu.float32)
    {prologue}
    for k in range(cu.num_tiles(a, axis=1, shape=({tm}, {tk}))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), ({tm}, {tk})), cu.load(b, (k, cu.bid(1)), ({tk}, {tn})), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)
"""


def emitted(tmp_path, source):
    src = tmp_path / "gemm.py"
    src.write_text(source)
    proc = subprocess.run([weftc_path(), str(src), "--emit-cuda"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@needs_toolkit
@pytest.mark.parametrize("dtype, prologue, tma", [
    ("bfloat16", "", True),
    ("float16", "", True),
    # a rebound in the kernel: the launch's argument is not what the loop reads.
    ("bfloat16", "a = b", False),
    # int8, float64 and float8 loops keep the cp.async path (wgmma reads fp8 b K-major only).
    ("int8", "", False),
    ("float64", "", False),
    ("float8e4m3", "", False),
    ("float8e5m2", "", False),
])
def test_which_k_loops_ask_for_tensor_maps(tmp_path, dtype, prologue, tma):
    acc = {"int8": "int32", "float64": "float64"}.get(dtype, "float32")
    source = GEMM.format(dtype=dtype, tm=64, tn=64, tk=64 if dtype != "int8" else 64, prologue=prologue)
    source = source.replace("c: cu.float32", f"c: cu.{acc}").replace("dtype=cu.float32", f"dtype=cu.{acc}")
    code = emitted(tmp_path, source)
    assert ("weft::tiles::mma_pipeline_tma_arrays<" in code) == tma
    # The maps of a and b, then the accumulator's store's (the TMA store: test_tile_store_tma_cpu.py).
    assert ("const __grid_constant__ weft::tiles::sm90::tensor_map weft_map1, const __grid_constant__ "
            "weft::tiles::sm90::tensor_map weft_map2, const unsigned weft_map_mask" in code) == tma
    assert ("weft::tiles::store_array_tma(" in code) == tma
    assert ("weft::tiles::mma_pipeline_arrays<" in code) != tma
    # Every pipelined K loop runs its blocks in groups of rows.
    assert "#define WEFT_TILE_GROUP_ROWS 16\n" in code


@needs_toolkit
@pytest.mark.parametrize("tiles, tma", [
    ((64, 64, 64), True),
    # K tiles of 32 (half a 128-byte slab), N tiles of 32, and M tiles of 512 rows (more than
    # wgmma's 256): the path cannot take them, so no maps are asked for.
    ((64, 64, 32), False),
    ((64, 32, 64), False),
    ((512, 64, 64), False),
])
def test_only_tiles_that_fit_wgmma_ask_for_tensor_maps(tmp_path, tiles, tma):
    tm, tn, tk = tiles
    code = emitted(tmp_path, GEMM.format(dtype="bfloat16", tm=tm, tn=tn, tk=tk, prologue=""))
    assert ("weft::tiles::mma_pipeline_tma_arrays<" in code) == tma
    assert ("weft_map" in code) == tma


@needs_toolkit
def test_kernels_without_a_pipelined_k_loop_keep_the_grid_order(tmp_path):
    source = """
from weft import cutile as cu

@cu.kernel
def scale(a: cu.float32[:, :], b: cu.float32[:, :]):
    cu.store(b, (cu.bid(0), cu.bid(1)), cu.load(a, (cu.bid(0), cu.bid(1)), (64, 64)) * 2.0)
"""
    assert "WEFT_TILE_GROUP_ROWS" not in emitted(tmp_path, source)


@needs_toolkit
def test_a_k_loop_in_a_device_function_keeps_the_cp_async_path(tmp_path):
    source = """
from weft import cutile as cu

@cu.function
def product(a, b, acc):
    for k in range(cu.num_tiles(a, axis=1, shape=(64, 64))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (64, 64)), cu.load(b, (k, cu.bid(1)), (64, 64)), acc)
    return acc

@cu.kernel
def gemm(a: cu.bfloat16[:, :], b: cu.bfloat16[:, :], c: cu.float32[:, :]):
    cu.store(c, (cu.bid(0), cu.bid(1)), product(a, b, cu.zeros((64, 64), dtype=cu.float32)))
"""
    code = emitted(tmp_path, source)
    assert "weft::tiles::mma_pipeline_arrays<" in code and "weft_map" not in code


@needs_toolkit
@pytest.mark.parametrize("tiles, threads", [((128, 256, 64), 256), ((128, 128, 64), 128), ((64, 128, 128), 128)])
def test_the_tma_path_compiles_for_sm90a(tmp_path, tiles, threads):
    # sm_90a: TMA copies into the stages and wgmma; the mma.sync fallback is there too. sm_90
    # (no a): no wgmma, the cp.async path.
    tm, tn, tk = tiles
    source = GEMM.format(dtype="bfloat16", tm=tm, tn=tn, tk=tk, prologue="")
    _, ptx = compile_for_sm90(tmp_path, "gemm_a", source, arch="sm_90a")
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes" in ptx
    assert f"wgmma.mma_async.sync.aligned.m64n{tn}k16.f32.bf16.bf16" in ptx
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx
    assert f".maxntid {threads}" in ptx
    # The accumulator is stored by TMA, or (a negative block index, an array TMA cannot address)
    # through the ring in 16-byte pieces of whole rows.
    assert "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" in ptx
    assert "st.global.v4.u32" in ptx
    # Launches the maps cannot take read fragments: no cp.async ring in the sm_90a kernel.
    assert "cp.async.cg.shared.global" not in ptx
    _, ptx = compile_for_sm90(tmp_path, "gemm", source, arch="sm_90")
    assert "wgmma" not in ptx and "cp.async.cg.shared.global" in ptx


@needs_toolkit
@pytest.mark.parametrize("arch", ["sm_90a", "sm_90"])
def test_the_fallback_of_the_pipelines_reads_fragments(tmp_path, arch):
    # Arrays neither pipeline can address (strided, misaligned, too little shared memory) run
    # mma_loop_by_fragments: mma.sync on fragments read from global memory, no whole tiles staged
    # through the shared scratch buffer as the loop as written stages them (which cost about as
    # much compile time as both pipelined paths together; docs/architecture.md).
    source = GEMM.format(dtype="bfloat16", tm=128, tn=256, tk=64, prologue="")
    _, ptx = compile_for_sm90(tmp_path, "gemm", source, arch=arch)
    assert "mma_loop_as_written" not in ptx and "scratchEvE6buffer" not in ptx
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx
