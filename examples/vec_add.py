"""vec_add: the specification's first kernel, c = a + b, one thread per element.

Runs on the GPU when one is usable, otherwise on weft's CPU target (set
WEFT_TARGET=cpu or WEFT_TARGET=gpu to choose), and checks the result against NumPy.
"""

import sys

import numpy as np

import weft
from cuda import device


@device.kernel
def vec_add(a, b, c):
    # The bounds check lets the grid overshoot the array length.
    if device.tid(1) < c.size:
        c[device.tid(1)] = a[device.tid(1)] + b[device.tid(1)]


def main() -> int:
    n = 100_003
    rng = np.random.default_rng()
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)

    block = 256
    grid = (n + block - 1) // block
    d_a, d_b = weft.to_device(a), weft.to_device(b)
    d_c = weft.empty(n, np.float32)
    device.launch(vec_add, d_a, d_b, d_c, grid=grid, block=block)
    c = d_c.copy_to_host()

    target = weft.default_target()
    if target == "gpu":
        # weft has no public query for the architecture yet; the runtime knows it.
        target += f" (sm_{weft._runtime.runtime().gpu_architecture()})"
    if not np.array_equal(c, a + b):
        bad = int(np.argmax(c != a + b))
        print(f"vec_add on {target}: MISMATCH at {bad}: {c[bad]} != {a[bad] + b[bad]}")
        return 1
    print(f"vec_add on {target}: result matches NumPy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
