"""complex_mandelbrot: escape-time counts of the Mandelbrot set with complex64 arithmetic.

Each thread iterates z = z * z + c for one point c of the plane, in device.complex64 (the
specification's complex: cuda::std::complex<float>), and records how many iterations z stayed
within radius 2. The result is checked against the same iteration in NumPy complex64.

Runs on the GPU when one is usable, otherwise on weft's CPU target (set WEFT_TARGET=cpu or
WEFT_TARGET=gpu to choose); exits non-zero on a mismatch.
"""

import sys

import numpy as np

import weft
from cuda import device

MAX_ITERATIONS = 64


@device.kernel
def mandelbrot(points, counts, max_iterations):
    i = device.tid(1)
    if i < points.size:
        c = points[i]
        z = device.complex64(0)
        n = 0
        while n < max_iterations and abs(z) <= 2.0:
            z = z * z + c
            n += 1
        counts[i] = n
        # The parts of a complex number, and its conjugate, are ordinary values.
        points[i] = device.complex64(z.real) - z.conjugate() + z.imag * 0


def reference(points: np.ndarray, max_iterations: int):
    """The same iteration in NumPy complex64 (vectorized over the points)."""
    z = np.zeros_like(points)
    counts = np.zeros(points.shape, np.int32)
    active = np.ones(points.shape, bool)
    for _ in range(max_iterations):
        active &= np.abs(z) <= np.float32(2.0)
        if not active.any():
            break
        z[active] = z[active] * z[active] + points[active]
        counts[active] += 1
    finals = (z.real.astype(np.complex64) - np.conj(z)).astype(np.complex64)
    return counts, finals


def main() -> int:
    width, height = 96, 64
    x = np.linspace(-2.2, 0.8, width, dtype=np.float32)
    y = np.linspace(-1.2, 1.2, height, dtype=np.float32)
    points = (x[None, :] + 1j * y[:, None]).astype(np.complex64).ravel()
    expected_counts, expected_finals = reference(points, MAX_ITERATIONS)

    block = 128
    grid = (points.size + block - 1) // block
    d_points = weft.to_device(points)
    d_counts = weft.empty(points.size, np.int32)
    device.launch(mandelbrot, d_points, d_counts, MAX_ITERATIONS, grid=grid, block=block)
    counts = d_counts.copy_to_host()
    finals = d_points.copy_to_host()

    target = weft.default_target()
    # Points right on the set's boundary may round differently (fused multiply-add on the
    # GPU); the counts of all but a few points must agree exactly.
    differing = int(np.count_nonzero(counts != expected_counts))
    escaped = counts < MAX_ITERATIONS
    finite = np.isfinite(finals) & np.isfinite(expected_finals) & (counts == expected_counts) & ~escaped
    close = np.allclose(finals[finite], expected_finals[finite], rtol=1e-3, atol=1e-3)
    if differing > points.size // 200 or not close:
        print(f"complex_mandelbrot on {target}: MISMATCH ({differing} counts differ; parts close: {close})")
        return 1
    inside = int(np.count_nonzero(counts == MAX_ITERATIONS))
    print(f"complex_mandelbrot on {target}: {inside} of {points.size} points stay bounded; matches NumPy")
    for row in range(0, height, 8):
        line = counts.reshape(height, width)[row]
        print("".join("#" if n == MAX_ITERATIONS else ".:-=+*%@"[min(n // 4, 7)] for n in line[::2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
