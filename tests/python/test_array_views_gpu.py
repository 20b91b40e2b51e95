"""Views of arrays on the GPU: the tests of test_array_views_cpu.py that take `target` run again
with target "gpu" (marker `gpu`, skipped without a GPU). Array arguments travel through
weft.to_device, so the non-contiguous inputs are made by slicing inside the kernels."""

import pytest

from test_array_views_cpu import (  # noqa: F401  (the tests are collected again under this module)
    test_arrays_of_four_and_five_dimensions,
    test_constant_slices_and_slices_of_slices,
    test_debug_builds_run_valid_views,
    test_failed_preconditions_give_empty_views,
    test_integers_mixed_with_slices,
    test_misuse_is_a_compile_error_at_the_line,
    test_random_3d_slices,
    test_reshape_and_astype_without_copy,
    test_reshape_is_a_view_exactly_where_numpy_needs_no_copy,
    test_slices_follow_python_for_every_start_stop_step,
    test_view_reinterprets_like_numpy,
    test_views_of_every_number_type,
    test_views_of_records,
    test_views_of_struct_arrays,
    test_writes_through_views_reach_the_array,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"
