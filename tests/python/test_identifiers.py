"""User names in the emitted C++ and in the front end (issue 8, items 1 and 2).

Item 1: no user-chosen name reaches the C++ compiler raw. A generated program uses hundreds of
names that are C/C++ keywords, macros of the C, C++ and CUDA headers, types, CUDA built-ins,
weft's own helper names and names that differ only by Unicode, as locals, parameters, loop
variables, functions, struct classes, fields, methods, globals and the kernel; it runs on the CPU
target against NumPy, compiles for sm_90 through NVRTC and ptxas, and runs on the GPU. The
mangling's prefixes are checked against every macro the headers define; interoperable symbols,
which keep their names, are validated (InteropName) and interoperable structs keep their ABI
whatever their fields are named.

Item 2: identifiers are NFKC-normalized as CPython's parser does (PEP 3131): `ﬁ` and `fi` are
one name in a kernel, in globals, struct fields, attributes and kernel names (the parser
differential over tests/corpus/lex_identifiers_nfkc.py checks --dump-ast against ast.dump).
"""

import importlib.util
import keyword
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys
import textwrap
import unicodedata

import numpy as np
import pytest

import weft
from cuda import device

REPO = pathlib.Path(__file__).resolve().parents[2]
CUDA = pathlib.Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
PTXAS = CUDA / "bin" / "ptxas"

# The prefixes of codegen's userName() (src/codegen/emit_names.cpp): locals, functions, struct
# classes, members and kernels.
USER_NAME_PREFIXES = ("v_", "wf_", "s_", "m_", "weft_")

CXX_KEYWORDS = """alignas alignof and_eq asm auto bitand bitor bool case catch char char8_t char16_t
char32_t class co_await co_return co_yield compl concept const consteval constexpr constinit
const_cast decltype default delete do double dynamic_cast enum explicit export extern float
friend goto inline int long mutable namespace new noexcept not_eq nullptr operator or_eq private
protected public register reinterpret_cast requires short signed sizeof static static_assert
static_cast struct switch template this thread_local throw typedef typeid typename union unsigned
using virtual void volatile wchar_t xor xor_eq restrict true false _Bool _Complex _Atomic
_Alignas _Alignof _Noreturn _Static_assert _Thread_local _Generic _Imaginary"""

MACROS = """NAN INFINITY EOF errno min max signbit isnan isinf isfinite fpclassify isnormal M_PI M_E
M_PI_2 M_SQRT2 M_1_PI HUGE_VAL HUGE_VALF FP_NAN FP_INFINITE FP_ZERO FLT_MAX FLT_MIN DBL_MAX
DBL_EPSILON FLT_EPSILON CHAR_BIT INT_MAX INT_MIN UINT_MAX LONG_MAX LLONG_MAX SHRT_MAX SCHAR_MIN
UCHAR_MAX INT8_MAX INT16_MIN INT32_MAX INT32_MIN INT64_MAX UINT8_MAX UINT32_MAX UINT64_MAX SIZE_MAX
PTRDIFF_MAX INTPTR_MAX INT32_C UINT64_C NULL EXIT_SUCCESS EXIT_FAILURE RAND_MAX BUFSIZ FILENAME_MAX
SEEK_SET stdin stdout stderr offsetof alloca assert_perror math_errhandling MATH_ERRNO
__CUDA_ARCH__ __CUDACC__ __CUDACC_RTC__ __NVCC__ __CUDA_API_VERSION CUDART_VERSION CUDA_VERSION
__cplusplus __LINE__ __FILE__ __func__ __DATE__ __COUNTER__ __GNUC__ __clang__ __STDC__
__x86_64__ __linux__ linux unix i386 __has_include __restrict__ __device__ __global__ __host__
__shared__ __constant__ __forceinline__ __noinline__ __launch_bounds__ __align__ WEFT_HOST
WEFT_KERNEL WEFT_DEVICE_FN WEFT_HOST_DEVICE_FN WEFT_INTEROP_FN WEFT_SHARED_STORAGE
WEFT_LOCAL_STORAGE NV_IF_TARGET NV_PROVIDES_SM_90 NV_IS_DEVICE CHAR_MIN WCHAR_MAX MB_LEN_MAX
FP_ILOGB0 FE_ALL_EXCEPT FE_TONEAREST CLOCKS_PER_SEC L_tmpnam TMP_MAX EDOM ERANGE EINVAL va_arg
va_start va_end setjmp longjmp"""

