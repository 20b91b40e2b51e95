"""Child process of bench.py: the first call of a small weft kernel in a fresh interpreter.

weft is imported and the CUDA context created (by allocating the arrays) before the clock
starts, so the time is what the first launch costs: parsing, checking and compiling the kernel
(or loading it from the disk cache in WEFT_CACHE_DIR), loading the module and launching.
Prints milliseconds.
"""

import time

import numpy as np

import weft

N = 1024
a = weft.to_device(np.ones(N, np.float32))
b = weft.to_device(np.ones(N, np.float32))
c = weft.empty(N, np.float32)
weft.synchronize()

start = time.perf_counter()


@weft.kernel
def small_add(a, b, c):
    i = weft.tid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


small_add[N // 256, 256](a, b, c)
weft.synchronize()
elapsed = time.perf_counter() - start
assert c.copy_to_host()[N - 1] == 2.0
print(f"{elapsed * 1e3:.3f}")
