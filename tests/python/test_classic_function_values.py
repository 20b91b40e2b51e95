"""Functions and types as values (issue 10, item 3): a device function, a plain function, a
lambda, a builtin (abs, cuda.atomic.add, math.sin, np.exp) or a type (np.int32, uint32,
device.float16) passed to a device function specializes it by identity; voting functions take
a value as numba's do. Checked against NumPy on the CPU target (the GPU in the `gpu` twins)."""

import math

import numpy as np
import pytest

import weft
from classic_support import compiles_for_sm90, launch1, launch_weft, target  # noqa: F401
from weft import cuda

N = 64


@cuda.jit(device=True)
def apply(f, x):
    return f(x)


@cuda.jit(device=True)
def twice(f, x):
    return f(f(x))


@cuda.jit(device=True)
def convert_twice(T, x):
    return T(x) * T(2)


def square(x):
    return x * x


@cuda.jit(device=True)
def plus_one(x):
    return x + 1


@cuda.jit
def apply_all(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = apply(square, a[i])
        out[i, 1] = apply(plus_one, a[i])
        out[i, 2] = apply(math.sin, a[i])
        out[i, 3] = apply(np.exp, a[i])
        out[i, 4] = apply(abs, -a[i])
        out[i, 5] = twice(lambda v: 3 * v, a[i])
        out[i, 6] = twice(square, a[i])


def test_functions_passed_to_a_device_function(target, rng):
    a = rng.uniform(-2, 2, N)
    out = np.zeros((N, 7))
    launch1(apply_all, N, a, out)
    expected = np.stack([a * a, a + 1, np.sin(a), np.exp(a), np.abs(a), 9 * a, a ** 4], axis=1)
    np.testing.assert_allclose(out, expected, rtol=1e-13)


def test_types_passed_to_a_device_function(target, rng):
    @cuda.jit
    def k(a, out32, out16, outu):
        i = cuda.grid(1)
        if i < a.size:
            out32[i] = convert_twice(np.int32, a[i])
            out16[i] = convert_twice(weft.float16, a[i])
            outu[i] = convert_twice(weft.uint32, a[i])

    a = rng.uniform(0, 1000, N)
    out32, out16, outu = np.zeros(N, np.int32), np.zeros(N, np.float16), np.zeros(N, np.uint32)
    launch1(k, N, a, out32, out16, outu)
    np.testing.assert_array_equal(out32, a.astype(np.int32) * 2)
    np.testing.assert_array_equal(out16, a.astype(np.float16) * np.float16(2))
    np.testing.assert_array_equal(outu, a.astype(np.uint32) * 2)


def test_atomic_passed_as_a_function(target, rng):
    @cuda.jit(device=True)
    def update(op, array, value):
        return op(array, 0, value)

    @cuda.jit
    def k(values, total, biggest):
        i = cuda.grid(1)
        if i < values.size:
            update(cuda.atomic.add, total, values[i])
            update(cuda.atomic.max, biggest, values[i])

    values = rng.integers(-1000, 1000, N).astype(np.int64)
    total, biggest = np.zeros(1, np.int64), np.full(1, -(2**62), np.int64)
    launch1(k, N, values, total, biggest)
    assert total[0] == values.sum() and biggest[0] == values.max()


def test_each_function_gets_its_own_specialization(target, rng):
    @cuda.jit(device=True)
    def reduce3(f, a, b, c):
        return f(f(a, b), c)

    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            out[i, 0] = reduce3(min, x[i, 0], x[i, 1], x[i, 2])
            out[i, 1] = reduce3(max, x[i, 0], x[i, 1], x[i, 2])
            out[i, 2] = reduce3(math.hypot, x[i, 0], x[i, 1], x[i, 2])
            out[i, 3] = reduce3(lambda p, q: p * q, x[i, 0], x[i, 1], x[i, 2])

    x = rng.standard_normal((N, 3))
    out = np.zeros((N, 4))
    launch1(k, N, x, out)
    expected = np.stack([x.min(axis=1), x.max(axis=1), np.sqrt((x * x).sum(axis=1)), x.prod(axis=1)], axis=1)
    np.testing.assert_allclose(out, expected, rtol=1e-13)


def test_weft_dialect_function_argument(target, rng):
    @weft.func
    def compose(f, g, x):
        return f(g(x))

    @weft.kernel
    def k(a, out):
        i = weft.tid(1)
        if i < a.size:
            out[i] = compose(math.sqrt, abs, a[i])

    a = rng.standard_normal(N).astype(np.float32)
    out = np.zeros_like(a)
    launch_weft(k, a, out, grid=2, block=32)
    np.testing.assert_allclose(out, np.sqrt(np.abs(a)), rtol=1e-6)


def test_syncthreads_count_and_or_take_a_value(target, rng):
    @cuda.jit
    def k(a, counts):
        i = cuda.grid(1)
        counted = cuda.syncthreads_count(a[i] > 0)
        anyone = cuda.syncthreads_or(a[i] > 2)
        everyone = cuda.syncthreads_and(a[i] > -10)
        if cuda.threadIdx.x == 0:
            counts[cuda.blockIdx.x, 0] = counted
            counts[cuda.blockIdx.x, 1] = anyone
            counts[cuda.blockIdx.x, 2] = everyone

    a = rng.standard_normal(4 * 32)
    counts = np.zeros((4, 3), np.int32)
    k[4, 32](a, counts)
    blocks = a.reshape(4, 32)
    np.testing.assert_array_equal(counts, np.stack([(blocks > 0).sum(axis=1), (blocks > 2).any(axis=1),
                                                    (blocks > -10).all(axis=1)], axis=1))


def test_lambda_reads_the_kernels_variables(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")

    @cuda.jit
    def k(a):
        scale = a[1]
        a[0] = apply(lambda v: v * scale, a[0])

    a = np.array([3.0, 5.0, 0.0])
    k[1, 1](a)
    assert a[0] == 15.0


def test_function_argument_kernels_compile_for_sm90():
    assert compiles_for_sm90(apply_all, np.zeros(4), np.zeros((4, 7))) == ""
