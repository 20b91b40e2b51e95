"""`.real` and `.imag` of complex arrays in device code (issue 10, item 4), as NumPy and numba
have them: views of the parts (an array of the real type, same shape, every stride doubled)
that are read, stored into, sliced, passed to device functions and used by atomics. Checked
against NumPy on the CPU target, on the GPU in the `gpu` twins."""

import numpy as np
import pytest

import weft
from classic_support import compiles_for_sm90, launch1, target  # noqa: F401
from weft import cuda


def random_complex(rng, shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


@cuda.jit
def swap_parts(z, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i] = z.imag[i] - 2 * z.real[i]
        re = z.real[i]
        z.real[i] = z.imag[i]
        z.imag[i] = re


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_read_and_store_through_the_parts(target, rng, dtype):
    n = 300
    z = random_complex(rng, n, dtype)
    before = z.copy()
    out = np.zeros(n, before.real.dtype)
    launch1(swap_parts, n, z, out)
    np.testing.assert_array_equal(out, before.imag - 2 * before.real)
    np.testing.assert_array_equal(z.real, before.imag)
    np.testing.assert_array_equal(z.imag, before.real)


@cuda.jit
def scale_rows(z, factors):
    i = cuda.grid(1)
    if i < z.shape[0]:
        imag = z.imag
        for j in range(z.shape[1]):
            z.real[i, j] *= factors[i]
            imag[i, j] += factors[i]


def test_parts_of_strided_2d_arrays(target, rng):
    base = random_complex(rng, (40, 12), np.complex128)
    z = base[::2, 1::3]  # neither axis contiguous
    expected = z.copy()
    factors = rng.uniform(-2, 2, z.shape[0])
    expected.real *= factors[:, None]
    expected.imag += factors[:, None]
    launch1(scale_rows, z.shape[0], z, factors)
    np.testing.assert_array_equal(z, expected)


@cuda.jit(device=True)
def total(values):
    s = values[0] * 0
    for k in range(values.size):
        s += values[k]
    return s


@cuda.jit
def sum_parts(z, sums, counter):
    i = cuda.grid(1)
    if i < z.shape[0]:
        sums[i, 0] = total(z.real[i])
        sums[i, 1] = total(z[i].imag[1:])
        cuda.atomic.add(counter.imag, 0, 1.0)


def test_parts_as_arguments_slices_and_atomics(target, rng):
    z = random_complex(rng, (50, 9), np.complex128)
    sums = np.zeros((50, 2))
    counter = np.zeros(1, np.complex128)
    launch1(sum_parts, 50, z, sums, counter)
    np.testing.assert_allclose(sums[:, 0], z.real.sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(sums[:, 1], z.imag[:, 1:].sum(axis=1), rtol=1e-12)
    assert counter[0] == 50j


@cuda.jit
def real_of_real(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a.real[i] * 2


def test_real_of_a_real_array_is_the_array(target, rng):
    a = rng.standard_normal(100).astype(np.float32)
    out = np.zeros_like(a)
    launch1(real_of_real, 100, a, out)
    np.testing.assert_array_equal(out, a * 2)


def test_imag_of_a_real_array_is_an_error(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")

    @cuda.jit
    def k(a):
        a[0] = a.imag[0]

    with pytest.raises(weft.CompileError, match=r"imag.*\[UnknownAttribute\]"):
        k[1, 1](np.zeros(2, np.float32))


def test_array_parts_compile_for_sm90():
    assert compiles_for_sm90(swap_parts, np.zeros(4, np.complex64), np.zeros(4, np.float32)) == ""
    assert compiles_for_sm90(sum_parts, np.zeros((4, 3), np.complex128), np.zeros((4, 2)), np.zeros(1, np.complex128)) == ""
