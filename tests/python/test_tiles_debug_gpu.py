"""debug=True in tile kernels on the GPU (marker `gpu`, skipped without one): the tests of
test_tiles_debug_cpu.py that take `target` again with target "gpu". Every check fails in every
thread of the tile block together, so the report (block, thread 0, indices, shape) is the CPU
target's; after a failed check the context stays usable (the tests launch again)."""

import pytest

from test_tiles_debug_cpu import (  # noqa: F401  (the tests are collected again under this module)
    test_a_load_overlapping_the_array_is_padded_and_one_wholly_outside_raises,
    test_a_store_wholly_outside_raises_and_stores_nothing,
    test_a_tile_division_checks_every_element_as_python_computes_it,
    test_cdiv_by_zero_raises,
    test_check_bounds_true_stays_defined_under_debug,
    test_defined_results_are_kept_with_and_without_debug,
    test_extract_index_outside_raises_and_wraps_without_debug,
    test_gather_indices_outside_raise_naming_the_first_in_row_major_order,
    test_integer_division_by_zero_in_a_tile_raises,
    test_scatter_and_atomic_indices_outside_raise_and_write_nothing,
    test_without_debug_division_by_zero_gives_weft_s_defined_zero,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"
