"""GPU runs (marker `gpu`) of test_nesting.py: deeply nested and very long kernels, compiled by
NVRTC inside the launching thread (a `threading.Thread` with the default stack size, and the main
thread), either run or give one TooDeeplyNested error, never a crash."""

import pytest

import weft

# pytest collects these test functions again in this module, where `target` is "gpu".
from test_nesting import (  # noqa: F401
    test_calls_of_device_functions_count_into_the_limit,
    test_nesting_beyond_the_limit_is_a_syntax_error,
    test_nesting_within_the_limit_compiles_and_runs,
)

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not weft.gpu_available(), reason="needs a usable GPU")]


@pytest.fixture(scope="module")
def target():
    return "gpu"
