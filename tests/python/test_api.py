"""weft's Python surface: decorators, launch arguments and errors, arrays, specialization and
caching, and end-to-end launches on the CPU target (and the GPU where one is present)."""

import ast
import importlib.util
import math
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import weft
from cuda import device

rng = np.random.default_rng(20261124)  # seeded: a failure reproduces


@device.kernel
def vec_add(a, b, c):
    i = device.tid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@device.kernel
def saxpy(alpha, x, y, out):
    i = device.tid(1)
    if i < out.size:
        out[i] = alpha * x[i] + y[i]


@device.kernel
def scale2d(a, out, factor):
    x, y = device.tid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[y, x] = a[y, x] * factor


@device.func
def poly(x, y):
    return x * y + 1


@device.kernel
def apply_poly(a, out):
    i = device.tid(1)
    if i < out.size:
        out[i] = poly(a[i], a[i])


@device.kernel
def repeat(out, n: device.ConstExpr):
    i = device.tid(1)
    if i < out.size:
        acc = 0
        for _ in range(n):
            acc += 1
        out[i] = acc


def write_module(tmp_path, name, source):
    """Imports `source` as a module of its own (a file, so that weft can read its source)."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def random_floats(n):
    return rng.standard_normal(n).astype(np.float32)


# ---- import and namespaces -------------------------------------------------------------------


def test_import_does_not_load_numpy():
    code = "import sys, weft; from cuda import device; print('numpy' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_cuda_device_reexports_the_specification_entities():
    for name in ("kernel", "func", "launch", "ConstExpr", "tid", "grid_size", "thread_idx", "block_idx",
                 "block_dim", "grid_dim", "warp_size", "lane_id", "syncthreads", "shared_array",
                 "local_array", "float32", "int64", "uint8", "complex128", "bool_"):
        assert getattr(device, name) is getattr(weft, name), name
    # weft's extras stay under weft only.
    assert not hasattr(device, "DeviceArray")
    assert not hasattr(device, "cache_dir")


def test_number_types():
    assert weft.float32.__weft_name__ == "weft.float32"
    assert weft.float32.dtype == np.dtype(np.float32)
    assert weft.uint16.dtype == np.dtype(np.uint16)
    value = weft.float32(1.5)
    assert isinstance(value, np.float32) and value == 1.5
    assert weft.int8(300 - 256) == 44
    annotation = weft.float32[:, :]
    assert annotation.ndim == 2 and annotation.element is weft.float32
    assert weft.int32[:].ndim == 1
    with pytest.raises(TypeError):
        weft.float32[3]


@pytest.mark.parametrize("name", ["tid", "grid_size", "syncthreads", "shared_array", "local_array"])
def test_device_only_functions_raise_on_the_host(name):
    with pytest.raises(TypeError, match="device-only"):
        getattr(weft, name)(1)


@pytest.mark.parametrize("name", ["thread_idx", "block_idx", "block_dim", "grid_dim"])
def test_device_only_values_raise_on_the_host(name):
    with pytest.raises(TypeError, match="device-only"):
        getattr(weft, name).x
    with pytest.raises(TypeError, match="device-only"):
        int(weft.warp_size)


def test_constexpr_annotations():
    assert weft.ConstExpr[int].type is int
    with pytest.raises(TypeError):
        weft.ConstExpr(3)


# ---- decorators ------------------------------------------------------------------------------


def test_decorators_are_lazy(tmp_path):
    # An ill-typed kernel decorates fine: nothing is parsed before the first launch.
    module, _ = write_module(tmp_path, "lazy_kernels", """
        from cuda import device

        @device.kernel
        def broken(a):
            a[0] = undefined_name

        @device.kernel(debug=True)
        def also_broken(a):
            this is not valid python at all
    """.replace("this is not valid python at all", "a[0] = 'text' + 1"))
    assert module.broken.underlying.__name__ == "broken"
    assert module.also_broken.debug is True
    with pytest.raises(weft.CompileError):
        weft.launch(module.broken, np.zeros(4, np.float32), grid=1, block=1, target="cpu")


def test_decorator_keyword_validation():
    with pytest.raises(TypeError, match="unknown keyword"):
        device.kernel(linkk=["x.cu"])
    with pytest.raises(TypeError, match="unknown keyword"):
        device.func(debug=True)
    with pytest.raises(TypeError):
        device.kernel(debug="yes")
    with pytest.raises(TypeError):
        device.kernel(3)

    def f(a):
        pass

    k = device.kernel(debug=True, fastmath=True)(f)
    assert (k.debug, k.fastmath, k.interop) == (True, True, False)
    assert k.underlying is f
    assert device.func(interop=True)(f).interop is True
    with pytest.raises(TypeError):
        device.func(k)
    with pytest.raises(TypeError):
        device.kernel(device.func(f))


def test_func_runs_its_underlying_function_on_the_host():
    assert poly(3, 4) == 13
    assert poly.underlying(2.0, 0.5) == 2.0
    assert poly.__name__ == "poly"


def test_calling_a_kernel_directly_says_how_to_launch():
    with pytest.raises(TypeError, match=r"launch.*vec_add\[grid, block\]"):
        vec_add(1, 2, 3)


# ---- launch arguments ------------------------------------------------------------------------


@pytest.mark.parametrize("grid, block, error", [
    (0, 32, ValueError),
    (1, -4, ValueError),
    ((1, 2, 3, 4), 32, ValueError),
    ((), 32, ValueError),
    ("4", 32, TypeError),
    (1.5, 32, TypeError),
    ((2, 2.0), 32, TypeError),
    (1, 2 ** 40, ValueError),
    (True, 32, TypeError),
])
def test_bad_grid_and_block(grid, block, error):
    a = np.zeros(4, np.float32)
    with pytest.raises(error, match="grid|block"):
        weft.launch(vec_add, a, a, a, grid=grid, block=block, target="cpu")
    with pytest.raises(error, match="grid|block"):
        vec_add[grid, block](a, a, a)


def test_bad_launch_calls():
    a = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match="needs block="):
        weft.launch(vec_add, a, a, a, grid=1)
    with pytest.raises(TypeError, match="needs grid="):
        weft.launch(vec_add, a, a, a, block=1)
    with pytest.raises(TypeError, match="unexpected keyword"):
        weft.launch(vec_add, a, a, a, grid=1, block=1, blocks=2)
    with pytest.raises(TypeError, match="@func"):
        weft.launch(poly, 1, 2, grid=1, block=1)
    with pytest.raises(TypeError, match="@kernel"):
        weft.launch(print, grid=1, block=1)
    with pytest.raises(TypeError):
        vec_add[1](a, a, a)
    with pytest.raises(ValueError, match="target"):
        weft.launch(vec_add, a, a, a, grid=1, block=1, target="tpu")
    with pytest.raises(TypeError, match="stream"):
        weft.launch(vec_add, a, a, a, grid=1, block=1, stream="fast", target="cpu")
    with pytest.raises(ValueError, match="shared"):
        weft.launch(vec_add, a, a, a, grid=1, block=1, shared=-1, target="cpu")


def test_wrong_argument_count_and_kinds():
    a = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"takes 3 arguments \(2 given\)"):
        weft.launch(vec_add, a, a, grid=1, block=4, target="cpu")
    with pytest.raises(TypeError, match="parameter 'b'"):
        weft.launch(vec_add, a, [1.0, 2.0], a, grid=1, block=4, target="cpu")
    with pytest.raises(TypeError, match="parameter 'a'.*host"):
        weft.launch(vec_add, a, a, a, grid=1, block=4, target="gpu")
    with pytest.raises(ValueError, match="does not fit in int64"):
        weft.launch(saxpy, 2 ** 70, a, a, a, grid=1, block=4, target="cpu")


def test_default_target_and_environment(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")
    assert weft.default_target() == "cpu"
    monkeypatch.setenv("WEFT_TARGET", "gpu")
    assert weft.default_target() == "gpu"
    monkeypatch.setenv("WEFT_TARGET", "fpga")
    with pytest.raises(ValueError, match="WEFT_TARGET"):
        weft.default_target()
    monkeypatch.delenv("WEFT_TARGET")
    assert weft.default_target() == ("gpu" if weft.gpu_available() else "cpu")


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("WEFT_CACHE_DIR", str(tmp_path / "cache"))
    assert weft.cache_dir() == str(tmp_path / "cache")


# ---- errors ----------------------------------------------------------------------------------


def test_compile_error_points_at_the_offending_line(tmp_path):
    module, path = write_module(tmp_path, "bad_kernel", """
        from cuda import device

        @device.kernel
        def bad(a):
            i = device.tid(1)
            a[i] = no_such_name + 1
    """)
    with pytest.raises(weft.CompileError) as info:
        weft.launch(module.bad, np.zeros(4, np.float32), grid=1, block=4, target="cpu")
    text = str(info.value)
    lines = text.splitlines()
    match = re.match(rf"{re.escape(str(path))}:(\d+):(\d+): error: (.*) \[(\w+)\]$", lines[0])
    assert match, text
    line, column = int(match.group(1)), int(match.group(2))
    assert line == 7
    assert "no_such_name" in match.group(3)
    source_line = path.read_text().splitlines()[line - 1]
    assert lines[1].strip() == source_line.strip()
    caret = lines[2].index("^")
    # The caret sits under the name; the printed column is 1-based.
    assert lines[1][caret:].startswith("no_such_name")
    assert caret - lines[1].index(source_line) == column - 1
    assert len(info.value.diagnostics) == 1
    assert isinstance(info.value, Exception)


def test_syntax_errors_are_compile_errors(tmp_path):
    with pytest.raises(weft.CompileError, match=r"bad\.py:1:\d+: error"):
        weft._weft.dump_ast("x = (1,\n", "bad.py")


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="weft's dump follows CPython 3.11's ast")
def test_dump_ast_matches_cpython():
    source = textwrap.dedent("""
        import math
        from cuda import device

        @device.kernel
        def k(a: device.float32[:], n: device.ConstExpr[int]):
            for i in range(n):
                a[i] = math.sqrt(a[i]) if a[i] > 0 else -1.5e-3
            x, *rest = (1, 2, 3)
            return None
    """)
    assert weft._weft.dump_ast(source, "k.py") == ast.dump(ast.parse(source))


# ---- launches on the CPU target --------------------------------------------------------------


def test_vec_add_on_the_cpu():
    n = 1000
    a, b = random_floats(n), random_floats(n)
    c = np.zeros(n, np.float32)
    weft.launch(vec_add, a, b, c, grid=(n + 127) // 128, block=128, target="cpu")
    np.testing.assert_array_equal(c, a + b)


def test_shorthand_launch_and_scalars(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")
    n = 517
    x, y = random_floats(n), random_floats(n)
    out = np.zeros(n, np.float32)
    saxpy[(n + 63) // 64, 64](np.float32(2.5), x, y, out)
    np.testing.assert_allclose(out, np.float32(2.5) * x + y, rtol=1e-6)
    saxpy[(n + 63) // 64, 64, None, 0](1.5, x, y, out)
    np.testing.assert_allclose(out, np.float32(1.5) * x + y, rtol=1e-6)


def test_two_dimensional_launch_and_strided_views():
    a = rng.standard_normal((37, 53)).astype(np.float64)
    out = np.zeros_like(a)
    weft.launch(scale2d, a, out, 3.0, grid=(4, 3), block=(16, 16), target="cpu")
    np.testing.assert_allclose(out, a * np.float32(3.0), rtol=1e-12)
    # A non-contiguous view: strides are passed through.
    view = a[::2, 1::3]
    out2 = np.zeros_like(view)
    weft.launch(scale2d, view, out2, 2.0, grid=(2, 2), block=(16, 16), target="cpu")
    np.testing.assert_allclose(out2, view * 2.0, rtol=1e-12)


def test_func_called_from_a_kernel():
    a = random_floats(300)
    out = np.zeros_like(a)
    weft.launch(apply_poly, a, out, grid=3, block=128, target="cpu")
    np.testing.assert_allclose(out, a * a + 1, rtol=1e-6)


class DLPackOnly:
    """An array that only speaks DLPack (as a host array library might)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__()

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


