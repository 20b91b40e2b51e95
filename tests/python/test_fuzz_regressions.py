"""Regression tests of the bugs the fuzzers found or met (tests/fuzz/), now fixed: each
reproducer stays here as an ordinary test, with the checks its fix added, and the generator now
produces the construct it needed.
Numbers are checked on seeded random data against CPython / NumPy on the CPU target;
test_fuzz_regressions_gpu.py runs the kernels whose device code changed on the GPU.
"""

import functools
import importlib.util
import linecache
import math
import pathlib
import re
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import weft
from cuda import device
from launching import run
from test_sm90_ptxas import compile_for_sm90, weftc_path

HEADER = "import math\nfrom cuda import device\n\n"


@pytest.fixture(scope="module")
def target():
    return "cpu"


def load(path: pathlib.Path, text: str, name: str = "", register: bool = True):
    """`text` written to `path` and executed as a module (entered in sys.modules as an import
    does, unless not `register`)."""
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name or f"regression_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# ---- fixed by issue 8's sema work ----


def test_a_variable_assigned_only_in_a_constant_false_branch(tmp_path, rng):  # dead-branch-variable
    module = load(tmp_path / "dead_branch.py", HEADER + "@device.kernel\ndef k(x: device.int32[:], out: device.int32[:]):\n"
                  "    flag = 0\n    if flag:\n        unused = x[0]\n    out[0] = x[0] + 1\n")
    x = rng.integers(-1000, 1000, 4).astype(np.int32)
    out = np.zeros(1, np.int32)
    weft.launch(module.k, x, out, grid=1, block=1, target="cpu")
    assert out[0] == x[0] + 1


def test_a_conversion_of_a_constant_wraps(tmp_path):  # constant-conversion-range
    module = load(tmp_path / "conversion_range.py", HEADER + "@device.kernel\ndef k(out: device.int32[:]):\n    v = 200\n"
                  "    out[0] = device.int8(200)\n    out[1] = device.int8(v)\n    out[2] = device.uint8(device.int8(-3))\n")
    out = np.zeros(3, np.int32)
    weft.launch(module.k, out, grid=1, block=1, target="cpu")
    assert list(out) == [-56, -56, 253]


def test_the_int64_minimum_literal(tmp_path):  # int64-min-literal
    module = load(tmp_path / "int64_min.py", HEADER + "@device.kernel\ndef k(out: device.int64[:]):\n"
                  "    out[0] = -9223372036854775808\n")
    out = np.zeros(1, np.int64)
    weft.launch(module.k, out, grid=1, block=1, target="cpu")
    assert out[0] == -(2**63)


def test_a_conversion_of_a_constant_rounds_to_its_type(tmp_path):  # constant-conversion-precision
    module = load(tmp_path / "conversion_precision.py", HEADER +
                  "@device.kernel\ndef k(out: device.float64[:], z: device.complex128[:]):\n"
                  "    out[0] = device.float64(device.float32(0.001))\n    h = device.float16(0.1)\n"
                  "    out[1] = device.float64(h)\n    out[2] = device.float64(device.float8e4m3(0.3))\n"
                  "    z[0] = device.complex128(1.0, device.float32(0.001))\n")
    out, z = np.zeros(3), np.zeros(1, np.complex128)
    weft.launch(module.k, out, z, grid=1, block=1, target="cpu")
    assert list(out) == [float(np.float32(0.001)), float(np.float16(0.1)), float(ml_dtypes.float8_e4m3fn(0.3))]
    assert z[0] == complex(1.0, float(np.float32(0.001)))


def test_a_long_chain_compiles_or_gives_a_diagnostic(tmp_path):  # deep-chain
    path = tmp_path / "chain.py"
    path.write_text(HEADER + "@device.kernel\ndef k(x: device.int32[:], out: device.int32[:]):\n"
                    "    out[0] = " + " + ".join(["x[0]"] * 20000) + "\n")
    proc = subprocess.run([weftc_path(), str(path), "--emit-cuda"], capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), f"weftc died: exit {proc.returncode}"
    assert proc.returncode == 0 or "[TooDeeplyNested]" in proc.stderr, proc.stderr[-2000:]


