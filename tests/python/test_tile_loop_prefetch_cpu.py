"""Loads of tile loops issued ahead (sema::LoopPrefetch, include/weft/tiles/loop_prefetch.h) on
the CPU target against NumPy on seeded random data, edge tiles included: a loop whose loads of
never-written kernel parameters, at indices computed from the loop variable, are prefetched,
and loops whose loads must keep today's code (a parameter the loop writes, an index the loop
assigns, a padding other than zero, debug=True), each correct and each lowered as expected
(weftc --emit-cuda). The CPU target records each step's block index when the step is issued, a
step ahead, so a load wrongly prefetched reads the wrong tile there too. The kernels also compile
for sm_90 through NVRTC and ptxas with nothing in local memory. test_tile_loop_prefetch_gpu.py
runs the numeric tests again on the GPU."""

import importlib.util
import sys

import numpy as np
import pytest

import weft
from test_sm90_ptxas import CUDA, compile_for_sm90
from test_tiles_cpu import run_tiles

# Annotated kernels (weftc compiles annotated kernels only), also imported to run them.
KERNELS = '''
import weft
from weft import cutile as ct

BM = 16
BN = 32
N = 64


@ct.kernel
def weighted_block_sums(a: ct.float32[:, :], out: ct.float32[:, :]):
    # out block i = sum over j of (j + 1) * a's tile (i, j): the tile's weight tells the steps apart.
    i = ct.bid(0)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for j in range(ct.cdiv(a.shape[1], BN)):
        acc = acc + ct.load(a, index=(i, j), shape=(BM, BN)) * (j + 1)
    ct.store(out, index=(i, 0), tile=acc)


@ct.kernel
def transposed_block_sums(a: ct.float16[:, :, :], out: ct.float32[:, :, :]):
    # A 3-D load through order=: the stage holds the array's rows, the loop reads them transposed.
    i = ct.bid(0)
    b = ct.bid(1)
    acc = ct.zeros((BN, BM), dtype=ct.float32)
    for j in range(ct.cdiv(a.shape[2], BN)):
        t = ct.load(a, index=(b, j, i), shape=(1, BN, BM), order=(0, 2, 1)).reshape((BN, BM))
        acc = acc + t.astype(ct.float32) * (j + 1)
    ct.store(out, index=(b, 0, i), tile=acc.reshape((1, BN, BM)))


@ct.kernel
def written_in_the_loop(a: ct.float32[:]):
    # Each step reads the block the previous step wrote: its loads must wait for that store.
    for j in range(1, ct.cdiv(a.shape[0], N)):
        previous = ct.load(a, index=(j - 1,), shape=(N,))
        ct.store(a, index=(j,), tile=ct.load(a, index=(j,), shape=(N,)) + previous)


@ct.kernel
def index_the_loop_assigns(a: ct.float32[:], out: ct.float32[:]):
    # k is assigned in the loop: step j's tile is only known once step j - 1 has run.
    blocks = ct.cdiv(a.shape[0], N)
    k = 0
    acc = ct.zeros((N,), dtype=ct.float32)
    for j in range(blocks):
        acc = acc + ct.load(a, index=(k,), shape=(N,)) * (j + 1)
        k = k + j + 1
        if k >= blocks:
            k = k - blocks
    ct.store(out, index=(0,), tile=acc)


@ct.kernel
def padded_with_minus_infinity(a: ct.float32[:, :], out: ct.float32[:, :]):
    i = ct.bid(0)
    best = ct.full((BM, BN), -3.0e38, dtype=ct.float32)
    for j in range(ct.cdiv(a.shape[1], BN)):
        best = ct.maximum(best, ct.load(a, index=(i, j), shape=(BM, BN), padding_mode=ct.PaddingMode.NEG_INF))
    ct.store(out, index=(i, 0), tile=best)


@ct.kernel(debug=True)
def checked_block_sums(a: ct.float32[:, :], out: ct.float32[:, :]):
    i = ct.bid(0)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for j in range(a.shape[1] // BN):
        acc = acc + ct.load(a, index=(i, j), shape=(BM, BN)) * (j + 1)
    ct.store(out, index=(i, 0), tile=acc)
'''

