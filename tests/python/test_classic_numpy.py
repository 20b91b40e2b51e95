"""NumPy in kernels (issue 10, item 5): the scalar functions and constants numba-cuda supports,
checked against NumPy on seeded random data on the CPU target (and, `gpu`-marked, on the GPU),
and the CompileError that names what to use for the rest."""

import numpy as np
import pytest

import weft
from classic_support import close, compiles_for_sm90, launch1, launch_weft, target  # noqa: F401
from weft import cuda

N = 97

# NumPy's name, the function NumPy computes it with, the domain of the random inputs.
UNARY = [
    ("exp", np.exp, (-5, 5)), ("exp2", np.exp2, (-5, 5)), ("expm1", np.expm1, (-2, 2)),
    ("log", np.log, (0.1, 10)), ("log2", np.log2, (0.1, 10)), ("log10", np.log10, (0.1, 10)),
    ("log1p", np.log1p, (-0.5, 5)), ("sqrt", np.sqrt, (0, 100)), ("cbrt", np.cbrt, (-8, 8)),
    ("sin", np.sin, (-4, 4)), ("cos", np.cos, (-4, 4)), ("tan", np.tan, (-1.2, 1.2)),
    ("arcsin", np.arcsin, (-1, 1)), ("arccos", np.arccos, (-1, 1)), ("arctan", np.arctan, (-9, 9)),
    ("sinh", np.sinh, (-3, 3)), ("cosh", np.cosh, (-3, 3)), ("tanh", np.tanh, (-3, 3)),
    ("arcsinh", np.arcsinh, (-9, 9)), ("arccosh", np.arccosh, (1, 9)), ("arctanh", np.arctanh, (-0.9, 0.9)),
    ("floor", np.floor, (-9, 9)), ("ceil", np.ceil, (-9, 9)), ("trunc", np.trunc, (-9, 9)),
    ("fabs", np.fabs, (-9, 9)), ("abs", np.abs, (-9, 9)), ("absolute", np.absolute, (-9, 9)),
    ("deg2rad", np.deg2rad, (-360, 360)), ("radians", np.radians, (-360, 360)),
    ("rad2deg", np.rad2deg, (-7, 7)), ("degrees", np.degrees, (-7, 7)),
]

BINARY = [
    ("arctan2", np.arctan2), ("hypot", np.hypot), ("copysign", np.copysign), ("fmod", np.fmod),
    ("power", np.power), ("minimum", np.minimum), ("maximum", np.maximum), ("fmin", np.fmin),
    ("fmax", np.fmax), ("nextafter", np.nextafter),
]


def unary_kernel(name):
    function = getattr(np, name)

    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = function(x[i])

    return k


