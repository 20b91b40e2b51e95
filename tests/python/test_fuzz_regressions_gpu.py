"""GPU runs (marker `gpu`) of the regression tests in test_fuzz_regressions.py whose device code
the fixes changed: comparison chains compare pairwise (each link converting its operands to its
own type, the middle operand evaluated once), the math predicates of every real type agree
with CPython's math, chains of integer min and max keep their negated operands, min and max of signed zeros
keep Python's first argument, and conditional aggregates inside aggregates compile (NVRTC crashed
on them, killing the launching process)."""

import pytest

import weft

# pytest collects these test functions again in this module, where `target` is "gpu".
from test_fuzz_regressions import (  # noqa: F401
    test_comparison_chains_compare_pairwise,
    test_abs_of_a_signed_minimum_is_negative,
    test_conditional_aggregates_inside_aggregates,
    test_math_predicates_of_every_real_type_agree_with_cpython,
    test_min_max_chains_with_negated_operands,
    test_min_max_of_signed_zeros_keep_pythons_first_argument,
)

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not weft.gpu_available(), reason="needs a usable GPU")]


@pytest.fixture(scope="module")
def target():
    return "gpu"
