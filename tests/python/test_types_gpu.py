"""Numbers and vectors on the GPU: the CPU tests of test_numbers_cpu.py and
test_vectors_cpu.py run again with target "gpu" (marker `gpu`, skipped without a GPU).
test_numbers_cpu.py compiles narrow floats and vectors for sm_90 in CI."""

import pytest

from test_numbers_cpu import (  # noqa: F401  (the tests are collected again under this module)
    test_arrays_of_every_real_type,
    test_complex_parts_and_arithmetic,
    test_narrow_arithmetic_rounds_like_ml_dtypes,
    test_narrow_constructors_and_saturation,
    test_numbers_behave_as_zero_dimensional_arrays,
)
from test_vectors_cpu import (  # noqa: F401
    test_every_element_type,
    test_float32x4_components_indexing_and_size,
    test_variable_index_wraps_negative_indices,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"
