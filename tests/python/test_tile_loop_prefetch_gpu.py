"""test_tile_loop_prefetch_cpu.py's numeric tests again on the GPU (marker `gpu`, skipped without a
GPU), where the prefetched loads go through cp.async stages in dynamic shared memory, a strided
view included (its stages are filled element by element there)."""

import pytest

from test_tile_loop_prefetch_cpu import (  # noqa: F401  (the tests are collected again under this module)
    kernels,
    test_a_checked_load_is_not_prefetched,
    test_a_padding_other_than_zero_is_not_prefetched,
    test_a_parameter_the_loop_writes_is_not_prefetched,
    test_a_prefetched_load_that_is_not_an_mma_operand,
    test_a_prefetched_three_dimensional_load_through_order,
    test_a_strided_array_fills_the_stages_element_by_element,
    test_an_index_the_loop_assigns_is_not_prefetched,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"