class ArrayInterfaceOnly:
    def __init__(self, array):
        self.__array_interface__ = array.__array_interface__
        self._array = array


def test_dlpack_and_array_interface_arguments_on_the_cpu():
    n = 200
    a, b = random_floats(n), random_floats(n)
    c = np.zeros(n, np.float32)
    weft.launch(vec_add, DLPackOnly(a), ArrayInterfaceOnly(b), DLPackOnly(c), grid=2, block=128, target="cpu")
    np.testing.assert_array_equal(c, a + b)


def test_device_arrays_on_the_cpu_target():
    n = 333
    a, b = random_floats(n), random_floats(n)
    d_a, d_b = weft.to_device(a, target="cpu"), weft.to_device(b, target="cpu")
    d_c = weft.zeros(n, np.float32, target="cpu")
    assert (d_c.shape, d_c.size, d_c.ndim, d_c.dtype, d_c.strides) == ((n,), n, 1, np.float32, (4,))
    np.testing.assert_array_equal(d_c.copy_to_host(), np.zeros(n, np.float32))
    weft.launch(vec_add, d_a, d_b, d_c, grid=3, block=128, target="cpu")
    np.testing.assert_array_equal(d_c.copy_to_host(), a + b)
    with pytest.raises(TypeError, match="host memory"):
        weft.launch(vec_add, d_a, d_b, d_c, grid=3, block=128, target="gpu")
    m = weft.empty((3, 4), np.int64, target="cpu")
    assert m.strides == (32, 8) and len(m) == 3
    weft.synchronize()


