"""numba's type objects and signatures (issue 10, item 7): `from weft.cuda import float32, void`,
`cuda.types`, every signature form (strings with numba's names, with no return type, type
expressions, layouts, tuples and lists of signatures), numba's wrapping of an int into a narrower
signature type, and compilation at decoration time. Checked against NumPy on the CPU target (the
GPU in the `gpu` twins)."""

import numpy as np
import pytest

import weft
from classic_support import compiles_for_sm90, launch1, target  # noqa: F401
from weft import cuda
from weft.cuda import double, float32, float64, int32, int64, intp, types, uint32, void

N = 100


def test_numba_type_objects_are_weft_types():
    assert float32 is weft.float32 and cuda.float32 is weft.float32
    assert double is weft.float64 and intp is weft.int64 and types.float32 is weft.float32
    assert cuda.boolean is weft.bool_ and cuda.uintp is weft.uint64 and cuda.float_ is weft.float32
    assert cuda.float4 is weft.float32x4 and cuda.int2 is weft.int32x2 and cuda.ulong3 is weft.uint64x3
    assert cuda.uint16x4 is weft.uint16x4 and types.void is void and cuda.none is void
    # On the host they convert values as numba's do.
    assert float32(1.5) == np.float32(1.5) and type(int32(7)) is np.int32


def test_type_expressions_build_signatures():
    signature = void(float32[:], int32)
    assert signature.return_type is None and signature.args == (float32[:], int32)
    assert float64(float64).return_type is float64
    assert int32(int32[:], int32, float64).args == (int32[:], int32, float64)
    assert float32[:, ::1].layout == "C" and float32[::1, :].layout == "F" and float32[:, :].layout == "A"
    assert float32[::1].layout == "C" and types.Array(float32, 2, "F") == float32[::1, :]
    assert repr(void(float32[:, ::1])) == "void(weft.float32[:, ::1])"
    with pytest.raises(TypeError, match="::1 marks the contiguous dimension"):
        float32[:, ::1, :]
    with pytest.raises(TypeError, match="array types are written"):
        float32[::2]
    with pytest.raises(TypeError, match="layout is 'C', 'F' or 'A'"):
        types.Array(float32, 1, "X")


def _axpy(out, a, x, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = a * x[i] + i


SIGNATURE_FORMS = {
    "string": "void(float32[:], float32, float32[:], int32)",
    "numba names": "void(float32[:], float_, float32[::1], intp)",
    "no return type": "(float32[:], float32, float32[:], int32)",
    "expression": void(float32[:], float32, float32[::1], int32),
    "tuple of types": (float32[:], float32, float32[:], int64),
    "list of one": ["void(float32[:], float32, float32[:], uint32)"],
    "Array": void(types.Array(float32, 1, "A"), float32, types.Array(float32, 1, "C"), int32),
}


@pytest.mark.parametrize("form", SIGNATURE_FORMS, ids=list(SIGNATURE_FORMS))
def test_every_signature_form(target, rng, form):
    kernel = cuda.jit(SIGNATURE_FORMS[form])(_axpy)
    assert kernel._kernel._compile_count == 1  # compiled at decoration
    x = rng.standard_normal(N).astype(np.float32)
    out = np.zeros(N, np.float32)
    launch1(kernel, N, out, 2.5, x, N)
    np.testing.assert_allclose(out, np.float32(2.5) * x + np.arange(N, dtype=np.float32), rtol=1e-6)


@cuda.jit(["void(float32[:], float32)", "void(float64[:], float64)", void(int32[:], int32),
           "void(complex128[:], complex128)"])
def scale(a, s):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * s + s


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex128])
def test_a_list_of_signatures_gives_one_specialization_each(target, rng, dtype):
    a = (rng.standard_normal(N) * 10).astype(dtype)
    expected = a * dtype(3) + dtype(3)
    launch1(scale, N, a, 3)
    np.testing.assert_allclose(a, expected, rtol=1e-6)
    assert all(k._compile_count == 1 for k in scale._kernels)


def test_no_signature_fits():
    with pytest.raises(TypeError, match="no signature fits the arguments"):
        scale[1, 1](np.zeros(4, np.int16), 1)


@cuda.jit("void(int32[:], int32, uint32, int8)")
def store_narrowed(out, a, b, c):
    out[0] = a
    out[1] = b
    out[2] = c


