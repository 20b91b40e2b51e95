"""test_tile_attention_cpu.py again on the GPU (marker `gpu`, skipped without a GPU), plus the
GPU against the CPU target on the same data, and the benchmark's block shape (128 x 64, d 128)
at a sequence of 1000 against NumPy."""

import math

import ml_dtypes
import numpy as np
import pytest

import weft
from test_tile_attention_cpu import (  # noqa: F401  (the tests are collected again under this module)
    check,
    example,
    operands,
    run_attention,
    test_attention_matches_numpy,
    test_blocks_of_other_shapes,
    test_float16_output_and_bfloat16_operands,
    test_several_seeds,
    test_the_running_maximum_grows_block_by_block,
    test_the_store_keeps_to_the_array,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_the_gpu_agrees_with_the_cpu_target(rng, dtype, d, causal):
    # The two targets round P and the output the same way; the exponentials and the order of
    # the sums may differ in the last bits, so they agree to about one unit in the last place.
    q, k, v = operands(rng, dtype, (2, 2, 200, d), spread=2.0)
    on_gpu = run_attention("gpu", q, k, v, causal, out_dtype=dtype)
    on_cpu = run_attention("cpu", q, k, v, causal, out_dtype=dtype)
    eps = float(ml_dtypes.finfo(dtype).eps)
    np.testing.assert_allclose(on_gpu.astype(np.float64), on_cpu.astype(np.float64), rtol=eps, atol=eps)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_the_benchmark_blocks_at_a_longer_sequence(rng, causal):
    q, k, v = operands(rng, ml_dtypes.bfloat16, (1, 2, 1000, 128))
    check(run_attention("gpu", q, k, v, causal, bm=128, bn=64), q, k, v, causal)


def test_the_example_launcher_on_device_arrays(rng):
    q, k, v = operands(rng, ml_dtypes.bfloat16, (2, 2, 300, 64))
    d_out = weft.empty(q.shape, ml_dtypes.bfloat16)
    example.attention_forward(*(weft.to_device(x) for x in (q, k, v)), d_out, causal=True, scale=1 / math.sqrt(64))
    check(d_out.copy_to_host(), q, k, v, True)
