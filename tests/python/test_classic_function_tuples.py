"""Functions and types stored in tuples (issue 10, item 3): a global or captured tuple, or a
tuple written in device code, holding device functions, lambdas, math/NumPy functions, number
types (and constants beside them), indexed with constants, measured with len() and passed to
device functions, which are specialized by the identity of every element. Checked against NumPy
on the CPU target, on the GPU in the `gpu` twins."""

import math

import numpy as np
import pytest

import weft
from classic_support import compiles_for_sm90, launch1, target  # noqa: F401
from weft import cuda


@cuda.jit(device=True)
def square(x):
    return x * x


OPS = (math.sin, square, lambda v: 3 * v - 1, 2.5)
TYPES = (np.float32, np.int32)


@cuda.jit
def global_tuple(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = OPS[0](a[i]) + OPS[-1]
        out[1, i] = OPS[1](a[i]) + OPS[2](a[i])
        out[2, i] = TYPES[1](a[i] * 4) + len(OPS)


def test_global_tuple_of_functions_and_types(target, rng):
    n = 200
    a = rng.uniform(-3, 3, n).astype(np.float32)
    out = np.zeros((3, n), np.float32)
    launch1(global_tuple, n, a, out)
    np.testing.assert_allclose(out[0], np.sin(a) + np.float32(2.5), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[1], a * a + 3 * a - 1, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out[2], (a * 4).astype(np.int32) + 4)


@cuda.jit(device=True)
def combine(fs, x):
    return fs[0](fs[1](x)) + len(fs)


@cuda.jit
def tuples_as_arguments(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = combine((math.sqrt, abs), a[i])
        out[1, i] = combine((square, math.exp, np.float64), a[i])
        out[2, i] = combine((square, square), a[i])


def test_tuples_passed_to_device_functions_specialize_by_identity(target, rng):
    n = 150
    a = rng.uniform(-2, 2, n)
    out = np.zeros((3, n))
    launch1(tuples_as_arguments, n, a, out)
    np.testing.assert_allclose(out[0], np.sqrt(np.abs(a)) + 2, rtol=1e-12)
    np.testing.assert_allclose(out[1], np.exp(a) ** 2 + 3, rtol=1e-12)
    np.testing.assert_allclose(out[2], a ** 4 + 2, rtol=1e-12)


def make_kernel(steps):
    @cuda.jit
    def pipeline(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = steps[2](steps[1](steps[0](a[i])))

    return pipeline


def test_captured_tuples_in_kernel_factories(target, rng):
    n = 100
    a = rng.uniform(0.5, 2, n)
    out = np.zeros(n)
    launch1(make_kernel((math.log, square, lambda v: v + 1)), n, a, out)
    np.testing.assert_allclose(out, np.log(a) ** 2 + 1, rtol=1e-12)
    launch1(make_kernel((np.exp, math.sqrt, np.float32)), n, a, out)
    np.testing.assert_allclose(out, np.sqrt(np.exp(a)).astype(np.float32), rtol=1e-6)


REBOUND = (square,)
WITH_TEXT = (square, "x")


@cuda.jit
def uses_rebound(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = REBOUND[0](a[i])


def test_rebinding_a_global_tuple_recompiles(target, rng):
    global REBOUND
    a = rng.uniform(-2, 2, 64)
    out = np.zeros(64)
    launch1(uses_rebound, 64, a, out)
    np.testing.assert_allclose(out, a * a, rtol=1e-12)
    saved = REBOUND
    try:
        REBOUND = (math.cos,)
        launch1(uses_rebound, 64, a, out)
        np.testing.assert_allclose(out, np.cos(a), rtol=1e-12)
    finally:
        REBOUND = saved


def test_function_tuple_errors(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")

    @cuda.jit
    def run_time_index(a, k):
        a[0] = OPS[k](a[0])

    with pytest.raises(weft.CompileError, match=r"the index of tuple 'OPS'.*constant.*\[NotConstant\]"):
        run_time_index[1, 1](np.ones(2), 1)

    @cuda.jit
    def out_of_range(a):
        a[0] = OPS[4](a[0])

    with pytest.raises(weft.CompileError, match=r"tuple index 4 is out of range.*\[TupleIndex\]"):
        out_of_range[1, 1](np.ones(2))

    @cuda.jit
    def mixed(a):
        a[0] = combine((square, a[1]), a[0])

    with pytest.raises(weft.CompileError, match=r"a run-time value in a tuple of functions.*\[UnsupportedExpression\]"):
        mixed[1, 1](np.ones(2))

    @cuda.jit
    def stored(a):
        fs = (square, math.sin)
        a[0] = fs[0](a[0])

    with pytest.raises(weft.CompileError, match=r"used as a value is not supported in device code; index it.*\[UnsupportedExpression\]"):
        stored[1, 1](np.ones(2))

    @cuda.jit
    def breaks(a):
        for f in (square, math.sin):
            if a[0] > 1:
                break
            a[0] = f(a[0])

    with pytest.raises(weft.CompileError, match=r"break or continue in a loop over a tuple.*unrolled.*\[UnsupportedStatement\]"):
        breaks[1, 1](np.ones(2))

    @cuda.jit
    def over_strings(a):
        for f in WITH_TEXT:
            a[0] = 1

    with pytest.raises(weft.CompileError, match=r"a loop over a tuple holding 'x'.*\[UnsupportedStatement\]"):
        over_strings[1, 1](np.ones(2))


def test_function_tuples_compile_for_sm90():
    assert compiles_for_sm90(global_tuple, np.zeros(4, np.float32), np.zeros((3, 4), np.float32)) == ""
    assert compiles_for_sm90(tuples_as_arguments, np.zeros(4), np.zeros((3, 4))) == ""


@cuda.jit(device=True)
def run_nested(fs, x):
    return fs[0](x) + fs[1][0](x) + fs[1][1](x)


@cuda.jit
def lambdas_in_tuples(a, out):
    i = cuda.grid(1)
    if i < a.size:
        s = a[i] + 1
        t = i * 2
        out[i] = run_nested((lambda v: v * s, (square, lambda v: v + t)), a[i])
        out[i] += (lambda v: v - s, square)[0](10.0)


def test_tuples_of_lambdas_reading_locals_and_nested_tuples(target, rng):
    n = 120
    a = rng.uniform(-3, 3, n)
    out = np.zeros(n)
    launch1(lambdas_in_tuples, n, a, out)
    index = np.arange(n)
    np.testing.assert_allclose(out, a * (a + 1) + a * a + a + 2 * index + 10 - (a + 1), rtol=1e-12, atol=1e-12)


STEPS = (square, math.exp, 0.5)


@cuda.jit(device=True)
def sum_over(fs, x):
    total = 0.0
    for f in fs:
        total += f(x)
    return total


@cuda.jit
def loops_over_tuples(a, out):
    i = cuda.grid(1)
    if i < a.size:
        s = a[i] + 1
        out[0, i] = sum_over((math.cos, lambda v: v * s, square), a[i])
        value = a[i]
        for step in (square, math.exp):
            value = step(value)
        out[1, i] = value
        count = 0.0
        for f in STEPS:
            count += 1
        out[2, i] = count


def test_loops_over_tuples_of_functions_are_unrolled(target, rng):
    n = 90
    a = rng.uniform(-1, 1, n)
    out = np.zeros((3, n))
    launch1(loops_over_tuples, n, a, out)
    np.testing.assert_allclose(out[0], np.cos(a) + a * (a + 1) + a * a, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out[1], np.exp(a * a), rtol=1e-12)
    np.testing.assert_array_equal(out[2], 3)