def _brace_depth(text: str) -> int:
    depth = deepest = 0
    for c in text:
        depth += {"{": 1, "}": -1}.get(c, 0)
        deepest = max(deepest, depth)
    return deepest


def test_an_and_chain_does_not_nest_the_generated_code(tmp_path):  # and-chain-compile-time
    # NVRTC's time grew about quadratically with the nesting of the C++ weft emitted for `and`
    # (one lambda per operand); the depth must not grow with the number of operands.
    depths = []
    for n in (50, 100, 2000):
        path = tmp_path / f"and{n}.py"
        path.write_text(HEADER + "@device.kernel\ndef k(x: device.int32[:], out: device.int32[:]):\n"
                        "    out[0] = " + " and ".join(["x[0]"] * n) + "\n")
        proc = subprocess.run([weftc_path(), str(path), "--emit-cuda"], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        depths.append(_brace_depth(proc.stdout))
    assert depths[2] < depths[0] + 10, f"brace depths {depths} for 50, 100 and 2000 operands"


def test_struct_fields_named_like_c_macros(tmp_path, rng):  # macro-named-field
    module = load(tmp_path / "macro_fields.py", HEADER + "@device.struct\nclass P:\n    NULL: device.float32\n"
                  "    EOF: device.float32\n\n@device.kernel\ndef k(x: device.float32[:], out: device.float32[:]):\n"
                  "    p = P(x[0], x[1])\n    out[0] = p.NULL + p.EOF\n")
    x = rng.standard_normal(2).astype(np.float32)
    out = np.zeros(1, np.float32)
    weft.launch(module.k, x, out, grid=1, block=1, target="cpu")
    assert out[0] == x[0] + x[1]


# ---- chain-common-type: a comparison chain compares pairwise ----


def bump(counts, i, value):
    counts[i] += 1
    return value


@device.kernel
def pairwise_chains(x, y, h, u, d, z, b, out, counts):
    i = device.tid(1)
    if i < x.size:
        out[0, i] = x[i] < x[i] + 1 < y[i]  # int32 link, then float32
        out[1, i] = h[i] < 0.1 < y[i]  # the literal as a float16, then as a float32
        out[2, i] = u[i] <= 200 < x[i]  # as a uint8, then as an int32
        out[3, i] = y[i] == x[i] == 16777217
        out[4, i] = d[i] > y[i] >= x[i]
        out[5, i] = z[i] == y[i] == h[i]
        out[6, i] = b[i] < x[i] < d[i]
        out[7, i] = x[i] < 1 < 2  # a constant link that holds
        out[8, i] = 1 > 2 < x[i]  # a constant link that fails: False, x not needed
        out[9, i] = x[i] < 3 > 4  # a failing constant link after a run-time one
        out[10, i] = 1 < 2 < x[i] <= y[i] != d[i]
        # The middle operand (a call) is evaluated once, between an int32 link and a float64
        # one; the last one only when the first link holds.
        out[11, i] = x[i] < bump(counts, i, y[i]) < bump(counts, i, d[i])


def test_comparison_chains_compare_pairwise(target, rng):
    n = 256
    x = rng.integers(-4, 5, n).astype(np.int32)
    x[:64] = rng.choice([16777215, 16777216, 16777217, 16777218], 64)  # where float32 rounds
    y = np.where(rng.random(n) < 0.5, x.astype(np.float32), rng.standard_normal(n).astype(np.float32) * 4)
    y[:64] = rng.choice(np.array([16777216, 16777218, 1e9], np.float32), 64)
    h = rng.choice(np.array([0.0999755859375, 0.0999, 0.1, 0.10009765625, -1, 2], np.float16), n)
    u = rng.integers(190, 210, n).astype(np.uint8)
    d = np.where(rng.random(n) < 0.5, y.astype(np.float64), rng.standard_normal(n) * 4)
    d[:64] = np.float64(16777217)
    z = np.where(rng.random(n) < 0.5, y.astype(np.complex64), (rng.standard_normal(n) + 0j).astype(np.complex64))
    b = rng.random(n) < 0.5
    out = np.zeros((12, n), np.bool_)
    counts = np.zeros(n, np.int32)
    run(target, pairwise_chains, x, y, h, u, d, z, b, out, counts, grid=2, block=128)
    f32, f16, f64, c64 = np.float32, np.float16, np.float64, np.complex64
    for i in range(n):
        X, Y, H, U, D, Z, B = int(x[i]), y[i], h[i], int(u[i]), d[i], z[i], bool(b[i])
        x1 = (X + 1 + 2**31) % 2**32 - 2**31
        want = [
            X < x1 and f32(x1) < Y,
            H < f16(0.1) and f32(0.1) < Y,
            U <= 200 and 200 < X,
            Y == f32(X) and X == 16777217,
            D > f64(Y) and Y >= f32(X),
            Z == c64(Y) and Y == f32(H),
            int(B) < X and f64(X) < D,
            X < 1,
            False,
            False,
            X > 2 and f32(X) <= Y and f64(Y) != D,
            f32(X) < Y and f64(Y) < D,
        ]
        got = [bool(v) for v in out[:, i]]
        assert got == [bool(w) for w in want], f"thread {i}: x={X} y={Y!r} h={H!r} u={U} d={D!r} z={Z!r} b={B}"
        assert counts[i] == (2 if f32(X) < Y else 1), f"thread {i}: each operand is evaluated once, the last lazily"


def test_comparison_chain_errors_name_the_failing_link(tmp_path):
    module = load(tmp_path / "chain_errors.py", HEADER +
                  "@device.kernel\ndef k(a: device.int64[:], b: device.float32[:], c: device.uint64[:], z: device.complex64[:]):\n"
                  "    a[0] = a[0] < c[0] < b[0]\n"
                  "    a[1] = b[0] < 300 < a[1]\n"
                  "    a[2] = a[0] < b[0] < z[0]\n"
                  "    a[3] = a[0] < b[0] < c[0]\n")
    with pytest.raises(weft.CompileError) as caught:
        weft.launch(module.k, np.zeros(4, np.int64), np.zeros(1, np.float32), np.zeros(1, np.uint64),
                    np.zeros(1, np.complex64), grid=1, block=1, target="cpu")
    kinds = [(d.kind, d.line) for d in caught.value.diagnostics]
    assert kinds == [("NoCommonType", 6), ("InvalidOperands", 8)], str(caught.value)
    assert "int64 and uint64 have no common type" in str(caught.value)
    assert "unsupported operand types for <: float32 and complex64" in str(caught.value)


def test_a_chain_of_constants_is_a_weak_constant(tmp_path):
    module = load(tmp_path / "constant_chain.py", HEADER +
                  "@device.kernel\ndef k(out: device.int8[:], flags: device.bool_[:]):\n"
                  "    out[0] = fz(out[0])\n    flags[0] = 16777217 < 16777217.5 < 16777218\n"
                  "    if 3 < 2 < 1:\n        missing = nowhere\n\n"
                  "def fz(v):\n    return v + (1 < 2 < 3)\n")
    out, flags = np.array([5], np.int8), np.zeros(1, np.bool_)
    weft.launch(module.k, out, flags, grid=1, block=1, target="cpu")
    assert out[0] == 6 and flags[0], "constants compare exactly, as Python does, and stay weak"


# ---- isfinite-integer: every math predicate of every real type, as CPython's math ----

REAL_TYPES = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float8e4m3",
              "float8e5m2", "float16", "bfloat16", "float32", "float64"]


