"""Closures (issue 10, item 1): names a kernel or device function reads from an enclosing
function's scope resolve as globals do. Captured values are baked in as constants, and a launch
re-checks them, so a changed cell compiles a new specialization instead of running a stale one.
Each test runs on the target the `target` fixture names (the CPU here; the GPU in the `gpu`
twins), against NumPy."""

import math

import numpy as np
import pytest

import weft
from classic_support import compiles_for_sm90, launch1, launch_weft, target  # noqa: F401
from weft import cuda


# ---- kernel factories (the classic front) ----


def make_map(op, offset):
    @cuda.jit
    def apply(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = op(a[i]) + offset

    return apply


def square(x):
    return x * x


@cuda.jit(device=True)
def cube(x):
    return x * x * x


def test_factory_with_plain_function_and_number(target, rng):
    a = rng.standard_normal(100).astype(np.float32)
    out = np.zeros_like(a)
    launch1(make_map(square, 2.5), a.size, a, out)
    np.testing.assert_allclose(out, a * a + np.float32(2.5), rtol=1e-6)


def test_factory_with_device_function(target, rng):
    a = rng.standard_normal(77).astype(np.float32)
    out = np.zeros_like(a)
    launch1(make_map(cube, -1), a.size, a, out)
    np.testing.assert_allclose(out, a * a * a - 1, rtol=1e-5, atol=1e-6)


def test_two_factory_kernels_keep_their_own_captures(target, rng):
    a = rng.integers(-50, 50, 64).astype(np.int32)
    plus3, times = make_map(square, 3), make_map(cube, 7)
    out1, out2 = np.zeros_like(a), np.zeros_like(a)
    launch1(plus3, a.size, a, out1)
    launch1(times, a.size, a, out2)
    np.testing.assert_array_equal(out1, a * a + 3)
    np.testing.assert_array_equal(out2, a * a * a + 7)


def test_factory_with_lambda(target, rng):
    a = rng.standard_normal(50)
    out = np.zeros_like(a)
    launch1(make_map(lambda x: 3 * x - 1, 0), a.size, a, out)
    np.testing.assert_allclose(out, 3 * a - 1)


def test_factory_with_math_function(target, rng):
    a = rng.uniform(0.1, 4, 90)
    out = np.zeros_like(a)
    launch1(make_map(math.sqrt, 1), a.size, a, out)
    np.testing.assert_allclose(out, np.sqrt(a) + 1)


def test_captured_tuple_and_loop_over_it(target, rng):
    def make(weights):
        @cuda.jit
        def weighted(a, out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = weights[0] * a[i] + weights[1] * a[i + 1] + weights[2] * a[i + 2]

        return weighted

    w = (0.25, 0.5, 0.25)
    a = rng.standard_normal(40)
    out = np.zeros(38)
    launch1(make(w), out.size, a, out)
    np.testing.assert_allclose(out, np.convolve(a, w[::-1], "valid"))


def test_captured_module_imported_locally(target, rng):
    def make():
        import math as m

        import numpy as numpy_local
        from weft import cuda as c

        @c.jit
        def k(a, out):
            i = c.grid(1)
            if i < a.size:
                out[i] = m.exp(a[i]) + numpy_local.float64(1)

        return k

    a = rng.standard_normal(33)
    out = np.zeros_like(a)
    launch1(make(), a.size, a, out)
    np.testing.assert_allclose(out, np.exp(a) + 1)


def test_captured_helper_defined_in_factory(target, rng):
    def make(scale):
        def scaled(x):
            return x * scale

        @cuda.jit
        def k(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = scaled(a[i])

        return k

    a = rng.integers(-100, 100, 70).astype(np.int64)
    expected = a * 5
    launch1(make(5), a.size, a)
    np.testing.assert_array_equal(a, expected)


def test_captured_string_in_print(target, capfd):
    if target == "gpu":
        pytest.skip("device printf goes to the GPU's stdout")
    label = "value"

    @cuda.jit
    def k(a):
        if cuda.grid(1) == 0:
            print(label, a[0])

    k[1, 1](np.array([7], np.int32))
    assert "value 7" in capfd.readouterr().out


def test_changed_cell_compiles_again(target, rng):
    n = 3

    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += n

    a = rng.integers(0, 10, 16).astype(np.int32)
    expected = a + 3
    launch1(k, a.size, a)
    np.testing.assert_array_equal(a, expected)
    n = 10
    launch1(k, a.size, a)
    np.testing.assert_array_equal(a, expected + 10)
    assert k._kernel._compile_count == 2
    launch1(k, a.size, a)
    assert k._kernel._compile_count == 2


def test_rebound_captured_function_compiles_again(target, rng):
    op = square

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = op(a[i])

    a = rng.standard_normal(20)
    out = np.zeros_like(a)
    launch1(k, a.size, a, out)
    np.testing.assert_allclose(out, a * a)
    op = cube
    launch1(k, a.size, a, out)
    np.testing.assert_allclose(out, a * a * a)
    assert k._kernel._compile_count == 2


def test_captured_kernel_is_not_callable(target):
    inner = make_map(square, 0)

    @cuda.jit
    def outer(a):
        inner(a, a)

    with pytest.raises(weft.CompileError):
        outer[1, 1](np.zeros(4))


def test_captured_struct_class(target, rng):
    @weft.struct
    class Pair:
        x: weft.float64
        y: weft.float64

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            p = Pair(a[i], 2.0)
            out[i] = p.x * p.y

    a = rng.standard_normal(25)
    out = np.zeros_like(a)
    launch1(k, a.size, a, out)
    np.testing.assert_allclose(out, 2 * a)


def test_unassigned_captured_variable_is_undefined(target):
    @cuda.jit
    def k(a):
        a[0] = later

    with pytest.raises(weft.CompileError, match="later"):
        k[1, 1](np.zeros(1))
    later = 1  # noqa: F841


# ---- weft's own dialect ----


def make_scaler(factor):
    @weft.kernel
    def scale(a):
        i = weft.tid(1)
        if i < a.size:
            a[i] = a[i] * factor

    return scale


def test_weft_dialect_factory(target, rng):
    a = rng.standard_normal(64).astype(np.float32)
    expected = a * np.float32(1.5)
    launch_weft(make_scaler(1.5), a, grid=2, block=32)
    np.testing.assert_allclose(a, expected, rtol=1e-6)


def test_weft_dialect_func_closure(target, rng):
    def make(lo, hi):
        @weft.func
        def clamp(x):
            return min(max(x, lo), hi)

        @weft.kernel
        def k(a):
            i = weft.tid(1)
            if i < a.size:
                a[i] = clamp(a[i])

        return k

    a = rng.integers(-20, 20, 50).astype(np.int32)
    expected = np.clip(a, -5, 5)
    launch_weft(make(-5, 5), a, grid=2, block=32)
    np.testing.assert_array_equal(a, expected)


def test_two_lambdas_on_one_line(target, rng):
    ops = (lambda x: x + 1, lambda x: x * 10)
    first, second = make_map(ops[0], 0), make_map(ops[1], 0)
    a = rng.integers(-9, 9, 20).astype(np.int32)
    out1, out2 = np.zeros_like(a), np.zeros_like(a)
    launch1(first, a.size, a, out1)
    launch1(second, a.size, a, out2)
    np.testing.assert_array_equal(out1, a + 1)
    np.testing.assert_array_equal(out2, a * 10)


# ---- the same kernels compile for sm_90 through NVRTC ----


@pytest.mark.parametrize("make", [
    lambda: make_map(square, 2.5), lambda: make_map(lambda x: 3 * x - 1, 1), lambda: make_map(math.sqrt, 0),
    lambda: make_map(cube, 7),
], ids=["function", "lambda", "math", "device-function"])
def test_factory_kernels_compile_for_sm90(make):
    assert compiles_for_sm90(make(), np.zeros(4), np.zeros(4)) == ""
