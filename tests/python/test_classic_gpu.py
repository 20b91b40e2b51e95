"""The classic front's kernels (test_classic_cpu.py) on the GPU: NumPy arrays are copied to the
device and back around each launch, as numba-cuda does; DeviceArrays stay on the device."""

import numpy as np
import pytest

import test_classic_cpu as classic
from weft import cuda

pytestmark = pytest.mark.gpu

GPU_TESTS = [
    "test_vector_add", "test_saxpy_with_signature", "test_grid_stride_loop", "test_shared_memory_block_reduction",
    "test_dot_product_with_atomic_add", "test_histogram_with_atomics", "test_shared_histogram",
    "test_atomic_max_min_sub_cas_exch", "test_stencil_1d_with_halo", "test_jacobi_2d", "test_transpose_with_shared_tile",
    "test_matmul_naive", "test_matmul_shared_tiles", "test_two_level_scan", "test_local_array_sort",
    "test_mandelbrot_with_device_function", "test_const_array_like", "test_numpy_scalar_casts",
    "test_device_arrays_and_launch_forms",
]


@pytest.fixture(autouse=True)
def classic_target(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "gpu")


@pytest.mark.parametrize("name", GPU_TESTS)
def test_classic_kernel_on_gpu(name):
    getattr(classic, name)()


def test_monte_carlo_pi_on_gpu():
    # The GPU may contract x*x + y*y into an fma, so a point on the circle can change sides.
    seeds = np.random.default_rng(20).integers(1, 2**32 - 1, 4096, dtype=np.uint64).astype(np.uint32)
    hits = np.zeros(seeds.size, np.int32)
    classic.monte_carlo_pi[64, 64](seeds, 500, hits)
    assert abs(4 * hits.sum() / (seeds.size * 500) - np.pi) < 0.01


def test_device_arrays_live_on_the_gpu():
    a = np.arange(1000, dtype=np.float32)
    d_a = cuda.to_device(a)
    assert d_a.target == "gpu" and hasattr(d_a, "__cuda_array_interface__")
    d_out = cuda.device_array_like(d_a)
    classic.vector_add[32, 32](d_a, d_a, d_out)
    cuda.synchronize()
    np.testing.assert_array_equal(d_out.copy_to_host(), 2 * a)
