"""Numbers on the CPU target: every fixed-format type as array elements and scalars,
constructors, narrow floats (float16, bfloat16, fp8) against ml_dtypes/NumPy bit for bit,
complex parts, numbers as zero-dimensional arrays, and host-side number objects.

test_types_gpu.py runs a selection again on the GPU by overriding the `target` fixture.
"""

import pathlib
import subprocess

import ml_dtypes
import numpy as np
import pytest

import weft
from cuda import device
from launching import run

NARROW = {
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
    "float8e4m3": ml_dtypes.float8_e4m3fn,
    "float8e5m2": ml_dtypes.float8_e5m2,
}
ALL_REAL = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
            np.float16, np.float32, np.float64, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2]


@pytest.fixture(scope="module")
def target():
    return "cpu"


@device.kernel
def narrow_arith(a, b, add, sub, mul, div):
    i = device.tid(1)
    if i < a.size:
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        div[i] = a[i] / b[i]


@pytest.mark.parametrize("name", list(NARROW))
def test_narrow_arithmetic_rounds_like_ml_dtypes(target, rng, name):
    dtype = NARROW[name]
    n = 257
    scale = 8.0 if name.startswith("float8") else 100.0
    a = (rng.standard_normal(n) * scale).astype(dtype)
    b = (rng.standard_normal(n) * scale + 0.5).astype(dtype)
    b[b.astype(np.float32) == 0] = dtype(1.5)
    outs = [np.zeros(n, dtype) for _ in range(4)]
    run(target, narrow_arith, a, b, *outs, grid=3, block=128)
    fa, fb = a.astype(np.float32), b.astype(np.float32)
    for out, expected in zip(outs, (fa + fb, fa - fb, fa * fb, fa / fb)):
        # float32 then one rounding: what the hardware's instructions give.
        want = expected.astype(np.float64).astype(dtype)
        if name.startswith("float8"):
            limit = float(ml_dtypes.finfo(dtype).max)
            want = np.clip(expected, -limit, limit).astype(dtype)  # CUDA saturates fp8
        np.testing.assert_array_equal(out.astype(np.float32), want.astype(np.float32))


@device.kernel
def convert_to_float32(a, out):
    i = device.tid(1)
    if i < a.size:
        out[i] = device.float32(a[i]) * 2


@pytest.mark.parametrize("dtype", ALL_REAL, ids=lambda d: np.dtype(d).name)
def test_arrays_of_every_real_type(target, rng, dtype):
    n = 100
    info = ml_dtypes.finfo(dtype) if np.dtype(dtype).kind in "fV" else None
    if np.dtype(dtype).kind in "iu":
        lo, hi = np.iinfo(dtype).min, np.iinfo(dtype).max
        a = rng.integers(max(lo, -1000), min(hi, 1000), n).astype(dtype)
    else:
        limit = min(float(info.max) / 4, 100.0) if info is not None else 100.0
        a = (rng.uniform(-limit, limit, n)).astype(dtype)
    out = np.zeros(n, np.float32)
    run(target, convert_to_float32, a, out, grid=1, block=128)
    np.testing.assert_allclose(out, a.astype(np.float32) * 2, rtol=1e-6)


@device.kernel
def narrow_constructors(out16, outbf, out8, x):
    out16[0] = device.float16(1.1)
    outbf[0] = device.bfloat16(1.1)
    out8[0] = device.float8e4m3(1000.0 * x)
    out16[1] = device.float16(x) / 3
    outbf[1] = device.bfloat16(x) ** 2
    out8[1] = device.float8e4m3(x) + device.float8e4m3(0.3)


def test_narrow_constructors_and_saturation(target):
    out16, outbf, out8 = np.zeros(2, np.float16), np.zeros(2, ml_dtypes.bfloat16), np.zeros(2, ml_dtypes.float8_e4m3fn)
    run(target, narrow_constructors, out16, outbf, out8, 1.7)
    assert out16[0] == np.float16(1.1) and outbf[0] == ml_dtypes.bfloat16(1.1)
    assert float(out8[0]) == 448.0  # saturates to the largest finite float8e4m3
    assert out16[1] == np.float16(np.float16(np.float32(1.7)) / np.float16(3))
    assert outbf[1] == ml_dtypes.bfloat16(float(ml_dtypes.bfloat16(np.float32(1.7))) ** 2)
    e4 = ml_dtypes.float8_e4m3fn
    assert out8[1] == e4(float(e4(np.float32(1.7))) + float(e4(0.3)))


