"""GPU runs (marker `gpu`) of test_constants_cpu.py: the conversions of constants, run-time values
and host objects agree on the device too (CUDA's own conversions for float16, bfloat16 and fp8),
and uint64 literals, constant conditions and vector loops give the CPU's results."""

import pytest

import weft

# pytest collects these test functions again in this module, where `target` is "gpu".
from test_constants_cpu import (  # noqa: F401
    test_a_variable_assigned_only_in_a_removed_branch,
    test_constructors_convert_constants_as_run_time_values_and_host_objects,
    test_constructors_of_the_issue_wrap_as_documented,
    test_for_loops_over_vectors,
    test_ints_of_the_uint64_range_take_the_other_operands_type,
)

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not weft.gpu_available(), reason="needs a usable GPU")]


@pytest.fixture(scope="module")
def target():
    return "gpu"
