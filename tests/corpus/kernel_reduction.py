from cuda import device

BLOCK = 256


@device.kernel
def block_sum(x: device.float32[:], partial: device.float32[:]):
    buf = device.shared_array(BLOCK, device.float32)
    tid = device.thread_idx.x
    i = device.block_idx.x * device.block_dim.x + tid
    buf[tid] = x[i] if i < x.size else 0.0
    device.syncthreads()
    s = BLOCK // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        device.syncthreads()
        s >>= 1
    if tid == 0:
        partial[device.block_idx.x] = buf[0]


@device.kernel
def warp_max(x, out):
    lane = device.lane_id()
    v = x[device.tid()]
    offset = device.warp_size // 2
    while offset:
        other = device.shfl_down(v, offset)
        v = max(v, other)
        offset //= 2
    if lane == 0:
        device.atomic.max(out, 0, v)


def host_reduce(values):
    total = 0
    for v in values:
        total += v
    return total