@device.kernel
def complex_parts(z, w, re, im, conj, quotient, magnitude, mixed):
    i = device.tid(1)
    if i < z.size:
        re[i] = z[i].real
        im[i] = z[i].imag
        conj[i] = z[i].conjugate()
        quotient[i] = z[i] / w[i]
        magnitude[i] = abs(z[i])
        mixed[i] = z[i] * re[i] + 1.5


@pytest.mark.parametrize("ctype", [np.complex64, np.complex128])
def test_complex_parts_and_arithmetic(target, rng, ctype):
    n = 64
    rtype = np.float32 if ctype == np.complex64 else np.float64
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(ctype)
    w = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(ctype)
    re, im, magnitude = np.zeros(n, rtype), np.zeros(n, rtype), np.zeros(n, rtype)
    conj, quotient, mixed = np.zeros(n, ctype), np.zeros(n, ctype), np.zeros(n, ctype)
    run(target, complex_parts, z, w, re, im, conj, quotient, magnitude, mixed, block=64)
    np.testing.assert_array_equal(re, z.real)
    np.testing.assert_array_equal(im, z.imag)
    np.testing.assert_array_equal(conj, np.conj(z))
    np.testing.assert_allclose(quotient, z / w, rtol=1e-5)
    np.testing.assert_allclose(magnitude, np.abs(z), rtol=1e-6)
    np.testing.assert_allclose(mixed, z * z.real + 1.5, rtol=1e-5)


@device.kernel
def zero_dimensional(x, out):
    v = device.int16(x)
    out[0] = v.ndim
    out[1] = v.size
    out[2] = len(v.shape)
    out[3] = v.dtype(7)
    out[4] = v.real + v.imag


def test_numbers_behave_as_zero_dimensional_arrays(target):
    out = np.zeros(5, np.int64)
    run(target, zero_dimensional, 1234, out)
    assert list(out) == [0, 1, 0, 7, 1234]


@device.kernel
def integer_wrap(out, x):
    out[0] = device.int8(x) + device.int8(100)
    out[1] = device.uint8(x) * device.uint8(3)


def test_fixed_width_integers_wrap_on_device_and_host(target):
    out = np.zeros(2, np.int64)
    run(target, integer_wrap, out, 100)
    assert out[0] == -56 == device.int8(200) and out[1] == (100 * 3) % 256


def test_host_number_objects():
    assert device.int8(200) == -56 and device.uint16(-1) == 65535 and device.int32(3.9) == 3
    assert device.bfloat16(1.1).dtype == np.dtype(ml_dtypes.bfloat16)
    assert float(device.float8e5m2(3.3)) == float(ml_dtypes.float8_e5m2(3.3))
    assert device.float16.dtype == np.float16 and device.float8e4m3.dtype == np.dtype(ml_dtypes.float8_e4m3fn)


@device.kernel
def bad_complex_to_real(out, z):
    out[0] = z.conjugate().real + z.nonexistent


def test_unknown_number_attribute_is_a_compile_error(target):
    with pytest.raises(weft.CompileError, match="nonexistent") as info:
        run(target, bad_complex_to_real, np.zeros(1, np.float32), 1 + 2j)
    assert "test_numbers_cpu.py" in str(info.value)


SM90_SOURCE = '''
from cuda import device

@device.kernel
def k(h: device.float16[:], b: device.bfloat16[:], e4: device.float8e4m3[:], e5: device.float8e5m2[:],
      z: device.complex64[:], out: device.float32[:]):
    i = device.tid(1)
    v = device.float16x2(h[i], h[i] * h[i])
    w = device.bfloat16x4(b[i], b[i] / 3, 1, 2)
    f8 = device.float8e4m3x4(e4[i], 1, 2, 3)
    out[i] = device.float32(v.y + v[0]) + device.float32(w.w) + device.float32(f8[i % 4]) + device.float32(e5[i] * e5[i])
    out[i] += abs(z[i].conjugate() / z[i]) + z[i].real + device.float64x3(1, 2, 3).z
    h[i] = h[i] ** 2 + device.float16(0.1)
'''


@pytest.mark.skipif(not pathlib.Path("/usr/local/cuda/bin/ptxas").exists(), reason="no CUDA toolkit")
def test_narrow_floats_and_vectors_compile_for_sm90(tmp_path):
    from test_sm90_ptxas import weftc_path

    # CUDA's cuda_fp16.h, cuda_bf16.h and cuda_fp8.h under NVRTC, and vector.h's layout asserts.
    source = tmp_path / "narrow.py"
    source.write_text(SM90_SOURCE)
    cubin = tmp_path / "narrow.cubin"
    result = subprocess.run([weftc_path(), str(source), "--cubin", "-arch", "sm_90", "-o", str(cubin)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr + result.stdout
    assert cubin.stat().st_size > 0
