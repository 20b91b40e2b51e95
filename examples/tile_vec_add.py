"""tile_vec_add: c = a + b as a tile kernel (docs/tiles.md): each tile block loads a tile of 1024
elements of each array, adds them and stores the sum; the last tile is partial.

Runs on the GPU when one is usable, otherwise on weft's CPU target (set WEFT_TARGET=cpu or
WEFT_TARGET=gpu to choose), and checks the result against NumPy.
"""

import sys

import numpy as np

import weft
from weft import tiles as ct

TILE = 1024


@ct.kernel
def vec_add(a, b, c, tile: ct.ConstExpr):
    i = ct.bid(0)
    x = ct.load(a, (i,), (tile,))
    y = ct.load(b, (i,), (tile,))
    ct.store(c, (i,), x + y)


def main() -> int:
    n = 1_000_003
    rng = np.random.default_rng()
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    d_a, d_b, d_c = weft.to_device(a), weft.to_device(b), weft.empty(n, np.float32)
    blocks = (n + TILE - 1) // TILE
    ct.launch(None, (blocks,), vec_add, (d_a, d_b, d_c, TILE))
    c = d_c.copy_to_host()
    target = weft.default_target()
    if not np.array_equal(c, a + b):
        bad = int(np.argmax(c != a + b))
        print(f"tile_vec_add on {target}: MISMATCH at {bad}: {c[bad]} != {a[bad] + b[bad]}")
        return 1
    print(f"tile_vec_add on {target}: {blocks} tile blocks, result matches NumPy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
