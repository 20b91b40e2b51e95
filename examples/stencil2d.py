"""stencil2d: one Jacobi step of the 2-D Laplace equation (a 5-point stencil).

A 2-D grid of 2-D blocks; each thread updates one interior point, boundary points
keep their values. Runs on the GPU when one is usable, otherwise on weft's CPU
target, and checks the result against NumPy.
"""

import sys

import numpy as np

import weft
from cuda import device


@device.kernel
def jacobi_step(u, out):
    # tid(2) is (x, y); x varies fastest across a warp, so it indexes the columns.
    j, i = device.tid(2)
    rows = u.shape[0]
    cols = u.shape[1]
    if i < rows and j < cols:
        if i == 0 or j == 0 or i == rows - 1 or j == cols - 1:
            out[i, j] = u[i, j]
        else:
            out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


def main() -> int:
    rows, cols = 300, 200
    rng = np.random.default_rng()
    u = rng.standard_normal((rows, cols)).astype(np.float32)

    block = (16, 16)
    grid = ((cols + block[0] - 1) // block[0], (rows + block[1] - 1) // block[1])
    d_u = weft.to_device(u)
    d_out = weft.empty((rows, cols), np.float32)
    jacobi_step[grid, block](d_u, d_out)
    out = d_out.copy_to_host()

    expected = u.copy()
    expected[1:-1, 1:-1] = np.float32(0.25) * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    target = weft.default_target()
    if not np.allclose(out, expected, rtol=1e-5, atol=1e-6):
        bad = np.unravel_index(int(np.argmax(np.abs(out - expected))), out.shape)
        print(f"stencil2d on {target}: MISMATCH at {bad}: {out[bad]} != {expected[bad]}")
        return 1
    print(f"stencil2d on {target}: result matches NumPy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
