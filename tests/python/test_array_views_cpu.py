"""Views of arrays in device code (docs/arrays.md), checked against the same NumPy expression on
random data: slicing with every combination of start/stop/step (negative, omitted and out of
range), integers mixed with slices, ellipsis, views passed to functions, sliced again and
written through; view(dtype), reshape without a copy, astype(copy=False) and .dtype; every
element type, structs and records; arrays of 4 and 5 dimensions; the run-time behaviour of
failed preconditions (empty views, or ValueError with debug=True); and the compile errors.

test_array_views_gpu.py runs the tests that take `target` again on the GPU.
"""


import ml_dtypes
import numpy
import numpy as np
import pytest

import weft
from cuda import device
from launching import run, line_of
from test_sm90_ptxas import CUDA, compile_for_sm90

I64_MIN, I64_MAX = -(2**63), 2**63 - 1


@pytest.fixture(scope="module")
def target():
    return "cpu"


def blocks(n, block=64):
    return (n + block - 1) // block


# ---- helpers: device functions that take views like any array ----


def copy1(v, dst):
    for p in range(v.shape[0]):
        dst[p] = v[p]


def copy2(v, dst):
    for p in range(v.shape[0]):
        for q in range(v.shape[1]):
            dst[p, q] = v[p, q]


def copy3(v, dst):
    for p in range(v.shape[0]):
        copy2(v[p], dst[p])


def tail(v):
    return v[1:]


def record_1d(v, lengths, out, i):
    lengths[i] = len(v)
    copy1(v, out[i])


# ---- 1-D slicing: every form against Python's slice semantics ----


@device.kernel
def slice_start_stop_step(a, starts, stops, steps, lengths, out):
    i = device.tid(1)
    if i < starts.size:
        record_1d(a[starts[i]:stops[i]:steps[i]], lengths, out, i)


@device.kernel
def slice_stop_step(a, starts, stops, steps, lengths, out):
    i = device.tid(1)
    if i < starts.size:
        record_1d(a[:stops[i]:steps[i]], lengths, out, i)


@device.kernel
def slice_start_step(a, starts, stops, steps, lengths, out):
    i = device.tid(1)
    if i < starts.size:
        record_1d(a[starts[i]::steps[i]], lengths, out, i)


@device.kernel
def slice_step(a, starts, stops, steps, lengths, out):
    i = device.tid(1)
    if i < starts.size:
        record_1d(a[::steps[i]], lengths, out, i)


@device.kernel
def slice_start_stop(a, starts, stops, steps, lengths, out):
    i = device.tid(1)
    if i < starts.size:
        record_1d(a[starts[i]:stops[i]], lengths, out, i)


@device.kernel
def slice_start(a, starts, stops, steps, lengths, out):
    i = device.tid(1)
    if i < starts.size:
        record_1d(a[starts[i]:], lengths, out, i)


@device.kernel
def slice_stop(a, starts, stops, steps, lengths, out):
    i = device.tid(1)
    if i < starts.size:
        record_1d(a[None:stops[i]], lengths, out, i)


SLICE_FORMS = [
    (slice_start_stop_step, lambda s, e, t: slice(s, e, t)),
    (slice_stop_step, lambda s, e, t: slice(None, e, t)),
    (slice_start_step, lambda s, e, t: slice(s, None, t)),
    (slice_step, lambda s, e, t: slice(None, None, t)),
    (slice_start_stop, lambda s, e, t: slice(s, e)),
    (slice_start, lambda s, e, t: slice(s, None)),
    (slice_stop, lambda s, e, t: slice(None, e)),
]


