"""Child process of bench.py: the first call of a small numba-cuda kernel in a fresh interpreter.

numba is imported and the CUDA context created before the clock starts; the kernel is cached on
disk (cache=True) in NUMBA_CACHE_DIR, which the parent empties for the cold measurement.
Prints milliseconds.
"""

import time

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba-cuda 0.30 still names it; NumPy 2.x removed it
from numba import cuda  # noqa: E402

N = 1024
a = cuda.to_device(np.ones(N, np.float32))
b = cuda.to_device(np.ones(N, np.float32))
c = cuda.device_array(N, np.float32)
cuda.synchronize()

start = time.perf_counter()


@cuda.jit(cache=True)
def small_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


small_add[N // 256, 256](a, b, c)
cuda.synchronize()
elapsed = time.perf_counter() - start
assert c.copy_to_host()[N - 1] == 2.0
print(f"{elapsed * 1e3:.3f}")
