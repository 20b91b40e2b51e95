"""Child process of bench.py: the first call of a small CuPy RawKernel (CUDA C++ through NVRTC)
in a fresh interpreter.

CuPy is imported and the CUDA context created before the clock starts; compiled kernels are
cached on disk in CUPY_CACHE_DIR, which the parent empties for the cold measurement.
Prints milliseconds.
"""

import time

import cupy
import numpy as np

N = 1024
a = cupy.ones(N, cupy.float32)
b = cupy.ones(N, cupy.float32)
c = cupy.empty(N, cupy.float32)
cupy.cuda.Device().synchronize()

start = time.perf_counter()
SOURCE = r"""
extern "C" __global__ void small_add(const float* a, const float* b, float* c, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""
kernel = cupy.RawKernel(SOURCE, "small_add")
kernel((N // 256,), (256,), (a, b, c, np.int64(N)))
cupy.cuda.Device().synchronize()
elapsed = time.perf_counter() - start
assert float(c[N - 1]) == 2.0
print(f"{elapsed * 1e3:.3f}")
