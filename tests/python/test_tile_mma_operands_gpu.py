"""test_tile_mma_operands_cpu.py's numeric tests again on the GPU (marker `gpu`, skipped without a
GPU), where mma reads prefetched operands from their stages (ldmatrix), a loop-invariant operand
from fragments loaded before the loop and an accumulator-computed operand from registers; and the
GPU against the CPU target on the same data."""

import numpy as np
import pytest

from test_tile_mma_operands_cpu import (  # noqa: F401  (the tests are collected again under this module)
    kernels,
    test_an_operand_computed_from_an_accumulator,
    test_products_with_a_loop_invariant_operand,
)
from test_tiles_cpu import run_tiles

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"


def test_the_gpu_agrees_with_the_cpu_target(rng, kernels):
    q = (rng.standard_normal((100, 64)) * 0.3).astype(np.float16)
    k = (rng.standard_normal((130, 64)) * 0.3).astype(np.float16)
    v = rng.standard_normal((130, 64)).astype(np.float16)
    results = {}
    for target in ("gpu", "cpu"):
        out = np.full((128, 64), np.nan, dtype=np.float32)
        run_tiles(target, kernels.operand_from_accumulator, q, k, v, out, grid=(2,))
        results[target] = out
    # The exponentials and the tensor cores' sums may differ in the last bits; p rounds to float16.
    np.testing.assert_allclose(results["gpu"], results["cpu"], rtol=2e-3, atol=2e-3 * np.abs(results["cpu"]).max())
