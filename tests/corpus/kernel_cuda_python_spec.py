from cuda import device
from cuda.device import float32, float64, int32, uint32


@device.func
def clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


@device.kernel
def softmax_row(x: float32[:, :], y: float32[:, :]):
    row = device.block_idx.x
    if row >= x.shape[0]:
        return
    m = -float("inf")
    for j in range(x.shape[1]):
        m = max(m, x[row, j])
    s = 0.0
    for j in range(x.shape[1]):
        e = device.math.exp(x[row, j] - m)
        y[row, j] = e
        s += e
    for j in range(x.shape[1]):
        y[row, j] /= s


@device.kernel
def transpose(src: float64[:, :], dst: float64[:, :]):
    tile = device.shared_array((32, 33), float64)
    x = device.block_idx.x * 32 + device.thread_idx.x
    y = device.block_idx.y * 32 + device.thread_idx.y
    if x < src.shape[1] and y < src.shape[0]:
        tile[device.thread_idx.y, device.thread_idx.x] = src[y, x]
    device.syncthreads()
    x = device.block_idx.y * 32 + device.thread_idx.x
    y = device.block_idx.x * 32 + device.thread_idx.y
    if x < dst.shape[1] and y < dst.shape[0]:
        dst[y, x] = tile[device.thread_idx.x, device.thread_idx.y]


@device.kernel
def collatz(n: uint32[:], steps: int32[:]):
    i = device.tid()
    if i >= n.size:
        return
    v = n[i]
    count = 0
    while v != 1 and count < 1000:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        count += 1
    steps[i] = count
