"""tile_layernorm: y = (x - mean) / sqrt(var + eps) * w + b over each row, as a tile kernel
(docs/tiles.md). One tile block per row; the row is a (1, 1024) tile whose padding past the
row's end is masked out of the variance with where().

Runs on the GPU when one is usable, otherwise on weft's CPU target (WEFT_TARGET chooses), and
checks the result against NumPy.
"""

import sys

import numpy as np

import weft
from weft import tiles as ct

EPS = 1e-5


@ct.kernel
def layernorm(x, w, b, y, n: ct.ConstExpr, tile: ct.ConstExpr):
    row = ct.bid(0)
    t = ct.load(x, (row, 0), (1, tile))
    inside = ct.reshape(ct.arange(tile), (1, tile)) < n
    mean = ct.sum(t, axis=1, keepdims=True) / n
    centered = ct.where(inside, t - mean, 0.0)
    var = ct.sum(centered * centered, axis=1, keepdims=True) / n
    scale = ct.load(w, (0,), (tile,))
    shift = ct.load(b, (0,), (tile,))
    ct.store(y, (row, 0), centered * ct.rsqrt(var + EPS) * scale + shift)


def main() -> int:
    rows, cols = 256, 1000
    rng = np.random.default_rng()
    x = (rng.standard_normal((rows, cols)) * 3 + 1).astype(np.float32)
    w = rng.standard_normal(cols).astype(np.float32)
    b = rng.standard_normal(cols).astype(np.float32)
    d = [weft.to_device(v) for v in (x, w, b)]
    d_y = weft.empty((rows, cols), np.float32)
    ct.launch(None, (rows,), layernorm, (*d, d_y, cols, 1024))
    y = d_y.copy_to_host()
    mean = x.mean(axis=1, keepdims=True)
    want = (x - mean) / np.sqrt(x.var(axis=1, keepdims=True) + EPS) * w + b
    target = weft.default_target()
    if not np.allclose(y, want, rtol=1e-4, atol=1e-4):
        print(f"tile_layernorm on {target}: MISMATCH, largest error {np.abs(y - want).max()}")
        return 1
    print(f"tile_layernorm on {target}: result matches NumPy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
