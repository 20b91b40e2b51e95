"""Structs with atomic fields on the GPU (marker `gpu`): the CPU tests of
test_atomic_structs_cpu.py again on the device, where the ticket mutex's waits sleep with
__nanosleep and the atomics are CUDA's own. Skipped where no GPU is usable; tools/gpu-check.sh
runs them on the device machine.
"""

import pytest

import weft

# pytest collects these test functions again in this module, where `target` is "gpu".
from test_atomic_structs_cpu import (  # noqa: F401
    test_a_nested_struct_with_atomic_fields,
    test_atomic_struct_fields_in_shared_memory,
    test_several_threads_per_block_contend_for_several_mutexes,
    test_the_specification_ticket_mutex_serializes_contending_blocks,
)

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not weft.gpu_available(), reason="needs a usable GPU")]


@pytest.fixture(scope="module")
def target():
    return "gpu"
