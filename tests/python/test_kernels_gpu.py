"""GPU runs (marker `gpu`): the examples' kernels and a selection of the CPU-tested kernels on the
device, compared with NumPy, plus a device fault surfacing as weft.CudaError. Skipped where no
GPU is usable; tools/gpu-check.sh runs them on the device machine.
"""

import importlib.util
import pathlib

import numpy as np
import pytest

import weft

# pytest collects these test functions again in this module, where `target` is "gpu".
from test_kernels_cpu import (  # noqa: F401
    test_and_or_return_operands_and_short_circuit,
    test_comparison_chains_evaluate_each_operand_once,
    test_constexpr_parameters_specialize_per_value,
    test_constexpr_value_as_a_local_array_shape,
    test_float_arithmetic_matches_numpy,
    test_integer_arithmetic_matches_numpy,
    test_local_arrays,
    test_math_functions_match_numpy,
    test_negative_indices_wrap_around,
    test_nested_calls_of_decorated_and_plain_functions,
    test_python_floor_division_and_modulo_on_float64_scalars,
    test_python_floor_division_and_modulo_on_int32_scalars,
    test_range_loops_with_negative_steps_break_continue_and_else,
    test_shape_size_ndim_and_len,
    test_shared_array_and_syncthreads,
    test_thread_positions_1d,
    test_thread_positions_2d,
    test_three_dimensional_arrays_and_grids,
    test_tuples_returned_from_functions,
    test_two_dimensional_shared_array_transpose,
    test_type_promotion_follows_the_array_api_and_weak_literals,
    test_while_loops_with_break_and_else,
)

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not weft.gpu_available(), reason="needs a usable GPU")]

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def target():
    return "gpu"


def load_example(name):
    spec = importlib.util.spec_from_file_location(f"weft_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_vec_add_on_the_gpu(rng):
    ex = load_example("vec_add")
    n = (1 << 20) + 7
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    d_a, d_b, d_c = weft.to_device(a), weft.to_device(b), weft.empty(n, np.float32)
    ex.device.launch(ex.vec_add, d_a, d_b, d_c, grid=(n + 255) // 256, block=256)
    np.testing.assert_array_equal(d_c.copy_to_host(), a + b)


def test_saxpy_on_the_gpu(rng):
    ex = load_example("saxpy")
    n = 300_001
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    d_out = weft.zeros(n, np.float32)
    ex.saxpy[40, 256](np.float32(1.75), weft.to_device(x), weft.to_device(y), d_out)
    np.testing.assert_allclose(d_out.copy_to_host(), np.float32(1.75) * x + y, rtol=1e-6, atol=1e-6)


def test_stencil_on_the_gpu(rng):
    ex = load_example("stencil2d")
    u = rng.standard_normal((517, 383)).astype(np.float32)
    d_out = weft.empty(u.shape, np.float32)
    ex.jacobi_step[((383 + 15) // 16, (517 + 15) // 16), (16, 16)](weft.to_device(u), d_out)
    want = u.copy()
    want[1:-1, 1:-1] = np.float32(0.25) * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    np.testing.assert_allclose(d_out.copy_to_host(), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape", [(256, 256, 256), (300, 170, 211)])
def test_tiled_matmul_on_the_gpu(rng, shape):
    ex = load_example("matmul_tiled")
    n, k, m = shape
    a = rng.standard_normal((n, k)).astype(np.float32)
    b = rng.standard_normal((k, m)).astype(np.float32)
    d_c = weft.empty((n, m), np.float32)
    t = ex.TILE
    ex.matmul[((m + t - 1) // t, (n + t - 1) // t), (t, t)](weft.to_device(a), weft.to_device(b), d_c)
    np.testing.assert_allclose(d_c.copy_to_host(), a.astype(np.float64) @ b, rtol=1e-3, atol=1e-3)


def test_block_reduce_on_the_gpu(rng):
    ex = load_example("block_reduce")
    n = 1_000_003
    x = rng.uniform(-1, 1, n).astype(np.float32)
    blocks = (n + ex.BLOCK - 1) // ex.BLOCK
    d_partial = weft.zeros(blocks, np.float32)
    ex.block_sum[blocks, ex.BLOCK](weft.to_device(x), d_partial)
    total = d_partial.copy_to_host().astype(np.float64).sum()
    assert abs(total - x.astype(np.float64).sum()) < 1e-2


def test_cpu_and_gpu_agree_on_the_same_kernel(rng):
    ex = load_example("matmul_tiled")
    a = rng.standard_normal((40, 24)).astype(np.float32)
    b = rng.standard_normal((24, 33)).astype(np.float32)
    on_cpu = np.zeros((40, 33), np.float32)
    weft.launch(ex.matmul, a, b, on_cpu, grid=(3, 3), block=(16, 16), target="cpu")
    d_c = weft.empty((40, 33), np.float32)
    weft.launch(ex.matmul, weft.to_device(a), weft.to_device(b), d_c, grid=(3, 3), block=(16, 16), target="gpu")
    np.testing.assert_allclose(d_c.copy_to_host(), on_cpu, rtol=1e-5, atol=1e-5)


def test_foreign_arrays_through_dlpack_and_cuda_array_interface(rng):
    torch = pytest.importorskip("torch")
    ex = load_example("vec_add")
    a = torch.randn(10_000, device="cuda")
    b = torch.randn(10_000, device="cuda")
    c = torch.empty_like(a)
    ex.vec_add[40, 256](a, b, c)
    torch.cuda.synchronize()
    assert torch.equal(c, a + b)
    cupy = pytest.importorskip("cupy")
    x = cupy.asarray(rng.standard_normal(5000).astype(np.float32))
    y = cupy.asarray(rng.standard_normal(5000).astype(np.float32))
    z = cupy.empty_like(x)
    ex.vec_add[20, 256](x, y, z)
    cupy.cuda.Device().synchronize()
    assert bool((z == x + y).all())


def test_numpy_arrays_on_the_gpu_are_a_clear_type_error():
    ex = load_example("vec_add")
    a = np.zeros(10, np.float32)
    with pytest.raises(TypeError, match="a"):
        weft.launch(ex.vec_add, a, a, a, grid=1, block=32, target="gpu")


@weft.kernel
def write_far(a, index):
    if weft.tid(1) == 0:
        a[index] = 1.0


def test_an_illegal_address_is_a_cuda_error_naming_the_kernel():
    import subprocess
    import sys

    # A fault poisons the CUDA context for the rest of the process, so it happens in a child.
    code = (
        "import sys, numpy as np, weft\n"
        f"sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})\n"
        "from test_kernels_gpu import write_far\n"
        "a = weft.zeros(16, np.float32)\n"
        "try:\n"
        "    weft.launch(write_far, a, np.int64(1 << 40), grid=1, block=32)\n"
        "    weft.synchronize()\n"
        "except weft.CudaError as err:\n"
        "    print('CudaError:', err)\n"
        "    sys.exit(0)\n"
        "print('no error raised')\n"
        "sys.exit(1)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "write_far" in proc.stdout, proc.stdout