TYPES = """int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t int_least8_t
int_fast32_t intmax_t uintmax_t size_t ssize_t ptrdiff_t intptr_t uintptr_t nullptr_t
max_align_t uint ushort ulong uchar u_int clock_t time_t div_t float_t double_t FILE va_list
half half2 __half __half2 nv_bfloat16 __nv_bfloat16 __nv_fp8_e4m3 float2 float4 int2 int4
uint3 double2 longlong2 ulonglong4 char1 uchar4 short2 dim3 cudaStream_t cudaError_t CUstream
CUdeviceptr cuComplex cuDoubleComplex"""

CUDA_NAMES = """threadIdx blockIdx blockDim gridDim warpSize __syncthreads __syncwarp __threadfence
__shfl_sync __ballot_sync __activemask atomicAdd atomicCAS atomicExch atomicMax __ldg __popc __clz
__ffs __brev __fmaf_rn __fdividef __expf __sinf rsqrtf sqrtf sqrt sinf cosf expf logf powf fabsf
fmaf fminf fmaxf erfinvf normcdf sincos sincospi rint lrint llround nan nanf exp10 j0 y1 jn
printf malloc free memcpy memset clock clock64 __trap __nanosleep make_int2 make_float4
__float2half __half2float cudaMalloc cudaMemcpy cuLaunchKernel __nv_bool __cudaLaunch"""

WEFT_NAMES = """weft std cuda nv cub thrust cooperative_groups main w_0 w_1 w_shared_0 w_local_0
w_local_0_element v_x_0 v_0 v_v_0 wf_f_0 wf_0 s_S_0 s_0 m_x_0 m_0 f0 f1 f2 weft_tuple_0
weft_interop_array_0 weft_interop_descriptor_0 weft_structs weft_k_0 context args current host
detail at cast add mul widen tid_x Array Atomic AtomicRef Vector complex64 float16 bfloat16
ThreadContext kernel_host record field0 field1 _ __ ___ _x __x ___x x_ x__ x__y _X __X__ _1
__init__ __self_ cls"""

UNICODE_NAMES = ["é", "è", "ê", "ë", "ē", "π", "Ωmega", "变量", "переменная", "ﬁx", "ℌ", "ǅ",
                 "µ", "ª", "x\u0323\u0307", "Ａｂ", "x" + "y" * 200]

# Names the generated program itself uses, or that Python does not allow as a variable.
HARNESS = {"device", "range", "self", "replace", "dtype", "underlying", "__debug__", "__name__", "__dict__",
           "__class__", "__file__", "__spec__", "__loader__", "__builtins__", "__doc__", "__annotations__"}


def unique_names(words):
    """Valid, non-keyword Python identifiers, each NFKC-distinct from the others (`ﬁx` and `fix`
    are one name; the program needs distinct variables)."""
    out, seen = [], set()
    for word in words:
        key = unicodedata.normalize("NFKC", word)
        if not word.isidentifier() or keyword.iskeyword(key) or key in HARNESS or key in seen:
            continue
        if key.startswith("qq_"):
            continue
        seen.add(key)
        out.append(word)
    return out


