"""Complex numbers in kernels (issue 10, item 4): `**` of complexes (CPython's algorithm), the
cmath module, `.real`, `.imag`, `.conjugate()`, checked against CPython's cmath on seeded random
data on the CPU target (the GPU in the `gpu`-marked twins)."""

import cmath

import numpy as np
import pytest

import weft
from classic_support import compiles_for_sm90, launch1, target  # noqa: F401
from weft import cuda

N = 64


def random_complex(rng, n, dtype=np.complex128, scale=2.0):
    return (rng.uniform(-scale, scale, n) + 1j * rng.uniform(-scale, scale, n)).astype(dtype)


def assert_close_complex(actual, expected, dtype, rtol32=2e-5):
    rtol = rtol32 if np.dtype(dtype) == np.complex64 else 1e-12
    np.testing.assert_allclose(actual, np.array(expected, dtype=np.complex128), rtol=rtol, atol=rtol)


@cuda.jit
def complex_power(z, w, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i] = z[i] ** w[i]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_power_of_complex_exponents(target, rng, dtype):
    z, w = random_complex(rng, N, dtype), random_complex(rng, N, dtype, 1.5)
    out = np.zeros(N, dtype)
    launch1(complex_power, N, z, w, out)
    assert_close_complex(out, [complex(a) ** complex(b) for a, b in zip(z, w)], dtype)


def test_complex_power_of_integral_exponents(target, rng):
    z = random_complex(rng, N)
    w = rng.integers(-7, 8, N).astype(np.complex128)
    w[:4] = [0, 100, -100, 101]
    out = np.zeros(N, np.complex128)
    launch1(complex_power, N, z, w, out)
    assert_close_complex(out, [complex(a) ** complex(b) for a, b in zip(z, w)], np.complex128)


def test_complex_power_with_constant_and_real_exponents(target, rng):
    @cuda.jit
    def k(z, x, out):
        i = cuda.grid(1)
        if i < z.size:
            out[i, 0] = z[i] ** 2
            out[i, 1] = z[i] ** 0.5
            out[i, 2] = z[i] ** x[i]
            out[i, 3] = x[i] ** z[i]
            out[i, 4] = (1 + 2j) ** z[i]

    z, x = random_complex(rng, N), rng.uniform(0.1, 3, N)
    out = np.zeros((N, 5), np.complex128)
    launch1(k, N, z, x, out)
    zc = [complex(v) for v in z]
    expected = [[a ** 2, a ** 0.5, a ** float(b), float(b) ** a, (1 + 2j) ** a] for a, b in zip(zc, x)]
    assert_close_complex(out, expected, np.complex128)


CMATH_FUNCTIONS = ["exp", "log", "log10", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh",
                   "acos", "asin", "atan", "acosh", "asinh", "atanh"]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", CMATH_FUNCTIONS)
def test_cmath_functions(target, rng, name, dtype):
    function = getattr(cmath, name)

    @cuda.jit
    def k(z, out):
        i = cuda.grid(1)
        if i < z.size:
            out[i] = function(z[i])

    z = random_complex(rng, N, dtype)
    out = np.zeros(N, dtype)
    launch1(k, N, z, out)
    # complex64 computes in float32: tan near its poles loses a few more digits there.
    assert_close_complex(out, [function(complex(v)) for v in z], dtype, 2e-4 if name == "tan" else 2e-5)


def test_cmath_sqrt_on_the_axes(target):
    z = np.array([0, -0.0, 4, -4, 4j, -4j, -1 + 0j, complex(-1, -0.0)], np.complex128)

    @cuda.jit
    def k(z, out):
        for i in range(z.size):
            out[i] = cmath.sqrt(z[i])

    out = np.zeros_like(z)
    k[1, 1](z, out)
    expected = np.array([cmath.sqrt(complex(v)) for v in z])
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(np.signbit(out.imag), np.signbit(expected.imag))


INVERSE_FUNCTIONS = ["acos", "asin", "atan", "acosh", "asinh", "atanh"]


@pytest.mark.parametrize("name", INVERSE_FUNCTIONS)
def test_cmath_inverse_functions_on_branch_cuts_and_far_out(target, rng, name):
    function = getattr(cmath, name)

    @cuda.jit
    def k(z, out):
        i = cuda.grid(1)
        if i < z.size:
            out[i] = function(z[i])

    # Both sides of the cuts (a signed zero imaginary part) on both axes, tiny and large values.
    cuts = [complex(x, s) for x in (-3.5, -1.5, 1.5, 3.5) for s in (0.0, -0.0)]
    cuts += [complex(s, y) for y in (-3.5, -1.5, 1.5, 3.5) for s in (0.0, -0.0)]
    wide = rng.uniform(-1, 1, 16) * 10.0 ** rng.integers(-8, 9, 16) + 1j * rng.uniform(-1, 1, 16) * 10.0 ** rng.integers(-8, 9, 16)
    z = np.array(cuts + list(wide), np.complex128)
    out = np.zeros_like(z)
    launch1(k, z.size, z, out)
    expected = np.array([function(complex(v)) for v in z])
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(np.signbit(out.imag[:len(cuts)]), np.signbit(expected.imag[:len(cuts)]))