@pytest.mark.parametrize("kernel,form", SLICE_FORMS, ids=[k.__name__ for k, _ in SLICE_FORMS])
def test_slices_follow_python_for_every_start_stop_step(target, rng, kernel, form):
    n = 10
    a = rng.standard_normal(n)
    bounds = list(range(-13, 14)) + [I64_MIN, I64_MIN + 1, I64_MAX]
    steps = [-11, -3, -2, -1, 1, 2, 3, 11, I64_MIN, I64_MAX]
    grid = np.array([(s, e, t) for s in bounds for e in bounds for t in steps], dtype=np.int64)
    starts, stops, steps_ = (np.ascontiguousarray(grid[:, k]) for k in range(3))
    lengths = np.full(len(grid), -1, np.int64)
    out = np.full((len(grid), n), np.nan)
    run(target, kernel, a, starts, stops, steps_, lengths, out, grid=blocks(len(grid)), block=64)
    for i, (s, e, t) in enumerate(grid.tolist()):
        expected = a[form(s, e, t)]
        assert lengths[i] == len(expected), (s, e, t)
        np.testing.assert_array_equal(out[i, : len(expected)], expected, err_msg=str((s, e, t)))


@device.kernel
def constant_slices(a, lengths, out):
    record_1d(a[::-1], lengths, out, 0)
    record_1d(a[2:-2], lengths, out, 1)
    record_1d(a[-3:], lengths, out, 2)
    record_1d(a[100:], lengths, out, 3)
    record_1d(a[:-100], lengths, out, 4)
    record_1d(a[-100:100:3], lengths, out, 5)
    record_1d(a[7:2:-2], lengths, out, 6)
    record_1d(a[...], lengths, out, 7)
    record_1d(a[::2][::-1][1:], lengths, out, 8)
    record_1d(tail(a[::-1])[::3], lengths, out, 9)


def test_constant_slices_and_slices_of_slices(target, rng):
    a = rng.standard_normal(11).astype(np.float32)
    expected = [a[::-1], a[2:-2], a[-3:], a[100:], a[:-100], a[-100:100:3], a[7:2:-2], a[...], a[::2][::-1][1:],
                a[::-1][1:][::3]]
    lengths = np.full(len(expected), -1, np.int64)
    out = np.zeros((len(expected), a.size), np.float32)
    run(target, constant_slices, a, lengths, out)
    for i, e in enumerate(expected):
        assert lengths[i] == len(e), i
        np.testing.assert_array_equal(out[i, : len(e)], e)


# ---- several dimensions ----


@device.kernel
def slice_3d(a, bounds, shapes, out):
    i = device.tid(1)
    if i < bounds.shape[0]:
        b = bounds[i]
        v = a[b[0]:b[1]:b[2], b[3]:b[4]:b[5], b[6]:b[7]:b[8]]
        shapes[i, 0] = v.shape[0]
        shapes[i, 1] = v.shape[1]
        shapes[i, 2] = v.shape[2]
        copy3(v, out[i])


def test_random_3d_slices(target, rng):
    a = rng.standard_normal((5, 6, 7))
    cases = 300
    bounds = np.empty((cases, 9), np.int64)
    for d in range(3):
        n = a.shape[d]
        bounds[:, 3 * d] = rng.integers(-n - 3, n + 3, cases)
        bounds[:, 3 * d + 1] = rng.integers(-n - 3, n + 3, cases)
        bounds[:, 3 * d + 2] = rng.choice([-4, -3, -2, -1, 1, 2, 3, 4], cases)
    shapes = np.full((cases, 3), -1, np.int64)
    out = np.full((cases,) + a.shape, np.nan)
    run(target, slice_3d, a, bounds, shapes, out, grid=blocks(cases), block=64)
    for i, b in enumerate(bounds.tolist()):
        expected = a[b[0]:b[1]:b[2], b[3]:b[4]:b[5], b[6]:b[7]:b[8]]
        assert tuple(shapes[i]) == expected.shape, b
        p, q, r = expected.shape
        np.testing.assert_array_equal(out[i, :p, :q, :r], expected)


@device.kernel
def mixed_indices(m, i, j, row, col, block, last, rows, chained):
    copy1(m[i, :], row)
    copy1(m[:, j], col)
    copy2(m[1:3, ::2], block)
    copy1(m[..., -1], last)
    copy2(m[-2:], rows)
    chained[0] = m[i][j] + m[::-1][0][-1] + m[:, j][i]


