"""Run-time checks (docs/debugging.md) on the CPU target: array accesses bounds-checked by
default (IndexError naming the kernel, the Python file:line, the index and the shape, raised
before anything is written), boundscheck=False / WEFT_BOUNDSCHECK=0 to opt out, and
debug=True / WEFT_DEBUG=1 for integer division by zero (ZeroDivisionError), assert
(AssertionError) and views' preconditions (ValueError). Results of checked kernels are compared
with NumPy on seeded random data. The tests that take `target` run again on the GPU
(test_debug_gpu.py)."""

import os
import pathlib
import struct
import subprocess

import numpy as np
import pytest

import weft
from cuda import device
from weft import cuda as classic

from launching import line_of

FILE = __file__  # reports name the file as Python does (its full path)


@pytest.fixture(scope="module")
def target():
    return "cpu"


def to_target(target, array):
    """`array` as the launch on `target` takes it (a device copy on the GPU)."""
    return weft.to_device(array) if target == "gpu" else array


def to_host(target, array):
    return array.copy_to_host() if target == "gpu" else array


def launch(target, kernel, *args, grid=1, block=1):
    # A @cuda.jit kernel wraps a weft kernel, which weft.launch takes with a target.
    weft.launch(getattr(kernel, "_kernel", kernel), *args, grid=grid, block=block, target=target)
    weft.synchronize()


def failure(kind, target, kernel, *args, grid=1, block=1):
    """The message of the `kind` exception the launch raises."""
    with pytest.raises(kind) as info:
        launch(target, kernel, *args, grid=grid, block=block)
    return str(info.value)


def where(kernel, text):
    """`file:line:` of the line of `kernel` that contains `text`, as reports begin."""
    return f"{FILE}:{line_of(kernel, text)}: "


# ---- element access out of bounds (checked by default on the CPU target) ----

# The kernels of the tests that take `target` say boundscheck=True (the CPU target's default):
# test_debug_gpu.py runs those tests on the GPU, where checks are off by default. The CPU
# target's default is shown by the kernels without options (nudge, warp_sum).


@device.kernel(boundscheck=True)
def store_at(a, i, v):
    a[i] = v


@device.kernel(boundscheck=True)
def store_in_window(buf, lo, hi, i, v):
    window = buf[lo:hi]
    window[i] = v


def test_a_store_out_of_bounds_raises_index_error_and_writes_nothing(target, rng):
    buf = rng.integers(-100, 100, 12).astype(np.int64)
    for index, axis_index in [(12, 12), (-13, -13), (40, 40)]:
        a = to_target(target, buf)
        message = failure(IndexError, target, store_at, a, index, 99)
        assert message.startswith(where(store_at, "a[i] = v")), message
        assert f"index {axis_index} is out of bounds for axis 0 with size 12" in message
        assert "    a[i] = v\n" in message
        assert "in kernel 'store_at', block (0, 0, 0), thread (0, 0, 0)" in message
        assert f"index ({index},) into an array of shape (12,)" in message
        np.testing.assert_array_equal(to_host(target, a), buf)
    # Negative indices in bounds wrap, as in Python.
    a = to_target(target, buf.copy())
    launch(target, store_at, a, -12, 7)
    expected = buf.copy()
    expected[-12] = 7
    np.testing.assert_array_equal(to_host(target, a), expected)


def test_a_view_is_checked_against_its_own_shape_and_its_neighbours_stay(target, rng):
    buf = rng.integers(-100, 100, 12).astype(np.int32)
    a = to_target(target, buf)
    message = failure(IndexError, target, store_in_window, a, 2, 10, 8, 5)
    assert message.startswith(where(store_in_window, "window[i] = v")), message
    assert "index 8 is out of bounds for axis 0 with size 8" in message
    message = failure(IndexError, target, store_in_window, a, 2, 10, -9, 5)
    assert "index -9 is out of bounds for axis 0 with size 8" in message
    np.testing.assert_array_equal(to_host(target, a), buf)
    launch(target, store_in_window, a, 2, 10, -8, 5)
    expected = buf.copy()
    expected[2] = 5
    np.testing.assert_array_equal(to_host(target, a), expected)


