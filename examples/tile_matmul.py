"""tile_matmul: C = A @ B in bfloat16 with float32 accumulation, as a tile kernel in cuTile
Python's face: each tile block computes a 128 x 128 tile of C with a K loop of ct.mma over
128 x 32 and 32 x 128 tiles of A and B (weft runs it on the tensor cores where the GPU has them).
The shapes are not multiples of the tiles: loads pad with zeros, stores keep to C.

Runs on the GPU when one is usable, otherwise on weft's CPU target (WEFT_TARGET chooses), and
checks the result against NumPy.
"""

import sys

import ml_dtypes
import numpy as np

import weft
from weft import cutile as ct

TM, TN, TK = 128, 128, 32


@ct.kernel
def matmul(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        x = ct.load(a, index=(bm, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, index=(k, bn), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, index=(bm, bn), tile=acc)


def main() -> int:
    m, n, k = 300, 200, 250
    rng = np.random.default_rng()
    a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((k, n)).astype(ml_dtypes.bfloat16)
    d_a, d_b = weft.to_device(a), weft.to_device(b)
    d_c = weft.empty((m, n), np.float32)
    grid = ((m + TM - 1) // TM, (n + TN - 1) // TN)
    ct.launch(None, grid, matmul, (d_a, d_b, d_c, TM, TN, TK))
    c = d_c.copy_to_host()
    want = a.astype(np.float64) @ b.astype(np.float64)
    target = weft.default_target()
    if not np.allclose(c, want, rtol=1e-3, atol=1e-3 * np.sqrt(k)):
        print(f"tile_matmul on {target}: MISMATCH, largest error {np.abs(c - want).max()}")
        return 1
    print(f"tile_matmul on {target}: {grid[0]} x {grid[1]} tile blocks, result matches NumPy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