def test_integers_mixed_with_slices(target, rng):
    m = rng.standard_normal((5, 6))
    i, j = 3, -2
    row, col = np.zeros(6), np.zeros(5)
    block, last, rows = np.zeros((2, 3)), np.zeros(5), np.zeros((2, 6))
    chained = np.zeros(1)
    run(target, mixed_indices, m, i, j, row, col, block, last, rows, chained)
    np.testing.assert_array_equal(row, m[i, :])
    np.testing.assert_array_equal(col, m[:, j])
    np.testing.assert_array_equal(block, m[1:3, ::2])
    np.testing.assert_array_equal(last, m[..., -1])
    np.testing.assert_array_equal(rows, m[-2:])
    assert chained[0] == m[i][j] + m[::-1][0][-1] + m[:, j][i]


def fill(v, value):
    for p in range(v.shape[0]):
        for q in range(v.shape[1]):
            v[p, q] = value + p * 10 + q


@device.kernel
def write_through_views(m, value):
    sub = m[1:3, ::-2]
    fill(sub, value)
    col = m[:, 0]
    col[-1] += 1.0
    m[0][1] = 99.0
    m[-1, ...][2:][::2][0] = -7.0


def test_writes_through_views_reach_the_array(target, rng):
    m = rng.standard_normal((5, 6))
    expected = m.copy()
    sub = expected[1:3, ::-2]
    for p in range(sub.shape[0]):
        for q in range(sub.shape[1]):
            sub[p, q] = 0.5 + p * 10 + q
    expected[:, 0][-1] += 1.0
    expected[0][1] = 99.0
    expected[-1, ...][2:][::2][0] = -7.0
    run(target, write_through_views, m, 0.5)
    np.testing.assert_array_equal(m, expected)


@device.kernel
def views_of_many_dimensions(a4, a5, out3, out2, flat, shape):
    copy3(a5[1, :, ::-1, ..., 0], out3)
    copy2(a4[-1, 1:, 0, ::2], out2)
    copy1(a5[0, 1, 0].reshape(-1), flat)
    r = a4.reshape(a4.shape[0] * a4.shape[1], -1)
    shape[0] = r.shape[0]
    shape[1] = r.shape[1]
    shape[2] = a5[..., 1:, :1].ndim
    shape[3] = a5[..., 1:, :1].shape[3]


def test_arrays_of_four_and_five_dimensions(target, rng):
    a4 = rng.standard_normal((3, 4, 2, 5))
    a5 = rng.standard_normal((2, 3, 4, 2, 3))
    out3 = np.zeros(a5[1, :, ::-1, ..., 0].shape)
    out2 = np.zeros(a4[-1, 1:, 0, ::2].shape)
    flat = np.zeros(a5[0, 1, 0].size)
    shape = np.zeros(4, np.int64)
    run(target, views_of_many_dimensions, a4, a5, out3, out2, flat, shape)
    np.testing.assert_array_equal(out3, a5[1, :, ::-1, ..., 0])
    np.testing.assert_array_equal(out2, a4[-1, 1:, 0, ::2])
    np.testing.assert_array_equal(flat, a5[0, 1, 0].reshape(-1))
    assert tuple(shape) == a4.reshape(12, -1).shape + (5, 1)


def test_strided_and_reversed_arguments_on_the_cpu(rng):
    # NumPy views as kernel arguments keep their strides (negative ones too) on the CPU target.
    base = rng.standard_normal((6, 8))
    m = base[::-1, 1::3]
    i, j = 1, 0
    row, col, block = np.zeros(3), np.zeros(6), np.zeros((2, 2))
    last, rows, chained = np.zeros(6), np.zeros((2, 3)), np.zeros(1)
    run("cpu", mixed_indices, m, i, j, row, col, block, last, rows, chained)
    np.testing.assert_array_equal(row, m[i, :])
    np.testing.assert_array_equal(col, m[:, j])
    np.testing.assert_array_equal(block, m[1:3, ::2])
    np.testing.assert_array_equal(last, m[..., -1])
    np.testing.assert_array_equal(rows, m[-2:])
    assert chained[0] == m[i][j] + m[::-1][0][-1] + m[:, j][i]


