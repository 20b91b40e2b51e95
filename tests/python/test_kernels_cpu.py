"""Kernels compiled by weft and run on the CPU target, checked against NumPy and CPython.

Every test takes the `target` fixture; this module runs them on "cpu". test_kernels_gpu.py
imports a selection and runs them again on "gpu" by overriding the fixture. Kernels live at
module level because weft reads their source with inspect. The data is random (never zeros
only) and floating-point results are compared by relative error.
"""

import inspect
import math
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import weft
from cuda import device
from launching import run

HERE = pathlib.Path(__file__).resolve()
REPO = HERE.parents[2]

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_DTYPES = [np.float32, np.float64]

# One launch costs little but one specialization costs a host C++ compile, so hypothesis
# drives already-compiled kernels with few, fast examples.
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def target():
    return "cpu"


def blocks_for(n, block):
    return (n + block - 1) // block


def wrap(value, dtype):
    """The Python int `value` reduced to `dtype`'s range with two's complement wraparound."""
    info = np.iinfo(dtype)
    bits = info.bits
    value &= (1 << bits) - 1
    if info.min < 0 and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def random_ints(rng, dtype, n, nonzero=False):
    info = np.iinfo(dtype)
    values = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    if nonzero:
        values[values == 0] = 1
    return values


# ---------------------------------------------------------------------------------------------
# Arithmetic on every integer and floating dtype


@device.kernel
def int_ops(a, b, s, out, cmp, fdiv):
    i = device.tid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[0, i] = x + y
        out[1, i] = x - y
        out[2, i] = x * y
        out[3, i] = x // y
        out[4, i] = x % y
        out[5, i] = x & y
        out[6, i] = x | y
        out[7, i] = x ^ y
        out[8, i] = -x
        out[9, i] = ~x
        out[10, i] = abs(x)
        out[11, i] = min(x, y)
        out[12, i] = max(x, y)
        out[13, i] = x**3
        out[14, i] = x << s[i]
        out[15, i] = x >> s[i]
        out[16, i] = x * 3 + 1
        cmp[0, i] = x < y
        cmp[1, i] = x <= y
        cmp[2, i] = x == y
        cmp[3, i] = x != y
        cmp[4, i] = x > y
        cmp[5, i] = x >= y
        fdiv[i] = x / y


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_integer_arithmetic_matches_numpy(target, rng, dtype):
    n = 1000
    info = np.iinfo(dtype)
    a = random_ints(rng, dtype, n)
    b = random_ints(rng, dtype, n, nonzero=True)
    # Small operands too, so that // and % see small quotients of both signs.
    a[:200] = rng.integers(max(info.min, -20), 21, 200).astype(dtype)
    b[:200] = rng.integers(max(info.min, -5), 6, 200).astype(dtype)
    b[b == 0] = 1
    a[(a == info.min) & (b == -1)] = 7  # MIN // -1 overflows in NumPy as well
    a[:4] = [info.min, info.max, 0, 1] if info.min < 0 else [0, info.max, 1, 2]
    s = rng.integers(0, info.bits + 4, n).astype(dtype)
    out = np.zeros((17, n), dtype)
    cmp = np.zeros((6, n), np.bool_)
    fdiv_dtype = np.float64 if info.bits == 64 else np.float32
    fdiv = np.zeros(n, fdiv_dtype)
    run(target, int_ops, a, b, s, out, cmp, fdiv, grid=blocks_for(n, 128), block=128)

    with np.errstate(all="ignore"):
        expected = [
            a + b, a - b, a * b, np.floor_divide(a, b), np.remainder(a, b), a & b, a | b, a ^ b,
            (-a.astype(np.int64)).astype(dtype) if info.min < 0 else np.negative(a), ~a, np.abs(a),
            np.minimum(a, b), np.maximum(a, b), np.power(a, dtype(3)),
        ]
    names = ["+", "-", "*", "//", "%", "&", "|", "^", "neg", "~", "abs", "min", "max", "**3"]
    for k, (name, want) in enumerate(zip(names, expected)):
        np.testing.assert_array_equal(out[k], want.astype(dtype), err_msg=f"{np.dtype(dtype).name} {name}")
    shl = [wrap(int(x) << int(c), dtype) for x, c in zip(a, s)]
    shr = [int(x) >> int(c) for x, c in zip(a, s)]
    np.testing.assert_array_equal(out[14], np.array(shl, dtype), err_msg="<<")
    np.testing.assert_array_equal(out[15], np.array(shr, dtype), err_msg=">>")
    weak = [wrap(int(x) * 3 + 1, dtype) for x in a]
    np.testing.assert_array_equal(out[16], np.array(weak, dtype), err_msg="x * 3 + 1 keeps x's type")
    for k, op in enumerate([np.less, np.less_equal, np.equal, np.not_equal, np.greater, np.greater_equal]):
        np.testing.assert_array_equal(cmp[k], op(a, b), err_msg=op.__name__)
    want_div = (a.astype(np.float64) / b.astype(np.float64)).astype(fdiv_dtype)
    np.testing.assert_allclose(fdiv, want_div, rtol=1e-6 if fdiv_dtype == np.float32 else 1e-15)