def test_ints_wrap_into_narrower_signature_types(target, rng):
    # numba passes scalars through ctypes, which wraps (weft's own annotations raise ValueError).
    big = int(rng.integers(1, 1000))
    out = np.zeros(3, np.int32)
    store_narrowed[1, 1](out, 2**32 + big, -1, 300)
    np.testing.assert_array_equal(out, [big, np.uint32(2**32 - 1).astype(np.int32), 300 - 256])
    store_narrowed[1, 1](out, np.int64(-(2**31) - 1), np.uint64(2**32 + big), np.int16(-129))
    np.testing.assert_array_equal(out, [2**31 - 1, big, 127])
    with pytest.raises(TypeError, match="parameter 'a': expected int32, got float"):
        store_narrowed[1, 1](out, 2.5, 1, 1)


@cuda.jit("void(float64[:, ::1], float64[::1, :])")
def copy_c_to_f(src, dst):
    i, j = cuda.grid(2)
    if i < src.shape[0] and j < src.shape[1]:
        dst[i, j] = src[i, j] * 2


def test_layouts_take_arrays_of_their_order(target, rng):
    src = rng.standard_normal((9, 7))
    dst = np.asfortranarray(np.zeros((9, 7)))
    copy_c_to_f[(1, 1), (16, 16)](src, dst)
    np.testing.assert_array_equal(dst, 2 * src)
    with pytest.raises(TypeError, match="takes C-contiguous arrays only"):
        copy_c_to_f[(1, 1), (16, 16)](src[:, ::2], dst)
    with pytest.raises(TypeError, match="takes Fortran-contiguous arrays only"):
        copy_c_to_f[(1, 1), (16, 16)](src, np.zeros((9, 7)))


def test_a_bad_kernel_with_a_signature_raises_at_the_decorator():
    with pytest.raises(weft.CompileError, match=r"test_classic_signatures.py:\d+:\d+: error: name 'nowhere' is not defined"):
        @cuda.jit("void(float32[:])")
        def broken(a):
            a[0] = nowhere  # noqa: F821
    with pytest.raises(TypeError, match="a kernel returns void, not weft.float32"):
        cuda.jit("float32(float32)")
    with pytest.raises(TypeError, match="cannot be read"):
        cuda.jit("void(float33[:])")
    with pytest.raises(TypeError, match="has 1 parameters but its signature declares 2"):
        @cuda.jit("void(float32[:], int32)")
        def one_parameter(a):
            a[0] = 1

    # Without a signature, nothing compiles before the first launch.
    @cuda.jit
    def lazy(a):
        a[0] = nowhere  # noqa: F821

    assert lazy._kernel._compile_count == 0


@cuda.jit("float64(float64)", device=True)
def cube(x):
    return x * x * x


@cuda.jit(float64(float64, float64), device=True)
def hypot2(x, y):
    return x * x + y * y


@cuda.jit(void(float64[:], float64[:]))
def use_device_signatures(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = cube(a[i]) + hypot2(a[i], 1.0)


def test_device_functions_take_signatures(target, rng):
    a = rng.standard_normal(N)
    out = np.zeros(N)
    launch1(use_device_signatures, N, a, out)
    np.testing.assert_allclose(out, a ** 3 + a * a + 1, rtol=1e-13)


@cuda.jit
def numba_names_in_device_code(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = cuda.float4(x[i], 1, 2, 3)
        out[i, 0] = cuda.float32(x[i]) * types.float32(2)
        out[i, 1] = double(x[i]) + cuda.intp(3)
        out[i, 2] = cuda.int32(x[i] * 10) + uint32(1)
        out[i, 3] = v.x + v.w + types.intp(cuda.uint8(300))


def test_numba_type_names_in_device_code(target, rng):
    x = rng.uniform(-4, 4, N)
    out = np.zeros((N, 4))
    launch1(numba_names_in_device_code, N, x, out)
    x32 = x.astype(np.float32)
    expected = np.stack([x32 * np.float32(2), x + 3, np.trunc(x * 10) + 1, x32.astype(np.float64) + 3 + 44], 1)
    np.testing.assert_allclose(out, expected, rtol=1e-6)


@pytest.mark.parametrize("kernel, args", [
    (scale, lambda: (np.zeros(4, np.float32), 1)),
    (copy_c_to_f, lambda: (np.zeros((2, 2)), np.zeros((2, 2), order="F"))),
    (numba_names_in_device_code, lambda: (np.zeros(4), np.zeros((4, 4)))),
], ids=["scale", "layouts", "names"])
def test_signature_kernels_compile_for_sm90(kernel, args):
    assert compiles_for_sm90(kernel, *args()) == ""