# ---- element types ----

EVERY_DTYPE = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
               np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, np.float32,
               np.float64, np.complex64, np.complex128]


@device.kernel
def reversed_every_other(a, out, first):
    v = a[::-2]
    copy1(v, out)
    first[0] = v.dtype(v[0])


@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=lambda d: np.dtype(d).name)
def test_views_of_every_number_type(target, rng, dtype):
    kind = np.dtype(dtype).kind
    if kind in "biu":
        a = rng.integers(-100, 100, 9).astype(dtype)
    elif kind == "c":
        a = (rng.standard_normal(9) + 1j * rng.standard_normal(9)).astype(dtype)
    else:
        a = (rng.standard_normal(9) * 4).astype(dtype)
    out = np.zeros(5, dtype)
    first = np.zeros(1, dtype)
    run(target, reversed_every_other, a, out, first)
    np.testing.assert_array_equal(out.view(np.uint8), a[::-2].copy().view(np.uint8))
    assert first.view(np.uint8).tobytes() == a[-1:].view(np.uint8).tobytes()


@device.struct
class Vec:
    x: device.float32
    y: device.float32
    z: device.float32


@device.kernel
def struct_views(ps, out, flat):
    evens = ps[::2]
    for k in range(len(evens)):
        evens[k] = evens[k].replace(x=evens[k].x + 100.0)
    back = ps[::-1]
    out[0] = back[0].z
    out[1] = ps.dtype(1.0, 2.0, 3.0).y
    copy1(ps[1:3].view(device.float32), flat)


def test_views_of_struct_arrays(target, rng):
    ps = np.zeros(7, Vec.dtype)
    for field in "xyz":
        ps[field] = rng.standard_normal(7)
    expected = ps.copy()
    expected["x"][::2] += np.float32(100.0)
    out = np.zeros(2, np.float32)
    flat = np.zeros(6, np.float32)
    run(target, struct_views, ps, out, flat)
    np.testing.assert_array_equal(ps["x"], expected["x"])
    assert out[0] == expected[::-1][0]["z"] and out[1] == 2.0
    np.testing.assert_array_equal(flat, expected[1:3].view(np.float32))


@device.kernel
def record_views(records, out, bits):
    r = records[::-1]
    out[0] = r[0].a + r[1].c
    copy1(records.view(device.float64)[1:4], bits)


def test_views_of_records(target, rng):
    dtype = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.float64)], align=True)
    records = np.zeros(5, dtype)
    records["a"] = rng.standard_normal(5)
    records["b"] = rng.integers(-9, 9, 5)
    records["c"] = rng.standard_normal(5)
    out = np.zeros(1)
    bits = np.zeros(3)
    run(target, record_views, records, out, bits)
    assert out[0] == records[::-1][0]["a"] + records[::-1][1]["c"]
    np.testing.assert_array_equal(bits.view(np.uint64), records.view(np.float64)[1:4].view(np.uint64))


# ---- view(dtype), reshape, astype ----


@device.kernel
def dtype_views(f32, f64, u8, c64, as_i32, as_f32, as_i32_from_u8, parts, sliced, shapes):
    copy2(f32.view(device.int32), as_i32)
    copy2(f64.view(numpy.float32), as_f32)
    copy2(u8.view(device.int32), as_i32_from_u8)
    copy1(c64.view(f32.dtype), parts)
    copy2(f32[:, ::2].view(device.uint32), sliced)
    shapes[0] = f64.view(device.float32).shape[1]
    shapes[1] = u8.view(device.float64).shape[1]
    shapes[2] = f64.view(device.complex128).shape[1]


