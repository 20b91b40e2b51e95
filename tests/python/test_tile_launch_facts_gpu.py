"""Launch facts on the GPU: test_tile_launch_facts_cpu.py's kernels of every layout against
NumPy with target "gpu" (marker `gpu`, skipped without a GPU), and the declared fast form."""

import numpy as np
import pytest

import weft
from test_tile_launch_facts_cpu import (  # noqa: F401  (collected again under this module)
    aligned_empty,
    declared,
    test_block_tiles_of_every_layout_against_numpy,
    test_row_tiles_of_every_layout_against_numpy,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"


def test_declared_fast_form_on_the_gpu(rng):
    x = (rng.standard_normal((3, 64))).astype(np.float32)
    dx, dy = weft.to_device(x), weft.to_device(np.zeros((3, 64), np.float32))
    weft.launch(declared, dx, dy, grid=3, target="gpu")
    weft.synchronize()
    np.testing.assert_array_equal(dy.copy_to_host(), x + 1)