# ---- specialization and caching --------------------------------------------------------------


def test_specializations_per_argument_types():
    before = repeat._compile_count
    a32 = np.zeros(10, np.int32)
    for n in (3, 5, 3):
        weft.launch(repeat, a32, n, grid=1, block=16, target="cpu")
        np.testing.assert_array_equal(a32, np.full(10, n, np.int32))
    assert repeat._compile_count - before == 2  # n=3 and n=5, the second n=3 is cached
    a64 = np.zeros(10, np.int64)
    weft.launch(repeat, a64, 3, grid=1, block=16, target="cpu")
    np.testing.assert_array_equal(a64, np.full(10, 3))
    assert repeat._compile_count - before == 3


def test_changed_global_constant_recompiles(tmp_path):
    module, _ = write_module(tmp_path, "global_kernels", """
        from cuda import device

        SCALE = 2.0

        @device.kernel
        def scale(a, out):
            i = device.tid(1)
            if i < out.size:
                out[i] = a[i] * SCALE
    """)
    a = random_floats(64)
    out = np.zeros_like(a)
    weft.launch(module.scale, a, out, grid=1, block=64, target="cpu")
    np.testing.assert_allclose(out, a * 2.0)
    weft.launch(module.scale, a, out, grid=1, block=64, target="cpu")
    assert module.scale._compile_count == 1
    module.SCALE = 2.0 + 0.0  # rebound to an equal value: no recompilation
    weft.launch(module.scale, a, out, grid=1, block=64, target="cpu")
    assert module.scale._compile_count == 1
    module.SCALE = -3.5
    weft.launch(module.scale, a, out, grid=1, block=64, target="cpu")
    np.testing.assert_allclose(out, a * -3.5)
    assert module.scale._compile_count == 2


