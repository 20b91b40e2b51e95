"""test_tile_mma_rows_cpu.py again on the GPU (marker `gpu`, skipped without a GPU): there the
variables hold the accumulators' mma layouts and row layouts, the row reductions run in registers
and quad shuffles, and the broadcasts land in those layouts (include/weft/tiles/mma.h)."""

import pytest

from test_tile_mma_rows_cpu import (  # noqa: F401  (the tests are collected again under this module)
    test_row_softmax_of_a_product,
    test_rows_kept_across_loop_steps,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"
