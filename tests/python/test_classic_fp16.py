"""numba-cuda's cuda.fp16 functions (issue 10, item 8) on float16 values. The correctly rounded
ones (arithmetic, fma, sqrt, reciprocal, rounding, comparisons, min/max) are bit-exact against
NumPy float16 (a float16 result of the exact value); the transcendental ones are within one
float16 ulp of the float64 answer. On the CPU target here, on the GPU in the `gpu` twins."""

import math

import numpy as np
import pytest

import weft
from classic_support import compiles_for_sm90, launch1, target  # noqa: F401
from weft import cuda

fp16 = cuda.fp16


def halves(rng, n, low, high):
    """`n` random float16 values in [low, high)."""
    return rng.uniform(low, high, n).astype(np.float16)


@cuda.jit
def binary_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[0, i] = fp16.hadd(x, y)
        out[1, i] = fp16.hsub(x, y)
        out[2, i] = fp16.hmul(x, y)
        out[3, i] = fp16.hdiv(x, y)
        out[4, i] = fp16.hmax(x, y)
        out[5, i] = fp16.hmin(x, y)


def test_arithmetic_is_bit_exact(target, rng):
    n = 500
    a, b = halves(rng, n, -100, 100), halves(rng, n, 0.25, 50)
    b[::7] = a[::7]  # equal operands for max and min
    out = np.zeros((6, n), np.float16)
    launch1(binary_ops, n, a, b, out)
    exact = [a.astype(np.float64) + b, a.astype(np.float64) - b, a.astype(np.float64) * b,
             a.astype(np.float64) / b, np.maximum(a, b), np.minimum(a, b)]
    for row, expected in enumerate(exact):
        np.testing.assert_array_equal(out[row].view(np.uint16), expected.astype(np.float16).view(np.uint16),
                                      err_msg=f"row {row}")


@cuda.jit
def fused(a, b, c, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = fp16.hfma(a[i], b[i], c[i])


def exact_fma(a, b, c):
    """float16(a * b + c) rounded once: the product and sum are exact as fractions."""
    from fractions import Fraction

    return np.array([np.float16(float(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))))
                     for x, y, z in zip(a, b, c)], np.float16)


def test_hfma_rounds_once(target, rng):
    n = 300
    a, b, c = halves(rng, n, -30, 30), halves(rng, n, -30, 30), halves(rng, n, -4, 4)
    # 683/512 * 0.75 is 1 + 2**-11, halfway between two float16 values; the smallest subnormal
    # added to it rounds the fused result up (a float32 sum would round to the tie, then to even).
    a[0], b[0], c[0] = 683 / 512, 0.75, 2.0**-24
    out = np.zeros(n, np.float16)
    launch1(fused, n, a, b, c, out)
    assert out[0] == np.float16(1 + 2.0**-10)
    np.testing.assert_array_equal(out.view(np.uint16), exact_fma(a, b, c).view(np.uint16))


@weft.kernel
def weft_fma(a: weft.float16[:], b: weft.float16[:], c: weft.float16[:], out: weft.float16[:]):
    i = weft.tid(1)
    if i < a.shape[0]:
        out[i] = math.fma(a[i], b[i], c[i])


def test_math_fma_of_float16_rounds_once(rng):
    a, b, c = halves(rng, 64, -8, 8), halves(rng, 64, -8, 8), halves(rng, 64, -1, 1)
    a[0], b[0], c[0] = 683 / 512, 0.75, 2.0**-24
    out = np.zeros(64, np.float16)
    weft.launch(weft_fma, a, b, c, out, grid=2, block=32, target="cpu")
    np.testing.assert_array_equal(out.view(np.uint16), exact_fma(a, b, c).view(np.uint16))


