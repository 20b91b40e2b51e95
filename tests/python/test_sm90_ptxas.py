"""Every example kernel, and a selection of the CPU-tested kernels, compiled for sm_90.

weftc turns annotated kernels into a cubin through NVRTC (--cubin) and into PTX (--ptx) that
the toolkit's ptxas must accept for sm_90. No GPU is needed, only the CUDA toolkit, so this runs
in CI; it is skipped where /usr/local/cuda is missing.
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
CUDA = pathlib.Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
PTXAS = CUDA / "bin" / "ptxas"
CUOBJDUMP = CUDA / "bin" / "cuobjdump"

pytestmark = pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")


def weftc_path():
    """weftc as installed next to this interpreter by pip, else on PATH, else the test build."""
    beside = pathlib.Path(sys.executable).parent / "weftc"
    if beside.exists():
        return str(beside)
    found = shutil.which("weftc")
    if found:
        return found
    built = REPO / "build" / "tests" / "weftc"
    if built.exists():
        return str(built)
    pytest.skip("weftc is not installed")


# The example kernels take no annotations (they are launched from Python); weftc compiles only
# annotated kernels, so each example's signature is annotated here and the rest of its file is
# compiled as written.
EXAMPLE_SIGNATURES = {
    "vec_add": ("def vec_add(a, b, c):", "def vec_add(a: device.float32[:], b: device.float32[:], c: device.float32[:]):"),
    "saxpy": (
        "def saxpy(alpha, x, y, out):",
        "def saxpy(alpha: device.float32, x: device.float32[:], y: device.float32[:], out: device.float32[:]):",
    ),
    "stencil2d": ("def jacobi_step(u, out):", "def jacobi_step(u: device.float32[:, :], out: device.float32[:, :]):"),
    "matmul_tiled": (
        "def matmul(A, B, C):",
        "def matmul(A: device.float32[:, :], B: device.float32[:, :], C: device.float32[:, :]):",
    ),
    "block_reduce": ("def block_sum(x, partial):", "def block_sum(x: device.float32[:], partial: device.float32[:]):"),
}

# Kernels of test_kernels_cpu.py, annotated for one specialization each.
KERNEL_SOURCES = {
    "none_values": """
from cuda import device

def scale_unless(factor, x):
    if factor is None:
        return x
    return x * factor

@device.kernel
def maybe_scale(a: device.float32[:], factor: None, options: tuple[None, device.float32]):
    i = device.tid(1)
    nothing = None
    if i < a.size:
        a[i] = scale_unless(factor, a[i]) + scale_unless(nothing, options[1])
        if options[0] is not None:
            a[i] = -a[i]
""",
    "int_ops_int64": """
from cuda import device

@device.kernel
def int_ops(a: device.int64[:], b: device.int64[:], s: device.int64[:], out: device.int64[:, :], cmp: device.bool_[:, :], fdiv: device.float64[:]):
    i = device.tid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[0, i] = x // y
        out[1, i] = x % y
        out[2, i] = x ** 3
        out[3, i] = x << s[i]
        out[4, i] = x >> s[i]
        out[5, i] = min(x, y) + abs(x)
        cmp[0, i] = x < y <= x + 1
        fdiv[i] = x / y
""",
    "uint8_ops": """
from cuda import device

@device.kernel
def uint8_ops(a: device.uint8[:], b: device.uint8[:], out: device.uint8[:]):
    i = device.tid(1)
    if i < a.size:
        out[i] = (a[i] * 3 + 1) // b[i] - (a[i] % b[i]) + (a[i] >> 9)
""",
    "math_float32": """
import math
from cuda import device

@device.kernel
def math_funcs(x: device.float32[:], y: device.float32[:], out: device.float32[:, :], flags: device.bool_[:]):
    i = device.tid(1)
    if i < x.size:
        v = x[i]
        w = y[i]
        out[0, i] = math.acos(v) + math.asin(v) + math.atan(v) + math.acosh(v + 1.0)
        out[1, i] = math.asinh(v) + math.atanh(v) + math.cos(v) + math.sin(v) + math.tan(v)
        out[2, i] = math.cosh(v) + math.sinh(v) + math.tanh(v) + math.atan2(v, w)
        out[3, i] = math.exp(v) + math.expm1(v) + math.fabs(v) + math.log(v) + math.log10(v)
        out[4, i] = math.log1p(v) + math.sqrt(v) + math.pow(v, w) + math.ceil(v) + math.floor(v)
        out[5, i] = math.copysign(v, w) + math.fmod(v, w)
        flags[i] = math.isnan(v) or math.isinf(w)
""",
    "math_float64": """
import math
from cuda import device

@device.kernel
def math_funcs(x: device.float64[:], out: device.float64[:]):
    i = device.tid(1)
    if i < x.size:
        v = x[i]
        out[i] = math.sin(v) * math.exp(v) + math.pow(v, 2.5) - math.atan2(v, 1.0) + v // 0.3 + v % 0.7