@device.kernel
def predicates(x, out):
    i = device.tid(1)
    if i < x.size:
        out[0, i] = math.isnan(x[i])
        out[1, i] = math.isinf(x[i])
        out[2, i] = math.isfinite(x[i])
        out[3, i] = math.isfinite(x[i]) and not math.isnan(x[i])


@pytest.mark.parametrize("name", REAL_TYPES)
def test_math_predicates_of_every_real_type_agree_with_cpython(target, rng, name):
    dtype = getattr(device, name).dtype
    kind = np.dtype(dtype).kind
    if kind in "iu" or name == "bool_":
        info = np.iinfo(dtype) if name != "bool_" else None
        values = rng.integers(info.min, info.max, 64, endpoint=True, dtype=dtype) if info else rng.random(64) < 0.5
    else:
        values = (rng.standard_normal(64) * 1e3).astype(np.float64)
        values[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 65520.0]
        with np.errstate(over="ignore"):
            values = values.astype(dtype)  # out of range: inf, or NaN for float8e4m3 (it has no inf)
    out = np.zeros((4, values.size), np.bool_)
    run(target, predicates, values, out, grid=1, block=64)
    for i, v in enumerate(values):
        f = float(v)
        if kind in "iu" or name == "bool_":
            f = int(v)  # CPython's math takes the integer itself
        want = [math.isnan(f), math.isinf(f), math.isfinite(f), math.isfinite(f) and not math.isnan(f)]
        assert list(out[:, i]) == want, f"{name} {v!r}"