@cuda.jit
def logs_in_bases(z, base, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i, 0] = cmath.log(z[i], base[i])
        out[i, 1] = cmath.log(z[i], 10)
        out[i, 2] = cmath.log(z[i], base[i].real)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_cmath_log_with_a_base(target, rng, dtype):
    z, base = random_complex(rng, N, dtype), random_complex(rng, N, dtype, 4.0)
    out = np.zeros((N, 3), dtype)
    launch1(logs_in_bases, N, z, base, out)
    expected = [[cmath.log(complex(a), complex(b)), cmath.log(complex(a), 10), cmath.log(complex(a), complex(b).real)]
                for a, b in zip(z, base)]
    # A base near 1 has a logarithm near 0: the quotient keeps the relative error of its parts.
    assert_close_complex(out, expected, dtype, 1e-4)


def test_cmath_phase_polar_rect_and_predicates(target, rng):
    @cuda.jit
    def k(z, r, phi, out, flags):
        i = cuda.grid(1)
        if i < z.size:
            out[i, 0] = cmath.phase(z[i])
            m, p = cmath.polar(z[i])
            out[i, 1] = m
            out[i, 2] = p
            c = cmath.rect(r[i], phi[i])
            out[i, 3] = c.real
            out[i, 4] = c.imag
            flags[i, 0] = cmath.isnan(z[i])
            flags[i, 1] = cmath.isinf(z[i])
            flags[i, 2] = cmath.isfinite(z[i])

    z = random_complex(rng, N)
    z[:3] = [complex(np.nan, 1), complex(1, np.inf), complex(-np.inf, np.nan)]
    r, phi = rng.uniform(0, 5, N), rng.uniform(-4, 4, N)
    out, flags = np.zeros((N, 5)), np.zeros((N, 3), np.bool_)
    launch1(k, N, z, r, phi, out, flags)
    zc = [complex(v) for v in z]
    np.testing.assert_allclose(out[3:, :3], [[cmath.phase(v), *cmath.polar(v)] for v in zc[3:]], rtol=1e-13)
    rects = [cmath.rect(a, b) for a, b in zip(r, phi)]
    np.testing.assert_allclose(out[:, 3], [c.real for c in rects], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out[:, 4], [c.imag for c in rects], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(flags, [[cmath.isnan(v), cmath.isinf(v), cmath.isfinite(v)] for v in zc])


def test_cmath_of_real_numbers_and_constants(target, rng):
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = cmath.sqrt(x[i]) + cmath.exp(x[i] * 1j) + cmath.e

    x = rng.uniform(-5, 5, N)
    out = np.zeros(N, np.complex128)
    launch1(k, N, x, out)
    assert_close_complex(out, [cmath.sqrt(v) + cmath.exp(v * 1j) + cmath.e for v in x], np.complex128)


def test_cmath_imported_by_name(target, rng):
    from cmath import exp as cexp

    @cuda.jit
    def k(z, out):
        i = cuda.grid(1)
        if i < z.size:
            out[i] = cexp(z[i])

    z = random_complex(rng, N)
    out = np.zeros_like(z)
    launch1(k, N, z, out)
    assert_close_complex(out, [cmath.exp(complex(v)) for v in z], np.complex128)


def test_real_imag_conjugate(target, rng):
    @cuda.jit
    def k(z, out):
        i = cuda.grid(1)
        if i < z.size:
            c = z[i].conjugate()
            out[i, 0] = z[i].real
            out[i, 1] = z[i].imag
            out[i, 2] = c.imag
            out[i, 3] = abs(z[i])

    z = random_complex(rng, N)
    out = np.zeros((N, 4))
    launch1(k, N, z, out)
    np.testing.assert_allclose(out, np.stack([z.real, z.imag, -z.imag, np.abs(z)], axis=1), rtol=1e-15)


def test_cmath_rejects_unknown_function(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")

    @cuda.jit
    def k(z):
        z[0] = cmath.isclose(z[0], z[1])

    with pytest.raises(weft.CompileError, match="cmath"):
        k[1, 1](np.zeros(1, np.complex128))


def test_complex_kernels_compile_for_sm90():
    assert compiles_for_sm90(complex_power, *(np.zeros(4, np.complex64),) * 3) == ""

    @cuda.jit
    def k(z, out):
        out[0] = cmath.tan(z[0]) + cmath.log10(z[1]) + cmath.sqrt(z[2]) + cmath.rect(1.0, 2.0)

    assert compiles_for_sm90(k, np.zeros(4, np.complex128), np.zeros(1, np.complex128)) == ""

    @cuda.jit
    def inverse(z, out):
        out[0] = cmath.acos(z[0]) + cmath.asin(z[1]) + cmath.atan(z[2]) + cmath.acosh(z[3])
        out[1] = cmath.asinh(z[0]) + cmath.atanh(z[1]) + cmath.log(z[2], z[3])

    for dtype in (np.complex64, np.complex128):
        assert compiles_for_sm90(inverse, np.zeros(4, dtype), np.zeros(2, dtype)) == ""
