"""Interoperability with CUDA C++ (issue 3, item 8).

tests/interop/kernels.py holds interoperable functions and a kernel; tests/interop/caller.cu
declares them with the CUDA C++ types the specification names (cuda::std::complex<float>, __half,
int2, a struct, a tuple struct, cuda::interoperable_array_descriptor) and calls them. Proven two
ways: `weftc --emit-cuda` output compiled and linked with the caller by `nvcc -rdc=true` (in CI;
run on the GPU), and `weftc --link caller.cu` linking both through nvJitLink into one cubin (in
CI; loaded and launched on the GPU). The same functions also run through weft's own launches
(the JIT path) on the CPU target and the GPU, and on the host as Python.
"""

import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import weft

REPO = pathlib.Path(__file__).resolve().parents[2]
INTEROP = REPO / "tests" / "interop"
CUDA = pathlib.Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
NVCC = CUDA / "bin" / "nvcc"
N_VECTOR = 37
N_RESULTS = 10


def load_kernels():
    """tests/interop/kernels.py, imported as a module (registered, so that inspect finds its
    @struct classes' source)."""
    name = "weft_interop_kernels"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, INTEROP / "kernels.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def weftc():
    beside = pathlib.Path(sys.executable).parent / "weftc"
    found = str(beside) if beside.exists() else shutil.which("weftc")
    if found is None:
        pytest.skip("weftc is not installed")
    return found


def random_inputs(rng):
    """The inputs of call_weft/evaluate: 8 floats, 5 ints, a vector; a matrix and a factor for
    scale_rows."""
    return dict(
        floats=rng.uniform(-2, 2, 8).astype(np.float32),
        ints=rng.integers(-1000, 1000, 5).astype(np.int32),
        vector=rng.uniform(-1, 1, N_VECTOR).astype(np.float32),
        matrix=rng.standard_normal((19, 23)),
        k=float(rng.uniform(0.5, 2.0)),
    )


def expected_results(inputs):
    """What call_weft and evaluate compute, by NumPy."""
    f, i, v = inputs["floats"], inputs["ints"], inputs["vector"]
    product = np.complex64(complex(f[0], f[1])) * np.complex64(complex(f[2], f[3]))
    evens = np.float32(0)
    for x in v[::2]:
        evens = np.float32(evens + x)
    whole = np.float32(0)
    for x in v:
        whole = np.float32(whole + x)
    return np.array([
        product.real, product.imag,
        np.abs(np.float16(f[4]) - np.float16(f[5])),
        np.int32(i[0]) * i[2] + np.int32(i[1]) * i[3],
        np.float64(f[7]) * np.float64(f[6]),
        np.float64(f[0]), i[4],
        evens, whole,
        1,  # is_null(None)
    ], dtype=np.float64)


def expected_matrix(inputs):
    rows = np.arange(1, inputs["matrix"].shape[0] + 1, dtype=np.float64)[:, None]
    return inputs["matrix"] * inputs["k"] * rows


def check_results(results, inputs):
    expected = expected_results(inputs)
    np.testing.assert_allclose(results[:2], expected[:2], rtol=1e-6)
    assert results[2] == expected[2]
    assert results[3] == expected[3]
    np.testing.assert_allclose(results[4], expected[4], rtol=1e-15)
    assert results[5] == expected[5] and results[6] == expected[6]
    np.testing.assert_allclose(results[7:9], expected[7:9], rtol=1e-5)
    assert results[9] == 1


# ---- weft's own launches (JIT), and the host ---------------------------------------------------


def run_evaluate(target, inputs):
    kernels = load_kernels()
    out = np.zeros(N_RESULTS)
    args = [inputs["floats"], inputs["ints"], inputs["vector"][::2], inputs["vector"], out]
    matrix = inputs["matrix"].copy()
    if target == "gpu":
        dev = [weft.to_device(np.ascontiguousarray(a)) for a in args]
        weft.launch(kernels.evaluate, *dev, grid=1, block=1, target="gpu")
        d_matrix = weft.to_device(matrix)
        weft.launch(kernels.scale_rows, d_matrix, inputs["k"], grid=(2, 2), block=(16, 16), target="gpu")
        weft.synchronize()
        out, matrix = dev[-1].copy_to_host(), d_matrix.copy_to_host()
    else:
        weft.launch(kernels.evaluate, *args, grid=1, block=1, target="cpu")
        weft.launch(kernels.scale_rows, matrix, inputs["k"], grid=(2, 2), block=(16, 16), target="cpu")
    return out, matrix


def test_interoperable_functions_and_kernels_on_the_cpu_target(rng):
    inputs = random_inputs(rng)
    out, matrix = run_evaluate("cpu", inputs)
    check_results(out, inputs)
    np.testing.assert_allclose(matrix, expected_matrix(inputs), rtol=1e-15)


@pytest.mark.gpu
def test_interoperable_functions_and_kernels_on_the_gpu(rng):
    inputs = random_inputs(rng)
    out, matrix = run_evaluate("gpu", inputs)
    check_results(out, inputs)
    np.testing.assert_allclose(matrix, expected_matrix(inputs), rtol=1e-15)


def test_interoperable_functions_run_their_python_on_the_host():
    kernels = load_kernels()
    assert kernels.cmul(1 + 2j, 3 - 1j) == (1 + 2j) * (3 - 1j)
    assert kernels.swap((3, 2.5)) == (2.5, 3)
    assert kernels.scale_rows.interop and kernels.cmul.interop


