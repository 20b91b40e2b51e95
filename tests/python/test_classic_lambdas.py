"""Lambdas given to cuda.jit (issue 10): `cuda.jit(device=True)(lambda ...)` is a device function
and `cuda.jit(lambda ...)` a kernel, as numba compiles them; a kernel lambda's body must give
None (numba: a kernel returns void), so it calls a device function or intrinsic that returns
nothing. `return f()` of such a call is `f()` then `return` in every function. Checked against
NumPy on the CPU target, on the GPU in the `gpu` twins."""

import numpy as np
import pytest

import weft
from classic_support import compiles_for_sm90, launch1, target  # noqa: F401
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
