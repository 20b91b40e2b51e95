"""Python builtins and math in kernels (issue 10, item 4): round, divmod, pow, sum, any, all,
isinstance, int.bit_count, tuples indexed at run time, loops over tuples (enumerate, zip,
reversed) and reversed(range(...)), and math.degrees/radians/ldexp/nextafter/isclose, each
checked against CPython or NumPy on seeded random data on the CPU target (the GPU in the
`gpu`-marked twins)."""

import math

import numpy as np
import pytest

import weft
from classic_support import close, compiles_for_sm90, launch1, launch_weft, target  # noqa: F401
from weft import cuda

N = 64


# ---- round ----


@cuda.jit
def round_kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = round(x[i])


@cuda.jit
def round_digits_kernel(x, digits, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = round(x[i], digits)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_round_to_integer_ties_to_even(target, rng, dtype):
    x = (rng.integers(-50, 50, N) + rng.choice([0.5, 0.25, 0.75, 0.0], N)).astype(dtype)
    out = np.zeros(N, np.int64)
    launch1(round_kernel, N, x, out)
    np.testing.assert_array_equal(out, [round(float(v)) for v in x])


@pytest.mark.parametrize("digits", [0, 1, 2, 3, -1, -2])
def test_round_with_ndigits(target, rng, digits):
    x = rng.uniform(-1000, 1000, N)
    out = np.zeros_like(x)
    launch1(round_digits_kernel, N, x, digits, out)
    np.testing.assert_allclose(out, [round(float(v), digits) for v in x], rtol=1e-15, atol=1e-12)


def test_round_of_integers_and_constants(target, rng):
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = round(a[i]) + round(2.5) + round(3.5) + round(1.2345, 2) * 100

    a = rng.integers(-100, 100, N).astype(np.int32)
    out = np.zeros(N)
    launch1(k, N, a, out)
    np.testing.assert_allclose(out, a + 2 + 4 + 123.0)


# ---- divmod and pow ----


@cuda.jit
def divmod_kernel(a, b, q, r):
    i = cuda.grid(1)
    if i < a.size:
        q[i], r[i] = divmod(a[i], b[i])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_divmod_floors_like_python(target, rng, dtype):
    a = rng.integers(-1000, 1000, N).astype(dtype)
    b = rng.integers(1, 50, N).astype(dtype) * rng.choice([-1, 1], N).astype(dtype)
    q, r = np.zeros_like(a), np.zeros_like(a)
    launch1(divmod_kernel, N, a, b, q, r)
    expected = [divmod(x.item(), y.item()) for x, y in zip(a, b)]
    np.testing.assert_array_equal(q, [e[0] for e in expected])
    np.testing.assert_array_equal(r, [e[1] for e in expected])


def test_divmod_of_constants_and_a_call(target, rng):
    @cuda.jit(device=True)
    def twice(x):
        return 2 * x

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            q, r = divmod(twice(a[i]), 7)
            c = divmod(17, 5)
            out[i] = q * 100 + r + c[0] * 1000 + c[1] * 10000

    a = rng.integers(0, 500, N).astype(np.int32)
    out = np.zeros_like(a)
    launch1(k, N, a, out)
    np.testing.assert_array_equal(out, (2 * a) // 7 * 100 + (2 * a) % 7 + 3000 + 20000)


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_pow_builtin(target, rng, dtype):
    @cuda.jit
    def k(a, e, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = pow(a[i], e[i])

    a = rng.integers(-5, 6, N).astype(dtype)
    e = rng.integers(0, 5, N).astype(dtype)
    out = np.zeros_like(a)
    launch1(k, N, a, e, out)
    want = [pow(x.item(), y.item()) for x, y in zip(a, e)]
    if dtype == np.int64:
        np.testing.assert_array_equal(out, want)  # integers to an integer power: exact
    else:
        np.testing.assert_allclose(out, want, rtol=1e-15)  # CUDA's pow is within 2 ulp


# ---- sum, any, all over tuples and vectors ----


@cuda.jit
def tuple_reductions(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        t = (a[i, 0], a[i, 1], a[i, 2])
        out[i, 0] = sum(t)
        out[i, 1] = any((a[i, 0] > 0, a[i, 1] > 0))
        out[i, 2] = all((a[i, 0] > 0, a[i, 1] > 0, a[i, 2] > 0))
        out[i, 3] = sum(t, 10.0)


def test_sum_any_all_of_tuples(target, rng):
    a = rng.standard_normal((N, 3))
    out = np.zeros((N, 4))
    launch1(tuple_reductions, N, a, out)
    np.testing.assert_allclose(out[:, 0], [sum(r) for r in a], rtol=1e-15)
    np.testing.assert_array_equal(out[:, 1], [any((r[0] > 0, r[1] > 0)) for r in a])
    np.testing.assert_array_equal(out[:, 2], [all(v > 0 for v in r) for r in a])
    np.testing.assert_allclose(out[:, 3], [sum(r, 10.0) for r in a], rtol=1e-15)


def test_sum_of_constant_tuple_and_vector(target, rng):
    weights = (1, 2, 3, 4)

    @weft.kernel
    def k(a, out):
        i = weft.tid(1)
        if i < a.size:
            v = weft.float32x3(a[i], 2 * a[i], 3 * a[i])
            out[i] = sum(v) + sum(weights) + all(()) + any(())

    a = rng.standard_normal(N).astype(np.float32)
    out = np.zeros_like(a)
    launch_weft(k, a, out, grid=2, block=32)
    close(out, 6 * a + 10 + 1, np.float32)


def test_sum_of_an_array_says_to_loop(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")

    @cuda.jit
    def k(a):
        a[0] = sum(a)

    with pytest.raises(weft.CompileError, match="argument 1 of sum.. must be a tuple or a vector"):
        k[1, 1](np.zeros(3))


# ---- isinstance ----


@cuda.jit(device=True)
def describe_type(x):
    if isinstance(x, bool):
        return 1
    elif isinstance(x, int):
        return 2
    elif isinstance(x, (float, complex)):
        return 3
    return 4


def test_isinstance_decided_at_compile_time(target):
    @cuda.jit
    def k(a, f, out):
        out[0] = describe_type(a[0])
        out[1] = describe_type(f[0])
        out[2] = describe_type(a[0] > 0)
        out[3] = isinstance(f[0], np.float32)
        out[4] = isinstance(f[0], np.float64)
        out[5] = isinstance(1.0, float)

    out = np.zeros(6, np.int32)
    k[1, 1](np.array([5], np.int64), np.array([1.5], np.float32), out)
    np.testing.assert_array_equal(out, [2, 3, 1, 1, 0, 1])


def test_isinstance_needs_a_number_type(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")

    @cuda.jit
    def k(a):
        a[0] = isinstance(a[0], 3)

    with pytest.raises(weft.CompileError, match="argument 2 of isinstance.. must be a number type"):
        k[1, 1](np.zeros(3))


# ---- int.bit_count ----


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16, np.uint64])
def test_bit_count(target, rng, dtype):
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i].bit_count()

    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, N, dtype=dtype, endpoint=True)
    a[0] = info.min
    out = np.zeros(N, np.int32)
    launch1(k, N, a, out)
    np.testing.assert_array_equal(out, [int(v).bit_count() for v in a])


def test_bit_count_of_a_constant(target):
    @cuda.jit
    def k(out):
        out[0] = (255).bit_count() + (-7).bit_count() * 100

    out = np.zeros(1, np.int32)
    k[1, 1](out)
    assert out[0] == 8 + 300


# ---- tuples indexed at run time, loops over tuples ----


def test_tuple_indexed_at_run_time(target, rng):
    table = (1.5, -2.0, 3.25, 8.0, 0.5)

    @cuda.jit
    def k(idx, out):
        i = cuda.grid(1)
        if i < idx.size:
            out[i] = table[idx[i]]

    idx = rng.integers(-5, 5, N).astype(np.int32)
    out = np.zeros(N)
    launch1(k, N, idx, out)
    np.testing.assert_array_equal(out, [table[j] for j in idx])


def test_tuple_of_mixed_types_needs_a_constant_index(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")

    @cuda.jit
    def k(a, j):
        t = (1, 2.5)
        a[0] = t[j]

    with pytest.raises(weft.CompileError, match="do not all have one type"):
        k[1, 1](np.zeros(3), 1)


def test_for_over_tuple_and_enumerate(target, rng):
    coefficients = (0.5, -1.0, 2.0, 0.25)

    @cuda.jit
    def polynomial(x, out):
        i = cuda.grid(1)
        if i < x.size:
            total = 0.0
            for c in coefficients:
                total = total * x[i] + c
            weighted = 0.0
            for j, c in enumerate(coefficients):
                weighted += j * c
            for j, c in enumerate(coefficients, 1):
                weighted += j * c
            out[i] = total + weighted

    x = rng.standard_normal(N)
    out = np.zeros_like(x)
    launch1(polynomial, N, x, out)
    weighted = sum(j * c for j, c in enumerate(coefficients)) + sum(j * c for j, c in enumerate(coefficients, 1))
    np.testing.assert_allclose(out, np.polyval(coefficients, x) + weighted, rtol=1e-13)


def test_for_over_zip_of_tuples(target, rng):
    @cuda.jit
    def dot3(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            total = 0.0
            for x, y in zip((a[i, 0], a[i, 1], a[i, 2]), (b[i, 0], b[i, 1], b[i, 2], 99.0)):
                total += x * y
            out[i] = total

    a, b = rng.standard_normal((N, 3)), rng.standard_normal((N, 3))
    out = np.zeros(N)
    launch1(dot3, N, a, b, out)
    np.testing.assert_allclose(out, (a * b).sum(axis=1), rtol=1e-13)


def test_for_over_reversed(target, rng):
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            digits = 0
            for j in reversed(range(a[i])):
                digits = digits * 10 + j % 10
            for j in reversed(range(2, 5)):
                digits = digits * 10 + j
            for v in reversed((1, 2, 3)):
                digits = digits * 10 + v
            out[i] = digits

    a = rng.integers(0, 6, N).astype(np.int64)
    out = np.zeros_like(a)
    launch1(k, N, a, out)

    def expected(n):
        d = 0
        for j in list(reversed(range(n))) + [4, 3, 2] + [3, 2, 1]:
            d = d * 10 + j % 10
        return d

    np.testing.assert_array_equal(out, [expected(int(n)) for n in a])


def test_for_over_range_of_len(target, rng):
    @cuda.jit
    def total(a, out):
        s = 0.0
        for j in range(len(a)):
            s += a[j]
        out[0] = s

    a = rng.standard_normal(37)
    out = np.zeros(1)
    total[1, 1](a, out)
    np.testing.assert_allclose(out[0], a.sum(), rtol=1e-13)


def test_zip_outside_a_for_loop_is_an_error(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")

    @cuda.jit
    def k(a):
        z = zip((1, 2), (3, 4))  # noqa: F841

    with pytest.raises(weft.CompileError, match="can only be the iterable of a for loop"):
        k[1, 1](np.zeros(3))


# ---- math ----


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["degrees", "radians"])
def test_math_degrees_radians(target, rng, name, dtype):
    function = getattr(math, name)

    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = function(x[i])

    x = rng.uniform(-400, 400, N).astype(dtype)
    out = np.zeros_like(x)
    launch1(k, N, x, out)
    close(out, [function(float(v)) for v in x], dtype)


def test_math_ldexp_nextafter(target, rng):
    @cuda.jit
    def k(x, e, out, after):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = math.ldexp(x[i], e[i])
            after[i] = math.nextafter(x[i], math.inf)

    x = rng.standard_normal(N)
    e = rng.integers(-30, 30, N).astype(np.int32)
    out, after = np.zeros_like(x), np.zeros_like(x)
    launch1(k, N, x, e, out, after)
    np.testing.assert_array_equal(out, [math.ldexp(float(v), int(n)) for v, n in zip(x, e)])
    np.testing.assert_array_equal(after, [math.nextafter(float(v), math.inf) for v in x])


def test_math_ldexp_needs_an_integer_exponent(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")

    @cuda.jit
    def k(a):
        a[0] = math.ldexp(a[0], 2.5)

    with pytest.raises(weft.CompileError, match="argument 2 of math.ldexp.. must be an integer"):
        k[1, 1](np.zeros(3))


def test_math_isclose(target, rng):
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i, 0] = math.isclose(a[i], b[i])
            out[i, 1] = math.isclose(a[i], b[i], rel_tol=1e-3)
            out[i, 2] = math.isclose(a[i], b[i], abs_tol=0.01)

    a = rng.standard_normal(N)
    b = a * (1 + rng.choice([0, 1e-12, 1e-4, 1e-2], N)) + rng.choice([0, 0.005], N)
    a[:3] = [math.inf, math.nan, 0.0]
    b[:3] = [math.inf, math.nan, 1e-300]
    out = np.zeros((N, 3), np.bool_)
    launch1(k, N, a, b, out)
    expected = [[math.isclose(x, y), math.isclose(x, y, rel_tol=1e-3), math.isclose(x, y, abs_tol=0.01)]
                for x, y in zip(a.tolist(), b.tolist())]
    np.testing.assert_array_equal(out, expected)


def test_math_isclose_rejects_unknown_keyword(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")

    @cuda.jit
    def k(a):
        a[0] = math.isclose(a[0], a[1], tol=1.0)

    with pytest.raises(weft.CompileError, match="unexpected keyword argument 'tol'"):
        k[1, 1](np.zeros(3))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_math_frexp_modf(target, rng, dtype):
    @cuda.jit
    def k(x, mantissa, exponent, fraction, whole):
        i = cuda.grid(1)
        if i < x.size:
            m, e = math.frexp(x[i])
            mantissa[i] = m
            exponent[i] = e
            f, w = math.modf(x[i])
            fraction[i] = f
            whole[i] = w

    x = (rng.standard_normal(N) * 10.0 ** rng.integers(-20, 20, N)).astype(dtype)
    x[:5] = [0.0, -0.0, np.inf, -np.inf, np.nan]
    mantissa, fraction, whole = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
    exponent = np.zeros(N, np.int32)
    launch1(k, N, x, mantissa, exponent, fraction, whole)
    expected_frexp = [math.frexp(float(v)) for v in x]
    expected_modf = [math.modf(float(v)) for v in x]
    np.testing.assert_array_equal(mantissa, np.array([m for m, _ in expected_frexp], dtype))
    np.testing.assert_array_equal(exponent, [e for _, e in expected_frexp])
    np.testing.assert_array_equal(fraction, np.array([f for f, _ in expected_modf], dtype))
    np.testing.assert_array_equal(whole, np.array([w for _, w in expected_modf], dtype))


# ---- sm_90 ----


@pytest.mark.parametrize("kernel, args", [
    (round_kernel, (np.zeros(4, np.float32), np.zeros(4, np.int64))),
    (round_digits_kernel, (np.zeros(4), 2, np.zeros(4))),
    (divmod_kernel, (np.zeros(4, np.int32),) * 4),
    (tuple_reductions, (np.zeros((4, 3)), np.zeros((4, 4)))),
], ids=["round", "round-digits", "divmod", "reductions"])
def test_builtin_kernels_compile_for_sm90(kernel, args):
    assert compiles_for_sm90(kernel, *args) == ""