def test_math_predicates_of_constants_agree_with_cpython(tmp_path):
    module = load(tmp_path / "constant_predicates.py", HEADER +
                  "@device.kernel\ndef k(out: device.bool_[:]):\n"
                  "    out[0] = math.isfinite(5)\n    out[1] = math.isinf(math.inf)\n    out[2] = math.isnan(math.nan)\n"
                  "    out[3] = math.isfinite(2**63 + 5)\n    out[4] = math.isfinite(True)\n"
                  "    out[5] = math.isinf(-9223372036854775808)\n    out[6] = math.isinf(1e300)\n"
                  "    out[7] = math.isfinite(-1e300)\n    out[8] = math.isnan(device.int8(3))\n"
                  "    out[9] = math.isfinite(device.uint64(18446744073709551615))\n"
                  "    if math.isnan(device.int32(1)):\n        missing = nowhere\n")
    out = np.zeros(10, np.bool_)
    weft.launch(module.k, out, grid=1, block=1, target="cpu")
    want = [math.isfinite(5), math.isinf(math.inf), math.isnan(math.nan), math.isfinite(2**63 + 5), math.isfinite(True),
            math.isinf(-9223372036854775808), math.isinf(1e300), math.isfinite(-1e300), math.isnan(3),
            math.isfinite(18446744073709551615)]
    assert list(out) == want


def test_a_math_predicate_of_a_complex_is_an_error(tmp_path):
    module = load(tmp_path / "complex_predicate.py", HEADER +
                  "@device.kernel\ndef k(z: device.complex64[:], out: device.bool_[:]):\n    out[0] = math.isfinite(z[0])\n")
    with pytest.raises(weft.CompileError, match=r"argument 1 of math.isfinite\(\) must be a real number, not complex64"):
        weft.launch(module.k, np.zeros(1, np.complex64), np.zeros(1, np.bool_), grid=1, block=1, target="cpu")


SM90_SOURCE = HEADER + """def bump(counts, i, value):
    counts[i] += 1
    return value

@device.kernel
def chains(x: device.int32[:], y: device.float32[:], h: device.float16[:], d: device.float64[:],
           counts: device.int32[:], out: device.bool_[:, :]):
    i = device.tid(1)
    if i < x.size:
        out[0, i] = x[i] < x[i] + 1 < y[i]
        out[1, i] = h[i] < 0.1 < y[i] <= d[i]
        out[2, i] = x[i] < bump(counts, i, y[i]) < bump(counts, i, d[i])
        out[3, i] = x[i] < 3 > 4
        out[4, i] = math.isfinite(x[i]) and not math.isinf(h[i]) and math.isnan(d[i])
"""


