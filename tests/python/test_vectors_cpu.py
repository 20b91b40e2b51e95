"""Vectors on the CPU target: construction, components, size/len/dtype, constant and variable
indexing, immutability errors and their locations, host vector objects.

test_types_gpu.py runs a selection again on the GPU by overriding the `target` fixture.
"""


import ml_dtypes
import numpy as np
import pytest

import weft
from cuda import device
from launching import run, line_of


@pytest.fixture(scope="module")
def target():
    return "cpu"


@device.kernel
def float4_ops(a, out):
    i = device.tid(1)
    if i < a.shape[0]:
        v = device.float32x4(a[i, 0], a[i, 1], a[i, 2], a[i, 3])
        out[i, 0] = v.x + v.y * v.z - v.w
        out[i, 1] = v[0] + v[-1]
        total = device.float32(0)
        for k in range(v.size):
            total += v[k] * (k + 1)
        out[i, 2] = total
        out[i, 3] = len(v) + v.size


def test_float32x4_components_indexing_and_size(target, rng):
    n = 33
    a = rng.standard_normal((n, 4)).astype(np.float32)
    out = np.zeros((n, 4), np.float32)
    run(target, float4_ops, a, out, block=64)
    # The GPU contracts a * b + c into one fma (as nvcc does by default), rounding once where NumPy
    # rounds twice: near cancellation that differs by an ulp of the product, hence the atol.
    np.testing.assert_allclose(out[:, 0], a[:, 0] + a[:, 1] * a[:, 2] - a[:, 3], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(out[:, 1], a[:, 0] + a[:, 3], rtol=1e-6)
    # A sum of four terms can cancel: its float32 rounding is absolute, so the tolerance is too.
    np.testing.assert_allclose(out[:, 2], a @ np.arange(1, 5, dtype=np.float32), rtol=1e-5, atol=1e-5)
    assert (out[:, 3] == 8).all()


@device.kernel
def every_vector_type(a, out):
    i = device.tid(1)
    if i < a.size:
        x = a[i]
        out[i, 0] = device.int8x1(x).x
        out[i, 1] = device.int16x2(x, 2).y
        out[i, 2] = device.int32x3(x, x, 3).z
        out[i, 3] = device.int64x4(x, x, x, 4).w
        out[i, 4] = device.uint8x2(x, 5)[1]
        out[i, 5] = device.uint16x3(x, 6, 7)[2]
        out[i, 6] = device.uint32x4(1, 2, 3, x)[3]
        out[i, 7] = device.uint64x1(x)[0]
        out[i, 8] = device.float16x2(x, 0.5).x
        out[i, 9] = device.bfloat16x4(0, 0, 0, x).w
        out[i, 10] = device.float8e4m3x2(x, 1).y
        out[i, 11] = device.float8e5m2x3(1, x, 2).y
        out[i, 12] = device.float64x2(x, 1.5).x
        out[i, 13] = device.float32x1(x).dtype(x) + 1


def test_every_element_type(target, rng):
    n = 16
    a = rng.integers(1, 16, n).astype(np.int32)
    out = np.zeros((n, 14), np.float64)
    run(target, every_vector_type, a, out, block=16)
    expected = np.stack([a, np.full(n, 2), np.full(n, 3), np.full(n, 4), np.full(n, 5), np.full(n, 7), a, a, a, a,
                         np.ones(n), a.astype(ml_dtypes.float8_e5m2).astype(np.float64), a, a + 1], axis=1).astype(np.float64)
    np.testing.assert_array_equal(out, expected)


@device.kernel
def variable_index(a, idx, out):
    i = device.tid(1)
    if i < idx.size:
        v = device.int32x4(a[0], a[1], a[2], a[3])
        out[i] = v[idx[i]]


def test_variable_index_wraps_negative_indices(target):
    a = np.array([10, 20, 30, 40], np.int32)
    idx = np.array([0, 1, 2, 3, -1, -2, -3, -4], np.int32)
    out = np.zeros(8, np.int32)
    run(target, variable_index, a, idx, out, block=8)
    assert list(out) == [10, 20, 30, 40, 40, 30, 20, 10]


@device.kernel
def missing_component(out):
    v = device.float32x2(1, 2)
    out[0] = v.z


@device.kernel
def assign_component(out):
    v = device.float32x3(1, 2, 3)
    v.y = 5
    out[0] = v.y


@device.kernel
def assign_element(out):
    v = device.int32x2(1, 2)
    v[0] = 5
    out[0] = v[0]


@device.kernel
def wrong_count(out):
    v = device.float32x4(1, 2, 3)
    out[0] = v.x


@device.kernel
def index_out_of_range(out):
    v = device.uint8x3(1, 2, 3)
    out[0] = v[3]


@device.kernel
def complex_element(out):
    v = device.float32x2(1j, 2)
    out[0] = v.x


@pytest.mark.parametrize(
    "kernel, text, message",
    [
        (missing_component, "v.z", "float32x2 has no component 'z': it has 2 elements (x, y)"),
        (assign_component, "v.y = 5", "vectors are immutable: component 'y' of float32x3 cannot be assigned; "
                                      "build a new vector instead, e.g. v = device.float32x3(v.x, new_y, v.z)"),
        (assign_element, "v[0] = 5", "vectors are immutable: an element of int32x2 cannot be assigned"),
        (wrong_count, "float32x4(1, 2, 3)", "device.float32x4() takes 4 elements (x, y, z, w) (one per component), not 3"),
        (index_out_of_range, "v[3]", "index 3 is out of range for uint8x3, which has 3 elements (x, y, z)"),
        (complex_element, "1j", "element 1 of device.float32x2() must be a real number"),
    ],
)
def test_vector_errors_name_the_line(target, kernel, text, message):
    with pytest.raises(weft.CompileError) as info:
        run(target, kernel, np.zeros(1, np.float32))
    assert message in str(info.value)
    assert f"test_vectors_cpu.py:{line_of(kernel, text)}" in str(info.value)


def test_host_vectors():
    v = device.float32x4(1, 2.5, 3, 4)
    assert (v.x, v.y, v.z, v.w) == (1, 2.5, 3, 4) and len(v) == 4 and v.size == 4
    assert v.dtype is device.float32 and list(v) == [1, 2.5, 3, 4] and v[-1] == 4
    assert isinstance(v.x, np.float32)
    assert device.int8x2(200, -1).x == -56  # wraps as on the device
    assert device.bfloat16x2(1.1, 2).x == ml_dtypes.bfloat16(1.1)
    with pytest.raises(AttributeError, match="immutable"):
        v.x = 3
    with pytest.raises(TypeError, match="immutable"):
        v[0] = 3
    with pytest.raises(AttributeError):
        device.float32x2(1, 2).z
    with pytest.raises(TypeError, match="takes 3 values"):
        device.int32x3(1, 2)
    assert device.float32x2(1, 2) == device.float32x2(1, 2) != device.float32x2(2, 1)


@device.kernel
def dim3_is_uint32x3(out):
    t = device.thread_idx
    x, y, z = device.block_dim
    i = t.x + t.y * x
    out[i, 0] = t[0]
    out[i, 1] = t.y
    out[i, 2] = t.size + len(t) + z


def test_thread_idx_is_a_uint32x3(target):
    out = np.zeros((8, 3), np.int64)
    run(target, dim3_is_uint32x3, out, block=(4, 2, 1))
    assert [list(r) for r in out] == [[i % 4, i // 4, 7] for i in range(8)]