@cuda.jit
def unary_exact(a, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        out[0, i] = fp16.hneg(x)
        out[1, i] = fp16.habs(x)
        out[2, i] = fp16.hsqrt(fp16.habs(x))
        out[3, i] = fp16.hrcp(x)
        out[4, i] = fp16.hceil(x)
        out[5, i] = fp16.hfloor(x)
        out[6, i] = fp16.htrunc(x)
        out[7, i] = fp16.hrint(x)


def test_exact_unary_functions(target, rng):
    n = 400
    a = halves(rng, n, -60, 60)
    a[:6] = [2.5, -2.5, 3.5, -0.5, 0.5, -0.0]  # ties round to even; -0 keeps its sign
    out = np.zeros((8, n), np.float16)
    launch1(unary_exact, n, a, out)
    wide = a.astype(np.float64)
    with np.errstate(divide="ignore"):
        reciprocal = 1 / wide
    expected = [-a, np.abs(a), np.sqrt(np.abs(wide)), reciprocal, np.ceil(a), np.floor(a), np.trunc(a), np.rint(a)]
    for row, values in enumerate(expected):
        np.testing.assert_array_equal(out[row].view(np.uint16), values.astype(np.float16).view(np.uint16),
                                      err_msg=f"row {row}")


@cuda.jit
def transcendental(a, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        out[0, i] = fp16.hexp(x)
        out[1, i] = fp16.hexp2(x)
        out[2, i] = fp16.hexp10(x)
        out[3, i] = fp16.hlog(x)
        out[4, i] = fp16.hlog2(x)
        out[5, i] = fp16.hlog10(x)
        out[6, i] = fp16.hsin(x)
        out[7, i] = fp16.hcos(x)
        out[8, i] = fp16.hrsqrt(x)


def ulps(actual, expected):
    """The distance in float16 ulps between two float16 arrays of finite positive and negative values."""
    def ordered(v):
        bits = v.view(np.uint16).astype(np.int32)
        return np.where(bits & 0x8000, 0x8000 - bits, bits)

    return np.abs(ordered(actual) - ordered(expected))


def test_transcendental_functions_within_an_ulp(target, rng):
    n = 400
    a = halves(rng, n, 0.01, 4.5)
    out = np.zeros((9, n), np.float16)
    launch1(transcendental, n, a, out)
    w = a.astype(np.float64)
    expected = [np.exp(w), np.exp2(w), 10.0**w, np.log(w), np.log2(w), np.log10(w), np.sin(w), np.cos(w),
                1 / np.sqrt(w)]
    for row, values in enumerate(expected):
        assert ulps(out[row], values.astype(np.float16)).max() <= 1, f"row {row}"


@cuda.jit
def comparisons(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[0, i] = fp16.heq(x, y)
        out[1, i] = fp16.hne(x, y)
        out[2, i] = fp16.hlt(x, y)
        out[3, i] = fp16.hle(x, y)
        out[4, i] = fp16.hgt(x, y)
        out[5, i] = fp16.hge(x, y)


def test_comparisons(target, rng):
    n = 300
    a, b = halves(rng, n, -5, 5), halves(rng, n, -5, 5)
    b[::5] = a[::5]
    a[1] = np.nan
    out = np.zeros((6, n), np.bool_)
    launch1(comparisons, n, a, b, out)
    for row, values in enumerate([a == b, a != b, a < b, a <= b, a > b, a >= b]):
        np.testing.assert_array_equal(out[row], values, err_msg=f"row {row}")


@cuda.jit(device=True)
def axpy_half(alpha, x, y):
    return fp16.hfma(alpha, x, y)


@cuda.jit
def scaled_sum(alpha, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = fp16.hadd(axpy_half(alpha, x[i], y[i]), 1.0)


def test_constants_and_device_functions(target, rng):
    n = 200
    x, y = halves(rng, n, -3, 3), halves(rng, n, -3, 3)
    alpha = np.float16(1.5)
    out = np.zeros(n, np.float16)
    launch1(scaled_sum, n, alpha, x, y, out)
    expected = (exact_fma(np.full(n, alpha), x, y).astype(np.float64) + 1).astype(np.float16)
    np.testing.assert_array_equal(out.view(np.uint16), expected.view(np.uint16))


@cuda.jit(device=True)
def combine_with(op, x, y):
    return op(x, y)


def test_imported_by_name_and_passed_as_values(target, rng):
    from weft.cuda.fp16 import hadd, hsin

    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[0, i] = combine_with(hadd, a[i], b[i])
            out[1, i] = combine_with(fp16.hmul, a[i], b[i])
            out[2, i] = hsin(a[i])

    n = 100
    a, b = halves(rng, n, -4, 4), halves(rng, n, -4, 4)
    out = np.zeros((3, n), np.float16)
    launch1(k, n, a, b, out)
    w = a.astype(np.float64)
    np.testing.assert_array_equal(out[0], (w + b).astype(np.float16))
    np.testing.assert_array_equal(out[1], (w * b).astype(np.float16))
    assert ulps(out[2], np.sin(w).astype(np.float16)).max() <= 1


def test_fp16_errors():
    @cuda.jit
    def of_float32(a, out):
        out[0] = fp16.hadd(a[0], a[1])

    with pytest.raises(weft.CompileError, match=r"argument 1 of cuda.fp16.hadd\(\) must be a float16.*\[ArgumentType\]"):
        of_float32[1, 1](np.ones(2, np.float32), np.zeros(1, np.float32))

    @cuda.jit
    def wrong_count(a):
        a[0] = fp16.hsqrt(a[0], a[1])

    with pytest.raises(weft.CompileError, match=r"cuda.fp16.hsqrt\(\).*1 argument.*\[ArgumentCount\]"):
        wrong_count[1, 1](np.ones(2, np.float16))

    @cuda.jit
    def unknown(a):
        a[0] = fp16.hpow(a[0], a[1])

    with pytest.raises((weft.CompileError, AttributeError)):
        unknown[1, 1](np.ones(2, np.float16))


@pytest.mark.parametrize("kernel, args", [
    (binary_ops, lambda: (np.ones(4, np.float16), np.ones(4, np.float16), np.zeros((6, 4), np.float16))),
    (fused, lambda: (np.ones(4, np.float16),) * 3 + (np.zeros(4, np.float16),)),
    (unary_exact, lambda: (np.ones(4, np.float16), np.zeros((8, 4), np.float16))),
    (transcendental, lambda: (np.ones(4, np.float16), np.zeros((9, 4), np.float16))),
    (comparisons, lambda: (np.ones(4, np.float16), np.ones(4, np.float16), np.zeros((6, 4), np.bool_))),
], ids=["binary", "fma", "unary", "transcendental", "compare"])
def test_fp16_compiles_for_sm90(kernel, args):
    assert compiles_for_sm90(kernel, *args()) == ""