@device.kernel
def float_ops(a, b, out, cmp):
    i = device.tid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[0, i] = x + y
        out[1, i] = x - y
        out[2, i] = x * y
        out[3, i] = x / y
        out[4, i] = x // y
        out[5, i] = x % y
        out[6, i] = -x
        out[7, i] = abs(x)
        out[8, i] = min(x, y)
        out[9, i] = max(x, y)
        out[10, i] = abs(x) ** y
        out[11, i] = x**2
        out[12, i] = x * 0.5 + 2.0
        cmp[0, i] = x < y
        cmp[1, i] = x <= y
        cmp[2, i] = x == y
        cmp[3, i] = x != y
        cmp[4, i] = x > y
        cmp[5, i] = x >= y


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_float_arithmetic_matches_numpy(target, rng, dtype):
    n = 1000
    a = rng.uniform(-10, 10, n).astype(dtype)
    b = (rng.uniform(0.5, 4, n) * rng.choice([-1, 1], n)).astype(dtype)
    b[:50] = a[:50]  # equal operands for ==, <=, >=
    out = np.zeros((13, n), dtype)
    cmp = np.zeros((6, n), np.bool_)
    run(target, float_ops, a, b, out, cmp, grid=blocks_for(n, 64), block=64)

    rtol = 2e-6 if dtype == np.float32 else 1e-13
    expected = [
        a + b, a - b, a * b, a / b, np.floor_divide(a, b), np.remainder(a, b), -a, np.abs(a),
        np.minimum(a, b), np.maximum(a, b), np.power(np.abs(a), b), a * a, a * dtype(0.5) + dtype(2.0),
    ]
    names = ["+", "-", "*", "/", "//", "%", "neg", "abs", "min", "max", "**", "**2", "weak literals"]
    for k, (name, want) in enumerate(zip(names, expected)):
        np.testing.assert_allclose(out[k], want, rtol=rtol, atol=rtol, err_msg=f"{np.dtype(dtype).name} {name}")
    for k, op in enumerate([np.less, np.less_equal, np.equal, np.not_equal, np.greater, np.greater_equal]):
        np.testing.assert_array_equal(cmp[k], op(a, b), err_msg=op.__name__)


@device.kernel
def scalar_divmod(out, x, y):
    out[0] = x // y
    out[1] = x % y
    out[2] = -x // y
    out[3] = x % -y


