"""tile_softmax: the softmax of each row of a matrix, written in cuTile Python's face
(`from weft import cutile as ct` is the only change from a cuTile program): one tile block per
row loads the row as a (1, 1024) tile padded with -inf, subtracts its maximum, exponentiates and
divides by the sum.

Runs on the GPU when one is usable, otherwise on weft's CPU target (WEFT_TARGET chooses), and
checks the result against NumPy.
"""

import sys

import numpy as np

import weft
from weft import cutile as ct


@ct.kernel
def softmax(x, out, n: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, n), padding_mode=ct.PaddingMode.NEG_INF)
    e = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    ct.store(out, index=(row, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


def main() -> int:
    rows, cols = 300, 1000
    rng = np.random.default_rng()
    x = (rng.standard_normal((rows, cols)) * 4).astype(np.float32)
    d_x, d_out = weft.to_device(x), weft.empty((rows, cols), np.float32)
    ct.launch(None, (rows,), softmax, (d_x, d_out, 1024))
    out = d_out.copy_to_host()
    e = np.exp(x - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    target = weft.default_target()
    if not np.allclose(out, want, rtol=1e-5, atol=1e-7):
        print(f"tile_softmax on {target}: MISMATCH, largest error {np.abs(out - want).max()}")
        return 1
    print(f"tile_softmax on {target}: result matches NumPy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
