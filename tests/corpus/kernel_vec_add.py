"""The specification's vec_add kernel, in several spellings."""
from cuda import device
from cuda.device import float32, int32


@device.kernel
def vec_add(a: device.float32[:], b: device.float32[:], c: device.float32[:], n: device.int32):
    i = device.block_idx.x * device.block_dim.x + device.thread_idx.x
    if i < n:
        c[i] = a[i] + b[i]


@device.kernel
def vec_add_grid_stride(a, b, c):
    start = device.tid()
    stride = device.grid_size()
    for i in range(start, c.size, stride):
        c[i] = a[i] + b[i]


def launch(a, b, c):
    n = a.shape[0]
    threads = 256
    blocks = (n + threads - 1) // threads
    device.launch(vec_add, a, b, c, n, grid=blocks, block=threads)
    vec_add[blocks, threads](a, b, c, n)
