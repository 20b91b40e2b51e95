"""Lambdas given to cuda.jit (issue 10): `cuda.jit(device=True)(lambda ...)` is a device function
and `cuda.jit(lambda ...)` a kernel, as numba compiles them; a kernel lambda's body must give
None (numba: a kernel returns void), so it calls a device function or intrinsic that returns
nothing. `return f()` of such a call is `f()` then `return` in every function. A lambda written
in device code reads the local variables and parameters around it. Checked against NumPy on the
CPU target, on the GPU in the `gpu` twins."""

import math

import numpy as np
import pytest

import weft
from classic_support import compiles_for_sm90, launch1, launch_weft, target  # noqa: F401
from weft import cuda

cube = cuda.jit(device=True)(lambda x: x * x * x)
blend = cuda.jit("float32(float32, float32)", device=True)(lambda x, y: 0.25 * x + 0.75 * y)


@cuda.jit(device=True)
def store_scaled(out, a, scale):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = cube(a[i]) * scale


scale_kernel = cuda.jit(lambda out, a, scale: store_scaled(out, a, scale))
scale_kernel_with_signature = cuda.jit("void(float64[:], float64[:], float64)")(
    lambda out, a, scale: store_scaled(out, a, scale))


@cuda.jit
def blend_arrays(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = blend(a[i], b[i])


def test_lambda_device_functions(target, rng):
    n = 300
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    launch1(blend_arrays, n, a, b, out)
    np.testing.assert_allclose(out, np.float32(0.25) * a + np.float32(0.75) * b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kernel", [scale_kernel, scale_kernel_with_signature], ids=["lazy", "signature"])
def test_lambda_kernels(target, rng, kernel):
    n = 257
    a = rng.uniform(-3, 3, n)
    out = np.zeros(n)
    launch1(kernel, n, out, a, 1.5)
    np.testing.assert_allclose(out, a * a * a * 1.5, rtol=1e-12)


@cuda.jit(device=True)
def count_then_sync(counter):
    cuda.atomic.add(counter, 0, 1)
    return cuda.syncthreads()


@cuda.jit
def counts_twice(counter):
    count_then_sync(counter)
    return count_then_sync(counter)


def test_return_of_a_call_giving_none_evaluates_it(target, rng):
    blocks, threads = int(rng.integers(1, 5)), 32
    counter = np.zeros(1, np.int32)
    counts_twice[blocks, threads](counter)
    assert counter[0] == 2 * blocks * threads


def test_lambda_kernel_returning_a_value_is_an_error():
    adds = cuda.jit(lambda a: cuda.atomic.add(a, 0, 1))
    with pytest.raises(weft.CompileError, match=r"kernel '<lambda>' returns a value.*\[KernelReturnsValue\]"):
        adds[1, 1](np.zeros(1, np.int32))


def test_lambda_kernels_compile_for_sm90():
    assert compiles_for_sm90(scale_kernel, np.zeros(4), np.zeros(4), 1.5) == ""
    assert compiles_for_sm90(counts_twice, np.zeros(1, np.int32)) == ""


# Lambdas written in device code read the local variables and parameters of the function around
# them (numba inlines such closures): their values where the lambda is written are passed to it.


@cuda.jit(device=True)
def apply_to(f, x):
    return f(x)


@cuda.jit(device=True)
def apply_twice(f, x):
    return apply_to(f, apply_to(f, x))


@cuda.jit(device=True)
def plus_one_of(f, x):
    return apply_to(lambda v: f(v) + 1, x)


@cuda.jit
def closures_over_locals(a, rows, out, factor):
    i = cuda.grid(1)
    if i < a.size:
        scale = a[i] * 2
        shift = factor + 1
        row = rows[i]
        out[0, i] = apply_to(lambda v: v * scale + shift, a[i])
        out[1, i] = apply_twice(lambda v: v * factor, a[i])
        out[2, i] = (lambda v: v + scale)(1.0)
        out[3, i] = plus_one_of(math.sqrt, abs(a[i]))
        out[4, i] = plus_one_of(lambda w: w * row[0] + i, a[i])
        total = 0.0
        for k in range(3):
            total += apply_to(lambda v: v * k + row[k], a[i])
        out[5, i] = total


def test_lambdas_read_locals_and_parameters(target, rng):
    n = 100
    a = rng.standard_normal(n)
    rows = rng.standard_normal((n, 3))
    out = np.zeros((6, n))
    factor = 1.75
    launch1(closures_over_locals, n, a, rows, out, factor)
    index = np.arange(n)
    np.testing.assert_allclose(out[0], a * (a * 2) + (factor + 1), rtol=1e-12)
    np.testing.assert_allclose(out[1], a * factor * factor, rtol=1e-12)
    np.testing.assert_allclose(out[2], 1 + a * 2, rtol=1e-12)
    np.testing.assert_allclose(out[3], np.sqrt(np.abs(a)) + 1, rtol=1e-12)
    np.testing.assert_allclose(out[4], a * rows[:, 0] + index + 1, rtol=1e-12)
    np.testing.assert_allclose(out[5], sum(a * k + rows[:, k] for k in range(3)), rtol=1e-12, atol=1e-12)


@weft.func
def weft_apply(f, x):
    return f(x)


@weft.kernel
def weft_closure(a: weft.float32[:], out: weft.float32[:], offset: weft.float32):
    i = weft.tid(1)
    if i < a.shape[0]:
        doubled = a[i] * 2
        out[i] = weft_apply(lambda v: v * doubled - offset, a[i])


def test_lambdas_read_locals_in_weft_kernels(target, rng):
    a = rng.standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    launch_weft(weft_closure, a, out, np.float32(0.5), grid=2, block=32)
    np.testing.assert_allclose(out, a * (a * 2) - np.float32(0.5), rtol=1e-6, atol=1e-6)


def test_a_lambda_passed_the_wrong_number_of_arguments_is_an_error(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")

    @cuda.jit
    def k(a):
        scale = a[1]
        a[0] = apply_to(lambda v: v * scale, a[0], a[2])

    with pytest.raises(weft.CompileError, match=r"function 'apply_to' takes 2 positional arguments.*3.*\[ArgumentCount\]"):
        k[1, 1](np.zeros(3))


def test_closures_over_locals_compile_for_sm90():
    assert compiles_for_sm90(closures_over_locals, np.zeros(4), np.zeros((4, 3)), np.zeros((6, 4)), 1.5) == ""
