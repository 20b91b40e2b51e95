"""test_tile_wgmma_cpu.py again on the GPU (marker `gpu`, skipped without a GPU): on an H100 the
kernel-parameter K loops take the TMA/wgmma path and the aliased ones the cp.async/mma.sync path,
both checked against NumPy and against each other; and the fallback of both (arrays whose rows do
not start on 16 bytes: operand fragments read from global memory) against the cp.async path, bit
for bit."""

import ml_dtypes
import numpy as np
import pytest

from test_tile_wgmma_cpu import (  # noqa: F401  (the tests are collected again under this module)
    gemm_alias,
    gemm_tma,
    test_an_empty_k_loop_keeps_the_accumulator,
    test_arrays_tma_cannot_address_fall_back,
    test_epilogue_after_the_tma_loop,
    test_k_loops_of_the_tma_path,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"


@pytest.mark.parametrize("kernel", [gemm_alias, gemm_tma], ids=["alias", "tma"])
@pytest.mark.parametrize("dtype, tiles", [(ml_dtypes.bfloat16, (128, 256, 64)), (np.float16, (64, 128, 128))])
def test_the_fallback_gives_the_cp_async_paths_bits(target, rng, kernel, dtype, tiles):
    # The same values once in arrays whose rows start on 16 bytes (gemm_alias: the cp.async path)
    # and once in views of rows of k + 1 elements, which neither TMA nor cp.async can address (the
    # fallback, from either kernel): mma.sync sums the same products in the same order.
    import weft
    m, n, k = 200, 260, 130
    tm, tn, tk = tiles
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
    a_wide = rng.standard_normal((m, k + 1)).astype(dtype)
    b_wide = rng.standard_normal((k, n + 1)).astype(dtype)
    start = rng.standard_normal((m, n)).astype(np.float32)
    aligned, fallback = weft.to_device(start), weft.to_device(start)
    weft.launch(gemm_alias, weft.to_device(np.ascontiguousarray(a_wide[:, :k])),
                weft.to_device(np.ascontiguousarray(b_wide[:, :n])), aligned, tm, tn, tk, grid=grid, target="gpu")
    weft.launch(kernel, weft.to_device(a_wide)[:, :k], weft.to_device(b_wide)[:, :n], fallback, tm, tn, tk, grid=grid,
                target="gpu")
    weft.synchronize()
    want = start.astype(np.float64) + a_wide[:, :k].astype(np.float64) @ b_wide[:, :n].astype(np.float64)
    np.testing.assert_allclose(aligned.copy_to_host(), want, rtol=1e-4, atol=1e-4 * np.sqrt(k))
    np.testing.assert_array_equal(fallback.copy_to_host(), aligned.copy_to_host())