def test_view_reinterprets_like_numpy(target, rng):
    f32 = rng.standard_normal((3, 8)).astype(np.float32)
    f64 = rng.standard_normal((3, 4))
    u8 = rng.integers(0, 256, (3, 8), dtype=np.uint8)
    c64 = (rng.standard_normal(4) + 1j * rng.standard_normal(4)).astype(np.complex64)
    as_i32 = np.zeros((3, 8), np.int32)
    as_f32 = np.zeros((3, 8), np.float32)
    as_i32_from_u8 = np.zeros((3, 2), np.int32)
    parts = np.zeros(8, np.float32)
    sliced = np.zeros((3, 4), np.uint32)
    shapes = np.zeros(3, np.int64)
    run(target, dtype_views, f32, f64, u8, c64, as_i32, as_f32, as_i32_from_u8, parts, sliced, shapes)
    np.testing.assert_array_equal(as_i32, f32.view(np.int32))
    np.testing.assert_array_equal(as_f32.view(np.uint32), f64.view(np.float32).view(np.uint32))
    np.testing.assert_array_equal(as_i32_from_u8, u8.view(np.int32))
    np.testing.assert_array_equal(parts, c64.view(np.float32))
    np.testing.assert_array_equal(sliced, f32[:, ::2].view(np.uint32))
    assert tuple(shapes) == (f64.view(np.float32).shape[1], u8.view(np.float64).shape[1], f64.view(np.complex128).shape[1])


@device.kernel
def reshape_strided(m, out, size, d0, d1, d2):
    v = m[:, :3].reshape(d0, d1, d2)
    size[0] = v.size
    copy3(v, out)


@pytest.mark.parametrize("dims", [(2, 2, 3), (4, 3, 1), (1, 4, 3), (-1, 3, 1), (2, -1, 3), (12, 1, 1), (2, 6, 1),
                                  (6, 2, 1), (5, 2, 1), (-1, -1, 3), (2, -2, 3)])
def test_reshape_is_a_view_exactly_where_numpy_needs_no_copy(target, rng, dims):
    m = rng.standard_normal((4, 6))
    strided = m[:, :3]
    try:
        expected = strided.reshape(dims)
        is_view = np.shares_memory(expected, m)
    except ValueError:
        is_view = False
    out = np.full((12, 12, 12), np.nan)
    size = np.full(1, -1, np.int64)
    run(target, reshape_strided, m, out, size, *dims)
    if not is_view:
        assert size[0] == 0  # a reshape that would need a copy gives an empty view
        return
    assert size[0] == expected.size
    p, q, r = expected.shape
    np.testing.assert_array_equal(out[:p, :q, :r], expected)


@device.kernel
def reshape_contiguous(a, out2, out3, n):
    copy2(a.reshape(n, -1), out2)
    copy3(a.reshape((2, 3, -1)), out3)
    same = a.astype(a.dtype, copy=False)
    same[0] = -1.0


def test_reshape_and_astype_without_copy(target, rng):
    a = rng.standard_normal(24)
    expected = a.copy()
    out2, out3 = np.zeros((4, 6)), np.zeros((2, 3, 4))
    run(target, reshape_contiguous, a, out2, out3, 4)
    np.testing.assert_array_equal(out2, expected.reshape(4, -1))
    np.testing.assert_array_equal(out3, expected.reshape((2, 3, -1)))
    assert a[0] == -1.0  # astype(copy=False) is the array itself


# ---- failed run-time preconditions ----


@device.kernel
def preconditions(a, v, r, step, sizes):
    sizes[0] = len(a[::step])
    sizes[1] = v[:, ::2].view(device.float32).size
    sizes[2] = r[:, :3].reshape(-1).size
    sizes[3] = a.reshape(5, -1).size


def test_failed_preconditions_give_empty_views(target):
    a = np.arange(12.0)
    m = np.zeros((4, 6))
    sizes = np.full(4, -1, np.int64)
    run(target, preconditions, a, m, m, 0, sizes)
    assert list(sizes) == [0, 0, 0, 0]
    run(target, preconditions, a, m, m, 2, sizes)
    assert list(sizes) == [6, 0, 0, 0]