def binary_kernel(name):
    function = getattr(np, name)

    @cuda.jit
    def k(x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = function(x[i], y[i])

    return k


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, reference, domain", UNARY, ids=[u[0] for u in UNARY])
def test_numpy_unary(target, rng, name, reference, domain, dtype):
    x = rng.uniform(*domain, N).astype(dtype)
    out = np.zeros_like(x)
    launch1(unary_kernel(name), N, x, out)
    close(out, reference(x), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, reference", BINARY, ids=[b[0] for b in BINARY])
def test_numpy_binary(target, rng, name, reference, dtype):
    x = rng.uniform(0.5, 4, N).astype(dtype) * rng.choice([-1, 1], N).astype(dtype)
    y = rng.uniform(0.5, 4, N).astype(dtype)
    if name != "power":
        y *= rng.choice([-1, 1], N).astype(dtype)
    else:
        x = np.abs(x)
    out = np.zeros_like(x)
    launch1(binary_kernel(name), N, x, y, out)
    close(out, reference(x, y), dtype)


@pytest.mark.parametrize("name, reference", [("minimum", np.minimum), ("maximum", np.maximum),
                                             ("fmin", np.fmin), ("fmax", np.fmax)])
def test_numpy_min_max_nan_rules(target, rng, name, reference):
    x = rng.standard_normal(N)
    y = rng.standard_normal(N)
    x[::3] = np.nan
    y[::5] = np.nan
    out = np.zeros_like(x)
    launch1(binary_kernel(name), N, x, y, out)
    np.testing.assert_array_equal(out, reference(x, y))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["minimum", "maximum", "fmin", "fmax"])
def test_numpy_min_max_order_negative_zero_below_positive_zero(target, name, dtype):
    # -0 is below +0 in either operand order (IEEE 754-2019; the GPU's min.f32/max.f32), where
    # NumPy's own result depends on the order.
    x = np.tile(np.array([-0.0, 0.0, -0.0, 0.0], dtype), N // 4)
    y = np.tile(np.array([0.0, -0.0, -0.0, 0.0], dtype), N // 4)
    out = np.ones_like(x)
    launch1(binary_kernel(name), N, x, y, out)
    negative = [True, True, True, False] if "min" in name else [False, False, True, False]
    np.testing.assert_array_equal(out, np.zeros_like(x))
    np.testing.assert_array_equal(np.signbit(out), np.tile(negative, N // 4))


@pytest.mark.parametrize("name", ["minimum", "maximum"])
def test_numpy_min_max_of_integers(target, rng, name):
    x = rng.integers(-1000, 1000, N).astype(np.int32)
    y = rng.integers(-1000, 1000, N).astype(np.int32)
    out = np.zeros_like(x)
    launch1(binary_kernel(name), N, x, y, out)
    np.testing.assert_array_equal(out, getattr(np, name)(x, y))


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite"])
def test_numpy_predicates(target, rng, name):
    x = rng.standard_normal(N)
    x[::4] = np.nan
    x[1::7] = np.inf
    x[2::9] = -np.inf
    out = np.zeros(N, np.bool_)
    launch1(unary_kernel(name), N, x, out)
    np.testing.assert_array_equal(out, getattr(np, name)(x))


def test_numpy_ldexp(target, rng):
    x = rng.standard_normal(N)
    e = rng.integers(-20, 20, N).astype(np.int32)
    out = np.zeros_like(x)
    launch1(binary_kernel("ldexp"), N, x, e, out)
    np.testing.assert_array_equal(out, np.ldexp(x, e))


@pytest.mark.parametrize("name", ["pi", "e", "euler_gamma", "inf", "nan"])
def test_numpy_constants(target, name):
    value = getattr(np, name)

    @cuda.jit
    def k(out):
        out[0] = value
        out[1] = -value

    out = np.zeros(2)
    k[1, 1](out)
    np.testing.assert_array_equal(out, [getattr(np, name), -getattr(np, name)])


def test_numpy_names_read_directly(target, rng):
    @cuda.jit
    def gaussian(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = np.exp(-x[i] * x[i] / 2) / np.sqrt(2 * np.pi)

    x = rng.standard_normal(N)
    out = np.zeros_like(x)
    launch1(gaussian, N, x, out)
    # np.sqrt of a constant alone computes in float32, as math.sqrt does (docs/classic.md).
    close(out, np.exp(-x * x / 2) / np.float32(np.sqrt(np.float32(2 * np.pi))), np.float64)


def test_numpy_casts_and_functions_keep_float32(target, rng):
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = np.float32(np.sin(x[i])) * np.float32(2.0)

    x = rng.standard_normal(N).astype(np.float32)
    out = np.zeros_like(x)
    launch1(k, N, x, out)
    close(out, np.sin(x) * np.float32(2), np.float32)


def test_numpy_in_weft_dialect(target, rng):
    @weft.kernel
    def softplus(x, out):
        i = weft.tid(1)
        if i < x.size:
            out[i] = np.log1p(np.exp(x[i]))

    x = rng.standard_normal(N)
    out = np.zeros_like(x)
    launch_weft(softplus, x, out, grid=4, block=32)
    close(out, np.log1p(np.exp(x)), np.float64)


@pytest.mark.parametrize("name, hint", [("sum", "a loop"), ("zeros", "cuda.local.array"),
                                        ("sign", "(x > 0) - (x < 0)"), ("linalg", "a math function")])
def test_unsupported_numpy_name_says_what_to_use(name, hint, monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")
    function = name
    source = f"""
import numpy as np
from weft import cuda

@cuda.jit
def k(x):
    x[0] = np.{function}(x)
"""
    namespace = {}
    path = pytest.importorskip("pathlib").Path(__file__).with_name(f"_numpy_unsupported_{name}.py")
    path.write_text(source)
    try:
        exec(compile(source, str(path), "exec"), namespace)
        with pytest.raises(weft.CompileError, match=r"numpy\.%s is not supported in device code; use .*%s" % (
                name, hint.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.").replace("+", r"\+"))) as info:
            namespace["k"][1, 1](np.zeros(3))
        assert "[NumpyUnsupported]" in str(info.value)
    finally:
        path.unlink()


def test_numpy_minimum_takes_two_arguments(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")

    @cuda.jit
    def k(x):
        x[0] = np.minimum(x[0], x[1], x[2])

    with pytest.raises(weft.CompileError, match="ArgumentCount"):
        k[1, 1](np.zeros(3))


@pytest.mark.parametrize("name", ["exp", "minimum", "isnan", "arctan2", "ldexp"])
def test_numpy_kernels_compile_for_sm90(name):
    if name in ("minimum", "arctan2"):
        assert compiles_for_sm90(binary_kernel(name), np.zeros(4, np.float32), np.zeros(4, np.float32),
                                 np.zeros(4, np.float32)) == ""
    elif name == "ldexp":
        assert compiles_for_sm90(binary_kernel(name), np.zeros(4), np.zeros(4, np.int32), np.zeros(4)) == ""
    else:
        assert compiles_for_sm90(unary_kernel(name), np.zeros(4), np.zeros(4)) == ""