PREFETCHED = ["weighted_block_sums", "transposed_block_sums"]
NOT_PREFETCHED = ["written_in_the_loop", "index_the_loop_assigns", "padded_with_minus_infinity", "checked_block_sums"]


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    path = tmp_path_factory.mktemp("prefetch") / "prefetch_kernels.py"
    path.write_text(KERNELS)
    spec = importlib.util.spec_from_file_location("prefetch_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.path = path
    return module


@pytest.fixture(scope="module")
def target():
    return "cpu"


def blocks(x, rows, cols):
    """x zero-padded to multiples of (rows, cols), as (row blocks, col blocks, rows, cols)."""
    r, c = -(-x.shape[0] // rows), -(-x.shape[1] // cols)
    padded = np.zeros((r * rows, c * cols), dtype=np.float64)
    padded[: x.shape[0], : x.shape[1]] = x
    return padded.reshape(r, rows, c, cols).transpose(0, 2, 1, 3)


@pytest.mark.parametrize("shape", [(16, 32), (37, 100), (64, 320), (5, 7)])
def test_a_prefetched_load_that_is_not_an_mma_operand(target, rng, kernels, shape):
    # (37, 100) and (5, 7) end in edge tiles in both dimensions: the stages are zero-filled there.
    a = rng.standard_normal(shape).astype(np.float32)
    rows = -(-shape[0] // 16)
    out = np.full((rows * 16, 32), np.nan, dtype=np.float32)
    run_tiles(target, kernels.weighted_block_sums, a, out, grid=(rows,))
    tiles = blocks(a, 16, 32)
    weights = np.arange(1, tiles.shape[1] + 1, dtype=np.float64)
    want = np.einsum("ijrc,j->irc", tiles, weights).reshape(rows * 16, 32)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(2, 16, 32), (3, 40, 70)])
def test_a_prefetched_three_dimensional_load_through_order(target, rng, kernels, shape):
    a = rng.standard_normal(shape).astype(np.float16)
    row_blocks = -(-shape[1] // 16)
    out = np.full((shape[0], 32, row_blocks * 16), np.nan, dtype=np.float32)
    run_tiles(target, kernels.transposed_block_sums, a, out, grid=(row_blocks, shape[0]))
    for b in range(shape[0]):
        tiles = blocks(a[b].astype(np.float64), 16, 32)  # (i, j, 16, 32)
        weights = np.arange(1, tiles.shape[1] + 1, dtype=np.float64)
        want = np.einsum("ijrc,j->cir", tiles, weights).reshape(32, row_blocks * 16)
        np.testing.assert_allclose(out[b], want, rtol=1e-3, atol=1e-3)


def test_a_strided_array_fills_the_stages_element_by_element(target, rng, kernels):
    # Every other column: rows cp.async cannot address (on the GPU the stages are filled by the
    # block's threads instead).
    a = rng.standard_normal((37, 200)).astype(np.float32)
    view = weft.to_device(a, target=target)[:, ::2]
    out = weft.to_device(np.full((48, 32), np.nan, dtype=np.float32), target=target)
    weft.launch(kernels.weighted_block_sums, view, out, grid=(3,), target=target)
    weft.synchronize()
    tiles = blocks(a[:, ::2], 16, 32)
    want = np.einsum("ijrc,j->irc", tiles, np.arange(1.0, tiles.shape[1] + 1)).reshape(48, 32)
    np.testing.assert_allclose(out.copy_to_host(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("size", [64 * 5, 64 * 4 + 17])
def test_a_parameter_the_loop_writes_is_not_prefetched(target, rng, kernels, size):
    a = rng.standard_normal(size).astype(np.float32)
    want = a.astype(np.float64)
    for j in range(1, -(-size // 64)):
        want[j * 64: (j + 1) * 64] += want[(j - 1) * 64: (j - 1) * 64 + len(want[j * 64: (j + 1) * 64])]
    run_tiles(target, kernels.written_in_the_loop, a, grid=(1,))
    np.testing.assert_allclose(a, want, rtol=1e-5, atol=1e-5)


def test_an_index_the_loop_assigns_is_not_prefetched(target, rng, kernels):
    size = 64 * 7 + 9
    a = rng.standard_normal(size).astype(np.float32)
    out = np.full(64, np.nan, dtype=np.float32)
    run_tiles(target, kernels.index_the_loop_assigns, a, out, grid=(1,))
    padded = np.zeros(64 * 8)
    padded[:size] = a
    count, k, want = 8, 0, np.zeros(64)
    for j in range(count):
        want += padded[k * 64: (k + 1) * 64] * (j + 1)
        k = (k + j + 1) % count if k + j + 1 >= count else k + j + 1
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_a_padding_other_than_zero_is_not_prefetched(target, rng, kernels):
    a = rng.standard_normal((20, 70)).astype(np.float32)
    out = np.full((32, 32), np.nan, dtype=np.float32)
    run_tiles(target, kernels.padded_with_minus_infinity, a, out, grid=(2,))
    tiles = blocks(a, 16, 32)
    mask = blocks(np.ones_like(a), 16, 32) > 0
    want = np.where(mask, tiles, -np.inf).max(axis=1)
    want = np.maximum(want, np.float64(np.float32(-3.0e38))).reshape(32, 32)
    np.testing.assert_allclose(out, want, rtol=0, atol=0)


def test_a_checked_load_is_not_prefetched(target, rng, kernels):
    a = rng.standard_normal((32, 96)).astype(np.float32)
    out = np.full((32, 32), np.nan, dtype=np.float32)
    run_tiles(target, kernels.checked_block_sums, a, out, grid=(2,))
    tiles = blocks(a, 16, 32)
    want = np.einsum("ijrc,j->irc", tiles, np.arange(1.0, 4.0)).reshape(32, 32)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


# ---- lowering ----


def emitted(kernel, *args):
    """The CUDA C++ unit of `kernel` for these arguments (its options, debug=True included)."""
    return kernel._emit_cuda(*args, target="cpu")


def test_the_loops_take_the_prefetch_where_expected(kernels):
    m2, v1 = np.zeros((40, 70), np.float32), np.zeros(200, np.float32)
    arguments = {
        "weighted_block_sums": (m2, m2),
        "transposed_block_sums": (np.zeros((2, 40, 70), np.float16), np.zeros((2, 32, 48), np.float32)),
        "written_in_the_loop": (v1,),
        "index_the_loop_assigns": (v1, v1),
        "padded_with_minus_infinity": (m2, m2),
        "checked_block_sums": (m2, m2),
    }
    for name in PREFETCHED:
        code = emitted(getattr(kernels, name), *arguments[name])
        assert code.count("weft::tiles::prefetch_load<") == 1, code
        assert "prefetch_next(" in code and "prefetch_finish(" in code
        # The loop reads the staged tile: no load of its own.
        assert "load_array<" not in code.split("prefetch_start")[1].split("prefetch_finish")[0]
    for name in NOT_PREFETCHED:
        code = emitted(getattr(kernels, name), *arguments[name])
        assert "prefetch_load" not in code and "load_array<" in code, code


@pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")
def test_the_kernels_compile_for_sm90(tmp_path):
    _, ptx = compile_for_sm90(tmp_path, "prefetch_kernels", KERNELS)
    assert "cp.async.cg.shared.global" in ptx and "cp.async.wait_group" in ptx
    assert "st.local" not in ptx and "ld.local" not in ptx