def test_chains_and_predicates_compile_for_sm90(tmp_path):
    compile_for_sm90(tmp_path, "chains", SM90_SOURCE)


# ---- found by the GPU fuzz rounds: ptxas and NVRTC miscompile min/max chains ----


@device.kernel
def min_max_chains(x, y, z, out):
    i = device.tid(1)
    a, b, c = x[i], y[i], z[i]
    out[0, i] = min(a, -b, c)
    out[1, i] = max(abs(a), -b, c)
    out[2, i] = min(abs(a), -b, c)
    out[3, i] = max(a, -b, c)
    out[4, i] = min(-b, a, c)
    out[5, i] = max(min(a, -b), c)
    out[6, i] = min(a, -b, -c)
    out[7, i] = max(min(a, -b, c), b, -c)
    out[8, i] = min(-b, 0)
    out[9, i] = max(a, max(30, 0 - b), b)
    out[10, i] = min(abs(a), b, 1)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_min_max_chains_with_negated_operands(target, rng, dtype):
    # ptxas (CUDA 12.8 to 13.3) fuses two integer min/max into one VIMNMX3 and can drop a negated
    # operand: min(x, -y, z) was min(x, y, z) on an H100; and it took -(-32768) of an int16 as
    # sign extended (min(-y, 0) was 0). Integers wrap as weft's do; half the values are extremes.
    n = 512
    info = np.iinfo(dtype)
    extremes = np.array([info.min, info.min + 1, info.max, 0, 1, 30], dtype)

    def values():
        v = rng.integers(max(info.min, -300), min(info.max, 300), n, endpoint=True).astype(dtype)
        return np.where(rng.random(n) < 0.5, rng.choice(extremes, n), v)

    x, y, z = values(), values(), values()
    out = np.zeros((11, n), dtype)
    run(target, min_max_chains, x, y, z, out, grid=2, block=256)
    with np.errstate(over="ignore"):
        neg_y, neg_z, abs_x = -y, -z, np.abs(x)  # NumPy wraps as weft does

    def mn(*values):
        return functools.reduce(np.minimum, values)

    def mx(*values):
        return functools.reduce(np.maximum, values)

    thirty, one, zero = dtype_scalar(dtype, 30), dtype_scalar(dtype, 1), dtype_scalar(dtype, 0)
    want = [mn(x, neg_y, z), mx(abs_x, neg_y, z), mn(abs_x, neg_y, z), mx(x, neg_y, z), mn(neg_y, x, z),
            mx(mn(x, neg_y), z), mn(x, neg_y, neg_z), mx(mn(x, neg_y, z), y, neg_z), mn(neg_y, zero),
            mx(x, mx(thirty, neg_y), y), mn(abs_x, y, one)]
    for row, expected in enumerate(want):
        np.testing.assert_array_equal(out[row], expected, err_msg=f"row {row}")


def dtype_scalar(dtype, value):
    return np.dtype(dtype).type(value)


@device.kernel
def signed_zero_min_max(x, u, y, out):
    i = device.tid(1)
    out[0, i] = max((-device.complex128(x[i])).imag, 0, device.float64(u[i]))
    out[1, i] = min(-0.0, y[i])
    out[2, i] = max(-0.0, y[i], -y[i])
    out[3, i] = min(device.float32(-0.0), device.float32(y[i]))


