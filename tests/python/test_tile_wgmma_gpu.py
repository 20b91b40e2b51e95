"""test_tile_wgmma_cpu.py again on the GPU (marker `gpu`, skipped without a GPU): on an H100 the
kernel-parameter K loops take the TMA/wgmma path and the aliased ones the cp.async/mma.sync path,
both checked against NumPy and against each other."""

import pytest

from test_tile_wgmma_cpu import (  # noqa: F401  (the tests are collected again under this module)
    test_an_empty_k_loop_keeps_the_accumulator,
    test_arrays_tma_cannot_address_fall_back,
    test_epilogue_after_the_tma_loop,
    test_k_loops_of_the_tma_path,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"