@device.kernel(boundscheck=True)
def store3(m, i, j, k, v):
    m[i, j, k] = v


def test_every_rank_reports_the_failing_axis_the_index_and_the_shape(target, rng):
    m = rng.standard_normal((2, 3, 4))
    d = to_target(target, m)
    cases = [((1, 3, 0), "index 3 is out of bounds for axis 1 with size 3"),
             ((-3, 0, 0), "index -3 is out of bounds for axis 0 with size 2"),
             ((0, 0, -5), "index -5 is out of bounds for axis 2 with size 4")]
    for (i, j, k), text in cases:
        message = failure(IndexError, target, store3, d, i, j, k, 1.0)
        assert text in message, message
        assert f"index ({i}, {j}, {k}) into an array of shape (2, 3, 4)" in message
    np.testing.assert_array_equal(to_host(target, d), m)
    launch(target, store3, d, -1, -1, -1, 2.5)
    m[-1, -1, -1] = 2.5
    np.testing.assert_array_equal(to_host(target, d), m)


@device.kernel(boundscheck=True)
def read_views(m, which, i, out):
    if which == 0:
        out[0] = m[1][i]
    elif which == 1:
        out[0] = m[:, 1:3][0, i]
    elif which == 2:
        out[0] = m.reshape(-1)[i]
    elif which == 3:
        out[0] = m.view(device.int32)[0, i]
    elif which == 4:
        out[0] = m[i, :][0]
    elif which == 5:
        t = (0, i)
        out[0] = m[t]
    elif which == 6:
        out[0] = m[::-1, ::2][1, i]


def test_views_tuple_indices_and_slicing_indices_are_checked(target, rng):
    m = rng.integers(-2**40, 2**40, (3, 4))
    d = to_target(target, m)
    flat = m.reshape(-1)
    as_int32 = m.view(np.int32)
    cases = [
        # which, i: what NumPy reads, or the failing axis and size
        (0, 2, m[1][2]), (0, -5, (0, 4)), (0, 4, (0, 4)),
        (1, 1, m[:, 1:3][0, 1]), (1, 2, (1, 2)),
        (2, 11, flat[11]), (2, 12, (0, 12)), (2, -12, flat[-12]),
        (3, 7, as_int32[0, 7]), (3, 8, (1, 8)),
        (4, -1, m[-1, :][0]), (4, 3, (0, 3)), (4, -4, (0, 3)),
        (5, 3, m[0, 3]), (5, 4, (1, 4)),
        (6, 1, m[::-1, ::2][1, 1]), (6, 2, (1, 2)),
    ]
    out = np.zeros(1, np.int64)
    for which, i, expected in cases:
        if isinstance(expected, tuple):
            axis, size = expected
            message = failure(IndexError, target, read_views, d, which, i, to_target(target, out))
            assert f"index {i} is out of bounds for axis {axis} with size {size}" in message, (which, i, message)
            assert "into an array of shape" in message
        else:
            o = to_target(target, out)
            launch(target, read_views, d, which, i, o)
            assert to_host(target, o)[0] == expected, (which, i)
    message = failure(IndexError, target, read_views, d, 4, 3, to_target(target, out))
    assert message.startswith(where(read_views, "out[0] = m[i, :][0]"))
    assert "an index of a slicing into an array of shape (3, 4)" in message


@device.struct
class Particle:
    x: device.float32
    n: device.int32


@device.kernel
def nudge(particles, i):
    p = particles[i]
    particles[i] = Particle(p.x + 1.0, p.n + 1)


def test_arrays_of_structs_are_checked(rng):
    particles = np.zeros(5, Particle.dtype)
    particles["x"] = rng.standard_normal(5)
    before = particles.copy()
    message = failure(IndexError, "cpu", nudge, particles, 5)
    assert message.startswith(where(nudge, "p = particles[i]"))
    np.testing.assert_array_equal(particles, before)
    launch("cpu", nudge, particles, -1)
    assert particles["n"][-1] == 1 and particles["x"][-1] == np.float32(before["x"][-1] + 1)


@device.kernel(boundscheck=True)
def scratch_arrays(out, which, i):
    s = device.shared_array(8, device.int32)
    s[device.thread_idx.x] = 3
    t = device.local_array((2, 3), device.float64)
    t[0, 0] = 1.5
    if which == 0:
        s[i] = 4
    elif which == 1:
        t[1, i] = 2.5
    elif which == 2:
        out[0] = s[i] + t[0, 0]


