"""Shared by the test_classic_* modules of issue 10: the `target` fixture (the CPU, and the GPU
in the `gpu`-marked twin of each test), and a one-kernel compile for sm_90 through NVRTC."""

import os

import numpy as np
import pytest

import weft


@pytest.fixture(params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def target(request, monkeypatch):
    """Runs the test on the target it names (WEFT_TARGET)."""
    monkeypatch.setenv("WEFT_TARGET", request.param)
    return request.param


def launch1(kernel, n, *args, block=32):
    """A 1-d launch of enough blocks of `block` threads for `n` elements."""
    kernel[(n + block - 1) // block, block](*args)


def launch_weft(kernel, *args, grid, block):
    """weft.launch of a kernel of weft's own dialect with NumPy arrays on the test's target: on
    the GPU they are copied to device memory and back (the classic front's launches do that
    themselves, as numba's do)."""
    if os.environ.get("WEFT_TARGET") != "gpu":
        weft.launch(kernel, *args, grid=grid, block=block)
        return
    device = [weft.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    weft.launch(kernel, *device, grid=grid, block=block)
    for a, d in zip(args, device):
        if isinstance(a, np.ndarray):
            a[...] = d.copy_to_host()


def compiles_for_sm90(kernel, *args) -> str:
    """'' when the unit of `kernel` specialized for `args` compiles for sm_90, else NVRTC's log."""
    from test_classic_cpu import _nvrtc_compile_sm90

    return _nvrtc_compile_sm90(kernel._kernel._emit_cuda(*args, target="cpu"))


def close(actual, expected, dtype):
    """Asserts `actual` matches `expected` to the precision of `dtype`."""
    rtol = 2e-6 if np.dtype(dtype) == np.float32 else 1e-12
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol)
