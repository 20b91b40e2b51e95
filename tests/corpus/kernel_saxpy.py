from cuda import device


@device.kernel
def saxpy(alpha: device.float32, x: device.float32[:], y: device.float32[:], out: device.float32[:]):
    i = device.thread_idx.x + device.block_idx.x * device.block_dim.x
    if i >= out.shape[0]:
        return
    out[i] = alpha * x[i] + y[i]


@device.kernel
def daxpy_strided(alpha, x, y, incx: int = 1, incy: int = 1):
    i = device.tid()
    n = min(x.size // incx, y.size // incy)
    while i < n:
        y[i * incy] += alpha * x[i * incx]
        i += device.grid_size()


@device.func
def fma(a, b, c):
    return a * b + c


@device.kernel
def axpby(a: float, x, b: float, y):
    i = device.tid()
    if 0 <= i < y.size:
        y[i] = fma(a, x[i], b * y[i])
