# Kernels are checked with their parameter annotations as argument types.
from cuda import device


@device.kernel
def vec_add(a: device.float32[:], b: device.float32[:], c: device.float32[:]):
    i = device.tid(1)
    if i < c.size:
        # CHECK: c[int64(i)]:float32 = (a[int64(i)]:float32 + b[int64(i)]:float32):float32
        c[i] = a[i] + b[i]
