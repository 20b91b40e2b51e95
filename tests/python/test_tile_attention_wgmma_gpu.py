"""The attention kernel of examples/tile_attention.py on the H100's sm_90a path (marker `gpu`,
skipped without a GPU): with 64 or 128 query rows a block (one or two warpgroups), both products
of the key loop are wgmma (Q K^T with Q's fragments in registers and K^T from its stage, P V with
P in registers and V from its stage; test_tile_attention_cpu.py checks the PTX). Against NumPy
(float64) for head dims 64 and 128, causal and not, bfloat16 and float16, sequences that end
inside a block (200, 1000), key blocks of 32, 64 and 128; and against the mma.sync path of the
same kernel (32 query rows a block, half a warpgroup) on the same data."""

import ml_dtypes
import numpy as np
import pytest

from test_tile_attention_cpu import check, operands, run_attention

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("bm", [64, 128])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("seq", [200, 1000])
def test_wgmma_blocks_match_numpy(rng, dtype, bm, d, causal, seq):
    q, k, v = operands(rng, dtype, (1, 2, seq, d))
    check(run_attention("gpu", q, k, v, causal, out_dtype=dtype, bm=bm, bn=64), q, k, v, causal)


@pytest.mark.parametrize("bm, bn, d", [(128, 128, 128), (64, 32, 128), (128, 32, 64), (64, 128, 64)])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_other_key_blocks(rng, bm, bn, d, causal):
    # wgmma m64nN with N = bn for the scores and K = bn for P V.
    q, k, v = operands(rng, ml_dtypes.bfloat16, (2, 2, 333, d))
    check(run_attention("gpu", q, k, v, causal, bm=bm, bn=bn), q, k, v, causal)


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("bm", [64, 128])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_wgmma_agrees_with_mma_sync(rng, dtype, bm, causal):
    # 32 query rows a block stay on mma.sync. The tensor cores of either instruction sum each k16
    # step in their own order and the blocks' online softmax rescales at other points, so the
    # outputs agree to rounding: about one unit in the last place of the output type.
    q, k, v = operands(rng, dtype, (2, 2, 1000, 128), spread=2.0)
    on_wgmma = run_attention("gpu", q, k, v, causal, out_dtype=dtype, bm=bm, bn=64)
    on_mma_sync = run_attention("gpu", q, k, v, causal, out_dtype=dtype, bm=32, bn=64)
    eps = float(ml_dtypes.finfo(dtype).eps)
    np.testing.assert_allclose(on_wgmma.astype(np.float64), on_mma_sync.astype(np.float64), rtol=2 * eps, atol=2 * eps)


def test_the_benchmark_shape(rng):
    # bench/bench_attention.py's batch and heads at a shorter sequence: every block of the grid.
    q, k, v = operands(rng, ml_dtypes.bfloat16, (4, 16, 512, 128))
    for causal in (False, True):
        check(run_attention("gpu", q, k, v, causal, bm=128, bn=64), q, k, v, causal)
