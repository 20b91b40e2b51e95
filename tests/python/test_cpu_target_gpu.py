"""The CPU target's tests whose answer is the GPU's (marker `gpu`): warp collectives in a block
smaller than a warp and with lanes that returned, and spin-waits on atomics within a block and
across blocks, run on the device to show that the CPU target answers as it does. Skipped where
no GPU is usable; tools/gpu-check.sh runs them on the device machine.
"""

import pytest

import weft

# pytest collects these test functions again in this module, where `target` is "gpu".
from test_cpu_target import (  # noqa: F401
    test_collectives_of_a_block_smaller_than_a_warp,
    test_lanes_that_returned_take_no_part,
    test_spin_waits_on_atomics_let_other_threads_and_blocks_run,
)

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not weft.gpu_available(), reason="needs a usable GPU")]


@pytest.fixture(scope="module")
def target():
    return "gpu"