def test_shared_and_local_arrays_are_checked(target):
    out = np.zeros(1, np.float64)
    message = failure(IndexError, target, scratch_arrays, to_target(target, out), 0, 8)
    assert message.startswith(where(scratch_arrays, "        s[i] = 4"))
    assert "index 8 is out of bounds for axis 0 with size 8" in message
    message = failure(IndexError, target, scratch_arrays, to_target(target, out), 1, -4)
    assert "index -4 is out of bounds for axis 1 with size 3" in message
    assert "index (1, -4) into an array of shape (2, 3)" in message
    o = to_target(target, out)
    launch(target, scratch_arrays, o, 2, -8)
    assert to_host(target, o)[0] == 4.5


@device.kernel(boundscheck=True)
def dynamic_bytes(out, i):
    scratch = device.dynamic_shared_array()
    scratch[i] = 7
    out[0] = scratch[i] + scratch.size


def test_dynamic_shared_memory_is_checked_against_its_launch_size(target):
    out = np.zeros(1, np.int64)
    o = to_target(target, out)
    weft.launch(dynamic_bytes, o, 63, grid=1, block=1, shared=64, target=target)
    weft.synchronize()
    assert to_host(target, o)[0] == 71
    with pytest.raises(IndexError, match="index 64 is out of bounds for axis 0 with size 64"):
        weft.launch(dynamic_bytes, o, 64, grid=1, block=1, shared=64, target=target)
        weft.synchronize()


@device.kernel(boundscheck=True)
def count(hist, bins):
    i = device.tid(1)
    if i < bins.size:
        device.AtomicRef(hist, bins[i]).add(1)


@classic.jit(debug=True)
def classic_count(hist, bins):
    i = classic.grid(1)
    if i < bins.size:
        classic.atomic.add(hist, bins[i], 1)


@pytest.mark.parametrize("kernel", [count, classic_count], ids=["AtomicRef", "cuda.atomic"])
def test_atomics_on_elements_are_checked(target, kernel, rng):
    bins = rng.integers(0, 10, 500).astype(np.int32)
    hist = np.zeros(10, np.int32)
    h = to_target(target, hist)
    launch(target, kernel, h, to_target(target, bins), grid=4, block=128)
    np.testing.assert_array_equal(to_host(target, h), np.bincount(bins, minlength=10))
    bins[333] = 10
    h = to_target(target, np.zeros(10, np.int32))
    message = failure(IndexError, target, kernel, h, to_target(target, bins), grid=4, block=128)
    assert "index 10 is out of bounds for axis 0 with size 10" in message
    assert "block (2, 0, 0), thread (77, 0, 0)" in message


# ---- which failure is reported ----


@device.kernel(boundscheck=True)
def shifted_copy(a, out, k):
    i = device.tid(1)
    if i < out.size:
        out[i] = helper_read(a, i + k)


def helper_read(a, i):
    return a[i]


def test_the_lowest_failing_thread_is_reported_every_time(target, rng):
    # Threads 1000..1023 (blocks 7 and 8 of 128) all read past the end: block 7, thread 104
    # (index 1000 + k) is the first failure in (block, thread) order, whatever ran first.
    a = rng.standard_normal(1024 + 7)
    out = np.zeros(1024)
    for _ in range(5):
        message = failure(IndexError, target, shifted_copy, to_target(target, a), to_target(target, out), 31,
                          grid=8, block=128)
        assert "index 1031 is out of bounds for axis 0 with size 1031" in message, message
        assert "block (7, 0, 0), thread (104, 0, 0)" in message
        assert "in kernel 'shifted_copy', function 'helper_read'" in message
        assert message.startswith(where(helper_read, "return a[i]"))
    # A launch after a failure starts with a clean record and computes what NumPy does.
    o = to_target(target, out)
    launch(target, shifted_copy, to_target(target, a), o, 7, grid=8, block=128)
    np.testing.assert_array_equal(to_host(target, o), a[7:])


