"""test_tile_mma_types_cpu.py again on the GPU (marker `gpu`, skipped without a GPU): there the
pipelined K loops take the cp.async path, which must match NumPy and, bit for bit, the loop as
written."""

import pytest

from test_tile_mma_types_cpu import (  # noqa: F401  (the tests are collected again under this module)
    test_pipelined_k_loops_of_every_type,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"
