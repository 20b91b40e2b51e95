from cuda import device

TILE = 16


@device.kernel
def matmul_tiled(a: device.float32[:, :], b: device.float32[:, :], c: device.float32[:, :]):
    sa = device.shared_array((TILE, TILE), device.float32)
    sb = device.shared_array(shape=(TILE, TILE), dtype=device.float32)
    tx = device.thread_idx.x
    ty = device.thread_idx.y
    row = device.block_idx.y * TILE + ty
    col = device.block_idx.x * TILE + tx
    n = a.shape[1]
    acc = device.float32(0.0)
    for t in range((n + TILE - 1) // TILE):
        sa[ty, tx] = a[row, t * TILE + tx] if row < a.shape[0] and t * TILE + tx < n else 0.0
        sb[ty, tx] = b[t * TILE + ty, col] if t * TILE + ty < n and col < b.shape[1] else 0.0
        device.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        device.syncthreads()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


@device.kernel
def matmul_naive(a, b, c):
    i, j = device.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        s = 0.
        for k in range(a.shape[1]):
            s += a[i, k] * b[k, j]
        c[i, j] = s
