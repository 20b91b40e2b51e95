"""test_tile_column_layout_cpu.py again on the GPU (marker `gpu`, skipped without a GPU): there the
mask locals hold the scores' column and row layouts, their iotas compute each thread's own
indices, and the masks spread into the accumulator's layout in registers
(include/weft/tiles/mma.h: mma_column_layout, column_broadcast)."""

import pytest

from test_tile_column_layout_cpu import (  # noqa: F401  (the tests are collected again under this module)
    test_a_column_local_used_elsewhere,
    test_inline_iota_and_chained_locals,
    test_masks_of_an_accumulator,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"