""",
    "loops_and_calls": """
from cuda import device

def divmod_pair(a, b):
    return a // b, a % b

@device.func
def poly(x):
    return x * x + 2 * x + 1

@device.kernel
def loops(out: device.int32[:], start: device.int32, stop: device.int32, step: device.int32):
    total = 0
    for i in range(start, stop, step):
        if i % 7 == 3:
            break
        total += poly(i)
    else:
        total += 1000
    k = 0
    while k < stop and total > 0:
        k += 1
    q, r = divmod_pair(total, 7)
    out[0] = q
    out[1] = r
    if k > 0:
        out[2] = k
    else:
        out[2] = -1
""",
    "shared_local_3d": """
from cuda import device

TT = 8

@device.kernel
def tiles(a: device.int32[:, :, :], out: device.float32[:, :]):
    tile = device.shared_array((TT, TT + 1), device.int32)
    buf = device.local_array((2, 4), device.float32)
    x, y, z = device.tid(3)
    tx = int(device.thread_idx.x)
    ty = int(device.thread_idx.y)
    tile[ty, tx] = a[-1, y, x]
    device.syncthreads()
    for k in range(8):
        buf[k // 4, k % 4] = tile[tx, ty] * 0.5
    if x < out.shape[1] and y < out.shape[0]:
        out[y, x] = buf[1, 3] + device.lane_id + device.warp_size + a.ndim
""",
}


def example_source(name):
    text = (REPO / "examples" / f"{name}.py").read_text()
    old, new = EXAMPLE_SIGNATURES[name]
    assert old in text, f"examples/{name}.py no longer defines `{old}`"
    return text.replace(old, new)


def compile_for_sm90(tmp_path, name, source, arch="sm_90"):
    src = tmp_path / f"{name}.py"
    src.write_text(source)
    weftc = weftc_path()
    cubin = tmp_path / f"{name}.cubin"
    proc = subprocess.run([weftc, str(src), "--cubin", "-arch", arch, "-o", str(cubin)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"weftc --cubin failed:\n{proc.stdout}\n{proc.stderr}"
    assert cubin.exists() and cubin.stat().st_size > 0
    assert cubin.read_bytes()[:4] == b"\x7fELF", "a cubin is an ELF file"

    ptx = tmp_path / f"{name}.ptx"
    proc = subprocess.run([weftc, str(src), "--ptx", "-arch", arch, "-o", str(ptx)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"weftc --ptx failed:\n{proc.stdout}\n{proc.stderr}"
    text = ptx.read_text()
    assert re.search(rf"\.target\s+{arch}\b", text), f"the PTX targets {arch}"
    assert ".entry" in text
    if PTXAS.exists():
        out = tmp_path / f"{name}.ptxas.cubin"
        proc = subprocess.run([str(PTXAS), f"-arch={arch}", str(ptx), "-o", str(out)], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"ptxas rejected the PTX:\n{proc.stderr}"
        assert out.stat().st_size > 0
    if CUOBJDUMP.exists():
        proc = subprocess.run([str(CUOBJDUMP), "-sass", str(cubin)], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert arch in proc.stdout
    return cubin, text


@pytest.mark.parametrize("name", sorted(EXAMPLE_SIGNATURES))
def test_example_kernel_compiles_for_sm90(tmp_path, name):
    _, ptx = compile_for_sm90(tmp_path, name, example_source(name))
    if name == "matmul_tiled":
        assert ".shared" in ptx and "bar.sync" in ptx, "shared memory and a barrier reach the PTX"


@pytest.mark.parametrize("name", sorted(KERNEL_SOURCES))
def test_kernel_compiles_for_sm90(tmp_path, name):
    compile_for_sm90(tmp_path, name, KERNEL_SOURCES[name])


@pytest.mark.parametrize("name", ["matmul_tiled", "block_reduce", "shared_local_3d"])
def test_kernel_compiles_for_sm90a(tmp_path, name):
    # weftc -arch sm_90a end to end: NVRTC's cubin, its PTX through ptxas -arch=sm_90a, and the
    # cubin's SASS for sm_90a (the variant the JIT takes for kernels that ask for `a` features).
    source = KERNEL_SOURCES[name] if name in KERNEL_SOURCES else example_source(name)
    compile_for_sm90(tmp_path, name, source, arch="sm_90a")


def test_weftc_reports_errors_like_a_compiler(tmp_path):
    src = tmp_path / "broken.py"
    src.write_text("from cuda import device\n\n@device.kernel\ndef k(a: device.int32[:]):\n    a[0] = nowhere\n")
    proc = subprocess.run([weftc_path(), str(src), "--cubin", "-arch", "sm_90", "-o", str(tmp_path / "x.cubin")], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert re.search(r"broken\.py:5:\d+: error: ", proc.stdout + proc.stderr), proc.stdout + proc.stderr