def test_min_max_of_signed_zeros_keep_pythons_first_argument(target, rng):
    # NVRTC made max(-0.0, 0.0) of a constant -0.0 a PTX max, which gives +0.0 (found on the GPU).
    n = 64
    x = rng.standard_normal(n).astype(np.float32)
    u = rng.integers(0, 3, n).astype(np.uint8)
    y = rng.choice(np.array([0.0, -0.0, 1.5, -2.0]), n)
    out = np.zeros((4, n), np.float64)
    run(target, signed_zero_min_max, x, u, y, out, grid=1, block=n)
    for i in range(n):
        want = [max(-0.0, 0, float(u[i])), min(-0.0, float(y[i])), max(-0.0, float(y[i]), -float(y[i])),
                min(-0.0, float(np.float32(y[i])))]
        for row, w in enumerate(want):
            got = out[row, i]
            assert got == w and math.copysign(1, got) == math.copysign(1, w), f"row {row}, y={y[i]!r}: {got!r}, not {w!r}"


MIN_MAX_SOURCE = HEADER + """@device.kernel
def chains(x: device.int32[:], y: device.uint32[:], w: device.int64[:], h: device.int16[:], f: device.float32[:],
           d: device.float64[:], out: device.float64[:]):
    i = device.tid(1)
    out[i] = min(x[i], -x[i + 1], x[i + 2]) + max(y[i], -y[i + 1], y[i + 2]) + min(w[i], -w[i + 1], w[i + 2])
    out[i] += min(-h[i], 0) + max(f[i], -0.0, f[i + 1]) + min(-0.0, d[i], d[i + 1])
"""


def test_min_max_chains_compile_to_selects_for_sm90(tmp_path):
    # Selects, not PTX min/max, which ptxas would fuse into a VIMNMX3 (see above).
    _, ptx = compile_for_sm90(tmp_path, "min_max", MIN_MAX_SOURCE)
    assert not re.search(r"\b(min|max)\.([su](16|32|64)|f32|f64)\b", ptx), "min/max reach ptxas as min/max instructions"
    assert len(re.findall(r"\bselp\.[bf](32|64)\b", ptx)) >= 11
    # A 16-bit negation is a 32-bit one, truncated.
    assert not re.search(r"\bneg\.s16\b", ptx) and "cvt.u16.u32" in ptx


# ---- struct-outside-sys-modules: a struct's source is found where @struct was applied ----

STRUCT_MODULE = HEADER + """def untouched(cls):
    return cls

@untouched
@device.struct
class P:
    a: device.float32
    b: device.int32

@device.struct(align=8)
class Q:
    p: P
    scale: device.float64

@device.kernel
def k(x: device.float32[:], out: device.float64[:]):
    q = Q(P(x[0], 3), 2.0)
    out[0] = (q.p.a + q.p.b) * q.scale
"""


@pytest.mark.parametrize("register", [False, True], ids=["unregistered", "registered"])
def test_a_struct_of_a_module_outside_sys_modules(tmp_path, rng, register):
    module = load(tmp_path / "structs_outside.py", STRUCT_MODULE, name=f"outside_{register}", register=register)
    assert (f"outside_{register}" in sys.modules) == register
    x = rng.standard_normal(1).astype(np.float32)
    out = np.zeros(1)
    weft.launch(module.k, x, out, grid=1, block=1, target="cpu")
    assert out[0] == (np.float32(x[0]) + np.float32(3)) * 2.0
    assert module.Q.dtype.itemsize == 16 and module.Q.dtype.names == ("p", "scale")


def test_a_struct_of_a_module_shadowed_in_sys_modules(tmp_path, rng):
    # Another module holds the name in sys.modules, with a class P of other fields.
    load(tmp_path / "shadowing.py", HEADER + "@device.struct\nclass P:\n    other: device.int8\n", name="shadowed")
    module = load(tmp_path / "shadowed.py", STRUCT_MODULE, name="shadowed", register=False)
    x = rng.standard_normal(1).astype(np.float32)
    out = np.zeros(1)
    weft.launch(module.k, x, out, grid=1, block=1, target="cpu")
    assert out[0] == (np.float32(x[0]) + np.float32(3)) * 2.0


