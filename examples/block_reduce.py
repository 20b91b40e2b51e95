"""block_reduce: per-block sums in shared memory, then the host adds the partials.

Each block loads BLOCK elements into shared memory and halves the number of
active threads at every step of a tree, with a barrier between steps; thread 0
writes the block's sum. Runs on the GPU when one is usable, otherwise on weft's
CPU target, and checks the total against NumPy.
"""

import sys

import numpy as np

import weft
from cuda import device

BLOCK = 128


@device.kernel
def block_sum(x, partial):
    buf = device.shared_array(BLOCK, device.float32)
    t = int(device.thread_idx.x)
    i = device.tid(1)
    if i < x.size:
        buf[t] = x[i]
    else:
        buf[t] = 0.0
    device.syncthreads()
    step = BLOCK // 2
    while step > 0:
        if t < step:
            buf[t] += buf[t + step]
        device.syncthreads()
        step //= 2
    if t == 0:
        partial[device.block_idx.x] = buf[0]


def main() -> int:
    n = 50_000
    rng = np.random.default_rng()
    x = rng.uniform(-1.0, 1.0, n).astype(np.float32)

    blocks = (n + BLOCK - 1) // BLOCK
    d_x = weft.to_device(x)
    d_partial = weft.zeros(blocks, np.float32)
    block_sum[blocks, BLOCK](d_x, d_partial)
    partial = d_partial.copy_to_host()

    target = weft.default_target()
    expected_partial = np.pad(x, (0, blocks * BLOCK - n)).reshape(blocks, BLOCK).sum(axis=1, dtype=np.float64)
    total = float(partial.astype(np.float64).sum())
    expected = float(x.astype(np.float64).sum())
    if not np.allclose(partial, expected_partial, rtol=1e-4, atol=1e-4) or abs(total - expected) > 1e-3 * max(1.0, abs(expected)):
        print(f"block_reduce on {target}: MISMATCH: sum {total} != {expected}")
        return 1
    print(f"block_reduce on {target}: sum {total:.4f} matches NumPy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
