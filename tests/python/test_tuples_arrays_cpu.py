"""Tuples, arrays in device code and constant expressions on the CPU target: tuples returned
and unpacked, arrays of more than 3 dimensions, negative indices, ConstExpr parameters (and
their errors), and global constants re-checked at every launch."""

import numpy as np
import pytest

import weft
from cuda import device

SCALE = 3


def minmax(a, b):
    if a < b:
        return (a, b)
    return (b, a)


@device.kernel
def tuple_results(xs, ys, lo, hi):
    i = device.tid(1)
    if i < xs.size:
        small, large = minmax(xs[i], ys[i])
        pair = (small, large, i)
        lo[i] = pair[0]
        hi[pair[2]] = pair[-2]


def test_tuples_returned_unpacked_and_indexed():
    rng = np.random.default_rng(5)
    xs = rng.standard_normal(130).astype(np.float32)
    ys = rng.standard_normal(130).astype(np.float32)
    lo = np.zeros_like(xs)
    hi = np.zeros_like(xs)
    device.launch(tuple_results, xs, ys, lo, hi, grid=3, block=64, target="cpu")
    np.testing.assert_array_equal(lo, np.minimum(xs, ys))
    np.testing.assert_array_equal(hi, np.maximum(xs, ys))


@device.kernel
def five_d(a, out):
    i = device.tid(1)
    if i < a.shape[0]:
        total = 0.0
        for j in range(a.shape[1]):
            for k in range(a.shape[2]):
                for m in range(a.shape[3]):
                    for n in range(a.shape[4]):
                        total += a[i, j, k, m, n]
        out[i] = total + a[-1, -1, -1, -1, -1] * a.ndim


def test_arrays_of_five_dimensions_and_negative_indices():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((4, 3, 2, 3, 2))
    out = np.zeros(4)
    device.launch(five_d, a, out, grid=1, block=32, target="cpu")
    np.testing.assert_allclose(out, a.sum(axis=(1, 2, 3, 4)) + a[-1, -1, -1, -1, -1] * 5, rtol=1e-12)


@device.kernel
def scaled(a, out, factor: device.ConstExpr[device.int32]):
    i = device.tid(1)
    if i < a.size:
        out[i] = a[i] * factor * SCALE


def test_constexpr_values_and_global_constants_rechecked_at_launch():
    global SCALE
    a = np.arange(10, dtype=np.int32)
    out = np.zeros_like(a)
    device.launch(scaled, a, out, 2, grid=1, block=32, target="cpu")
    np.testing.assert_array_equal(out, a * 2 * 3)
    compiles = scaled._compile_count
    SCALE = 5
    try:
        device.launch(scaled, a, out, 2, grid=1, block=32, target="cpu")
        np.testing.assert_array_equal(out, a * 2 * 5)
        assert scaled._compile_count == compiles + 1  # the changed global recompiled the kernel
        device.launch(scaled, a, out, 2, grid=1, block=32, target="cpu")
        assert scaled._compile_count == compiles + 1
    finally:
        SCALE = 3


def test_constexpr_errors():
    a = np.arange(4, dtype=np.int32)
    with pytest.raises(weft.CompileError, match=r"ConstExpr parameter 'factor' needs a constant int32, not 3.5"):
        device.launch(scaled, a, np.zeros_like(a), 3.5, grid=1, block=4, target="cpu")
    with pytest.raises(TypeError, match="parameter 'factor' is a ConstExpr"):
        device.launch(scaled, a, np.zeros_like(a), a, grid=1, block=4, target="cpu")


def helper(x, n: device.ConstExpr):
    return x * n


@device.kernel
def non_constant_argument(a):
    i = device.tid(1)
    a[i] = helper(a[i], a[0])


def test_constexpr_parameter_needs_a_constant_argument():
    with pytest.raises(weft.CompileError, match=r"ConstExpr parameter 'n' needs a constant number, not a run-time int32"):
        device.launch(non_constant_argument, np.arange(4, dtype=np.int32), grid=1, block=4, target="cpu")
