"""numba-cuda's host API in the classic front (issue 10, item 9): device arrays indexed from the
host, copies, layouts and record dtypes; page-locked and mapped host memory, streams, events and
the device. Each test runs on the target the `target` fixture names (the CPU here; the GPU in the
`gpu` twins), against NumPy on seeded random data."""

import numpy as np
import pytest

import weft
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
    with pytest.raises(ValueError, match="strides"):
        cuda.device_array((2, 2), strides=(8, 16))


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
    np.testing.assert_allclose(result["x"], expected["x"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(result["y"], expected["y"])
    np.testing.assert_array_equal(result["id"], host["id"])
    record = d[5]
    assert record["id"] == 5 and record["mass"] == host["mass"][5]
    d[6] = (1.0, 2.0, 3.0, 4)
    assert tuple(d.copy_to_host()[6]) == (1.0, 2.0, 3.0, 4)


# ---- page-locked and mapped host memory ----


@cuda.jit
def scale_add(x, factor, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * factor + 1


def test_pinned_array_round_trip_on_a_stream(target, rng):
    # numba's documented pattern: page-locked staging buffers, asynchronous copies and a launch
    # on one stream, then a synchronize before the host reads.
    n = 1000
    host_in = cuda.pinned_array(n, np.float32)
    host_out = cuda.pinned_array_like(host_in)
    assert isinstance(host_in, np.ndarray) and host_in.shape == (n,) and host_out.dtype == np.float32
    host_in[:] = rng.standard_normal(n).astype(np.float32)
    stream = cuda.stream()
    d_in = cuda.to_device(host_in, stream=stream)
    d_out = cuda.device_array_like(d_in, stream=stream)
    scale_add[(n + 127) // 128, 128, stream](d_in, np.float32(3), d_out)
    d_out.copy_to_host(host_out, stream=stream)
    stream.synchronize()
    np.testing.assert_allclose(host_out, host_in * 3 + 1, rtol=1e-6, atol=1e-6)  # the GPU may fuse into one fma
    again = d_out.copy_to_host(stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(again, host_out)


def test_pinned_array_layouts_and_records(target):
    f = cuda.pinned_array((3, 5), np.int16, order="F")
    assert f.flags.f_contiguous and f.dtype == np.int16
    records = cuda.pinned_array(4, particle)
    records["id"] = np.arange(4)
    d = cuda.to_device(records)
    assert d.dtype == particle and d[3]["id"] == 3
    like = cuda.pinned_array_like(np.empty((2, 3), order="F"))
    assert like.flags.f_contiguous and like.dtype == np.float64


def test_mapped_array_is_used_in_place(target, rng):
    n = 300
    x = cuda.mapped_array(n, np.float64)
    out = cuda.mapped_array_like(x)
    x[:] = rng.standard_normal(n)
    scale_add[(n + 63) // 64, 64](x, 0.5, out)
    cuda.synchronize()
    np.testing.assert_allclose(out, x * 0.5 + 1)
    if target == "gpu":
        assert isinstance(out, cuda.MappedArray) and hasattr(out[10:], "__cuda_array_interface__")
        # The result of an operation is new, unmapped memory: launches copy it as any NumPy array.
        doubled = out * 2
        assert not hasattr(doubled, "__cuda_array_interface__")
        scale_add[(n + 63) // 64, 64](doubled, 1.0, out)
        cuda.synchronize()
        np.testing.assert_allclose(out, doubled + 1)


def test_pinned_and_mapped_context_managers(target, rng):
    # Arrays of 512 KiB: each in pages of its own, which the driver page-locks one range at a time.
    n = 1 << 16
    a = rng.standard_normal(n)
    result = np.zeros(n)
    with cuda.pinned(a, result):
        d = cuda.to_device(a)
        scale_add[n // 256, 256](d, 2.0, d)
        d.copy_to_host(result)
    np.testing.assert_allclose(result, a * 2 + 1)
    b = rng.standard_normal(n)
    out = np.zeros(n)
    with cuda.mapped(b, out) as (db, dout):
        scale_add[n // 256, 256](db, -1.0, dout)
        cuda.synchronize()
    np.testing.assert_allclose(out, 1 - b)
    with cuda.mapped(b) as alone:
        assert alone.shape == (n,)


# ---- streams and events ----


def test_streams_and_auto_synchronize(target, rng):
    a = rng.standard_normal(256).astype(np.float32)
    streams = [cuda.stream() for _ in range(3)]
    results = []
    for k, stream in enumerate(streams):
        with stream.auto_synchronize():
            d = cuda.to_device(a, stream=stream)
            out = cuda.device_array_like(d)
            scale_add[2, 128, stream](d, np.float32(k), out)
            results.append(out.copy_to_host(stream=stream))
    for k, result in enumerate(results):
        np.testing.assert_allclose(result, a * k + 1, rtol=1e-6, atol=1e-6)
    assert all(stream.query() for stream in streams)
    for default in (cuda.default_stream(), cuda.legacy_default_stream(), cuda.per_thread_default_stream()):
        scale_add[2, 128, default](cuda.to_device(a), np.float32(2), cuda.to_device(a))
        default.synchronize()
    assert "stream" in repr(streams[0]).lower()


def test_events_time_a_kernel(target, rng):
    a = cuda.to_device(rng.standard_normal(4096))
    out = cuda.device_array_like(a)
    stream = cuda.stream()
    start, end = cuda.event(), cuda.event()
    start.record(stream)
    scale_add[32, 128, stream](a, 2.0, out)
    end.record(stream)
    end.synchronize()
    assert end.query()
    elapsed = start.elapsed_time(end)
    assert elapsed >= 0 and cuda.event_elapsed_time(start, end) == elapsed
    np.testing.assert_allclose(out.copy_to_host(), a.copy_to_host() * 2 + 1)
    other = cuda.stream()
    end.wait(other)
    other.synchronize()
    untimed = cuda.event(timing=False)
    untimed.record()
    untimed.synchronize()
    with pytest.raises(ValueError, match="timing"):
        start.elapsed_time(untimed)


def test_synchronize_and_select_device(target):
    cuda.synchronize()
    assert cuda.select_device(0) == cuda.get_current_device()
    context = cuda.current_context()
    context.synchronize()
    assert context.device == cuda.get_current_device() and context.device.id == 0
    with pytest.raises(ValueError, match="device 0"):
        cuda.select_device(1)


def test_device_properties_need_a_gpu(target):
    device = cuda.get_current_device()
    if not cuda.is_available():
        assert len(cuda.gpus) == 0 and cuda.list_devices() == []
        with pytest.raises(weft.CudaError, match="no CUDA GPU"):
            device.name
        return
    assert isinstance(device.name, str) and device.name
    major, minor = device.compute_capability
    assert major >= 5 and device.WARP_SIZE == 32 and device.MULTIPROCESSOR_COUNT > 0
    assert len(cuda.gpus) == 1 and cuda.gpus[0] == device and cuda.gpus.current == device
    with cuda.gpus[0]:
        scale_add[1, 32](cuda.to_device(np.ones(32)), 2.0, cuda.device_array(32))
    free, total = cuda.current_context().get_memory_info()
    assert 0 < free <= total
    with pytest.raises(AttributeError):
        device.NOT_AN_ATTRIBUTE


# ---- reshape, ravel, split, transpose ----


def test_reshape_and_ravel_are_views(target, rng):
    host = rng.standard_normal((4, 6))
    d = cuda.to_device(host)
    r = d.reshape(3, 8)
    np.testing.assert_array_equal(r.copy_to_host(), host.reshape(3, 8))
    np.testing.assert_array_equal(d.reshape((2, -1, 3)).copy_to_host(), host.reshape(2, -1, 3))
    flat = d.ravel()
    assert flat.shape == (24,)
    flat[5] = 99.0
    host.ravel()[5] = 99.0
    np.testing.assert_array_equal(d.copy_to_host(), host)
    launch1(double_all, 24, r.ravel())
    np.testing.assert_array_equal(d.copy_to_host(), host * 2)
    f = cuda.to_device(np.asfortranarray(host))
    np.testing.assert_array_equal(f.reshape(6, 4, order="F").copy_to_host(), host.reshape(6, 4, order="F"))
    with pytest.raises(NotImplementedError, match="copy"):
        d[:, ::2].reshape(12)
    with pytest.raises(ValueError, match="size 24"):
        d.reshape(5, 5)


def test_split_and_transpose(target, rng):
    host = rng.integers(0, 100, 10).astype(np.int32)
    d = cuda.to_device(host)
    parts = d.split(4)
    assert [p.shape for p in parts] == [(4,), (4,), (2,)]
    np.testing.assert_array_equal(parts[2].copy_to_host(), host[8:])
    matrix = rng.standard_normal((3, 5)).astype(np.float32)
    m = cuda.to_device(matrix)
    assert m.T.shape == (5, 3) and m.T.flags["F_CONTIGUOUS"]
    np.testing.assert_array_equal(m.T.copy_to_host(), matrix.T)
    fill_index_2d[(1, 1), (8, 8)](m.T)
    np.testing.assert_array_equal(m.copy_to_host(), np.add.outer(np.arange(5) * 100, np.arange(3)).T)
    np.testing.assert_array_equal(m.transpose((1, 0)).copy_to_host(), m.copy_to_host().T)
