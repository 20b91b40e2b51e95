"""The classic front: kernels written exactly as for numba-cuda, with only the import changed
(`from weft import cuda`), run on the CPU target and checked against NumPy on random data.
test_classic_gpu.py runs the same kernels on the GPU."""

import math

import numpy as np
import pytest

import weft
from weft import cuda

TPB = 32       # threads per block of the 1-d kernels
TILE = 16      # tile edge of the 2-d kernels
SCAN_BLOCK = 64


@pytest.fixture(autouse=True)
def classic_target(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")


def rng(seed=0):
    return np.random.default_rng(seed)


# ---- the kernels (numba-cuda style) ----


@cuda.jit
def vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


@cuda.jit("void(float32, float32[:], float32[:], float32[:])")
def saxpy(alpha, x, y, out):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i < out.shape[0]:
        out[i] = alpha * x[i] + y[i]


@cuda.jit
def grid_stride_square(x, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] * x[i]


@cuda.jit
def block_sum(x, partial):
    shared = cuda.shared.array(shape=TPB, dtype=np.float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    shared[tid] = x[i] if i < x.size else np.float32(0)
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            shared[tid] += shared[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = shared[0]


@cuda.jit
def dot_atomic(a, b, result):
    cache = cuda.shared.array(TPB, np.float64)
    tid = cuda.threadIdx.x
    total = 0.0
    for i in range(cuda.grid(1), a.size, cuda.gridsize(1)):
        total += a[i] * b[i]
    cache[tid] = total
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step > 0:
        if tid < step:
            cache[tid] += cache[tid + step]
        cuda.syncthreads()
        step //= 2
    if tid == 0:
        cuda.atomic.add(result, 0, cache[0])


@cuda.jit
def histogram(data, bins, hist):
    i = cuda.grid(1)
    if i < data.size:
        b = int(data[i] * bins)
        if b >= bins:
            b = bins - 1
        cuda.atomic.add(hist, b, 1)


@cuda.jit
def shared_histogram(data, hist):
    local_hist = cuda.shared.array(16, np.int32)
    tid = cuda.threadIdx.x
    if tid < 16:
        local_hist[tid] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), data.size, cuda.gridsize(1)):
        cuda.atomic.add(local_hist, data[i] % 16, 1)
    cuda.syncthreads()
    if tid < 16:
        cuda.atomic.add(hist, tid, local_hist[tid])


@cuda.jit
def atomic_extremes(x, out, winner):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.max(out, 0, x[i])
        cuda.atomic.min(out, 1, x[i])
        cuda.atomic.sub(out, 2, x[i])
        cuda.atomic.cas(winner, 0, -1, i)
        cuda.atomic.exch(winner, 1, 7)


@cuda.jit
def stencil_1d(x, out):
    tile = cuda.shared.array(TPB + 2, np.float32)
    i = cuda.grid(1)
    tid = cuda.threadIdx.x
    n = x.size
    if i < n:
        tile[tid + 1] = x[i]
        if tid == 0:
            tile[0] = x[i - 1] if i > 0 else x[i]
        if tid == TPB - 1 or i == n - 1:
            tile[tid + 2] = x[i + 1] if i + 1 < n else x[i]
    cuda.syncthreads()
    if i < n:
        out[i] = (tile[tid] + tile[tid + 1] + tile[tid + 2]) / np.float32(3)


@cuda.jit
def jacobi_2d(u, out):
    i, j = cuda.grid(2)
    rows, cols = u.shape
    if 0 < i < rows - 1 and 0 < j < cols - 1:
        out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
    elif i < rows and j < cols:
        out[i, j] = u[i, j]


@cuda.jit
def transpose(a, out):
    tile = cuda.shared.array((TILE, TILE + 1), np.float32)
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    if y < a.shape[0] and x < a.shape[1]:
        tile[cuda.threadIdx.y, cuda.threadIdx.x] = a[y, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.x * TILE + cuda.threadIdx.y
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = tile[cuda.threadIdx.x, cuda.threadIdx.y]


@cuda.jit
def matmul_naive(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.0
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


@cuda.jit
def matmul_shared(A, B, C):
    sA = cuda.shared.array(shape=(TILE, TILE), dtype=np.float32)
    sB = cuda.shared.array(shape=(TILE, TILE), dtype=np.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = np.float32(0.0)
    for i in range(bpg):
        sA[tx, ty] = 0
        sB[tx, ty] = 0
        if x < A.shape[0] and (ty + i * TILE) < A.shape[1]:
            sA[tx, ty] = A[x, ty + i * TILE]
        if y < B.shape[1] and (tx + i * TILE) < B.shape[0]:
            sB[tx, ty] = B[tx + i * TILE, y]
        cuda.syncthreads()
        for j in range(TILE):
            tmp += sA[tx, j] * sB[j, ty]
        cuda.syncthreads()
    if x < C.shape[0] and y < C.shape[1]:
        C[x, y] = tmp


@cuda.jit
def block_scan(x, out, block_totals):
    temp = cuda.shared.array(SCAN_BLOCK, np.int64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    temp[tid] = x[i] if i < x.size else 0
    cuda.syncthreads()
    offset = 1
    while offset < SCAN_BLOCK:
        v = temp[tid - offset] if tid >= offset else 0
        cuda.syncthreads()
        temp[tid] += v
        cuda.syncthreads()
        offset *= 2
    if i < x.size:
        out[i] = temp[tid]
    if tid == SCAN_BLOCK - 1:
        block_totals[cuda.blockIdx.x] = temp[tid]


@cuda.jit
def add_block_offsets(out, offsets):
    i = cuda.grid(1)
    if i < out.size and cuda.blockIdx.x > 0:
        out[i] += offsets[cuda.blockIdx.x - 1]


@cuda.jit(device=True)
def xorshift(state):
    state ^= (state << np.uint32(13))
    state ^= (state >> np.uint32(17))
    state ^= (state << np.uint32(5))
    return state


@cuda.jit
def monte_carlo_pi(seeds, samples, hits):
    i = cuda.grid(1)
    if i < seeds.size:
        state = seeds[i]
        count = 0
        for _ in range(samples):
            state = xorshift(state)
            x = np.float32(state) / np.float32(4294967296.0)
            state = xorshift(state)
            y = np.float32(state) / np.float32(4294967296.0)
            if x * x + y * y <= np.float32(1.0):
                count += 1
        hits[i] = count


@cuda.jit
def local_sort_rows(data, out):
    row = cuda.grid(1)
    if row < data.shape[0]:
        buf = cuda.local.array(8, np.int32)
        for k in range(8):
            buf[k] = data[row, k]
        for k in range(1, 8):
            key = buf[k]
            j = k - 1
            while j >= 0 and buf[j] > key:
                buf[j + 1] = buf[j]
                j -= 1
            buf[j + 1] = key
        for k in range(8):
            out[row, k] = buf[k]


@cuda.jit(device=True)
def mandel(x, y, max_iters):
    zr = 0.0
    zi = 0.0
    for i in range(max_iters):
        zr, zi = zr * zr - zi * zi + x, 2 * zr * zi + y
        if zr * zr + zi * zi >= 4:
            return i
    return max_iters


@cuda.jit
def mandelbrot(min_x, max_x, min_y, max_y, image, iters):
    height, width = image.shape
    pixel_size_x = (max_x - min_x) / width
    pixel_size_y = (max_y - min_y) / height
    start_x, start_y = cuda.grid(2)
    grid_x, grid_y = cuda.gridsize(2)
    for x in range(start_x, width, grid_x):
        real = min_x + x * pixel_size_x
        for y in range(start_y, height, grid_y):
            imag = min_y + y * pixel_size_y
            image[y, x] = mandel(real, imag, iters)


@cuda.jit
def weighted_filter(x, weights, out):
    w = cuda.const.array_like(weights)
    i = cuda.grid(1)
    if 2 <= i < x.size - 2:
        acc = 0.0
        for k in range(5):
            acc += w[k] * x[i + k - 2]
        out[i] = acc


@cuda.jit
def numpy_casts(x, ints, floats):
    i = cuda.grid(1)
    if i < x.size:
        ints[i] = np.int32(x[i] * np.float32(10.0))
        floats[i] = np.float64(np.float32(x[i]) + np.float32(0.5)) + math.sqrt(np.float64(i))


# ---- the tests ----


def test_vector_add():
    a, b = rng(1).random(1000).astype(np.float32), rng(2).random(1000).astype(np.float32)
    out = np.zeros_like(a)
    vector_add[(1000 + TPB - 1) // TPB, TPB](a, b, out)
    np.testing.assert_allclose(out, a + b, rtol=1e-6)


def test_saxpy_with_signature():
    x, y = rng(3).standard_normal(777).astype(np.float32), rng(4).standard_normal(777).astype(np.float32)
    out = np.zeros_like(x)
    saxpy[7, 128](2.5, x, y, out)
    np.testing.assert_allclose(out, np.float32(2.5) * x + y, rtol=1e-5)
    # The signature is a contract, as annotations are (docs/classic.md).
    with pytest.raises(TypeError, match=r"parameter 'x': expected array\(float32, 1d\), got array\(float64, 1d\)"):
        saxpy[7, 128](2.5, x.astype(np.float64), y, out)


def test_grid_stride_loop():
    x = rng(5).standard_normal(5000)
    out = np.zeros_like(x)
    grid_stride_square[4, 64](x, out)
    np.testing.assert_allclose(out, x * x)


def test_shared_memory_block_reduction():
    x = rng(6).random(1000).astype(np.float32)
    blocks = (x.size + TPB - 1) // TPB
    partial = np.zeros(blocks, np.float32)
    block_sum[blocks, TPB](x, partial)
    expected = np.add.reduceat(x, np.arange(0, x.size, TPB))
    np.testing.assert_allclose(partial, expected, rtol=1e-5)


def test_dot_product_with_atomic_add():
    a, b = rng(7).standard_normal(4096), rng(8).standard_normal(4096)
    result = np.zeros(1)
    dot_atomic[8, TPB](a, b, result)
    np.testing.assert_allclose(result[0], a @ b, rtol=1e-9)


def test_histogram_with_atomics():
    data = rng(9).random(10000)
    hist = np.zeros(20, np.int32)
    histogram[(data.size + 127) // 128, 128](data, 20, hist)
    expected = np.minimum((data * 20).astype(np.int64), 19)
    np.testing.assert_array_equal(hist, np.bincount(expected, minlength=20))


def test_shared_histogram():
    data = rng(10).integers(0, 1000, 20000).astype(np.int32)
    hist = np.zeros(16, np.int32)
    shared_histogram[16, 64](data, hist)
    np.testing.assert_array_equal(hist, np.bincount(data % 16, minlength=16))


def test_atomic_max_min_sub_cas_exch():
    x = rng(11).integers(-10**6, 10**6, 3000).astype(np.int64)
    out = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0], np.int64)
    winner = np.array([-1, 0], np.int64)
    atomic_extremes[(x.size + 63) // 64, 64](x, out, winner)
    assert out[0] == x.max() and out[1] == x.min() and out[2] == -x.sum()
    assert 0 <= winner[0] < x.size and winner[1] == 7


def test_stencil_1d_with_halo():
    x = rng(12).standard_normal(1000).astype(np.float32)
    out = np.zeros_like(x)
    stencil_1d[(x.size + TPB - 1) // TPB, TPB](x, out)
    padded = np.concatenate([x[:1], x, x[-1:]])
    expected = (padded[:-2] + padded[1:-1] + padded[2:]) / np.float32(3)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_jacobi_2d():
    u = rng(13).random((45, 70))
    out = np.zeros_like(u)
    jacobi_2d[(3, 5), (16, 16)](u, out)
    expected = u.copy()
    expected[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    np.testing.assert_allclose(out, expected)


def test_transpose_with_shared_tile():
    a = rng(14).standard_normal((50, 37)).astype(np.float32)
    out = np.zeros((37, 50), np.float32)
    transpose[(math.ceil(37 / TILE), math.ceil(50 / TILE)), (TILE, TILE)](a, out)
    np.testing.assert_array_equal(out, a.T)


def test_matmul_naive():
    A, B = rng(15).standard_normal((33, 20)), rng(16).standard_normal((20, 41))
    C = np.zeros((33, 41))
    matmul_naive[(3, 3), (16, 16)](A, B, C)
    np.testing.assert_allclose(C, A @ B, rtol=1e-10)


def test_matmul_shared_tiles():
    n = 48
    A, B = rng(17).random((n, n)).astype(np.float32), rng(18).random((n, n)).astype(np.float32)
    C = np.zeros((n, n), np.float32)
    blocks = n // TILE
    matmul_shared[(blocks, blocks), (TILE, TILE)](A, B, C)
    np.testing.assert_allclose(C, A @ B, rtol=1e-4)


def test_two_level_scan():
    x = rng(19).integers(-100, 100, 1000).astype(np.int64)
    blocks = (x.size + SCAN_BLOCK - 1) // SCAN_BLOCK
    out, totals = np.zeros_like(x), np.zeros(blocks, np.int64)
    block_scan[blocks, SCAN_BLOCK](x, out, totals)
    offsets = np.cumsum(totals)
    add_block_offsets[blocks, SCAN_BLOCK](out, offsets)
    np.testing.assert_array_equal(out, np.cumsum(x))


def _xorshift(state):
    state ^= (state << np.uint32(13))
    state ^= (state >> np.uint32(17))
    state ^= (state << np.uint32(5))
    return state


def test_monte_carlo_pi():
    seeds = rng(20).integers(1, 2**32 - 1, 256, dtype=np.uint64).astype(np.uint32)
    samples = 200
    hits = np.zeros(seeds.size, np.int32)
    monte_carlo_pi[4, 64](seeds, samples, hits)
    state = seeds.copy()
    expected = np.zeros(seeds.size, np.int32)
    with np.errstate(over="ignore"):
        for _ in range(samples):
            state = _xorshift(state)
            x = state.astype(np.float32) / np.float32(4294967296.0)
            state = _xorshift(state)
            y = state.astype(np.float32) / np.float32(4294967296.0)
            expected += (x * x + y * y <= np.float32(1.0))
    np.testing.assert_array_equal(hits, expected)
    assert abs(4 * hits.sum() / (seeds.size * samples) - math.pi) < 0.05


def test_local_array_sort():
    data = rng(21).integers(-50, 50, (100, 8)).astype(np.int32)
    out = np.zeros_like(data)
    local_sort_rows[4, 32](data, out)
    np.testing.assert_array_equal(out, np.sort(data, axis=1))


def test_mandelbrot_with_device_function():
    image = np.zeros((40, 60), np.int32)
    mandelbrot[(4, 4), (8, 8)](-2.0, 1.0, -1.0, 1.0, image, 50)
    ys, xs = np.mgrid[0:40, 0:60]
    cr = np.float32(-2.0) + xs.astype(np.float32) * np.float32(3.0 / 60)
    ci = np.float32(-1.0) + ys.astype(np.float32) * np.float32(2.0 / 40)
    zr, zi = np.zeros_like(cr), np.zeros_like(ci)
    expected = np.full(cr.shape, 50)
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(50):
            running = expected == 50
            zr, zi = np.where(running, zr * zr - zi * zi + cr, zr), np.where(running, 2 * zr * zi + ci, zi)
            expected[(zr * zr + zi * zi >= 4) & running] = i
    # float32 rounding may move a pixel on the set's boundary by one iteration
    assert np.mean(image == expected) > 0.97


def test_const_array_like():
    x = rng(22).standard_normal(500)
    weights = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
    out = np.zeros_like(x)
    weighted_filter[(500 + 63) // 64, 64](x, weights, out)
    expected = np.zeros_like(x)
    expected[2:-2] = np.convolve(x, weights[::-1], mode="valid")
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-12)


def test_numpy_scalar_casts():
    x = rng(23).standard_normal(300).astype(np.float32)
    ints, floats = np.zeros(300, np.int32), np.zeros(300, np.float64)
    numpy_casts[5, 64](x, ints, floats)
    np.testing.assert_array_equal(ints, (x * np.float32(10.0)).astype(np.int32))
    np.testing.assert_allclose(floats, (x + np.float32(0.5)).astype(np.float64) + np.sqrt(np.arange(300)),
                               rtol=1e-12)


def test_device_arrays_and_launch_forms():
    a = rng(24).random(300).astype(np.float32)
    d_a = cuda.to_device(a)
    d_b = cuda.device_array_like(d_a)
    d_b.copy_from_host(a * 2)
    d_out = cuda.device_array(300, np.float32)
    vector_add[10, 32, 0, 0](d_a, d_b, d_out)
    cuda.synchronize()
    host = np.empty(300, np.float32)
    assert d_out.copy_to_host(host) is host
    np.testing.assert_allclose(host, 3 * a, rtol=1e-6)
    assert cuda.device_array((3, 4)).dtype == np.float64


def test_classic_errors():
    with pytest.raises(TypeError, match="launch configuration"):
        vector_add(np.zeros(1), np.zeros(1), np.zeros(1))
    with pytest.raises(TypeError, match="unknown keyword"):
        cuda.jit(bogus=True)
    with pytest.raises(TypeError, match="signature"):
        cuda.jit("void(float32[:]")
    with pytest.raises(TypeError, match="is device-only"):
        cuda.grid(1)
    with pytest.raises(TypeError, match="is device-only"):
        cuda.threadIdx.x
    assert isinstance(xorshift, weft.Function)


# ---- every classic kernel compiles for sm_90 through NVRTC (no GPU needed) ----


def _nvrtc_compile_sm90(source: str) -> str:
    """Compiles `source` as weft's backend does (NVRTC, sm_90, cubin); '' on success, else the log."""
    import ctypes
    import os
    import pathlib

    cuda_home = pathlib.Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    library = None
    for folder in ("lib64", "lib"):
        for name in ("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"):
            if (cuda_home / folder / name).exists():
                library = ctypes.CDLL(str(cuda_home / folder / name))
                break
        if library:
            break
    if library is None:
        pytest.skip("NVRTC not found")
    program = ctypes.c_void_p()
    assert library.nvrtcCreateProgram(ctypes.byref(program), source.encode(), b"classic.cu", 0, None, None) == 0
    include = pathlib.Path(__file__).resolve().parents[2] / "include"
    options = [b"-arch=sm_90", b"-std=c++17", b"-default-device", b"-I" + str(include).encode(),
               b"-I" + str(cuda_home / "include").encode()]
    array = (ctypes.c_char_p * len(options))(*options)
    status = library.nvrtcCompileProgram(program, len(options), array)
    log = ""
    if status != 0:
        size = ctypes.c_size_t()
        library.nvrtcGetProgramLogSize(program, ctypes.byref(size))
        buffer = ctypes.create_string_buffer(size.value)
        library.nvrtcGetProgramLog(program, buffer)
        log = buffer.value.decode() or f"nvrtc status {status}"
    library.nvrtcDestroyProgram(ctypes.byref(program))
    return log


SM90_CASES = [
    (vector_add, lambda: (np.zeros(4, np.float32),) * 3),
    (saxpy, lambda: (np.float32(1), *(np.zeros(4, np.float32),) * 3)),
    (grid_stride_square, lambda: (np.zeros(4), np.zeros(4))),
    (block_sum, lambda: (np.zeros(4, np.float32), np.zeros(4, np.float32))),
    (dot_atomic, lambda: (np.zeros(4), np.zeros(4), np.zeros(1))),
    (histogram, lambda: (np.zeros(4), 4, np.zeros(4, np.int32))),
    (shared_histogram, lambda: (np.zeros(4, np.int32), np.zeros(16, np.int32))),
    (atomic_extremes, lambda: (np.zeros(4, np.int64), np.zeros(3, np.int64), np.zeros(2, np.int64))),
    (stencil_1d, lambda: (np.zeros(4, np.float32), np.zeros(4, np.float32))),
    (jacobi_2d, lambda: (np.zeros((4, 4)), np.zeros((4, 4)))),
    (transpose, lambda: (np.zeros((4, 4), np.float32), np.zeros((4, 4), np.float32))),
    (matmul_naive, lambda: (np.zeros((4, 4)),) * 3),
    (matmul_shared, lambda: (np.zeros((4, 4), np.float32),) * 3),
    (block_scan, lambda: (np.zeros(4, np.int64),) * 3),
    (monte_carlo_pi, lambda: (np.zeros(4, np.uint32), 3, np.zeros(4, np.int32))),
    (local_sort_rows, lambda: (np.zeros((4, 8), np.int32),) * 2),
    (mandelbrot, lambda: (-2.0, 1.0, -1.0, 1.0, np.zeros((4, 4), np.int32), 5)),
    (weighted_filter, lambda: (np.zeros(8), np.zeros(5), np.zeros(8))),
    (numpy_casts, lambda: (np.zeros(4, np.float32), np.zeros(4, np.int32), np.zeros(4))),
]


@pytest.mark.parametrize("kernel, args", SM90_CASES, ids=[k.__name__ for k, _ in SM90_CASES])
def test_classic_kernel_compiles_for_sm90(kernel, args):
    source = kernel._kernel._emit_cuda(*args(), target="cpu")
    assert _nvrtc_compile_sm90(source) == ""
