"""test_tile_store_tma_cpu.py again on the GPU (marker `gpu`, skipped without a GPU): on an H100
the stores of the TMA K loops' accumulators take the TMA store (the box written by stmatrix or
8-byte stores, one TMA store a 128-byte slab), checked against NumPy and bit for bit against the
same store into an alias of the array (the generic store); block indices that are negative (the
generic store, which stores nothing there) or past the array's end, and views whose base or row
pitch TMA cannot take (an invalid map: the generic store) and one it can."""

import pytest

from test_tile_store_tma_cpu import (  # noqa: F401  (the tests are collected again under this module)
    gemm_epilogue,
    gemm_store,
    gemm_store_alias,
    gemm_two_stores,
    test_an_epilogue_stored_at_shifted_block_indices,
    test_stores_into_views,
    test_stores_of_the_accumulator,
    test_two_stores_after_one_loop,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"
