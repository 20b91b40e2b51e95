"""Shared by the test_classic_* modules of issue 10: the `target` fixture (the CPU, and the GPU
in the `gpu`-marked twin of each test), and a one-kernel compile for sm_90 through NVRTC."""

import numpy as np
import pytest


@pytest.fixture(params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def target(request, monkeypatch):
    """Runs the test on the target it names (WEFT_TARGET)."""
    monkeypatch.setenv("WEFT_TARGET", request.param)
    return request.param


def launch1(kernel, n, *args, block=32):
    """A 1-d launch of enough blocks of `block` threads for `n` elements."""
    kernel[(n + block - 1) // block, block](*args)


def compiles_for_sm90(kernel, *args) -> str:
    """'' when the unit of `kernel` specialized for `args` compiles for sm_90, else NVRTC's log."""
    from test_classic_cpu import _nvrtc_compile_sm90

    return _nvrtc_compile_sm90(kernel._kernel._emit_cuda(*args, target="cpu"))


def close(actual, expected, dtype):
    """Asserts `actual` matches `expected` to the precision of `dtype`."""
    rtol = 2e-6 if np.dtype(dtype) == np.float32 else 1e-12
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol)