@device.kernel(boundscheck=True)
def block_sum(x, partial, extra):
    s = device.shared_array(64, device.float64)
    t = device.thread_idx.x
    s[t] = x[device.tid(1)]
    device.syncthreads()
    step = 32
    while step > 0:
        if t < step:
            s[t] += s[t + step + extra]
        device.syncthreads()
        step //= 2
    if t == 0:
        partial[device.block_idx.x] = s[0]


def test_a_failing_thread_of_a_block_with_barriers_stops_and_is_reported(target, rng):
    x = rng.standard_normal(64 * 5)
    partial = np.zeros(5)
    p = to_target(target, partial)
    launch(target, block_sum, to_target(target, x), p, 0, grid=5, block=64)
    np.testing.assert_allclose(to_host(target, p), x.reshape(5, 64).sum(axis=1), rtol=1e-12)
    # extra=1: thread 31 reads s[64] at the first step, in every block.
    message = failure(IndexError, target, block_sum, to_target(target, x), to_target(target, partial), 1,
                      grid=5, block=64)
    assert message.startswith(where(block_sum, "s[t] += s[t + step + extra]"))
    assert "index 64 is out of bounds for axis 0 with size 64" in message
    assert "block (0, 0, 0), thread (31, 0, 0)" in message


@device.kernel
def warp_sum(x, out, bad_lane):
    lane = device.lane_id
    v = x[lane + 32 * (lane == bad_lane)]
    total = v
    delta = 16
    while delta > 0:
        total += device.shfl_down_sync(0xFFFFFFFF, total, delta)
        delta //= 2
    if lane == 0:
        out[0] = total


def test_a_stopped_lane_leaves_the_warp_collectives_of_the_cpu_target(rng):
    x = rng.standard_normal(32)
    out = np.zeros(1)
    launch("cpu", warp_sum, x, out, -1, block=32)
    assert abs(out[0] - x.sum()) < 1e-12
    # Lane 5 stops before the shuffles; the other lanes finish them instead of waiting forever.
    message = failure(IndexError, "cpu", warp_sum, x, out, 5, block=32)
    assert "index 37 is out of bounds for axis 0 with size 32" in message
    assert "thread (5, 0, 0)" in message


# ---- the opt-out ----


@device.kernel(boundscheck=False)
def unchecked_read(buf, lo, hi, i, out):
    out[0] = buf[lo:hi][i]


def test_boundscheck_false_compiles_no_checks(target, rng):
    # Reading past the end of a window stays inside `buf`: unchecked, it reads the neighbour.
    buf = rng.standard_normal(16)
    out = np.zeros(1)
    o = to_target(target, out)
    launch(target, unchecked_read, to_target(target, buf), 4, 8, 6, o)
    assert to_host(target, o)[0] == buf[10]
    assert unchecked_read.boundscheck is False


def test_weft_boundscheck_environment_variable(monkeypatch, rng):
    buf = rng.standard_normal(16)
    out = np.zeros(1)
    monkeypatch.setenv("WEFT_BOUNDSCHECK", "0")
    off = device.kernel(unchecked_read.underlying)
    assert off.boundscheck is False
    launch("cpu", off, buf, 4, 8, 6, out)
    assert out[0] == buf[10]
    monkeypatch.setenv("WEFT_BOUNDSCHECK", "1")
    on = device.kernel(boundscheck=False)(unchecked_read.underlying)  # the variable decides
    assert on.boundscheck is True
    assert "index 6 is out of bounds" in failure(IndexError, "cpu", on, buf, 4, 8, 6, out)
    monkeypatch.setenv("WEFT_BOUNDSCHECK", "yes")
    with pytest.raises(ValueError, match="WEFT_BOUNDSCHECK must be 1 or 0"):
        device.kernel(unchecked_read.underlying)
    monkeypatch.setenv("WEFT_BOUNDSCHECK", "")
    assert device.kernel(unchecked_read.underlying).boundscheck is None


def test_boundscheck_option_values():
    assert nudge.boundscheck is None and store_at.boundscheck is True
    with pytest.raises(TypeError, match=r"boundscheck=...\) takes True, False or None"):
        device.kernel(boundscheck="no")
    with pytest.raises(TypeError, match="debug=True checks array bounds too"):
        device.kernel(debug=True, boundscheck=False)


