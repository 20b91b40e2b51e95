"""numba-cuda style kernels (parsed only; weft's sema decides what device code may use)."""
import math

import numpy as np
from numba import cuda, float32, int32

TPB = 16


@cuda.jit
def increment_by_one(an_array):
    pos = cuda.grid(1)
    if pos < an_array.size:
        an_array[pos] += 1


@cuda.jit("void(float32[:,:], float32[:,:], float32[:,:])")
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    if x >= C.shape[0] and y >= C.shape[1]:
        return
    tmp = 0.
    for i in range(bpg):
        sA[tx, ty] = A[x, ty + i * TPB]
        sB[tx, ty] = B[tx + i * TPB, y]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[tx, j] * sB[j, ty]
        cuda.syncthreads()
    C[x, y] = tmp


@cuda.jit(device=True)
def polar_to_cartesian(rho, theta):
    x = rho * math.cos(theta)
    y = rho * math.sin(theta)
    return x, y


@cuda.jit
def atomic_hist(data, hist):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    for k in range(i, data.shape[0], stride):
        cuda.atomic.add(hist, int32(data[k] * 10) % hist.shape[0], 1)


def main():
    a = np.arange(1024, dtype=np.float32)
    d_a = cuda.to_device(a)
    threadsperblock = 32
    blockspergrid = (a.size + (threadsperblock - 1)) // threadsperblock
    increment_by_one[blockspergrid, threadsperblock](d_a)
    print(d_a.copy_to_host()[:4], f"{blockspergrid=}")


if __name__ == "__main__":
    main()
