"""test_tile_kmajor_cpu.py again on the GPU (marker `gpu`, skipped without a GPU): K loops whose
b is loaded K-major (order=(1, 0) from an N x K array). On an H100 the loops over the kernel's
parameters take the TMA/wgmma path (float16, bfloat16, and float8 with b K-major) and the ones
over aliases the cp.async/mma.sync path; both are checked against NumPy (fp8: within the tensor
cores' tolerance, docs/tiles.md) and the cp.async path bit for bit against the loop as written.
Also the fallback of both (bt's rows not on 16 bytes: operand fragments from global memory)
against the cp.async path, bit for bit."""

import ml_dtypes
import numpy as np
import pytest

from test_tile_kmajor_cpu import (  # noqa: F401  (the tests are collected again under this module)
    kmajor_inline,
    kmajor_locals,
    test_an_empty_k_loop_keeps_the_accumulator,
    test_arrays_the_ring_cannot_address_fall_back,
    test_float8_k_loops_with_b_k_major,
    test_other_k_loops_with_b_k_major,
    test_sixteen_bit_k_loops_with_b_k_major,
    test_tf32_k_loop_with_b_k_major,
)
from test_tile_mma_types_cpu import fp8_operands

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"


@pytest.mark.parametrize("kernel", [kmajor_locals, kmajor_inline], ids=["cp_async", "tma"])
@pytest.mark.parametrize("dtype, tiles", [
    (ml_dtypes.float8_e4m3fn, (128, 256, 128)), (ml_dtypes.float8_e5m2, (128, 128, 128)),
    (ml_dtypes.bfloat16, (128, 256, 64)), (np.float16, (64, 128, 128)),
])
def test_the_fallback_gives_the_cp_async_paths_bits(target, rng, kernel, dtype, tiles):
    # The same values once in arrays whose rows start on 16 bytes (kmajor_locals: the cp.async
    # path) and once in views of bt's rows of k + 1 elements, which neither TMA nor cp.async can
    # address (the fallback, from either kernel): mma.sync sums the same products in the same order.
    import weft
    m, n, k = 200, 260, 300
    tm, tn, tk = tiles
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
    a = fp8_operands(rng, dtype, (m, k))
    bt_wide = fp8_operands(rng, dtype, (n, k + 1))
    start = rng.standard_normal((m, n)).astype(np.float32)
    aligned, fallback = weft.to_device(start), weft.to_device(start)
    weft.launch(kmajor_locals, weft.to_device(a), weft.to_device(np.ascontiguousarray(bt_wide[:, :k])), aligned, tm, tn,
                tk, grid=grid, target="gpu")
    weft.launch(kernel, weft.to_device(a), weft.to_device(bt_wide)[:, :k], fallback, tm, tn, tk, grid=grid, target="gpu")
    weft.synchronize()
    np.testing.assert_array_equal(fallback.copy_to_host(), aligned.copy_to_host())


@pytest.mark.parametrize("dtype", [ml_dtypes.float8_e4m3fn, ml_dtypes.bfloat16])
def test_the_tma_path_agrees_with_the_cp_async_path(target, rng, dtype):
    # wgmma and mma.sync sum the same products in their own orders: close, not the same bits.
    import weft
    m, n, k, tiles = 384, 512, 1024, (128, 256, 128 if dtype == ml_dtypes.float8_e4m3fn else 64)
    tm, tn, tk = tiles
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
    a, bt = fp8_operands(rng, dtype, (m, k)), fp8_operands(rng, dtype, (n, k))
    tma, mma_sync = weft.to_device(np.zeros((m, n), np.float32)), weft.to_device(np.zeros((m, n), np.float32))
    weft.launch(kmajor_inline, weft.to_device(a), weft.to_device(bt), tma, tm, tn, tk, grid=grid, target="gpu")
    weft.launch(kmajor_locals, weft.to_device(a), weft.to_device(bt), mma_sync, tm, tn, tk, grid=grid, target="gpu")
    weft.synchronize()
    a64, b64 = a.astype(np.float64), bt.astype(np.float64).T
    magnitude = np.abs(a64) @ np.abs(b64)
    got_tma, got_sync = tma.copy_to_host(), mma_sync.copy_to_host()
    assert np.all(np.abs(got_tma - got_sync) <= 2.0 ** -9 * magnitude)
    assert np.all(np.abs(got_tma - a64 @ b64) <= 2.0 ** -10 * magnitude)
