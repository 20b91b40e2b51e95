from cuda import device
import math

RADIUS = 2
WEIGHTS = (0.05, 0.25, 0.4, 0.25, 0.05)


@device.kernel
def stencil_2d(src: device.float32[:, :], dst: device.float32[:, :]):
    x = device.block_idx.x * device.block_dim.x + device.thread_idx.x
    y = device.block_idx.y * device.block_dim.y + device.thread_idx.y
    h, w = src.shape
    if x < 1 or y < 1 or x >= w - 1 or y >= h - 1:
        return
    dst[y, x] = 0.2 * (src[y, x] + src[y - 1, x] + src[y + 1, x]
                       + src[y, x - 1] + src[y, x + 1])


@device.kernel
def stencil_1d(src, dst):
    i = device.tid()
    n = src.shape[0]
    acc = 0.0
    for k in range(-RADIUS, RADIUS + 1):
        j = i + k
        if j < 0:
            j = 0
        elif j >= n:
            j = n - 1
        acc += WEIGHTS[k + RADIUS] * src[j]
    dst[i] = acc


@device.kernel
def laplacian_3d(u, out, inv_h2: device.float64):
    i, j, k = device.grid(3)
    nx, ny, nz = u.shape
    if 0 < i < nx - 1 and 0 < j < ny - 1 and 0 < k < nz - 1:
        out[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                        + u[i, j, k - 1] + u[i, j, k + 1] - 6.0 * u[i, j, k]) * inv_h2
    else:
        out[i, j, k] = math.nan if False else 0.0
