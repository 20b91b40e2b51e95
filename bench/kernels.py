"""The benchmark's kernels for each peer: weft (the examples' own kernels), numba-cuda and CuPy
RawKernel (CUDA C++ compiled by NVRTC). Every peer's kernel does the same work the same way, so
the table compares compilers and runtimes, not algorithms.
"""

import importlib.util
import pathlib
import warnings

import numpy as np

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
TILE = 16


def load_example(name):
    """Imports examples/<name>.py as a module (its kernels are the ones weft is measured on)."""
    spec = importlib.util.spec_from_file_location(f"weft_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def import_numba_cuda():
    """numba-cuda 0.30 still names np.row_stack, which NumPy 2.x removed."""
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    from numba import cuda

    return cuda


# The same kernels in CUDA C++. The bounds are 64-bit because weft's `size`/`shape` are int64.
CUDA_SOURCE = r"""
extern "C" __global__ void vec_add(const float* a, const float* b, float* c, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void vec_add3(const float* a, const float* b, float* c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
}

#define TILE 16
extern "C" __global__ void matmul(const float* A, const float* B, float* C, long long n, long long k_total, long long m) {
    __shared__ float sA[TILE][TILE];
    __shared__ float sB[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TILE + tx, row = blockIdx.y * TILE + ty;
    float acc = 0.0f;
    for (long long t = 0; t < (k_total + TILE - 1) / TILE; ++t) {
        long long k = t * TILE + tx;
        sA[ty][tx] = (row < n && k < k_total) ? A[row * k_total + k] : 0.0f;
        k = t * TILE + ty;
        sB[ty][tx] = (col < m && k < k_total) ? B[k * m + col] : 0.0f;
        __syncthreads();
        for (int q = 0; q < TILE; ++q) acc += sA[ty][q] * sB[q][tx];
        __syncthreads();
    }
    if (row < n && col < m) C[row * m + col] = acc;
}
"""


def cupy_module():
    import cupy

    return cupy.RawModule(code=CUDA_SOURCE, options=("-std=c++17",))


def numba_kernels():
    """vec_add, vec_add3 (three arrays, no bounds) and the tiled matmul, written for numba-cuda."""
    cuda = import_numba_cuda()
    from numba import float32

    # The launch-overhead kernel runs one block on purpose; numba's occupancy hint is noise here.
    warnings.filterwarnings("ignore", message=".*under-utilization.*")

    @cuda.jit
    def vec_add(a, b, c):
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]

    @cuda.jit
    def matmul(A, B, C):
        sA = cuda.shared.array((TILE, TILE), float32)
        sB = cuda.shared.array((TILE, TILE), float32)
        col, row = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        n = A.shape[0]
        k_total = A.shape[1]
        m = B.shape[1]
        acc = float32(0.0)
        for t in range((k_total + TILE - 1) // TILE):
            k = t * TILE + tx
            if row < n and k < k_total:
                sA[ty, tx] = A[row, k]
            else:
                sA[ty, tx] = 0.0
            k = t * TILE + ty
            if col < m and k < k_total:
                sB[ty, tx] = B[k, col]
            else:
                sB[ty, tx] = 0.0
            cuda.syncthreads()
            for q in range(TILE):
                acc += sA[ty, q] * sB[q, tx]
            cuda.syncthreads()
        if row < n and col < m:
            C[row, col] = acc

    return cuda, vec_add, matmul
