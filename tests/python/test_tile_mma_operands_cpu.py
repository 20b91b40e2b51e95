"""mma operands taken from where they are (include/weft/tiles/mma_operands.h) in tile loops, on the
CPU target against NumPy on seeded random data with edge tiles: a prefetched load passed to mma
as its stage, a loop-invariant a-operand whose fragments are loaded once before the loop
(TypedStmt::invariantMmaOperands), and an a-operand computed element-wise from an accumulator
whose rows the kernel reduces, so that its warps own whole rows (TileBlock::mmaWholeRows) and
the operand is in registers; each lowered as expected (the emitted code) and compiled for sm_90
through NVRTC and ptxas with nothing in local memory. test_tile_mma_operands_gpu.py runs the
numeric tests again on the GPU, where the fast paths run."""

import importlib.util

import ml_dtypes
import numpy as np
import pytest

from test_sm90_ptxas import CUDA, compile_for_sm90
from test_tiles_cpu import run_tiles

KERNELS = '''
import weft
from weft import cutile as ct

BM = 32
BN = 32
D = 64
RM = 64


@ct.kernel
def invariant_operand(x: ct.bfloat16[:, :], b: ct.bfloat16[:, :], out: ct.float32[:, :]):
    # out block i = sum over j of (j + 1) * (x_i @ b_j): x's tile is the same in every step, b's is
    # prefetched and multiplied from its stage.
    i = ct.bid(0)
    xt = ct.load(x, index=(i, 0), shape=(BM, D))
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for j in range(ct.cdiv(b.shape[1], BN)):
        s = ct.mma(xt, ct.load(b, index=(0, j), shape=(D, BN)), ct.zeros((BM, BN), dtype=ct.float32))
        acc = acc + s * (j + 1)
    ct.store(out, index=(i, 0), tile=acc)


@ct.kernel
def reassigned_operand(x: ct.bfloat16[:, :], b: ct.bfloat16[:, :], out: ct.float32[:, :]):
    # The same sums with x's tile assigned in the loop: it is not loaded before the loop.
    i = ct.bid(0)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for j in range(ct.cdiv(b.shape[1], BN)):
        xt = ct.load(x, index=(i, 0), shape=(BM, D))
        s = ct.mma(xt, ct.load(b, index=(0, j), shape=(D, BN)), ct.zeros((BM, BN), dtype=ct.float32))
        acc = acc + s * (j + 1)
    ct.store(out, index=(i, 0), tile=acc)


@ct.kernel
def operand_from_accumulator(q: ct.float16[:, :], k: ct.float16[:, :], v: ct.float16[:, :], out: ct.float32[:, :]):
    # sum over key blocks j of exp(s_j - rowmax(s_j)) v_j with s_j = q_i k_j^T: the row maximum
    # gives every warp whole rows (RM / 16 warps), and p is the second product's a-operand in
    # registers.
    i = ct.bid(0)
    qt = ct.load(q, index=(i, 0), shape=(RM, D))
    acc = ct.zeros((RM, D), dtype=ct.float32)
    for j in range(ct.cdiv(k.shape[0], BN)):
        kt = ct.load(k, index=(0, j), shape=(D, BN), order=(1, 0))
        s = ct.mma(qt, kt, ct.zeros((RM, BN), dtype=ct.float32))
        p = ct.exp(s - ct.max(s, axis=1, keepdims=True))
        vt = ct.load(v, index=(j, 0), shape=(BN, D))
        acc = ct.mma(p.astype(ct.float16), vt, acc)
    ct.store(out, index=(i, 0), tile=acc)
'''


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    path = tmp_path_factory.mktemp("operands") / "operand_kernels.py"
    path.write_text(KERNELS)
    spec = importlib.util.spec_from_file_location("operand_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def target():
    return "cpu"


def padded(x, rows, cols):
    """x in float64, zero-padded to multiples of (rows, cols)."""
    out = np.zeros((-(-x.shape[0] // rows) * rows, -(-x.shape[1] // cols) * cols))
    out[: x.shape[0], : x.shape[1]] = x
    return out


def weighted_products(x, b):
    """sum over 32-column blocks j of b of (j + 1) * x @ b_j, for 32-row blocks of x (one 64-wide
    K block: x has at most 64 columns, b at most 64 rows)."""
    xp, bp = padded(x, 32, 64), padded(b, 64, 32)
    blocks = bp.shape[1] // 32
    return sum((j + 1) * xp @ bp[:, j * 32: (j + 1) * 32] for j in range(blocks))


@pytest.mark.parametrize("name", ["invariant_operand", "reassigned_operand"])
@pytest.mark.parametrize("m, kd, n", [(32, 64, 96), (45, 50, 70), (7, 64, 33)])
def test_products_with_a_loop_invariant_operand(target, rng, kernels, name, m, kd, n):
    # (45, 50, 70) and (7, 64, 33): edge tiles in every dimension, K padded with zeros too.
    x = rng.standard_normal((m, kd)).astype(np.float32)
    b = rng.standard_normal((kd, n)).astype(np.float32)
    x16, b16 = x.astype(ml_dtypes.bfloat16), b.astype(ml_dtypes.bfloat16)
    rows = -(-m // 32) * 32
    out = np.full((rows, 32), np.nan, dtype=np.float32)
    run_tiles(target, getattr(kernels, name), x16, b16, out, grid=(rows // 32,))
    want = weighted_products(x16.astype(np.float64), b16.astype(np.float64))
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-3)


def softmax_weighted_sums(q, k, v):
    """The reference of operand_from_accumulator: p rounded to float16 before its product."""
    qp, kp, vp = padded(q, 64, 64), padded(k, 32, 64), padded(v, 32, 64)
    acc = np.zeros((qp.shape[0], 64))
    for j in range(kp.shape[0] // 32):
        s = qp @ kp[j * 32: (j + 1) * 32].T
        p = np.exp(s - s.max(axis=1, keepdims=True)).astype(np.float16).astype(np.float64)
        acc += p @ vp[j * 32: (j + 1) * 32]
    return acc


@pytest.mark.parametrize("m, n", [(64, 32), (70, 100), (5, 150)])
def test_an_operand_computed_from_an_accumulator(target, rng, kernels, m, n):
    q = (rng.standard_normal((m, 64)) * 0.3).astype(np.float16)
    k = (rng.standard_normal((n, 64)) * 0.3).astype(np.float16)
    v = rng.standard_normal((n, 64)).astype(np.float16)
    rows = -(-m // 64) * 64
    out = np.full((rows, 64), np.nan, dtype=np.float32)
    run_tiles(target, kernels.operand_from_accumulator, q, k, v, out, grid=(rows // 64,))
    want = softmax_weighted_sums(*(x.astype(np.float64) for x in (q, k, v)))
    # p rounds to float16 (11 bits) from exponentials computed in float32.
    np.testing.assert_allclose(out, want, rtol=2e-3, atol=2e-3 * np.abs(want).max())


# ---- lowering ----


def test_each_mechanism_is_taken_where_expected(kernels):
    x = np.zeros((40, 64), ml_dtypes.bfloat16)
    out = np.zeros((64, 64), np.float32)
    invariant = kernels.invariant_operand._emit_cuda(x, x, out, target="cpu")
    assert invariant.count("weft::tiles::mma_a_operand<") == 1 and ".view(" in invariant, invariant
    assert "WEFT_TILE_MMA_WHOLE_ROWS" not in invariant  # no row reduction: the squarest warp parts
    reassigned = kernels.reassigned_operand._emit_cuda(x, x, out, target="cpu")
    assert "mma_a_operand" not in reassigned, reassigned
    h = np.zeros((40, 64), np.float16)
    rows = kernels.operand_from_accumulator._emit_cuda(h, h, h, out, target="cpu")
    assert "#define WEFT_TILE_MMA_WHOLE_ROWS 1" in rows and "#define WEFT_TILE_THREADS 128" in rows
    assert rows.count("weft::tiles::mma_a_operand<") == 1 and rows.count(".view(") == 2, rows


@pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")
def test_the_kernels_compile_for_sm90(tmp_path):
    _, ptx = compile_for_sm90(tmp_path, "operand_kernels", KERNELS)
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in ptx and "cp.async.cg.shared.global" in ptx
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx
    assert "st.local" not in ptx and "ld.local" not in ptx
