"""Kernel parameters as contracts, on the CPU target: which parameters are ConstExpr and what an
annotation declares are decided by sema from the source (so `from __future__ import annotations`,
aliases and quoted annotations work); an annotated parameter converts a number argument to its
type and rejects an array, struct, tuple, vector or None of another type with a TypeError that
names it. Results are checked against NumPy on seeded random data.

This module itself uses `from __future__ import annotations`: Python keeps every annotation
below as a string, which weft never reads.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import weft
from cuda import device
from cuda.device import ConstExpr as C
from weft import cuda

CE = device.ConstExpr
F32 = device.float32


def run(kernel, *args, grid=1, block=1):
    weft.launch(kernel, *args, grid=grid, block=block, target="cpu")


# ---- ConstExpr, however it is spelled ----


@device.kernel
def constexpr_spellings(out, a: device.ConstExpr, b: CE, c: C[device.int64], d: "device.ConstExpr[device.int8]"):
    buf = device.local_array(a, device.int64)
    for i in range(a):
        buf[i] = i * b
    total = c + d
    for i in range(a):
        total += buf[i]
    out[0] = total


def test_constexpr_under_future_annotations_aliases_and_quotes():
    rng = np.random.default_rng(11)
    for _ in range(3):
        a, b, c, d = (int(v) for v in rng.integers(1, 50, 4))
        out = np.zeros(1, np.int64)
        run(constexpr_spellings, out, a, b, c, d)
        assert out[0] == c + d + b * sum(range(a))
    # a ConstExpr must be a constant: an array is not one
    with pytest.raises(TypeError, match="parameter 'b' is a ConstExpr"):
        run(constexpr_spellings, np.zeros(1, np.int64), 2, np.zeros(2), 1, 1)


# ---- annotated numbers convert to the declared type ----


@device.kernel
def scale32(out, x: device.float32, n: device.int16, flag: device.bool_):
    # computed in float32 whatever the argument's type
    y = x / 3
    out[0] = y * n if flag else -y


def test_annotated_numbers_convert_to_the_declared_type():
    rng = np.random.default_rng(12)
    values = rng.standard_normal(4) * 100
    counts = rng.integers(-300, 300, 4)
    for value, count in zip(values, counts):
        for x in (float(value), np.float64(value), np.float32(value)):
            out = np.zeros(1, np.float64)
            run(scale32, out, x, int(count), True)
            expected = np.float32(np.float32(value) / np.float32(3)) * np.float32(np.int16(count))
            assert out[0] == np.float64(expected)
    out = np.zeros(1, np.float64)
    run(scale32, out, 7, np.int8(2), np.bool_(False))  # an int converts to float32
    assert out[0] == -np.float64(np.float32(7) / np.float32(3))
    # one specialization serves every argument type of a fully annotated kernel
    assert scale32._compile_count == 1


def test_annotated_numbers_reject_what_does_not_convert():
    out = np.zeros(1, np.float64)
    with pytest.raises(ValueError, match=r"kernel 'scale32', parameter 'n': 40000 does not fit in int16"):
        run(scale32, out, 1.0, 40000, True)
    with pytest.raises(TypeError, match=r"parameter 'n': expected int16, got float32; convert the value first"):
        run(scale32, out, 1.0, 2.5, True)
    with pytest.raises(TypeError, match=r"parameter 'x': expected float32, got complex64; a complex value"):
        run(scale32, out, 1j, 2, True)
    with pytest.raises(TypeError, match=r"parameter 'flag': expected bool, got int32"):
        run(scale32, out, 1.0, 2, 1)


# ---- annotated arrays must have the declared dtype and rank ----


@device.kernel
def axpy(alpha: F32, x: device.float32[:], y: device.float32[:], out: device.float64[:, :]):
    i = device.tid(1)
    if i < x.size:
        out[0, i] = alpha * x[i] + y[i]


def test_annotated_arrays_must_match():
    rng = np.random.default_rng(13)
    x, y = rng.standard_normal((2, 100)).astype(np.float32)
    out = np.zeros((1, 100))
    run(axpy, 2.5, x, y, out, grid=4, block=32)
    np.testing.assert_array_equal(out[0], (np.float32(2.5) * x + y).astype(np.float64))
    for bad, message in (
        ((2.5, x.astype(np.float64), y, out), r"parameter 'x': expected array\(float32, 1d\), got array\(float64, 1d\)"),
        ((2.5, x, y.astype(np.int8), out), r"parameter 'y': expected array\(float32, 1d\), got array\(int8, 1d\)"),
        ((2.5, x, y, out[0]), r"parameter 'out': expected array\(float64, 2d\), got array\(float64, 1d\)"),
        ((2.5, x, 3.0, out), r"parameter 'y': expected array\(float32, 1d\), got float32"),
    ):
        with pytest.raises(TypeError, match="kernel 'axpy', " + message):
            run(axpy, *bad)


# ---- partly annotated kernels specialize their other parameters ----


@device.kernel
def partly(out, x, k: device.int32):
    out[0] = x * k


def test_a_partly_annotated_kernel_specializes_the_unannotated_parameters():
    rng = np.random.default_rng(14)
    value = float(rng.standard_normal())
    out = np.zeros(1, np.float64)
    run(partly, out, np.float64(value), np.int64(3))
    assert out[0] == value * 3  # x stays float64
    run(partly, out, np.float32(value), 3)
    assert out[0] == np.float32(value) * np.float32(3)
    run(partly, out, 5, np.uint8(3))
    assert out[0] == 15
    assert partly._compile_count == 3  # one per type of x; k is always int32


# ---- structs, tuples, vectors and None ----


@device.struct
class Pair:
    a: device.float32
    b: device.int32


@device.kernel
def aggregates(out, p: Pair, t: tuple[device.int8, device.float64], v: device.float32x3, w, nothing: None):
    out[0] = p.a * p.b + t[0] + t[1]
    out[1] = v.x + v.y * v.z + w.x + w.w
    if nothing is None:
        out[2] = 1


def test_annotated_structs_tuples_vectors_and_none():
    rng = np.random.default_rng(15)
    a, t1, v0, v1, v2, w0, w3 = (float(x) for x in rng.standard_normal(7))
    b, t0 = (int(x) for x in rng.integers(-100, 100, 2))
    out = np.zeros(3, np.float64)
    w = device.float64x4(w0, 1, 2, w3)
    # p.a * p.b + t[0] is float32 arithmetic, then + t[1] is float64
    expected0 = float(np.float32(np.float32(a) * np.float32(b)) + np.float32(t0)) + t1
    expected1 = float(np.float32(v0) + np.float32(v1) * np.float32(v2)) + w0 + w3
    run(aggregates, out, Pair(a, b), (t0, t1), device.float32x3(v0, v1, v2), w, None)
    assert out[0] == expected0
    assert out[1] == expected1
    assert out[2] == 1
    # a tuple of numbers converts to a declared vector, member by member
    out[:] = 0
    run(aggregates, out, Pair(a, b), (t0, t1), (v0, v1, v2), w, None)
    assert (out[0], out[1], out[2]) == (expected0, expected1, 1)
    for bad, message in (
        ((out, (a, b), (t0, t1), (v0, v1, v2), w, None), r"parameter 'p': expected Pair, got a tuple of 2"),
        ((out, Pair(a, b), (t0, t1, 3), (v0, v1, v2), w, None), r"parameter 't': expected tuple\(int8, float64\)"),
        ((out, Pair(a, b), (t0, t1), device.float32x2(v0, v1), w, None), r"parameter 'v': expected float32x3, got float32x2"),
        ((out, Pair(a, b), (t0, t1), (v0, v1, v2), w, 0), r"parameter 'nothing': expected None, got int32"),
    ):
        with pytest.raises(TypeError, match=message):
            run(aggregates, *bad)
    with pytest.raises(ValueError, match=r"parameter 't\[0\]': 300 does not fit in int8"):
        run(aggregates, out, Pair(a, b), (300, t1), (v0, v1, v2), w, None)


@device.kernel
def struct_elements(ps: Pair[:], out: device.float32[:]):
    i = device.tid(1)
    if i < ps.size:
        out[i] = ps[i].a * ps[i].b


def test_an_annotated_array_of_structs():
    rng = np.random.default_rng(16)
    ps = np.zeros(50, Pair.dtype)
    ps["a"] = rng.standard_normal(50)
    ps["b"] = rng.integers(-9, 9, 50)
    out = np.zeros(50, np.float32)
    run(struct_elements, ps, out, grid=2, block=32)
    np.testing.assert_array_equal(out, ps["a"] * ps["b"].astype(np.float32))
    record = np.zeros(50, np.dtype([("a", np.float32), ("b", np.int32)], align=True))
    with pytest.raises(TypeError, match=r"parameter 'ps': expected array\(Pair, 1d\), got array\(record, 1d\)"):
        run(struct_elements, record, out)


# ---- device functions: annotations are contracts there too ----


def third(x: device.float32):
    return x / 3


def head(v: device.float32[:]):
    return v[0] + v[1]


@device.kernel
def calls(a, out):
    s = device.shared_array(2, device.float32)
    s[0] = device.float32(a[0])
    s[1] = device.float32(a[1])
    out[0] = third(a[0])  # a float64 converts to float32
    out[1] = head(s)      # a shared array fits a float32[:] parameter


@device.kernel
def bad_call(a, out):
    out[0] = head(a)


def test_device_function_annotations_convert_numbers_and_check_arrays():
    rng = np.random.default_rng(17)
    a = rng.standard_normal(2)
    out = np.zeros(2, np.float64)
    run(calls, a, out)
    assert out[0] == np.float64(np.float32(a[0]) / np.float32(3))
    assert out[1] == np.float64(np.float32(a[0]) + np.float32(a[1]))
    with pytest.raises(weft.CompileError, match=r"argument 1 of function 'head' is array\(float64, 1d\), but its "
                                                r"parameter 'v' is declared array\(float32, 1d\) .*\[AnnotatedArgument\]"):
        run(bad_call, a, out)


# ---- an annotation that names no device type is an error at its line ----


def test_a_bad_annotation_is_a_compile_error_at_the_users_line(tmp_path):
    path = tmp_path / "bad_annotation.py"
    path.write_text(textwrap.dedent("""
        import numpy as np
        from cuda import device

        @device.kernel
        def k(a: np.ndarray, n: device.int32):
            a[0] = n
    """))
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    with pytest.raises(weft.CompileError, match=r"bad_annotation.py:6:10: error: cannot use the annotation of "
                                                r"parameter 'a' as a type annotation.*\[BadAnnotation\]"):
        run(namespace["k"], np.zeros(1), 1)


# ---- the classic front: a signature is the same contract ----


@cuda.jit("void(float32[:], int32, float64)")
def classic_signed(out, n, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = n * x


def test_a_classic_signature_converts_and_checks_as_annotations_do():
    rng = np.random.default_rng(18)
    x = float(rng.standard_normal())
    out = np.zeros(8, np.float32)
    classic_signed[1, 8](out, np.int64(3), np.float32(x))
    np.testing.assert_array_equal(out, np.float32(3 * np.float64(np.float32(x))))
    with pytest.raises(TypeError, match=r"parameter 'n': expected int32, got float32; convert the value first"):
        classic_signed[1, 8](out, 2.5, x)
    # numba wraps an int into a narrower signature type (test_classic_signatures.py).
    classic_signed[1, 8](out, 2**32 + 3, x)
    np.testing.assert_array_equal(out, np.float32(3 * np.float64(np.float32(x))))
    with pytest.raises(TypeError, match=r"parameter 'out': expected array\(float32, 1d\), got array\(float64, 1d\)"):
        classic_signed[1, 8](np.zeros(8), 1, x)


def test_a_classic_signature_must_cover_every_parameter():
    # A signature compiles the kernel at decoration, as numba's do.
    with pytest.raises(TypeError, match="kernel 'classic_three' has 3 parameters but its signature declares 2"):
        @cuda.jit("void(float32[:], int32)")
        def classic_three(out, n, extra):
            out[0] = n


# ---- compiled for sm_90 ----


SM90_SOURCE = """from cuda import device

