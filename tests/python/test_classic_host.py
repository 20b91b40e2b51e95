"""numba-cuda's host API in the classic front (issue 10, item 9): device arrays indexed from the
host, copies, layouts and record dtypes; page-locked and mapped host memory, streams, events and
the device. Each test runs on the target the `target` fixture names (the CPU here; the GPU in the
`gpu` twins), against NumPy on seeded random data."""

import numpy as np
import pytest

from classic_support import launch1, target  # noqa: F401
from weft import cuda


@cuda.jit
def double_all(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = x[i] * 2


@cuda.jit
def fill_index_2d(x):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        x[i, j] = i * 100 + j


# ---- element and slice access from the host ----


def test_element_get_and_set(target, rng):
    host = rng.standard_normal((5, 7)).astype(np.float32)
    d = cuda.to_device(host)
    assert d[3, 4] == host[3, 4] and isinstance(d[3, 4], np.float32)
    assert d[-1, -2] == host[-1, -2]
    d[2, 5] = 42.5
    d[-1, 0] = -1
    host[2, 5], host[-1, 0] = 42.5, -1
    np.testing.assert_array_equal(d.copy_to_host(), host)
    with pytest.raises(IndexError):
        d[5, 0]


def test_one_dimensional_element_access(target, rng):
    # numba's documented pattern: read one element of a result on the host.
    host = rng.integers(-1000, 1000, 33).astype(np.int64)
    d = cuda.to_device(host)
    assert [d[i] for i in (0, 3, 32, -1)] == [host[i] for i in (0, 3, 32, -1)]
    assert len(d) == 33


def test_slice_set_from_host_and_scalar(target, rng):
    host = rng.standard_normal(20)
    d = cuda.to_device(host)
    values = rng.standard_normal(4)
    d[1:5] = values
    d[10:] = 0.25
    d[::3] = -7.0
    host[1:5] = values
    host[10:] = 0.25
    host[::3] = -7.0
    np.testing.assert_array_equal(d.copy_to_host(), host)


def test_slices_are_views_sharing_memory(target, rng):
    host = rng.standard_normal((6, 8)).astype(np.float32)
    d = cuda.to_device(host)
    column = d[2:, 1]
    assert column.shape == (4,) and column.strides == (32,)
    np.testing.assert_array_equal(column.copy_to_host(), host[2:, 1])
    column[:] = np.arange(4, dtype=np.float32)
    host[2:, 1] = np.arange(4)
    np.testing.assert_array_equal(d.copy_to_host(), host)
    block = d[1:4, ::-2]
    np.testing.assert_array_equal(block.copy_to_host(), host[1:4, ::-2])
    block[...] = rng.standard_normal(block.shape).astype(np.float32)
    np.testing.assert_array_equal(d.copy_to_host()[1:4, ::-2], block.copy_to_host())
    np.testing.assert_array_equal(d[..., 3].copy_to_host(), d.copy_to_host()[..., 3])
    assert d[None, 2].shape == (1, 8)


def test_kernels_take_views(target, rng):
    host = rng.standard_normal((6, 40)).astype(np.float32)
    d = cuda.to_device(host)
    launch1(double_all, 40, d[3])          # a row: contiguous
    launch1(double_all, 6, d[:, 7])        # a column: strided
    launch1(double_all, 20, d[5, ::2])     # every other element of a row
    host[3] *= 2
    host[:, 7] *= 2
    host[5, ::2] *= 2
    np.testing.assert_array_equal(d.copy_to_host(), host)


def test_fancy_indexing_is_a_type_error(target):
    d = cuda.device_array(10, np.float32)
    with pytest.raises(TypeError, match="basic indexing"):
        d[[1, 2]]
    with pytest.raises(TypeError, match="basic indexing"):
        d[np.arange(3)] = 1
    with pytest.raises(TypeError, match="basic indexing"):
        d[True]


# ---- copies ----


def test_copy_to_host_into_out(target, rng):
    host = rng.standard_normal((4, 9))
    d = cuda.to_device(host)
    out = np.empty_like(host)
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out, host)
    fortran = np.empty(host.shape, order="F")
    d.copy_to_host(fortran, stream=0)
    np.testing.assert_array_equal(fortran, host)
    with pytest.raises(ValueError, match="shape"):
        d.copy_to_host(np.empty((9, 4)))


