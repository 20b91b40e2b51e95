"""Floating-point control on the GPU (marker `gpu`): fastmath=True flushes float32 subnormals as the
CPU target does, and keeps float64 ones (--use_fast_math's ftz is single precision only); kernels
without it keep both. Skipped where no GPU is usable.
"""

import pytest

import weft

# pytest collects this test function again in this module, where `target` is "gpu".
from test_float_control_cpu import test_fastmath_kernels_flush_subnormals_and_others_keep_them  # noqa: F401

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not weft.gpu_available(), reason="needs a usable GPU")]


@pytest.fixture(scope="module")
def target():
    return "gpu"