def test_an_interoperable_kernel_converts_scalars_and_checks_arrays():
    kernels = load_kernels()
    matrix = np.ones((4, 4))
    weft.launch(kernels.scale_rows, matrix, 2, grid=1, block=(4, 4), target="cpu")  # an int for a float64
    np.testing.assert_array_equal(matrix[:, 0], [2, 4, 6, 8])
    # Its annotations are a contract, as every kernel's are (docs/types.md).
    with pytest.raises(TypeError, match=r"kernel 'scale_rows', parameter 'm': expected array\(float64, 2d\), got "
                                        r"array\(float32, 2d\)"):
        weft.launch(kernels.scale_rows, np.ones((4, 4), np.float32), 2.0, grid=1, block=(4, 4), target="cpu")


def test_interop_errors_point_at_the_users_line(tmp_path):
    path = tmp_path / "bad_interop.py"
    path.write_text(textwrap.dedent("""
        from cuda import device

        @device.func(interop=True)
        def scaled(x, k: device.float32):
            return x * k

        @device.kernel
        def k(a):
            a[0] = scaled(a[1], 2.0)
    """))
    spec = importlib.util.spec_from_file_location("bad_interop", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(weft.CompileError) as error:
        weft.launch(module.k, np.ones(4, np.float32), grid=1, block=1, target="cpu")
    text = str(error.value)
    assert f"{path}:5:" in text and "parameter 'x' of interoperable function 'scaled' needs a type annotation" in text


# ---- CUDA C++ calls weft: nvcc -rdc=true, and nvJitLink -------------------------------------------


@pytest.fixture(scope="module")
def nvcc_app(tmp_path_factory):
    """caller.cu and weft's unit (weftc --emit-cuda), compiled and linked by nvcc -rdc=true."""
    if not NVCC.exists():
        pytest.skip(f"no nvcc at {NVCC}")
    work = tmp_path_factory.mktemp("interop_nvcc")
    unit = work / "weft_kernels.cu"
    subprocess.run([weftc(), str(INTEROP / "kernels.py"), "--emit-cuda", "-o", str(unit)], check=True)
    include = subprocess.run([weftc(), "--print-include-dir"], check=True, capture_output=True, text=True).stdout.strip()
    app = work / "interop_app"
    proc = subprocess.run([str(NVCC), "-std=c++17", "-rdc=true", "-arch=sm_90", f"-I{include}",
                           str(INTEROP / "caller.cu"), str(unit), "-o", str(app)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return app


def test_nvcc_compiles_and_links_weft_with_cuda_cpp(nvcc_app):
    assert nvcc_app.stat().st_size > 0


@pytest.fixture(scope="module")
def linked_cubin(tmp_path_factory):
    """weft's unit and caller.cu's device code, linked by nvJitLink into one cubin."""
    if not (CUDA / "include").is_dir():
        pytest.skip(f"no CUDA toolkit at {CUDA}")
    cubin = tmp_path_factory.mktemp("interop_link") / "linked.cubin"
    proc = subprocess.run([weftc(), str(INTEROP / "kernels.py"), "--link", str(INTEROP / "caller.cu"), "-arch", "sm_90",
                           "-o", str(cubin)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return cubin


def test_nvjitlink_links_weft_with_cuda_cpp(linked_cubin):
    data = linked_cubin.read_bytes()
    assert data[:4] == b"\x7fELF"
    # The kernels of both sides (link-time optimization inlines the functions into call_weft; an
    # unresolved one would have failed the link).
    for symbol in (b"call_weft", b"scale_rows"):
        assert symbol + b"\0" in data, symbol


def stdin_text(inputs):
    m = inputs["matrix"]
    numbers = [*map(repr, map(float, inputs["floats"])), *map(str, inputs["ints"]), str(N_VECTOR),
               *map(repr, map(float, inputs["vector"])), str(m.shape[0]), str(m.shape[1]),
               *map(repr, m.ravel().tolist()), repr(inputs["k"])]
    return " ".join(numbers) + "\n"


@pytest.mark.gpu
def test_cuda_cpp_program_calls_weft_on_the_gpu(nvcc_app, rng):
    inputs = random_inputs(rng)
    proc = subprocess.run([str(nvcc_app)], input=stdin_text(inputs), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    host = lines[0].split()
    expected = expected_results(inputs)
    # The host halves of the interoperable functions, called from C++ host code.
    assert host[0] == "host"
    np.testing.assert_allclose([float(host[1]), float(host[2])], expected[:2], rtol=1e-6)
    assert int(host[3]) == expected[3]
    values = np.array([float(x) for x in lines[1:]])
    check_results(values[:N_RESULTS], inputs)
    np.testing.assert_allclose(values[N_RESULTS:].reshape(inputs["matrix"].shape), expected_matrix(inputs), rtol=1e-15)


@pytest.mark.gpu
def test_nvjitlinked_cubin_runs_on_the_gpu(linked_cubin, rng):
    cp = pytest.importorskip("cupy")
    inputs = random_inputs(rng)
    module = cp.RawModule(path=str(linked_cubin))
    out = cp.zeros(N_RESULTS, cp.float64)
    module.get_function("call_weft")((1,), (1,), (cp.asarray(inputs["floats"]), cp.asarray(inputs["ints"]),
                                                   cp.asarray(inputs["vector"]), np.int32(N_VECTOR), out))
    check_results(out.get(), inputs)
    # weft's interoperable kernel, given the descriptor as the C++ struct it is.
    matrix = cp.asarray(inputs["matrix"])
    descriptor = np.zeros((), np.dtype([("data", np.uint64), ("shape", np.uint64, (2,)), ("strides", np.uint64, (2,))]))
    descriptor["data"] = matrix.data.ptr
    descriptor["shape"] = matrix.shape
    descriptor["strides"] = [s // matrix.itemsize for s in matrix.strides]
    module.get_function("scale_rows")((2, 2), (16, 16), (descriptor[()], np.float64(inputs["k"])))
    np.testing.assert_allclose(matrix.get(), expected_matrix(inputs), rtol=1e-15)
