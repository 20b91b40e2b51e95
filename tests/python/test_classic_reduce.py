"""numba-cuda's cuda.reduce in weft (issue 10, item 9): reductions compiled from the user's binary
function, on the target the `target` fixture names (the CPU here; the GPU in the `gpu` twins),
against NumPy on seeded random data."""

import math

import numpy as np
import pytest

from classic_support import target  # noqa: F401
from weft import cuda


@cuda.reduce
def sum_reduce(a, b):
    return a + b


@cuda.jit(device=True)
def larger(a, b):
    return a if a > b else b


def test_documentation_example(target):
    # numba's documented example: a decorated sum of 1 ... 1234.
    values = np.arange(1234, dtype=np.float64) + 1
    assert sum_reduce(values) == values.sum()
    lambda_sum = cuda.reduce(lambda a, b: a + b)
    assert lambda_sum(values) == values.sum()


@pytest.mark.parametrize("n", [1, 5, 255, 256, 257, 4097, 100_000])
def test_sums_of_every_size(target, rng, n):
    ints = rng.integers(-1000, 1000, n).astype(np.int64)
    assert sum_reduce(ints) == ints.sum()
    floats = rng.standard_normal(n)
    np.testing.assert_allclose(sum_reduce(floats), floats.sum(), rtol=1e-10, atol=1e-9)


def test_result_type_and_float32(target, rng):
    values = rng.random(3000).astype(np.float32)
    result = sum_reduce(values)
    assert isinstance(result, np.float32)
    np.testing.assert_allclose(result, values.astype(np.float64).sum(), rtol=1e-5)


def test_max_min_and_product_with_init(target, rng):
    values = rng.integers(-10**6, 10**6, 50_000).astype(np.int32)
    assert cuda.reduce(larger)(values) == values.max()
    assert cuda.reduce(lambda a, b: min(a, b))(values, init=10**7) == values.min()
    small = rng.integers(1, 4, 30).astype(np.int64)
    product = cuda.reduce(lambda a, b: a * b)
    assert product(small, init=1) == np.prod(small)
    assert product(small) == 0  # numba's rule: init (0 by default) always takes part


def test_init_size_and_empty_arrays(target, rng):
    values = rng.standard_normal(1000)
    np.testing.assert_allclose(sum_reduce(values, init=2.5), values.sum() + 2.5, rtol=1e-12)
    np.testing.assert_allclose(sum_reduce(values, size=300), values[:300].sum(), rtol=1e-12)
    empty = sum_reduce(np.zeros(0, np.float32), init=4)
    assert empty == 4 and isinstance(empty, np.float32)


def test_device_arrays_views_res_and_stream(target, rng):
    values = rng.integers(0, 100, 10_000).astype(np.int32)
    d = cuda.to_device(values)
    assert sum_reduce(d) == values.sum()
    assert sum_reduce(d[::3]) == values[::3].sum()
    res = cuda.device_array(2, np.int32)
    res[1] = -1
    stream = cuda.stream()
    assert sum_reduce(d, res=res, init=5, stream=stream) is None
    stream.synchronize()
    np.testing.assert_array_equal(res.copy_to_host(), [values.sum() + 5, -1])
    host_res = np.zeros(1, np.int32)
    sum_reduce(values, res=host_res)
    assert host_res[0] == values.sum()


def test_function_using_math(target, rng):
    values = rng.standard_normal(2000)
    hypot_reduce = cuda.reduce(lambda a, b: math.sqrt(a * a + b * b))
    np.testing.assert_allclose(hypot_reduce(values), np.sqrt((values**2).sum()), rtol=1e-10)


def test_two_dimensional_array_is_a_type_error(target):
    with pytest.raises(TypeError, match="1-d"):
        sum_reduce(np.zeros((3, 3)))


def test_reduce_kernel_compiles_for_sm90(monkeypatch):
    from test_classic_cpu import _nvrtc_compile_sm90
    from weft import _cuda_reduce

    monkeypatch.setenv("WEFT_TARGET", "cpu")
    for dtype, op in ((np.float32, lambda a, b: a + b), (np.int64, larger)):
        kernel = _cuda_reduce._make_kernel(op, dtype)
        values = np.zeros(10, dtype)
        source = kernel._emit_cuda(values, 10, values, dtype(0), True, target="cpu")
        assert _nvrtc_compile_sm90(source) == ""