def test_copy_to_device_from_host_and_device(target, rng):
    first = rng.standard_normal(50).astype(np.float32)
    second = rng.standard_normal(50).astype(np.float32)
    d = cuda.device_array_like(first)
    d.copy_to_device(first)
    np.testing.assert_array_equal(d.copy_to_host(), first)
    other = cuda.to_device(second)
    d.copy_to_device(other)
    np.testing.assert_array_equal(d.copy_to_host(), second)
    d[10:20].copy_to_device(first[:10])
    second[10:20] = first[:10]
    np.testing.assert_array_equal(d.copy_to_host(), second)
    with pytest.raises(ValueError, match="shape"):
        d.copy_to_device(first[:3])


def test_to_device_into_existing_array(target, rng):
    host = rng.standard_normal(16)
    d = cuda.device_array(16)
    assert cuda.to_device(host, to=d) is d
    np.testing.assert_array_equal(d.copy_to_host(), host)


# ---- layouts ----


def test_flags_of_arrays_and_views(target):
    d = cuda.device_array((4, 5), np.float32)
    assert d.flags["C_CONTIGUOUS"] and not d.flags["F_CONTIGUOUS"]
    assert not d[:, 1].flags["C_CONTIGUOUS"] and not d[:, 1].flags["F_CONTIGUOUS"]
    assert d[1].flags["C_CONTIGUOUS"] and d[1].flags["F_CONTIGUOUS"]
    f = cuda.device_array((4, 5), np.float32, order="F")
    assert f.flags["F_CONTIGUOUS"] and not f.flags["C_CONTIGUOUS"]
    assert f.strides == (4, 16)
    assert f[:, 2].flags["C_CONTIGUOUS"]
    assert d.is_c_contiguous() and f.is_f_contiguous()


def test_fortran_order_arrays(target, rng):
    host = np.asfortranarray(rng.standard_normal((5, 3)))
    d = cuda.to_device(host)
    assert d.flags["F_CONTIGUOUS"] and not d.flags["C_CONTIGUOUS"]
    back = d.copy_to_host()
    assert back.flags.f_contiguous
    np.testing.assert_array_equal(back, host)
    assert d[4, 1] == host[4, 1]
    like = cuda.device_array_like(host)
    assert like.flags["F_CONTIGUOUS"]
    out = cuda.device_array((7, 9), np.int32, order="F")
    fill_index_2d[(1, 1), (8, 16)](out)
    expected = np.add.outer(np.arange(7) * 100, np.arange(9)).astype(np.int32)
    np.testing.assert_array_equal(out.copy_to_host(), expected)
    with pytest.raises(ValueError, match="order"):
        cuda.device_array(3, order="K")


# ---- record dtypes ----

particle = np.dtype([("x", np.float64), ("y", np.float64), ("mass", np.float32), ("id", np.int32)], align=True)


@cuda.jit
def move(particles, dt):
    i = cuda.grid(1)
    if i < particles.size:
        p = particles[i]
        particles[i] = p.replace(x=p.x + dt * p.mass, y=p.y - dt * p.id)


def test_record_dtype_device_array(target, rng):
    host = np.zeros(37, particle)
    host["x"] = rng.standard_normal(37)
    host["y"] = rng.standard_normal(37)
    host["mass"] = rng.random(37).astype(np.float32)
    host["id"] = np.arange(37)
    d = cuda.device_array(37, dtype=particle)
    d.copy_to_device(host)
    launch1(move, 37, d, 0.5)
    expected = host.copy()
    expected["x"] = host["x"] + 0.5 * host["mass"]
    expected["y"] = host["y"] - 0.5 * host["id"]
    result = d.copy_to_host()
    assert result.dtype == particle
    np.testing.assert_allclose(result["x"], expected["x"], rtol=1e-6)
    np.testing.assert_allclose(result["y"], expected["y"])
    np.testing.assert_array_equal(result["id"], host["id"])
    record = d[5]
    assert record["id"] == 5 and record["mass"] == host["mass"][5]
    d[6] = (1.0, 2.0, 3.0, 4)
    assert tuple(d.copy_to_host()[6]) == (1.0, 2.0, 3.0, 4)