def test_disk_cache_directory_is_used(tmp_path):
    cache = tmp_path / "weft-cache"
    script = textwrap.dedent(f"""
        import numpy as np, weft
        from cuda import device

        @device.kernel
        def add_one(a):
            i = device.tid(1)
            if i < a.size:
                a[i] += 1

        a = np.arange(10, dtype=np.int32)
        weft.launch(add_one, a, grid=1, block=32, target="cpu")
        assert (a == np.arange(1, 11)).all(), a
        print(weft.cache_dir())
    """)
    path = tmp_path / "cached.py"
    path.write_text(script)
    env = dict(os.environ, WEFT_CACHE_DIR=str(cache))
    for _ in range(2):  # cold, then warm
        result = subprocess.run([sys.executable, str(path)], env=env, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == str(cache)
    assert cache.is_dir() and any(cache.rglob("*"))
    result = subprocess.run([sys.executable, str(path)], env=dict(env, WEFT_CACHE="0",
                                                                   WEFT_CACHE_DIR=str(tmp_path / "off")),
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "off").exists() or not any((tmp_path / "off").rglob("*"))


def test_emit_cuda_helper():
    source = vec_add._emit_cuda(np.zeros(4, np.float32), np.zeros(4, np.float32), np.zeros(4, np.float32),
                                target="cpu")
    assert "#line" in source and "vec_add" in source


# ---- the GPU ---------------------------------------------------------------------------------


@pytest.mark.gpu
def test_vec_add_on_the_gpu():
    n = 100_003
    a, b = random_floats(n), random_floats(n)
    d_a, d_b = weft.to_device(a, target="gpu"), weft.to_device(b, target="gpu")
    d_c = weft.empty(n, np.float32, target="gpu")
    assert d_c.__cuda_array_interface__["shape"] == (n,)
    weft.launch(vec_add, d_a, d_b, d_c, grid=(n + 255) // 256, block=256, target="gpu")
    np.testing.assert_array_equal(d_c.copy_to_host(), a + b)
    d_c2 = weft.zeros(n, np.float32, target="gpu")
    vec_add[(n + 255) // 256, 256, 0, 0](d_a, d_b, d_c2)
    weft.synchronize()
    np.testing.assert_array_equal(d_c2.copy_to_host(), a + b)


@pytest.mark.gpu
def test_dlpack_export_of_gpu_arrays_and_streams():
    n = 4096
    a = random_floats(n)
    d_a = weft.to_device(a, target="gpu")
    d_out = weft.zeros(n, np.float32, target="gpu")

    class ViaDLPack:
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, stream=None):
            return self.array.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    class ViaCudaArrayInterface:
        def __init__(self, array):
            self.__cuda_array_interface__ = array.__cuda_array_interface__

    class Stream:
        def __cuda_stream__(self):
            return (0, 0)

    weft.launch(saxpy, 2.0, ViaDLPack(d_a), d_a, ViaCudaArrayInterface(d_out), grid=n // 256, block=256,
                stream=Stream(), target="gpu")
    weft.synchronize()
    np.testing.assert_allclose(d_out.copy_to_host(), 3 * a, rtol=1e-6)
    with pytest.raises(TypeError, match="GPU memory"):
        weft.launch(vec_add, d_a, d_a, d_out, grid=1, block=1, target="cpu")


@pytest.mark.gpu
def test_gpu_architecture():
    assert weft._runtime.runtime().gpu_architecture() >= 50


def test_math_in_kernels(tmp_path):
    module, _ = write_module(tmp_path, "math_kernels", """
        import math
        from cuda import device

        @device.kernel
        def hyp(a, b, out):
            i = device.tid(1)
            if i < out.size:
                out[i] = math.sqrt(a[i] * a[i] + b[i] * b[i])
    """)
    a, b = rng.standard_normal(100), rng.standard_normal(100)
    out = np.zeros(100)
    weft.launch(module.hyp, a, b, out, grid=1, block=128, target="cpu")
    np.testing.assert_allclose(out, np.hypot(a, b), rtol=1e-12)
    assert math.isfinite(out.sum())
