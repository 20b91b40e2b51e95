"""matmul_tiled: C = A @ B with square tiles staged through shared memory.

Each block computes one TILE x TILE tile of C; for every step along the shared
dimension the block loads one tile of A and one of B into shared memory, waits at
a barrier, accumulates, and waits again before the tiles are overwritten. Runs on
the GPU when one is usable, otherwise on weft's CPU target, and checks the result
against NumPy.
"""

import sys

import numpy as np

import weft
from cuda import device

TILE = 16


@device.kernel
def matmul(A, B, C):
    sA = device.shared_array((TILE, TILE), device.float32)
    sB = device.shared_array((TILE, TILE), device.float32)
    col, row = device.tid(2)
    tx = int(device.thread_idx.x)
    ty = int(device.thread_idx.y)
    n = A.shape[0]
    k_total = A.shape[1]
    m = B.shape[1]

    acc = 0.0
    for t in range((k_total + TILE - 1) // TILE):
        # Threads outside the matrices load zeros so the tile product stays exact.
        k = t * TILE + tx
        if row < n and k < k_total:
            sA[ty, tx] = A[row, k]
        else:
            sA[ty, tx] = 0.0
        k = t * TILE + ty
        if col < m and k < k_total:
            sB[ty, tx] = B[k, col]
        else:
            sB[ty, tx] = 0.0
        device.syncthreads()
        for q in range(TILE):
            acc += sA[ty, q] * sB[q, tx]
        device.syncthreads()
    if row < n and col < m:
        C[row, col] = acc


def main() -> int:
    n, k, m = 96, 80, 72  # not multiples of TILE: partial tiles are exercised
    rng = np.random.default_rng()
    a = rng.standard_normal((n, k)).astype(np.float32)
    b = rng.standard_normal((k, m)).astype(np.float32)

    grid = ((m + TILE - 1) // TILE, (n + TILE - 1) // TILE)
    d_a, d_b = weft.to_device(a), weft.to_device(b)
    d_c = weft.empty((n, m), np.float32)
    matmul[grid, (TILE, TILE)](d_a, d_b, d_c)
    c = d_c.copy_to_host()

    expected = a.astype(np.float64) @ b.astype(np.float64)
    target = weft.default_target()
    if not np.allclose(c, expected, rtol=1e-4, atol=1e-4):
        bad = np.unravel_index(int(np.argmax(np.abs(c - expected))), c.shape)
        print(f"matmul_tiled on {target}: MISMATCH at {bad}: {c[bad]} != {expected[bad]}")
        return 1
    print(f"matmul_tiled on {target}: result matches NumPy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