# ---- debug=True: integer division by zero, assert, views' preconditions ----

INTEGER_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@device.kernel(debug=True)
def divide(a, b, q, r):
    i = device.tid(1)
    if i < a.size:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@device.kernel
def divide_unchecked(a, b, q, r):
    i = device.tid(1)
    if i < a.size:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@pytest.mark.parametrize("dtype", INTEGER_TYPES, ids=lambda t: np.dtype(t).name)
def test_integer_division_by_zero_raises_zero_division_error(target, dtype, rng):
    info = np.iinfo(dtype)
    n = 300
    a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    b = rng.integers(max(info.min, -50), 50, n, dtype=dtype, endpoint=True)
    b[b == 0] = 3
    q, r = np.zeros(n, dtype), np.zeros(n, dtype)
    dq, dr = to_target(target, q), to_target(target, r)
    launch(target, divide, to_target(target, a), to_target(target, b), dq, dr, grid=3, block=128)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(to_host(target, dq), a // b)
        np.testing.assert_array_equal(to_host(target, dr), a % b)
    b[200] = 0
    message = failure(ZeroDivisionError, target, divide, to_target(target, a), to_target(target, b),
                      to_target(target, q), to_target(target, r), grid=3, block=128)
    assert message.startswith(where(divide, "q[i] = a[i] // b[i]") + "integer division or modulo by zero"), message
    assert "block (1, 0, 0), thread (72, 0, 0)" in message
    if dtype is not np.int32:
        return
    # Without debug the division by zero has weft's defined result, 0.
    dq = to_target(target, q)
    launch(target, divide_unchecked, to_target(target, a), to_target(target, b), dq, to_target(target, r),
           grid=3, block=128)
    assert to_host(target, dq)[200] == 0


@device.kernel(debug=True)
def float_division(a, d, out):
    x = a[0]
    x %= d
    out[0] = x
    out[1] = a[1] / d
    out[2] = a[2] // d
    out[3] = a[3] / device.int64(d)


def test_float_division_by_zero_stays_ieee_with_debug(target):
    a = np.array([7.0, 1.0, -3.0, 5.0])
    out = np.zeros(4)
    o = to_target(target, out)
    launch(target, float_division, to_target(target, a), 0.0, o)
    np.testing.assert_array_equal(to_host(target, o), [np.nan, np.inf, -np.inf, np.inf])
    launch(target, float_division, to_target(target, a), 2.5, o)
    np.testing.assert_array_equal(to_host(target, o), [7.0 % 2.5, 1.0 / 2.5, -3.0 // 2.5, 5.0 / 2])


@device.kernel(debug=True)
def int_remainder(a, d, out):
    x = a[0]
    x %= d
    out[0] = x


def test_augmented_integer_modulo_by_zero_raises(target):
    a = np.array([7], np.int32)
    message = failure(ZeroDivisionError, target, int_remainder, to_target(target, a), 0, to_target(target, a))
    assert message.startswith(where(int_remainder, "x %= d"))


@device.kernel(debug=True)
def checked_mean(values, out):
    n = values.size
    assert n > 0, "values must not be empty"
    total = 0.0
    for k in range(n):
        assert values[k] == values[k]
        total += values[k]
    out[0] = total / n


def test_assert_raises_assertion_error_with_its_message_and_line(target, rng):
    values = rng.standard_normal(50)
    out = np.zeros(1)
    o = to_target(target, out)
    launch(target, checked_mean, to_target(target, values), o)
    assert abs(to_host(target, o)[0] - values.mean()) < 1e-12
    message = failure(AssertionError, target, checked_mean, to_target(target, values[:0]), o)
    assert message.startswith(where(checked_mean, "assert n > 0") + "values must not be empty"), message
    values[17] = np.nan
    message = failure(AssertionError, target, checked_mean, to_target(target, values), o)
    assert message.startswith(where(checked_mean, "assert values[k] == values[k]") + "assertion failed")


@classic.jit(debug=True)
def classic_checked(a):
    assert a[0] > 0, "a[0] must be positive"


def test_classic_jit_debug_checks_too(target):
    a = to_target(target, np.array([-1.0]))
    with pytest.raises(AssertionError, match="a\\[0\\] must be positive"):
        launch(target, classic_checked, a)


def test_asserts_are_skipped_without_debug():
    plain = device.kernel(checked_mean.underlying)
    out = np.zeros(1)
    launch("cpu", plain, np.array([1.0, np.nan]), out)
    assert np.isnan(out[0])


def test_weft_debug_turns_debug_on_for_every_kernel(monkeypatch):
    monkeypatch.setenv("WEFT_DEBUG", "1")
    forced = device.kernel(debug=False)(checked_mean.underlying)
    assert forced.debug is True
    with pytest.raises(AssertionError, match="values must not be empty"):
        launch("cpu", forced, np.zeros(0), np.zeros(1))
    monkeypatch.setenv("WEFT_DEBUG", "0")
    assert device.kernel(debug=True)(checked_mean.underlying).debug is False
    monkeypatch.setenv("WEFT_DEBUG", "true")
    with pytest.raises(ValueError, match="WEFT_DEBUG must be 1 or 0"):
        device.kernel(checked_mean.underlying)


@device.kernel(debug=True)
def preconditions(a, step, out):
    out[0] = len(a[::step])
    out[1] = a.reshape(5, -1).size


def test_failed_view_preconditions_raise_value_error(target):
    out = np.zeros(2, np.int64)
    a = np.arange(12.0)
    message = failure(ValueError, target, preconditions, to_target(target, a), 0, to_target(target, out))
    assert message.startswith(where(preconditions, "out[0] = len(a[::step])") + "slice step cannot be zero")
    message = failure(ValueError, target, preconditions, to_target(target, a), 1, to_target(target, out))
    assert "reshape(): the array's size does not fit the new shape" in message
    o = to_target(target, out)
    launch(target, preconditions, to_target(target, np.arange(10.0)), -3, o)
    np.testing.assert_array_equal(to_host(target, o), [4, 10])


# ---- compile errors ----


@device.kernel(debug=True)
def formatted_message(a):
    assert a[0] > 0, f"{a[0]} is not positive"


def test_a_formatted_assert_message_is_a_compile_error():
    with pytest.raises(weft.CompileError, match=r"AssertMessage") as info:
        launch("cpu", formatted_message, np.ones(1))
    assert f"{FILE}:{line_of(formatted_message, 'assert a[0]')}:" in str(info.value)


# ---- -lineinfo ----


def elf_sections(data):
    """{name: bytes} of the sections of a 64-bit little-endian ELF file (a cubin)."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + k * shentsize) for k in range(shnum)]
    names = headers[shstrndx]
    sections = {}
    for name, _, _, _, offset, size, *_ in headers:
        start = names[4] + name
        label = data[start:data.index(b"\0", start)].decode()
        sections[label] = data[offset:offset + size]
    return sections


def test_lineinfo_does_not_change_the_machine_code(tmp_path):
    """NVRTC compiles every unit with -lineinfo (line tables for compute-sanitizer and cuda-gdb);
    the machine code is the same without it. nvcc shares NVRTC's compiler, so it shows this
    here: the cubins' code sections are identical, only the line tables are added."""
    nvcc = pathlib.Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin" / "nvcc"
    if not nvcc.exists():
        pytest.skip("no CUDA toolkit")
    unit = tmp_path / "unit.cu"
    unit.write_text(shifted_copy._emit_cuda(np.zeros(4), np.zeros(4), 0, target="cpu"))
    include = pathlib.Path(weft.__file__).parent / "include"
    if not include.is_dir():
        include = pathlib.Path(__file__).resolve().parents[2] / "include"

    def code(*flags):
        cubin = tmp_path / f"unit{len(flags)}.cubin"
        subprocess.run([str(nvcc), "-std=c++17", "-arch=sm_90", "-cubin", *flags, f"-I{include}", str(unit),
                        "-o", str(cubin)], check=True, capture_output=True)
        sections = elf_sections(cubin.read_bytes())
        return {name: bytes_ for name, bytes_ in sections.items() if name.startswith(".text.")}, sections

    (plain, _), (with_lines, all_sections) = code(), code("-lineinfo")
    assert plain and plain == with_lines
    assert any("line" in name for name in all_sections)
