"""numba's launch forms and memory (issue 10, item 8): `kernel.forall(n)`, dynamic shared memory
(`cuda.shared.array(0, dtype)` sized by the launch's fourth argument; several such arrays alias,
as in numba), vector types and their constructors (`cuda.float32x4`, `cuda.float4`),
`cuda.local.array`, and `cuda.grid`/`cuda.gridsize` for 1 to 3 dimensions. Checked against NumPy
on the CPU target (the GPU in the `gpu` twins)."""

import numpy as np
import pytest

import weft
from classic_support import compiles_for_sm90, target  # noqa: F401
from weft import cuda
from weft.cuda import float32x3, int32, uint32x2

DYNAMIC_ZERO = 0


@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


@pytest.mark.parametrize("n, tpb", [(1, 0), (127, 0), (1000, 0), (1000, 64), (33, 32)])
def test_forall_covers_n_tasks(target, rng, n, tpb):
    a = rng.standard_normal(n)
    expected = a + 1
    add_one.forall(n, tpb)(a)
    np.testing.assert_array_equal(a, expected)


def test_forall_of_zero_tasks_launches_nothing(target):
    add_one.forall(0)(np.zeros(4))
    with pytest.raises(ValueError, match="task count"):
        add_one.forall(-1)


@cuda.jit
def reverse_in_dynamic_shared(a):
    s = cuda.shared.array(0, dtype=np.float32)
    i = cuda.threadIdx.x
    n = cuda.blockDim.x
    base = cuda.blockIdx.x * n
    s[i] = a[base + i]
    cuda.syncthreads()
    a[base + i] = s[n - 1 - i] + s.size


@pytest.mark.parametrize("threads", [32, 64])
def test_dynamic_shared_array_is_sized_by_the_launch(target, rng, threads):
    a = rng.standard_normal(4 * threads).astype(np.float32)
    expected = a.reshape(4, threads)[:, ::-1].ravel() + threads
    reverse_in_dynamic_shared[4, threads, 0, 4 * threads](a)
    np.testing.assert_array_equal(a, expected)


@cuda.jit
def dynamic_arrays_alias(a, out):
    f = cuda.shared.array(0, np.float64)
    u = cuda.shared.array(shape=DYNAMIC_ZERO, dtype=np.uint32)
    i = cuda.threadIdx.x
    f[i] = a[i]
    cuda.syncthreads()
    # u views the same bytes: two uint32 words per float64 (little-endian halves).
    out[i, 0] = u[2 * i]
    out[i, 1] = u[2 * i + 1]
    out[i, 2] = u.size


def test_dynamic_shared_arrays_alias(target, rng):
    a = rng.standard_normal(16)
    out = np.zeros((16, 3), np.uint32)
    dynamic_arrays_alias[1, 16, 0, 16 * 8](a, out)
    words = a.view(np.uint32).reshape(16, 2)
    np.testing.assert_array_equal(out[:, :2], words)
    np.testing.assert_array_equal(out[:, 2], 32)