def test_a_struct_applied_by_a_call_outside_sys_modules_is_a_clear_error(tmp_path):
    path = tmp_path / "struct_by_call.py"
    module = load(path, HEADER + "class P0:\n    a: device.float32\n\nP = device.struct(P0)\n\n"
                  "@device.kernel\ndef k(out: device.float32[:]):\n    out[0] = P(1.5).a\n", register=False)
    with pytest.raises(weft.CompileError) as caught:
        weft.launch(module.k, np.zeros(1, np.float32), grid=1, block=1, target="cpu")
    message = str(caught.value)
    assert f"struct class 'P0' was not found in {path} at line 7" in message, message
    assert "apply @struct to it there, as a decorator" in message


# ---- stale-source: a module rewritten and executed again compiles its new text ----


def test_a_rewritten_module_compiles_its_new_text(tmp_path):
    path = tmp_path / "rewritten.py"
    a, b = np.zeros(1, np.int32), np.zeros(1, np.int32)
    texts = ("from cuda import device\n\n@device.kernel\ndef k(a: device.int32[:]):\n    a[0] = 1\n",
             HEADER + "@device.kernel\ndef k(a: device.int32[:], b: device.int32[:]):\n    a[0] = 2\n    b[0] = 3\n")
    for version, text in enumerate(texts):
        module = load(path, text, name=f"rewritten{version}")
        weft.launch(module.k, *((a,) if version == 0 else (a, b)), grid=1, block=1, target="cpu")
    assert (a[0], b[0]) == (2, 3)


VERSIONED = HEADER + """@device.struct
class P:
    a: device.{field}

def helper(x):
    return x * {factor}

@device.func
def shared(x):
    return x + {offset}

@device.kernel
def k(x, out):
    i = device.tid(1)
    if i < x.size:
        out[i] = shared(helper(P(x[i]).a))
"""


@pytest.mark.parametrize("register", [False, True], ids=["unregistered", "registered"])
def test_rewritten_helpers_functions_and_structs_compile_their_new_text(tmp_path, rng, register, monkeypatch):
    path = tmp_path / "versioned.py"
    versions = [dict(field="int32", factor=2, offset=1), dict(field="float64", factor=10, offset=100)]
    x = rng.integers(-50, 50, 16).astype(np.float64) + 0.25
    modules = []
    for version, values in enumerate(versions):
        module = load(path, VERSIONED.format(**values), name=f"versioned{version}_{register}", register=register)
        modules.append(module)
        out = np.zeros(x.size)
        weft.launch(module.k, x, out, grid=1, block=16, target="cpu")
        part = np.trunc(x) if values["field"] == "int32" else x
        np.testing.assert_array_equal(out, part * values["factor"] + values["offset"])
    # A kernel of the first version, compiled again for other arguments, still compiles the text
    # it was first prepared with, and neither stats nor reads the file again.
    checks = []
    monkeypatch.setattr(linecache, "checkcache", lambda *args: checks.append(args))
    x32 = x.astype(np.float32)
    out = np.zeros(x.size, np.float32)
    weft.launch(modules[0].k, x32, out, grid=1, block=16, target="cpu")
    np.testing.assert_array_equal(out, np.trunc(x32) * 2 + 1)
    assert checks == [], "a function or struct already prepared is not looked up on disk again"


# ---- nvrtc-conditional-aggregate: the GPU fuzz round's SIGSEGV inside weft.launch ----
# NVRTC (and nvcc's front end) of CUDA 13.0 crash with SIGSEGV on `T{c ? C{x, 1} : C{2, 3}}`: a
# conditional of an aggregate type that initializes a member of another aggregate, one operand a
# braced temporary with a member that is not constant. The crash took the Python process down
# with it (the launch compiles in process), so it looked intermittent: only the programs with
# such a conditional in a returned tuple crashed. Each value below is one way weft emitted it.