checked_preconditions = device.kernel(debug=True)(preconditions.underlying)


@pytest.mark.parametrize("step,v,r,message,text", [
    (0, (4, 6), (4, 6), "slice step cannot be zero", "sizes[0]"),
    (1, (4, 6), (4, 6), "view(): to change to a dtype of a different size, the last axis must be contiguous", "sizes[1]"),
    (1, (4, 2), (4, 6), "reshape(): the array's strides allow no view of this shape (a copy would be needed)", "sizes[2]"),
    (1, (4, 2), (4, 3), "reshape(): the array's size does not fit the new shape", "sizes[3]"),
])
def test_debug_builds_stop_at_a_failed_precondition(step, v, r, message, text):
    sizes = np.zeros(4, np.int64)
    with pytest.raises(ValueError) as info:
        run("cpu", checked_preconditions, np.arange(12.0), np.zeros(v), np.zeros(r), step, sizes)
    assert f"test_array_views_cpu.py:{line_of(preconditions, text)}: {message}" in str(info.value)


def test_debug_builds_run_valid_views(target):
    sizes = np.zeros(4, np.int64)
    run(target, checked_preconditions, np.arange(10.0), np.zeros((2, 2)), np.zeros((2, 3)), 3, sizes)
    assert list(sizes) == [4, 4, 6, 10]


# ---- compile errors ----


@device.kernel
def assigns_slice(a):
    a[1:3] = 0.0


@device.kernel
def zero_step(a):
    a[0] = a[::0][0]


@device.kernel
def astype_other(a):
    a[0] = a.astype(device.float32, copy=False)[0]


@device.kernel
def astype_copies(a):
    a[0] = a.astype(a.dtype)[0]


@device.kernel
def reshape_two_unknowns(a):
    a[0] = a.reshape(-1, -1)[0, 0]


@device.kernel
def too_many_indices(a):
    a[0] = a[0, :][0]


@pytest.mark.parametrize("kernel,text,message", [
    (assigns_slice, "a[1:3] = 0.0", "assigning to a[...] that selects several elements would write every element of a view"),
    (zero_step, "a[::0]", "slice step cannot be zero"),
    (astype_other, "astype(", "astype(float32) of array(float64, 1d) would allocate a new array, which device code cannot do"),
    (astype_copies, "astype(", "write a.astype(dtype, copy=False), which returns the array itself"),
    (reshape_two_unknowns, "reshape(", "the shape of reshape() has more than one -1"),
    (too_many_indices, "a[0, :]", "array(float64, 1d) has 1 dimensions but is indexed with 2 indices"),
])
def test_misuse_is_a_compile_error_at_the_line(target, kernel, text, message):
    with pytest.raises(weft.CompileError) as info:
        run(target, kernel, np.zeros(4))
    assert message in str(info.value)
    assert f"test_array_views_cpu.py:{line_of(kernel, text)}" in str(info.value)


# ---- sm_90 ----

SM90_SOURCE = """
from cuda import device

def copy2(v, dst):
    for p in range(v.shape[0]):
        for q in range(v.shape[1]):
            dst[p, q] = v[p, q]

@device.kernel
def views(a: device.float32[:, :, :, :], m: device.float64[:, :], out: device.float32[:, :], n: device.int64):
    copy2(a[1, ::-1, n:, 0], out)
    copy2(a[..., 2][0].reshape(-1, 2), out)
    copy2(m[:, ::2].view(device.float32), out)
    copy2(m.reshape(2, -1).view(device.int32).view(device.float32), out)
    out[0, 0] = m.astype(m.dtype, copy=False)[0, 0] + a.dtype(1) + a[::n].shape[0]
"""


@pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")
def test_views_compile_for_sm90(tmp_path):
    compile_for_sm90(tmp_path, "views", SM90_SOURCE)