@cuda.jit
def vector_math(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = cuda.float32x4(x[i, 0], x[i, 1], x[i, 2], x[i, 3])
        w = cuda.float4(1, 2, 3, 4)
        p = float32x3(v.x, v.y, v.z)
        u = uint32x2(7, i)
        d = cuda.double2(x[i, 0], x[i, 1])
        out[i, 0] = v.x * w.x + v.y * w.y + v.z * w.z + v.w * w.w
        out[i, 1] = p.x + p.y + p.z
        out[i, 2] = u.x + u.y
        out[i, 3] = d.x * d.y


def test_vector_types_and_their_constructors(target, rng):
    x = rng.standard_normal((50, 4)).astype(np.float32)
    out = np.zeros((50, 4))
    vector_math[2, 32](x, out)
    x64 = x.astype(np.float64)
    expected = np.stack([(x * np.float32([1, 2, 3, 4])).sum(1, dtype=np.float32),
                         x[:, :3].sum(1, dtype=np.float32), 7 + np.arange(50), x64[:, 0] * x64[:, 1]], 1)
    np.testing.assert_allclose(out, expected, rtol=1e-6)


@cuda.jit
def local_sort(rows, out):
    i = cuda.grid(1)
    if i < rows.shape[0]:
        buf = cuda.local.array(8, int32)
        for k in range(8):
            buf[k] = rows[i, k]
        for k in range(1, 8):
            v = buf[k]
            j = k - 1
            while j >= 0 and buf[j] > v:
                buf[j + 1] = buf[j]
                j -= 1
            buf[j + 1] = v
        for k in range(8):
            out[i, k] = buf[k]


def test_local_array(target, rng):
    rows = rng.integers(-100, 100, (40, 8)).astype(np.int32)
    out = np.zeros_like(rows)
    local_sort[2, 32](rows, out)
    np.testing.assert_array_equal(out, np.sort(rows, axis=1))


@cuda.jit
def positions_1d(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = i
        out[i, 1] = cuda.gridsize(1)


@cuda.jit
def positions_2d(out):
    x, y = cuda.grid(2)
    w, h = cuda.gridsize(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y, 0] = x + 1000 * y
        out[x, y, 1] = w + 1000 * h


@cuda.jit
def positions_3d(out):
    x, y, z = cuda.grid(3)
    w, h, d = cuda.gridsize(3)
    if x < out.shape[0] and y < out.shape[1] and z < out.shape[2]:
        out[x, y, z, 0] = x + 100 * y + 10000 * z
        out[x, y, z, 1] = w + 100 * h + 10000 * d


def test_grid_and_gridsize_in_1_to_3_dimensions(target):
    out1 = np.zeros((70, 2), np.int64)
    positions_1d[3, 32](out1)
    np.testing.assert_array_equal(out1[:, 0], np.arange(70))
    np.testing.assert_array_equal(out1[:, 1], 96)
    out2 = np.zeros((10, 7, 2), np.int64)
    positions_2d[(3, 2), (4, 4)](out2)
    x, y = np.meshgrid(np.arange(10), np.arange(7), indexing="ij")
    np.testing.assert_array_equal(out2[..., 0], x + 1000 * y)
    np.testing.assert_array_equal(out2[..., 1], 12 + 1000 * 8)
    out3 = np.zeros((5, 6, 3, 2), np.int64)
    positions_3d[(2, 3, 2), (3, 2, 2)](out3)
    x, y, z = np.meshgrid(np.arange(5), np.arange(6), np.arange(3), indexing="ij")
    np.testing.assert_array_equal(out3[..., 0], x + 100 * y + 10000 * z)
    np.testing.assert_array_equal(out3[..., 1], 6 + 100 * 6 + 10000 * 4)


def test_weft_shared_array_keeps_rejecting_a_zero_shape():
    # Only numba's spelling means dynamic shared memory; weft's own is device.dynamic_shared_array().
    @weft.kernel
    def zero_shared(a):
        s = weft.shared_array(0, weft.float32)
        a[0] = s[0]

    with pytest.raises(weft.CompileError, match=r"\[ArrayShape\]"):
        weft.launch(zero_shared, np.zeros(1, np.float32), grid=1, block=1)


@pytest.mark.parametrize("kernel, args", [
    (reverse_in_dynamic_shared, lambda: (np.zeros(4, np.float32),)),
    (dynamic_arrays_alias, lambda: (np.zeros(4), np.zeros((4, 3), np.uint32))),
    (vector_math, lambda: (np.zeros((4, 4), np.float32), np.zeros((4, 4)))),
    (positions_3d, lambda: (np.zeros((2, 2, 2, 2), np.int64),)),
], ids=["dynamic", "alias", "vectors", "grid3"])
def test_launch_kernels_compile_for_sm90(kernel, args):
    assert compiles_for_sm90(kernel, *args()) == ""