def header_macros():
    """Every macro the CPU target's unit can see: the host compiler's predefined macros and those
    of weft's device headers with every optional header included (empty without g++)."""
    compiler = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("g++")
    if compiler is None:
        return []
    include = REPO / "include"
    source = "".join(f"#include <weft/device/{h}.h>\n" for h in ("runtime", "fp16", "vector", "simt", "atomics", "print"))
    proc = subprocess.run([compiler, "-std=c++20", "-DWEFT_HOST", f"-I{include}", "-dM", "-E", "-x", "c++", "-"],
                          input=source, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return sorted({m.group(1) for m in re.finditer(r"^#define (\w+)", proc.stdout, re.M)})


def all_names():
    words = (CXX_KEYWORDS + " " + MACROS + " " + TYPES + " " + CUDA_NAMES + " " + WEFT_NAMES).split()
    curated = unique_names(words + UNICODE_NAMES)
    # A deterministic sample of the macros of this machine's headers, beyond the curated list.
    scanned = [m for m in unique_names(header_macros()) if m not in set(curated)]
    names = curated + scanned[:: max(1, len(scanned) // 150)]
    # Mixed, so that every chunk has names of every kind (and fields: names without a leading
    # "__", which a class body would mangle).
    random.Random(3).shuffle(names)
    return names


CHUNK = 40


def chunks(names):
    return [names[i:i + CHUNK] for i in range(0, len(names), CHUNK) if len(names[i:i + CHUNK]) >= 10]


def program_source(names):
    """A module whose kernel adds up, for each chunk of names, a function named by the chunk
    whose parameters, locals, loop variable, struct class, fields, method and global are named by
    it; `expected` computes the same in NumPy."""
    parts = ["from cuda import device\n"]
    calls = []
    kernel_name, kernel_param = names[0], names[1]
    for c, chunk in enumerate(chunks(names[2:])):
        struct, method, glob, function, param, method_param = chunk[:6]
        locals_, loop = chunk[6:-1], chunk[-1]
        fields = [n for n in locals_ if not n.startswith("__")]
        parts.append(f"\n@device.struct\nclass {struct}:\n")
        parts += [f"    {f}: device.int32\n" for f in fields]
        parts.append(f"\n    @device.func\n    def {method}(self, {method_param}):\n"
                     f"        return self.{fields[0]} + {method_param}\n")
        parts.append(f"\n{glob} = {c + 7}\n")
        parts.append(f"\ndef {function}({param}, qq_x):\n")
        parts += [f"    {n} = qq_x + {j}\n" for j, n in enumerate(locals_)]
        parts.append("    qq_acc = " + " + ".join(locals_) + "\n")
        parts.append(f"    for {loop} in range(3):\n        qq_acc += {loop}\n")
        parts.append(f"    qq_s = {struct}(" + ", ".join(n for n in locals_ if not n.startswith("__")) + ")\n")
        parts.append("    qq_acc += " + " + ".join(f"qq_s.{f}" for f in fields) + "\n")
        parts.append(f"    return qq_acc + qq_s.{method}({param}) + {glob}\n")
        calls.append(f"{function}({kernel_param}, qq_x[qq_i])")
    parts.append(f"\n@device.kernel\ndef {kernel_name}(qq_x: device.int32[:], qq_out: device.int32[:], "
                 f"{kernel_param}: device.int32):\n    qq_i = device.tid(1)\n    if qq_i < qq_x.size:\n"
                 f"        qq_out[qq_i] = " + " + ".join(calls) + "\n")
    return "".join(parts)


def expected(names, x, p):
    total = np.zeros_like(x, dtype=np.int64)
    for c, chunk in enumerate(chunks(names[2:])):
        locals_ = chunk[6:-1]
        values = [x.astype(np.int64) + j for j in range(len(locals_))]
        fields = [v for n, v in zip(locals_, values) if not n.startswith("__")]
        total += sum(values) + 3 + sum(fields) + fields[0] + p + (c + 7)
    return total.astype(np.int32)


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    names = all_names()
    path = tmp_path_factory.mktemp("identifiers") / "many_names.py"
    path.write_text(program_source(names), encoding="utf-8")
    module = load(path, "weft_test_many_names")
    kernel = getattr(module, unicodedata.normalize("NFKC", names[0]))
    return names, path, kernel


def run_program(program, target):
    names, _, kernel = program
    rng = np.random.default_rng(8)
    x = rng.integers(-1000, 1000, 300).astype(np.int32)
    p = int(rng.integers(-50, 50))
    if target == "cpu":
        out = np.zeros_like(x)
        device.launch(kernel, x, out, p, grid=3, block=128, target="cpu")
    else:
        out_device = weft.zeros(x.size, np.int32, target="gpu")
        device.launch(kernel, weft.to_device(x), out_device, p, grid=3, block=128, target="gpu")
        out = out_device.copy_to_host()
    np.testing.assert_array_equal(out, expected(names, x, p))


def test_hundreds_of_hostile_names_run_on_the_cpu(program):
    names = program[0]
    assert len(names) >= 300
    assert len(chunks(names[2:])) >= 7
    run_program(program, "cpu")


@pytest.mark.gpu
def test_hundreds_of_hostile_names_run_on_the_gpu(program):
    run_program(program, "gpu")


def weftc():
    beside = pathlib.Path(sys.executable).parent / "weftc"
    found = str(beside) if beside.exists() else shutil.which("weftc")
    if found is None:
        pytest.skip("weftc is not installed")
    return found


@pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")
def test_hundreds_of_hostile_names_compile_for_sm90(program, tmp_path):
    _, path, _ = program
    ptx = tmp_path / "many_names.ptx"
    proc = subprocess.run([weftc(), str(path), "--ptx", "-arch", "sm_90", "-o", str(ptx)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = subprocess.run([str(PTXAS), "-arch=sm_90", str(ptx), "-o", str(tmp_path / "many_names.cubin")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_emitted_names_are_mangled_and_readable(program, tmp_path):
    _, path, _ = program
    proc = subprocess.run([weftc(), str(path), "--emit-cuda"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    unit = proc.stdout
    code = "\n".join(line for line in unit.splitlines() if not line.startswith(("#line", "//")))
    code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', code)  # names may appear inside string literals
    for raw in ("NAN", "errno", "EOF", "INFINITY", "warpSize", "threadIdx", "M_PI", "stdin", "main", "weft_tuple_0"):
        assert re.search(rf"\b(v|wf|s|m|weft)_{raw}_\d+", code), raw  # <kind>_<name>_<index>
        assert re.search(rf"(?<![\w:]){raw}(?![\w])", code) is None, raw  # never printed raw
    assert re.search(r"\b(v|wf|s|m)_u00e9_\d+\b", code)  # é
    # No reserved identifiers ("__" anywhere) of weft's making, and the long name is cut short.
    assert re.search(r"\b(v|wf|s|m)_\w*__", code) is None
    assert "y" * 65 not in code


def test_no_header_macro_starts_like_a_mangled_name():
    macros = header_macros()
    if not macros:
        pytest.skip("no host C++ compiler")
    assert len(macros) > 500
    clashing = [m for m in macros if m.startswith(USER_NAME_PREFIXES)]
    assert clashing == []


NVCC = CUDA / "bin" / "nvcc"


@pytest.mark.skipif(not NVCC.exists(), reason="no nvcc")
def test_no_cuda_header_macro_starts_like_a_mangled_name(tmp_path):
    # nvcc's host pass sees the CUDA runtime headers (and libcu++ for interoperable units).
    source = tmp_path / "all.cu"
    source.write_text("#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
                      "#include <cuda_fp8.h>\n#include <cuda/std/complex>\n")
    proc = subprocess.run([str(NVCC), "-arch=sm_90", "-E", "-Xcompiler", "-dM", f"-I{CUDA}/include/cccl",
                           str(source)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    macros = sorted({m.group(1) for m in re.finditer(r"^#define (\w+)", proc.stdout, re.M)})
    assert len(macros) > 1000
    assert [m for m in macros if m.startswith(USER_NAME_PREFIXES)] == []


# Interoperable functions and kernels keep their Python names as extern "C" symbols, so sema
# rejects the ones that would collide in the unit or in the C++ program that calls them.
REJECTED_INTEROP_NAMES = """NAN INFINITY EOF M_PI M_PIf INT_MAX CUDART_VERSION GEMM GEMM_2D errno stdin stdout
stderr offsetof alloca int32_t size_t uint8_t cudaStream_t my_type_t uint ushort half half2
nv_bfloat16 int2 float4 ulonglong4 double4_32a make_int2 make_float4 dim3 threadIdx blockIdx
blockDim gridDim warpSize std weft cuda nv main sqrtf sqrtl sqrtf64 lgammaf_r strtof64_l printf qsort
rand random select remove rename system getenv abort exit fadd dmull f32addf64 fmaximum_numf
iscanonical issignaling isnan signbit min max clock64 cudaMalloc cuLaunchKernel CUstream
_private _Upper __dunder__ weft_kernel a__b""".split()

ACCEPTED_INTEROP_NAMES = ["saxpy", "scale_rows", "cmul", "gemm_tile", "norm2_sum", "weftish", "halfway",
                          "my_min", "uint_sum", "Gemm", "Gemm_X1", "kernel_t1", "ints2", "float5", "make_pair"]


def interop_source(names):
    return "from cuda import device\n\n" + "".join(
        f"@device.func(interop=True)\ndef {n}(x: device.float32) -> device.float32:\n    return x + 1.0\n\n"
        for n in names)


def test_interop_symbols_like_macros_types_and_library_names_are_rejected(tmp_path):
    src = tmp_path / "interop_names.py"
    src.write_text(interop_source(REJECTED_INTEROP_NAMES))
    proc = subprocess.run([weftc(), str(src), "--emit-cuda", "-o", str(tmp_path / "x.cu")], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode != 0
    rejected = re.findall(r"interoperable function '(\w+)' becomes the extern \"C\" symbol '\w+', which ([^;]+);"
                          r" rename it \[InteropName\]", proc.stdout + proc.stderr)
    assert sorted(name for name, _ in rejected) == sorted(REJECTED_INTEROP_NAMES)
    reasons = dict(rejected)
    assert reasons["NAN"] == "is spelled like a C macro (capitals, digits and '_' only)"
    assert reasons["int32_t"] == "ends in '_t', which C and POSIX keep for type names"
    assert reasons["errno"] == "is already a name of the C, C++ or CUDA libraries"
    assert reasons["weft_kernel"] == "starts with 'weft_', which weft keeps for its own symbols"
    assert reasons["_private"].startswith("is not a plain C identifier")


@pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")
def test_accepted_interop_symbols_compile_on_both_targets(tmp_path):
    src = tmp_path / "interop_ok.py"
    src.write_text(interop_source(ACCEPTED_INTEROP_NAMES))
    unit = tmp_path / "interop_ok.cu"
    proc = subprocess.run([weftc(), str(src), "--emit-cuda", "-o", str(unit)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in ACCEPTED_INTEROP_NAMES:
        assert f" {name}(float v_x_0)" in unit.read_text()
    proc = subprocess.run([weftc(), str(src), "--ptx", "-rdc", "-arch", "sm_90", "-o", str(tmp_path / "ok.ptx")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    compiler = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("g++")
    if compiler:
        include = subprocess.run([weftc(), "--print-include-dir"], capture_output=True, text=True).stdout.strip()
        proc = subprocess.run([compiler, "-std=c++20", "-DWEFT_HOST", f"-I{include}", "-fsyntax-only", "-x", "c++",
                               str(unit)], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr


# An interoperable struct whose fields are named like macros and types: its members are mangled
# (names are no part of the ABI) and its layout is the one the specification fixes, which the
# unit's static_asserts check (offsets by the host compiler, size and alignment by NVRTC).
INTEROP_STRUCT_SOURCE = """
from cuda import device

@device.struct
class Hostile:
    NAN: device.float32
    errno: device.int32
    int32_t: device.float64
    EOF: device.int8
    INFINITY: device.float32

@device.kernel(interop=True)
def hostile_fields(h: Hostile, out: device.float64[:]):
    i = device.tid(1)
    if i < out.size:
        out[i] = h.NAN * i + h.errno + h.int32_t + h.EOF + h.INFINITY
"""


def test_interop_struct_fields_named_like_macros_keep_the_abi(tmp_path):
    path = tmp_path / "hostile_struct.py"
    path.write_text(INTEROP_STRUCT_SOURCE)
    module = load(path, "weft_test_hostile_struct")
    rng = np.random.default_rng(11)
    values = (float(np.float32(rng.standard_normal())), int(rng.integers(-100, 100)), float(rng.standard_normal()),
              int(rng.integers(-100, 100)), float(np.float32(rng.standard_normal())))
    out = np.zeros(77)
    device.launch(module.hostile_fields, module.Hostile(*values), out, grid=1, block=128, target="cpu")
    i = np.arange(77)
    np.testing.assert_allclose(out, values[0] * i + values[1] + values[2] + values[3] + values[4], rtol=1e-6)
    assert module.Hostile.dtype.itemsize == 24
    proc = subprocess.run([weftc(), str(path), "--emit-cuda"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert ("struct s_Hostile_0 { float m_NAN_0; int32_t m_errno_1; double m_int32_t_2; int8_t m_EOF_3; "
            "float m_INFINITY_4; };") in proc.stdout
    assert "__builtin_offsetof(s_Hostile_0, m_int32_t_2) == 8" in proc.stdout
    if (CUDA / "bin").is_dir():
        from test_sm90_ptxas import compile_for_sm90

        compile_for_sm90(tmp_path, "hostile_struct", INTEROP_STRUCT_SOURCE)


@pytest.mark.gpu
def test_interop_struct_fields_named_like_macros_on_the_gpu(tmp_path):
    path = tmp_path / "hostile_struct_gpu.py"
    path.write_text(INTEROP_STRUCT_SOURCE)
    module = load(path, "weft_test_hostile_struct_gpu")
    rng = np.random.default_rng(12)
    values = (float(np.float32(rng.standard_normal())), int(rng.integers(-100, 100)), float(rng.standard_normal()),
              int(rng.integers(-100, 100)), float(np.float32(rng.standard_normal())))
    out = weft.zeros(300, np.float64, target="gpu")
    device.launch(module.hostile_fields, module.Hostile(*values), out, grid=3, block=128, target="gpu")
    i = np.arange(300)
    np.testing.assert_allclose(out.copy_to_host(), values[0] * i + values[1] + values[2] + values[3] + values[4],
                               rtol=1e-6)


# Item 2: NFKC.
NFKC_SOURCE = """
import numpy as np
from cuda import device

ｓｃａｌｅ = 3

@device.struct
class Ｐｏｉｎｔ:
    ﬁeld: device.float32
    é: device.float32

    @device.func
    def ﬁeld_plus(self, ﬀ):
        return self.field + ﬀ

def ﬁnd(a, b):
    return a * b + scale

@device.kernel
def kernel_ﬁ(x, out):
    i = device.tid(1)
    if i < x.size:
        ﬁ = x[i]
        fi = fi + 1.0
        p = Point(ﬁeld=ﬁ, é=2.0)
        out[i] = ﬁ + p.ﬁeld + p.field_plus(x[i]) + p.é + find(x[i], 2.0) + ｓｃａｌｅ
"""


def test_nfkc_equivalent_names_are_one_name(tmp_path):
    path = tmp_path / "nfkc_names.py"
    path.write_text(NFKC_SOURCE, encoding="utf-8")
    module = load(path, "weft_test_nfkc_names")
    # CPython stores every name normalized: the globals, the class, the kernel and the fields.
    assert {"scale", "Point", "find", "kernel_fi"} <= set(vars(module))
    assert module.Point.__weft_struct__.fields == ("field", "é")
    rng = np.random.default_rng(5)
    x = rng.standard_normal(200).astype(np.float32)
    out = np.zeros_like(x)
    device.launch(module.kernel_fi, x, out, grid=2, block=128, target="cpu")
    fi = x + np.float32(1.0)
    expected = fi + fi + (fi + x) + np.float32(2.0) + (x * np.float32(2.0) + np.float32(3)) + np.float32(3)
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_combining_sequences_name_the_precomposed_variable(tmp_path):
    # `e` + U+0301 and U+00E9 are one name; so are the compatibility jamo and the Hangul syllable.
    path = tmp_path / "nfkc_combining.py"
    path.write_text("from cuda import device\n\n@device.kernel\ndef k(x, out):\n    i = device.tid(1)\n"
                    "    e\u0301 = x[i]\n    \u3131\u314f = x[i] * 2\n    out[i] = \u00e9 + \uac00\n",
                    encoding="utf-8")
    module = load(path, "weft_test_nfkc_combining")
    x = np.random.default_rng(6).integers(-100, 100, 64).astype(np.int32)
    out = np.zeros_like(x)
    device.launch(module.k, x, out, grid=1, block=64, target="cpu")
    np.testing.assert_array_equal(out, 3 * x)


def test_dtype_field_names_that_are_not_identifiers_or_are_macros(tmp_path):
    # A structured array's field names come from NumPy, not from source: any string. Device code
    # reaches the identifier ones (attribute names are NFKC, as in Python: `r.ﬁ` looks up 'fi');
    # every member is mangled in the unit.
    path = tmp_path / "dtype_names.py"
    path.write_text("from cuda import device\n\n@device.kernel\ndef k(a, out):\n    i = device.tid(1)\n"
                    "    if i < out.size:\n        out[i] = a[i].NAN + a[i].errno + a[i].é + a[i].fi\n",
                    encoding="utf-8")
    module = load(path, "weft_test_dtype_names")
    dtype = np.dtype([("NAN", np.float32), ("errno", np.int32), ("a b", np.int32), ("é", np.float32),
                      ("fi", np.float32), ("ﬁ", np.float32), ("", np.int8)], align=True)
    rng = np.random.default_rng(7)
    a = np.zeros(50, dtype)
    for name in ("NAN", "é", "fi", "ﬁ"):
        a[name] = rng.standard_normal(50)
    a["errno"] = rng.integers(-9, 9, 50)
    out = np.zeros(50, np.float32)
    device.launch(module.k, a, out, grid=1, block=64, target="cpu")
    np.testing.assert_allclose(out, a["NAN"] + a["errno"] + a["é"] + a["fi"], rtol=1e-6)


CLASSIC_SOURCE = """
import numpy as np
from weft import cuda

@cuda.jit(device=True)
def int32_t(NAN, errno):
    return NAN * errno

@cuda.jit
def threadIdx_kernel(x, out):
    threadIdx = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    warpSize = cuda.warpsize
    if threadIdx < x.size:
        ﬁ = x[threadIdx]
        blockDim = int32_t(fi, 3)
        out[threadIdx] = blockDim + warpSize
"""


def test_classic_front_names_are_mangled_too(tmp_path, monkeypatch):
    # numba-cuda style kernels whose locals and device functions are named like CUDA's built-ins.
    monkeypatch.setenv("WEFT_TARGET", "cpu")
    path = tmp_path / "classic_names.py"
    path.write_text(CLASSIC_SOURCE, encoding="utf-8")
    module = load(path, "weft_test_classic_names")
    x = np.random.default_rng(9).integers(-1000, 1000, 100).astype(np.int32)
    out = np.zeros_like(x)
    module.threadIdx_kernel[4, 32](x, out)
    np.testing.assert_array_equal(out, x * 3 + 32)


@pytest.mark.skipif(sys.version_info[:2] != (3, 11) or unicodedata.unidata_version != "14.0.0",
                    reason="the tables follow CPython 3.11 (Unicode 14.0.0)")
def test_unicode_tables_are_what_the_generator_writes():
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "gen_unicode_tables.py"), "--check"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, "src/syntax/unicode_*.cpp are stale: run tools/gen_unicode_tables.py\n" + proc.stderr
