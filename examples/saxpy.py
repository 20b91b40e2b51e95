"""saxpy: out = alpha * x + y with a scalar argument passed by value.

Runs on the GPU when one is usable, otherwise on weft's CPU target, and checks the
result against NumPy.
"""

import sys

import numpy as np

import weft
from cuda import device


@device.kernel
def saxpy(alpha, x, y, out):
    i = device.tid(1)
    # A grid-stride loop: any grid size covers the whole array.
    stride = device.grid_size(1)
    while i < out.size:
        out[i] = alpha * x[i] + y[i]
        i += stride


def main() -> int:
    n = 1 << 18
    rng = np.random.default_rng()
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    alpha = np.float32(rng.uniform(-3.0, 3.0))

    d_x, d_y = weft.to_device(x), weft.to_device(y)
    d_out = weft.empty(n, np.float32)
    saxpy[64, 128](alpha, d_x, d_y, d_out)
    out = d_out.copy_to_host()

    target = weft.default_target()
    expected = alpha * x + y
    if not np.allclose(out, expected, rtol=1e-5, atol=1e-6):
        bad = int(np.argmax(np.abs(out - expected)))
        print(f"saxpy on {target}: MISMATCH at {bad}: {out[bad]} != {expected[bad]}")
        return 1
    print(f"saxpy on {target}: result matches NumPy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