@device.struct
class Pair:
    a: device.float32
    b: device.int32

@device.kernel
def k(out: device.float64[:], p: Pair, t: tuple[device.int8, device.float64], v: device.float32x3,
      nothing: None, x: device.float32, n: device.ConstExpr = 4):
    for i in range(n):
        out[i] = p.a * p.b + t[0] + t[1] + v.x * v.z + x
    if nothing is None:
        out[n] = 1
"""


def test_annotated_parameters_compile_for_sm90(tmp_path):
    from test_sm90_ptxas import compile_for_sm90

    compile_for_sm90(tmp_path, "parameters", SM90_SOURCE)


# ---- on the GPU ----


@pytest.mark.gpu
def test_annotated_parameters_on_the_gpu():
    rng = np.random.default_rng(19)
    x, y = rng.standard_normal((2, 1000)).astype(np.float32)
    out = weft.zeros((1, 1000), np.float64, target="gpu")
    weft.launch(axpy, np.float64(1.5), weft.to_device(x), weft.to_device(y), out, grid=8, block=128, target="gpu")
    # The GPU contracts the float32 a*x + y into one fma (as nvcc does): an ulp of the product.
    np.testing.assert_allclose(out.copy_to_host()[0], (np.float32(1.5) * x + y).astype(np.float64), rtol=1e-6,
                               atol=1e-6)
    with pytest.raises(TypeError, match=r"parameter 'x': expected array\(float32, 1d\), got array\(float64, 1d\)"):
        weft.launch(axpy, 1.5, weft.to_device(x.astype(np.float64)), weft.to_device(y), out, grid=1, block=1,
                    target="gpu")
    a, t1, v0, v1, v2 = (float(v) for v in rng.standard_normal(5))
    result = weft.zeros(3, np.float64, target="gpu")
    w = device.float64x4(1, 2, 3, 4)
    weft.launch(aggregates, result, Pair(a, 7), (-3, t1), device.float32x3(v0, v1, v2), w, None, grid=1, block=1,
                target="gpu")
    host = result.copy_to_host()
    # the GPU may contract a * b + c into one fma: float32 rounding differs by an ulp or so
    assert host[0] == pytest.approx(float(np.float32(np.float32(a) * np.float32(7)) - np.float32(3)) + t1, rel=1e-6)
    assert host[1] == pytest.approx(float(np.float32(v0) + np.float32(v1) * np.float32(v2)) + 5, rel=1e-6)
    assert host[2] == 1