@given(x=st.integers(-(2**31) + 1, 2**31 - 1), y=st.integers(-(2**31) + 1, 2**31 - 1).filter(lambda v: v != 0))
@FAST
def test_python_floor_division_and_modulo_on_int32_scalars(target, x, y):
    out = np.zeros(4, np.int32)
    run(target, scalar_divmod, out, x, y)
    assert list(out) == [x // y, x % y, wrap(-x // y, np.int32), x % -y]


@given(x=st.integers(-(2**62), 2**62), y=st.integers(-(2**62), 2**62).filter(lambda v: v != 0))
@FAST
def test_python_floor_division_and_modulo_on_int64_scalars(target, x, y):
    out = np.zeros(4, np.int64)
    run(target, scalar_divmod, out, np.int64(x), np.int64(y))
    assert list(out) == [x // y, x % y, -x // y, x % -y]


@given(
    x=st.floats(-1e6, 1e6, allow_nan=False),
    y=st.floats(-1e3, 1e3, allow_nan=False).filter(lambda v: abs(v) > 1e-3),
)
@FAST
def test_python_floor_division_and_modulo_on_float64_scalars(target, x, y):
    out = np.zeros(4, np.float64)
    run(target, scalar_divmod, out, np.float64(x), np.float64(y))
    np.testing.assert_allclose(out, [x // y, x % y, -x // y, x % -y], rtol=1e-12, atol=1e-9)


@device.kernel
def promotions(i8, i16, u8, i32, u32, f32, f64, out_i, out_f):
    out_i[0] = i8[0] + i16[0]  # int16: 100 + 100 does not wrap
    out_i[1] = u8[0] + i8[0]  # int16: 200 + 100
    out_i[2] = i8[1] + 1  # weak literal: int8 127 + 1 wraps
    out_i[3] = u32[0] + i32[1]  # int64: 4294967295 + 1
    x = 2147483647
    x += 1  # builtin int is int32 and wraps
    out_i[4] = x
    out_f[0] = i32[0] + f32[0]  # float32: 16777217 is not representable
    out_f[1] = f32[1] + f64[0]  # float64
    out_f[2] = f32[2] + 1e-8  # weak literal keeps float32
    out_f[3] = 7 / 2  # int / int is float
    out_f[4] = i32[1] / 3  # float32 result


def test_type_promotion_follows_the_array_api_and_weak_literals(target):
    i8 = np.array([100, 127], np.int8)
    i16 = np.array([100], np.int16)
    u8 = np.array([200], np.uint8)
    i32 = np.array([16777217, 1], np.int32)
    u32 = np.array([4294967295], np.uint32)
    f32 = np.array([0.0, 0.1, 1.0], np.float32)
    f64 = np.array([0.2], np.float64)
    out_i = np.zeros(5, np.int64)
    out_f = np.zeros(5, np.float64)
    run(target, promotions, i8, i16, u8, i32, u32, f32, f64, out_i, out_f)
    assert list(out_i) == [200, 300, -128, 4294967296, -(2**31)]
    assert out_f[0] == 16777216.0
    assert out_f[1] == float(np.float32(0.1)) + 0.2
    assert out_f[2] == 1.0
    assert out_f[3] == 3.5
    assert out_f[4] == float(np.float32(1) / np.float32(3))


# ---------------------------------------------------------------------------------------------
# Control flow


@device.kernel
def range_loops(out, start, stop, step):
    total = 0
    count = 0
    for i in range(start, stop, step):
        total += i
        count += 1
    else:
        count += 1000
    out[0] = total
    out[1] = count
    found = -1
    for i in range(start, stop, step):
        if i % 7 == 3:
            found = i
            break
    else:
        found = -2
    out[2] = found
    acc = 0
    for i in range(stop):
        acc += i * i
    out[3] = acc
    acc = 0
    for i in range(start, stop):
        if i % 3 == 0:
            continue
        acc += i
    out[4] = acc


@given(start=st.integers(-60, 60), stop=st.integers(-60, 60), step=st.integers(-9, 9).filter(lambda v: v != 0))
@FAST
def test_range_loops_with_negative_steps_break_continue_and_else(target, start, stop, step):
    out = np.zeros(5, np.int32)
    run(target, range_loops, out, start, stop, step)
    want = np.zeros(5, np.int32)
    range_loops.underlying(want, start, stop, step)
    assert list(out) == list(want)


@device.kernel
def collatz(seeds, steps, roots):
    i = device.tid(1)
    if i < seeds.size:
        n = seeds[i]
        count = 0
        while n != 1:
            if n % 2 == 0:
                n //= 2
            else:
                n = 3 * n + 1
            count += 1
        steps[i] = count
        k = 0
        while k < 1000:
            if k * k > seeds[i]:
                break
            k += 1
        else:
            k = -1
        roots[i] = k


def test_while_loops_with_break_and_else(target, rng):
    seeds = rng.integers(1, 100_000, 300).astype(np.int64)
    seeds[0] = 1
    seeds[1] = 999_999_999  # sqrt exceeds the loop limit: the else branch runs
    steps = np.zeros(300, np.int32)
    roots = np.zeros(300, np.int64)
    run(target, collatz, seeds, steps, roots, grid=3, block=128)

    def py_steps(n):
        count = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            count += 1
        return count

    assert list(steps) == [py_steps(int(s)) for s in seeds]
    assert list(roots) == [math.isqrt(int(s)) + 1 if math.isqrt(int(s)) + 1 < 1000 else -1 for s in seeds]


def bump(counter, value):
    counter[0] += 1
    return value


@device.kernel
def chains(a, b, c, out, counter):
    i = device.tid(1)
    if i < a.size:
        out[i] = a[i] < b[i] <= c[i] != a[i]
    if i == 0:
        first = 0 < bump(counter, 5) < 10  # the middle operand is evaluated once
        second = 10 < bump(counter, 5) < bump(counter, 7)  # short-circuits after the first test
        counter[1] = int(first)
        counter[2] = int(second)


def test_comparison_chains_evaluate_each_operand_once(target, rng):
    n = 500
    a, b, c = (rng.integers(-3, 4, n).astype(np.int32) for _ in range(3))
    out = np.zeros(n, np.bool_)
    counter = np.zeros(3, np.int32)
    run(target, chains, a, b, c, out, counter, grid=4, block=128)
    np.testing.assert_array_equal(out, (a < b) & (b <= c) & (c != a))
    assert list(counter) == [2, 1, 0]


@device.kernel
def logic_values(a, b, and_out, or_out, not_out, counter):
    i = device.tid(1)
    if i < a.size:
        and_out[i] = a[i] and b[i]
        or_out[i] = a[i] or b[i]
        not_out[i] = not a[i]
    if i == 0:
        x = 0 and bump(counter, 1)
        y = bump(counter, 0) or bump(counter, 3)
        counter[1] = x + y


def test_and_or_return_operands_and_short_circuit(target, rng):
    n = 400
    a = rng.integers(-2, 3, n).astype(np.int32)
    b = rng.integers(-50, 50, n).astype(np.int32)
    and_out, or_out = np.zeros(n, np.int32), np.zeros(n, np.int32)
    not_out = np.zeros(n, np.bool_)
    counter = np.zeros(2, np.int32)
    run(target, logic_values, a, b, and_out, or_out, not_out, counter, grid=4, block=128)
    assert list(and_out) == [int(x) and int(y) for x, y in zip(a, b)]
    assert list(or_out) == [int(x) or int(y) for x, y in zip(a, b)]
    assert list(not_out) == [not x for x in a]
    assert list(counter) == [2, 3]


@device.kernel
def conditional_expression(a, out):
    i = device.tid(1)
    if i < a.size:
        out[i] = a[i] if a[i] > 0 else -2 * a[i]


def test_conditional_expression(target, rng):
    a = rng.uniform(-5, 5, 300).astype(np.float32)
    out = np.zeros_like(a)
    run(target, conditional_expression, a, out, grid=3, block=128)
    np.testing.assert_array_equal(out, np.where(a > 0, a, np.float32(-2) * a))


# ---------------------------------------------------------------------------------------------
# Functions


def square(x):
    return x * x


def poly(x):
    return square(x) + 2 * x + 1


@device.func
def poly_plus(x, y):
    return poly(x) + square(y)


@device.kernel
def call_chain(a, n, out_f, out_i):
    i = device.tid(1)
    if i < a.size:
        out_f[i] = poly_plus(a[i], a[i] * 0.5)
        out_i[i] = poly_plus(n[i], n[i] - 1)  # a second specialization, for int32


def test_nested_calls_of_decorated_and_plain_functions(target, rng):
    a = rng.uniform(-3, 3, 200).astype(np.float64)
    n = rng.integers(-1000, 1000, 200).astype(np.int32)
    out_f = np.zeros(200, np.float64)
    out_i = np.zeros(200, np.int32)
    run(target, call_chain, a, n, out_f, out_i, grid=2, block=128)
    np.testing.assert_allclose(out_f, [poly_plus(x, x * 0.5) for x in a], rtol=1e-14)
    assert list(out_i) == [poly_plus(int(x), int(x) - 1) for x in n]


def test_a_func_called_from_python_runs_the_python_function():
    assert poly_plus(3, 4) == 3 * 3 + 2 * 3 + 1 + 16
    assert poly_plus.underlying(1.5, 2.0) == poly_plus(1.5, 2.0)


def divmod_pair(a, b):
    return a // b, a % b


def ordered(x, y):
    if x < y:
        return x, y
    return y, x


@device.kernel
def tuple_returns(a, b, q, r, lo, hi):
    i = device.tid(1)
    if i < a.size:
        qq, rr = divmod_pair(a[i], b[i])
        q[i] = qq
        r[i] = rr
        t = ordered(a[i], b[i])
        lo[i] = t[0]
        hi[i] = t[1]


def test_tuples_returned_from_functions(target, rng):
    n = 300
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    b = rng.integers(1, 50, n).astype(np.int32) * rng.choice([-1, 1], n).astype(np.int32)
    q, r, lo, hi = (np.zeros(n, np.int32) for _ in range(4))
    run(target, tuple_returns, a, b, q, r, lo, hi, grid=3, block=128)
    np.testing.assert_array_equal(q, np.floor_divide(a, b))
    np.testing.assert_array_equal(r, np.remainder(a, b))
    np.testing.assert_array_equal(lo, np.minimum(a, b))
    np.testing.assert_array_equal(hi, np.maximum(a, b))


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


@device.kernel
def recursive(out):
    out[0] = factorial(10)


def test_recursion_works_or_is_a_clear_compile_error(target):
    out = np.zeros(1, np.int32)
    try:
        run(target, recursive, out)
    except weft.CompileError as err:
        assert "recurs" in str(err).lower()
    else:
        assert out[0] == math.factorial(10)


# ---------------------------------------------------------------------------------------------
# ConstExpr and global constants


@device.kernel
def constexpr_fill(out, n: device.ConstExpr):
    for i in range(n):
        out[i] = i * n


@device.kernel
def constexpr_local(out, n: device.ConstExpr[int]):
    buf = device.local_array(n, device.int32)
    for i in range(n):
        buf[i] = i * i
    total = 0
    for i in range(n):
        total += buf[n - 1 - i] * (i + 1)
    out[0] = total


def test_constexpr_parameters_specialize_per_value(target):
    for n in (3, 5, 3):
        out = np.full(8, -1, np.int32)
        run(target, constexpr_fill, out, n)
        assert list(out) == [i * n for i in range(n)] + [-1] * (8 - n)


def test_constexpr_value_as_a_local_array_shape(target):
    for n in (4, 9):
        out = np.zeros(1, np.int32)
        run(target, constexpr_local, out, n)
        assert out[0] == sum((n - 1 - i) ** 2 * (i + 1) for i in range(n))


SCALE = 2


@device.kernel
def scale_by_global(a, out):
    i = device.tid(1)
    if i < a.size:
        out[i] = a[i] * SCALE


def test_changing_a_global_constant_recompiles(target, rng):
    global SCALE
    a = rng.integers(-100, 100, 100).astype(np.int32)
    out = np.zeros_like(a)
    run(target, scale_by_global, a, out, grid=1, block=128)
    np.testing.assert_array_equal(out, a * 2)
    SCALE = 5
    try:
        run(target, scale_by_global, a, out, grid=1, block=128)
        np.testing.assert_array_equal(out, a * 5)
    finally:
        SCALE = 2


# ---------------------------------------------------------------------------------------------
# Math and builtins


@device.kernel
def math_funcs(x, y, z, out, flags):
    i = device.tid(1)
    if i < x.size:
        v = x[i]
        w = y[i]
        out[0, i] = math.acos(v)
        out[1, i] = math.asin(v)
        out[2, i] = math.atan(v)
        out[3, i] = math.acosh(v + 1.0)
        out[4, i] = math.asinh(v)
        out[5, i] = math.atanh(v)
        out[6, i] = math.cos(v)
        out[7, i] = math.sin(v)
        out[8, i] = math.tan(v)
        out[9, i] = math.cosh(v)
        out[10, i] = math.sinh(v)
        out[11, i] = math.tanh(v)
        out[12, i] = math.atan2(v, -w)
        out[13, i] = math.exp(v)
        out[14, i] = math.expm1(v)
        out[15, i] = math.fabs(-v)
        out[16, i] = math.log(v)
        out[17, i] = math.log10(v)
        out[18, i] = math.log1p(v)
        out[19, i] = math.sqrt(v)
        out[20, i] = math.pow(v, w)
        out[21, i] = math.ceil(v * 10.0 - 5.0)
        out[22, i] = math.floor(v * 10.0 - 5.0)
        out[23, i] = math.copysign(v, -w)
        out[24, i] = math.fmod(v * 10.0 - 5.0, w)
        flags[0, i] = math.isnan(z[i])
        flags[1, i] = math.isinf(z[i])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_math_functions_match_numpy(target, rng, dtype):
    n = 500
    x = rng.uniform(0.05, 0.95, n).astype(dtype)
    y = rng.uniform(0.5, 2.0, n).astype(dtype)
    z = rng.standard_normal(n).astype(dtype)
    z[rng.choice(n, 40, replace=False)] = np.nan
    z[rng.choice(n, 40, replace=False)] = np.inf
    z[:2] = [-np.inf, np.nan]
    out = np.zeros((25, n), dtype)
    flags = np.zeros((2, n), np.bool_)
    run(target, math_funcs, x, y, z, out, flags, grid=blocks_for(n, 128), block=128)

    xd, yd = x.astype(np.float64), y.astype(np.float64)
    t = xd * 10 - 5
    expected = [
        np.arccos(xd), np.arcsin(xd), np.arctan(xd), np.arccosh(xd + 1), np.arcsinh(xd), np.arctanh(xd),
        np.cos(xd), np.sin(xd), np.tan(xd), np.cosh(xd), np.sinh(xd), np.tanh(xd), np.arctan2(xd, -yd),
        np.exp(xd), np.expm1(xd), np.abs(xd), np.log(xd), np.log10(xd), np.log1p(xd), np.sqrt(xd),
        np.power(xd, yd), np.ceil(t), np.floor(t), np.copysign(xd, -yd), np.fmod(t, yd),
    ]
    names = "acos asin atan acosh asinh atanh cos sin tan cosh sinh tanh atan2 exp expm1 fabs log log10 log1p sqrt pow ceil floor copysign fmod".split()
    rtol = 2e-6 if dtype == np.float32 else 1e-13
    for k, (name, want) in enumerate(zip(names, expected)):
        if name in ("ceil", "floor", "fmod"):
            # The argument is computed in dtype first; compare with that rounding.
            tt = (x * dtype(10.0) - dtype(5.0)).astype(np.float64)
            want = {"ceil": np.ceil(tt), "floor": np.floor(tt), "fmod": np.fmod(tt, yd)}[name]
        np.testing.assert_allclose(out[k], want, rtol=rtol, atol=rtol, err_msg=f"math.{name} on {np.dtype(dtype).name}")
    np.testing.assert_array_equal(flags[0], np.isnan(z))
    np.testing.assert_array_equal(flags[1], np.isinf(z))


@device.kernel
def conversions(f, n, i_out, f_out, b_out, m_out):
    i = device.tid(1)
    if i < f.size:
        x = f[i]
        i_out[i] = int(x)
        f_out[i] = float(n[i]) / 4
        b_out[0, i] = bool(x)
        b_out[1, i] = bool(n[i])
        m_out[i] = max(abs(n[i]), 3, min(n[i], 7))


def test_int_float_bool_abs_min_max_builtins(target, rng):
    size = 300
    f = rng.uniform(-100, 100, size)
    f[:30] = 0.0
    n = rng.integers(-20, 20, size).astype(np.int32)
    i_out = np.zeros(size, np.int32)
    f_out = np.zeros(size, np.float32)
    b_out = np.zeros((2, size), np.bool_)
    m_out = np.zeros(size, np.int32)
    run(target, conversions, f, n, i_out, f_out, b_out, m_out, grid=3, block=128)
    np.testing.assert_array_equal(i_out, np.trunc(f).astype(np.int32))
    np.testing.assert_array_equal(f_out, n.astype(np.float32) / np.float32(4))
    np.testing.assert_array_equal(b_out[0], f != 0)
    np.testing.assert_array_equal(b_out[1], n != 0)
    np.testing.assert_array_equal(m_out, [max(abs(int(v)), 3, min(int(v), 7)) for v in n])


# ---------------------------------------------------------------------------------------------
# Arrays


@device.kernel
def add3d(a, b, out):
    x, y, z = device.tid(3)
    if x < a.shape[0] and y < a.shape[1] and z < a.shape[2]:
        out[x, y, z] = a[x, y, z] * 2.0 + b[x, y, z]


def test_three_dimensional_arrays_and_grids(target, rng):
    shape = (9, 6, 5)
    a = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape).astype(np.float32)
    out = np.zeros(shape, np.float32)
    block = (4, 4, 2)
    grid = tuple(blocks_for(s, t) for s, t in zip(shape, block))
    run(target, add3d, a, b, out, grid=grid, block=block)
    np.testing.assert_allclose(out, a * np.float32(2) + b, rtol=1e-6)


@device.kernel
def array_attributes(a1, a2, a3, out):
    out[0, 0] = a1.shape[0]
    out[0, 1] = a1.size
    out[0, 2] = a1.ndim
    out[0, 3] = len(a1)
    out[1, 0] = a2.shape[0]
    out[1, 1] = a2.shape[1]
    out[1, 2] = a2.size
    out[1, 3] = a2.ndim
    out[2, 0] = a3.shape[0] * 10000 + a3.shape[1] * 100 + a3.shape[2]
    out[2, 1] = a3.size
    out[2, 2] = a3.ndim
    out[2, 3] = len(a3)


def test_shape_size_ndim_and_len(target, rng):
    a1 = np.zeros(int(rng.integers(1, 50)), np.float32)
    a2 = np.zeros(tuple(rng.integers(1, 20, 2)), np.int16)
    a3 = np.zeros(tuple(rng.integers(1, 10, 3)), np.uint8)
    out = np.zeros((3, 4), np.int64)
    run(target, array_attributes, a1, a2, a3, out)
    assert list(out[0]) == [a1.shape[0], a1.size, 1, len(a1)]
    assert list(out[1]) == [a2.shape[0], a2.shape[1], a2.size, 2]
    assert list(out[2]) == [a3.shape[0] * 10000 + a3.shape[1] * 100 + a3.shape[2], a3.size, 3, len(a3)]


@device.kernel
def negative_indices(a, m, rev, mix):
    i = device.tid(1)
    if i < a.size:
        rev[i] = a[-1 - i]
        mix[i] = m[-1, i] + m[-3, -1 - i] * 10


def test_negative_indices_wrap_around(target, rng):
    n = 200
    a = rng.integers(-1000, 1000, n).astype(np.int64)
    m = rng.integers(-1000, 1000, (3, n)).astype(np.int64)
    rev, mix = np.zeros(n, np.int64), np.zeros(n, np.int64)
    run(target, negative_indices, a, m, rev, mix, grid=2, block=128)
    np.testing.assert_array_equal(rev, a[::-1])
    np.testing.assert_array_equal(mix, m[-1] + m[0, ::-1] * 10)


@device.kernel
def copy2d(src, dst):
    i, j = device.tid(2)
    if i < src.shape[0] and j < src.shape[1]:
        dst[i, j] = src[i, j] + 1


def test_strided_views_are_indexed_through_their_strides(target, rng):
    base = rng.integers(-100, 100, (24, 30)).astype(np.int32)
    src = base.T[::2, 1::3]  # transposed and stepped: not contiguous
    dst = np.zeros(src.shape, np.int32)
    run(target, copy2d, src, dst, grid=(2, 2), block=(16, 16))
    np.testing.assert_array_equal(dst, src + 1)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_one_kernel_specializes_per_argument_dtype(target, rng, dtype):
    if np.issubdtype(dtype, np.integer):
        src = random_ints(rng, dtype, 400).reshape(20, 20)
    else:
        src = (rng.standard_normal((20, 20)) * 50).astype(dtype)
    dst = np.zeros_like(src)
    run(target, copy2d, src, dst, grid=(2, 2), block=(16, 16))
    np.testing.assert_array_equal(dst, src + dtype(1))


# ---------------------------------------------------------------------------------------------
# Shared and local memory


RB = 64


@device.kernel
def reverse_in_block(a, out):
    s = device.shared_array(RB, device.float64)
    t = int(device.thread_idx.x)
    i = device.tid(1)
    s[t] = a[i]
    device.syncthreads()
    out[i] = s[RB - 1 - t]


def test_shared_array_and_syncthreads(target, rng):
    a = rng.standard_normal(RB * 8)
    out = np.zeros_like(a)
    run(target, reverse_in_block, a, out, grid=8, block=RB)
    np.testing.assert_array_equal(out, a.reshape(8, RB)[:, ::-1].reshape(-1))


TT = 8


@device.kernel
def transpose_tiles(a, out):
    tile = device.shared_array((TT, TT + 1), device.int32)
    tx = int(device.thread_idx.x)
    ty = int(device.thread_idx.y)
    bx = int(device.block_idx.x) * TT
    by = int(device.block_idx.y) * TT
    tile[ty, tx] = a[by + ty, bx + tx]
    device.syncthreads()
    out[bx + ty, by + tx] = tile[tx, ty]


def test_two_dimensional_shared_array_transpose(target, rng):
    a = rng.integers(-(2**31), 2**31 - 1, (TT * 3, TT * 4)).astype(np.int32)
    out = np.zeros((TT * 4, TT * 3), np.int32)
    run(target, transpose_tiles, a, out, grid=(4, 3), block=(TT, TT))
    np.testing.assert_array_equal(out, a.T)


@device.kernel
def local_sort(a, out):
    i = device.tid(1)
    if i < a.shape[0]:
        buf = device.local_array(8, device.int32)
        for k in range(8):
            buf[k] = a[i, k]
        for k in range(1, 8):
            v = buf[k]
            j = k - 1
            while j >= 0 and buf[j] > v:
                buf[j + 1] = buf[j]
                j -= 1
            buf[j + 1] = v
        grid = device.local_array((2, 4), device.float32)
        for k in range(8):
            grid[k // 4, k % 4] = buf[k] * 0.5
        for k in range(8):
            out[i, k] = grid[k // 4, k % 4]


def test_local_arrays(target, rng):
    a = rng.integers(-1000, 1000, (100, 8)).astype(np.int32)
    out = np.zeros((100, 8), np.float32)
    run(target, local_sort, a, out, grid=1, block=128)
    np.testing.assert_array_equal(out, np.sort(a, axis=1).astype(np.float32) * np.float32(0.5))


# ---------------------------------------------------------------------------------------------
# Thread positions


@device.kernel
def positions(tids, tx, bx, bd, gd, gs, lanes, ws):
    i = device.tid(1)
    tids[i] = i
    tx[i] = device.thread_idx.x
    bx[i] = device.block_idx.x
    bd[i] = device.block_dim.x
    gd[i] = device.grid_dim.x
    gs[i] = device.grid_size(1)
    lanes[i] = device.lane_id
    ws[i] = device.warp_size


def test_thread_positions_1d(target):
    grid, block = 3, 96
    n = grid * block
    arrays = [np.full(n, -1, np.int64) for _ in range(8)]
    run(target, positions, *arrays, grid=grid, block=block)
    tids, tx, bx, bd, gd, gs, lanes, ws = arrays
    idx = np.arange(n)
    np.testing.assert_array_equal(tids, idx)
    np.testing.assert_array_equal(tx, idx % block)
    np.testing.assert_array_equal(bx, idx // block)
    assert set(bd) == {block} and set(gd) == {grid} and set(gs) == {n} and set(ws) == {32}
    np.testing.assert_array_equal(lanes, (idx % block) % 32)


@device.kernel
def positions_2d(out):
    x, y = device.tid(2)
    w, h = device.grid_size(2)
    out[y, x, 0] = x
    out[y, x, 1] = y
    out[y, x, 2] = w
    out[y, x, 3] = h
    out[y, x, 4] = device.thread_idx.y * 100 + device.block_idx.y


def test_thread_positions_2d(target):
    grid, block = (3, 2), (8, 4)
    w, h = grid[0] * block[0], grid[1] * block[1]
    out = np.full((h, w, 5), -1, np.int64)
    run(target, positions_2d, out, grid=grid, block=block)
    ys, xs = np.mgrid[0:h, 0:w]
    np.testing.assert_array_equal(out[..., 0], xs)
    np.testing.assert_array_equal(out[..., 1], ys)
    assert (out[..., 2] == w).all() and (out[..., 3] == h).all()
    np.testing.assert_array_equal(out[..., 4], (ys % block[1]) * 100 + ys // block[1])


# ---------------------------------------------------------------------------------------------
# Compile errors: each names the offending line (marked "# <- error") and says what is wrong.


def marked_line(func):
    lines, first = inspect.getsourcelines(func.underlying)
    hits = [first + k for k, text in enumerate(lines) if "# <- error" in text]
    assert len(hits) == 1
    return hits[0]


def compile_error(kernel, *args, target="cpu"):
    with pytest.raises(weft.CompileError) as info:
        weft.launch(kernel, *args, grid=1, block=1, target=target)
    err = info.value
    assert isinstance(err, Exception)
    assert err.diagnostics, "CompileError.diagnostics must list the diagnostics"
    return str(err)


def assert_error_at(message, line, *words):
    assert f"{HERE.name}:{line}:" in message, message
    assert "error" in message
    for word in words:
        assert word in message.lower(), message


@device.kernel
def bad_raise(a):
    if a[0] > 0:
        raise ValueError("no exceptions on the device")  # <- error


@device.kernel
def bad_try(a):
    try:  # <- error
        a[0] = 1
    except IndexError:
        pass


@device.kernel
def bad_with(a):
    with a:  # <- error
        a[0] = 1


@device.kernel
def bad_lambda(a):
    f = lambda v: v + 1  # <- error  # noqa: E731
    a[0] = f(1)


@device.kernel
def bad_comprehension(a):
    values = [v * 2 for v in range(4)]  # <- error
    a[0] = values[0]


@device.kernel
def bad_undefined_name(a):
    a[0] = 1
    a[1] = undefined_thing + 1  # <- error  # noqa: F821


@device.kernel
def bad_yield(a):
    yield a[0]  # <- error


@device.kernel
def bad_return_value(a):
    return a[0]  # <- error


@device.kernel
def bad_index_count(a):
    a[0, 1, 2] = 1.0  # <- error


@device.kernel
def bad_literal_range(a):
    a[0] = a[1] + 1000  # <- error


@device.kernel
def bad_int64_uint64(a, b):
    a[0] = a[1] + b[0]  # <- error


@device.kernel
def bad_shared_shape(a):
    s = device.shared_array(a.size, device.float32)  # <- error
    s[0] = 1.0


@device.kernel
def bad_tid_ndims(a):
    a[0] = device.tid(4)  # <- error


@device.kernel
def bad_attribute(a):
    a[0] = a.no_such_attribute  # <- error


@pytest.mark.parametrize(
    "kernel, args, words",
    [
        (bad_raise, [np.zeros(2, np.int32)], ["raise"]),
        (bad_try, [np.zeros(2, np.int32)], ["try"]),
        (bad_with, [np.zeros(2, np.int32)], ["with"]),
        (bad_lambda, [np.zeros(2, np.int32)], ["lambda"]),
        (bad_comprehension, [np.zeros(2, np.int32)], ["comprehension"]),
        (bad_undefined_name, [np.zeros(2, np.int32)], ["undefined_thing"]),
        (bad_yield, [np.zeros(2, np.int32)], ["yield"]),
        (bad_return_value, [np.zeros(2, np.int32)], ["return"]),
        (bad_index_count, [np.zeros(2, np.float32)], ["ind"]),
        (bad_literal_range, [np.zeros(2, np.int8)], ["1000"]),
        (bad_int64_uint64, [np.zeros(2, np.int64), np.zeros(2, np.uint64)], ["uint64"]),
        (bad_shared_shape, [np.zeros(2, np.float32)], []),
        (bad_tid_ndims, [np.zeros(2, np.int32)], []),
        (bad_attribute, [np.zeros(2, np.int32)], ["no_such_attribute"]),
    ],
    ids=lambda v: v.underlying.__name__ if hasattr(v, "underlying") else None,
)
def test_unsupported_constructs_are_compile_errors_at_their_line(kernel, args, words):
    assert_error_at(compile_error(kernel, *args), marked_line(kernel), *words)


@device.kernel
def bad_type_mismatch(a):
    x = 0
    a[0] = x
    x = a  # <- error


def test_assignments_whose_types_do_not_unify_name_both_lines():
    message = compile_error(bad_type_mismatch, np.zeros(2, np.int32))
    second = marked_line(bad_type_mismatch)
    first = second - 2
    assert f"{HERE.name}:{second}:" in message or f"{HERE.name}:{first}:" in message, message
    assert str(first) in message and str(second) in message, "both assignments are named"


def helper_with_error(x):
    return x + undefined_in_helper  # <- error  # noqa: F821


@device.kernel
def calls_bad_helper(a):
    a[0] = helper_with_error(a[1])


def test_an_error_in_a_called_function_points_into_that_function():
    message = compile_error(calls_bad_helper, np.zeros(2, np.int32))
    lines, first = inspect.getsourcelines(helper_with_error)
    assert_error_at(message, first + 1, "undefined_in_helper")


@device.kernel
def two_errors(a):
    a[0] = first_missing  # noqa: F821
    a[1] = second_missing  # noqa: F821


def test_checking_continues_after_an_error():
    with pytest.raises(weft.CompileError) as info:
        weft.launch(two_errors, np.zeros(2, np.int32), grid=1, block=1, target="cpu")
    assert len(info.value.diagnostics) >= 2
    assert "first_missing" in str(info.value) and "second_missing" in str(info.value)


# ---------------------------------------------------------------------------------------------
# The launch API


@device.kernel
def fill_index(out):
    i = device.tid(1)
    if i < out.size:
        out[i] = i


def test_weft_launch_with_an_explicit_target(target):
    out = np.full(100, -1, np.int32)
    weft.launch(fill_index, out, grid=(2, 1), block=(64, 1, 1), target="cpu")
    weft.synchronize()
    np.testing.assert_array_equal(out, np.arange(100))


def test_launch_shorthand_and_spec_launch_on_the_default_target(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")
    assert weft.default_target() == "cpu"
    out = np.full(100, -1, np.int32)
    fill_index[2, 64](out)
    weft.synchronize()
    np.testing.assert_array_equal(out, np.arange(100))
    out[:] = -1
    device.launch(fill_index, out, grid=(2,), block=(64,))
    weft.synchronize()
    np.testing.assert_array_equal(out, np.arange(100))


def test_bad_launch_arguments_raise_clear_errors():
    out = np.zeros(4, np.int32)
    with pytest.raises(TypeError, match="launch"):
        fill_index(out)
    with pytest.raises(ValueError):
        weft.launch(fill_index, out, grid=0, block=1, target="cpu")
    with pytest.raises((ValueError, TypeError)):
        weft.launch(fill_index, out, grid=(1, 1, 1, 1), block=1, target="cpu")
    with pytest.raises(TypeError):
        weft.launch(fill_index, out, grid="2", block=1, target="cpu")
    with pytest.raises(TypeError, match="out"):
        weft.launch(fill_index, [1, 2, 3], grid=1, block=1, target="cpu")


def test_decorators_are_lazy_and_check_their_keywords():
    with pytest.raises(TypeError):
        device.kernel(no_such_option=True)(square)

    def never_compiled(a):
        a[0] = this_name_does_not_exist  # noqa: F821

    k = device.kernel(never_compiled)  # nothing is parsed before the first launch
    assert k.underlying is never_compiled
    assert device.kernel(debug=False)(never_compiled).underlying is never_compiled


def test_intrinsics_are_device_only():
    with pytest.raises(TypeError, match="device"):
        device.tid(1)
    with pytest.raises(TypeError):
        device.syncthreads()


def test_default_target_follows_weft_target(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")
    assert weft.default_target() == "cpu"
    monkeypatch.delenv("WEFT_TARGET")
    assert weft.default_target() == ("gpu" if weft.gpu_available() else "cpu")


# ---------------------------------------------------------------------------------------------
# The disk cache, seen from fresh processes (as a user sees it)


def _run_vec_add(cache_dir, **env):
    environ = dict(os.environ, WEFT_TARGET="cpu", WEFT_CACHE_DIR=str(cache_dir), **env)
    return subprocess.run(
        [sys.executable, str(REPO / "examples" / "vec_add.py")], env=environ, capture_output=True, text=True, timeout=300
    )


def test_disk_cache_is_written_reused_and_survives_corruption(tmp_path):
    cache = tmp_path / "cache"
    first = _run_vec_add(cache)
    assert first.returncode == 0, first.stderr
    files = [p for p in cache.rglob("*") if p.is_file()]
    assert files, "the first run must leave compiled artifacts in WEFT_CACHE_DIR"
    second = _run_vec_add(cache)
    assert second.returncode == 0, second.stderr
    for p in files:
        data = p.read_bytes()
        p.write_bytes(data[: len(data) // 2])  # truncated, as after a crash mid-write
    third = _run_vec_add(cache)
    assert third.returncode == 0, third.stdout + third.stderr
    assert "matches NumPy" in third.stdout


def test_weft_cache_0_writes_nothing(tmp_path):
    cache = tmp_path / "cache"
    proc = _run_vec_add(cache, WEFT_CACHE="0")
    assert proc.returncode == 0, proc.stderr
    assert not any(p.is_file() for p in cache.rglob("*"))


def test_import_needs_no_gpu_and_is_quick():
    code = "import time; t = time.perf_counter(); import weft; from cuda import device; print(time.perf_counter() - t)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert float(proc.stdout) < 2.0  # the 100 ms budget is measured by bench/, not asserted here
