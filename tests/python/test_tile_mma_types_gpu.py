"""test_tile_mma_types_cpu.py again on the GPU (marker `gpu`, skipped without a GPU): there the
pipelined K loops take the cp.async path, which must match NumPy and, bit for bit, the loop as
written; tfloat32's rounding (cvt.rna.tf32.f32) must match NumPy's bit for bit; float8 products
(mma.sync m16n8k32 on sm_89+, the generic path before) must match NumPy within the tolerance
docs/tiles.md states."""

import pytest

from test_tile_mma_types_cpu import (  # noqa: F401  (the tests are collected again under this module)
    test_astype_tfloat32_rounds_ties_away_from_zero,
    test_float8_mma_of_one_tile,
    test_pipelined_float8_k_loops,
    test_pipelined_k_loops_of_every_type,
    test_pipelined_tf32_k_loop,
    test_tfloat32_matmul_in_the_cutile_face,
    test_tfloat32_mma_against_numpy,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"
