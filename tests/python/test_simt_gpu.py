"""SIMT on the GPU (marker `gpu`): the CPU tests of test_simt_cpu.py again on the device, where
the collectives, atomics and printf are CUDA's own. Skipped where no GPU is usable;
tools/gpu-check.sh runs them on the device machine.
"""

import pytest

import weft

# pytest collects these test functions again in this module, where `target` is "gpu".
from test_simt_cpu import (  # noqa: F401
    test_activemask_of_a_partial_warp,
    test_atomic_arrays_in_shared_memory,
    test_bit_intrinsics_match_python,
    test_contended_integer_and_float_atomics,
    test_dynamic_shared_array_follows_the_static_arrays,
    test_every_atomic_method_returns_the_old_value,
    test_fastmath_kernel_option,
    test_histogram_with_atomic_adds_from_many_blocks,
    test_match_any_and_match_all,
    test_new_math_functions_match_cpython,
    test_print_from_several_threads_keeps_lines_whole,
    test_print_in_device_code,
    test_shared_and_local_arrays_in_fortran_order_with_alignment,
    test_shuffles_of_every_width,
    test_syncthreads_count_and_or_with_lambdas_and_functions,
    test_syncwarp_orders_shared_memory,
    test_ticket_mutex_with_many_contending_blocks,
    test_warp_shuffle_reduction,
    test_warp_votes_ballot_activemask_and_lanemask,
)

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not weft.gpu_available(), reason="needs a usable GPU")]


@pytest.fixture(scope="module")
def target():
    return "gpu"