AGGREGATE_CONDITIONALS = HEADER + """@device.struct
class Point:
    x: device.float32
    y: device.float32


@device.struct
class Box:
    corner: Point
    tag: device.int32


def pick(c, x):
    z = device.complex64(x, 2.0)
    return (device.complex64(3.0, x) if c else 0.5 - 0.25j,
            ((x, 1.0) if c else (2.0, x)),
            Box(Point(x, 1.0) if c else Point(2.0, x), 7),
            (z or device.complex64(1.0, x)),
            (device.float32x2(x, 1.0) if c else device.float32x2(2.0, x)))


@device.kernel
def aggregates(c: device.bool_[:], x: device.float32[:], z: device.complex64[:, :], f: device.float32[:, :]):
    i = device.tid(1)
    if i < x.size:
        r = pick(c[i], x[i])
        z[0, i] = r[0]
        z[1, i] = r[3]
        f[0, i] = r[1][0]
        f[1, i] = r[1][1]
        f[2, i] = r[2].corner.x
        f[3, i] = r[2].corner.y
        f[4, i] = r[2].tag
        f[5, i] = r[4].x
        f[6, i] = r[4].y
"""


def test_conditional_aggregates_inside_aggregates(target, tmp_path, rng):
    module = load(tmp_path / "aggregate_conditionals.py", AGGREGATE_CONDITIONALS)
    n = 64
    c = rng.random(n) < 0.5
    x = rng.standard_normal(n).astype(np.float32)
    z = np.zeros((2, n), np.complex64)
    f = np.zeros((7, n), np.float32)
    run(target, module.aggregates, c, x, z, f, grid=2, block=32)
    np.testing.assert_array_equal(z[0], np.where(c, 3 + 1j * x, 0.5 - 0.25j).astype(np.complex64))
    np.testing.assert_array_equal(z[1], (x + 2j).astype(np.complex64))  # z is true: never 0
    for row in (0, 2, 5):
        np.testing.assert_array_equal(f[row], np.where(c, x, 2), err_msg=f"row {row}")
    for row in (1, 3, 6):
        np.testing.assert_array_equal(f[row], np.where(c, 1, x), err_msg=f"row {row}")
    np.testing.assert_array_equal(f[4], 7)


def test_conditional_aggregates_inside_aggregates_compile_for_sm90(tmp_path):
    compile_for_sm90(tmp_path, "aggregate_conditionals", AGGREGATE_CONDITIONALS)


# ---- abs-of-minimum-index: abs() of a signed minimum wraps to itself, a negative index ----
# abs(int16(-32768)) is -32768 (weft's integers wrap), so as an index it counts from the end and
# as a divisor it gives a remainder of its (negative) sign. Sema took abs() as never negative and
# skipped both the index's wrap-around and the negative-divisor case of %: the GPU fuzz round
# read out of bounds (an illegal-address fault) and computed 1 % abs(abs(INT64_MIN)) as 1. A
# conversion that wraps a large unsigned or float value into a signed type is negative as well.

ABS_OF_MINIMUM = HEADER + """@device.kernel
def k(a: device.float32[:], small: device.int16[:], big: device.int64[:], u: device.uint32[:],
      out: device.float32[:], rem: device.int64[:]):
    out[0] = a[abs(small[0])]
    out[1] = a[device.int32(u[0])]
    rem[0] = 1 % abs(abs(big[0]))
    rem[1] = 7 % abs(small[0])
"""


def test_abs_of_a_signed_minimum_is_negative(target, tmp_path, rng):
    module = load(tmp_path / "abs_of_minimum.py", ABS_OF_MINIMUM)
    a = rng.standard_normal(40000).astype(np.float32)
    small = np.array([-32768], np.int16)
    big = np.array([-(2**63)], np.int64)
    u = np.array([2**32 - 5], np.uint32)  # int32(u) is -5
    out = np.zeros(2, np.float32)
    rem = np.zeros(2, np.int64)
    run(target, module.k, a, small, big, u, out, rem)
    assert out[0] == a[40000 - 32768] and out[1] == a[-5]
    assert rem[0] == 1 + np.iinfo(np.int64).min and rem[1] == 7 - 32768
