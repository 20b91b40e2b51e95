"""Constants on the CPU target: integers of the uint64 range next to typed operands and alone,
number constructors applied to constants (one conversion rule for constants, for run-time
values and for the host objects), conditions known at compile time, one error per mistake.

test_constants_gpu.py runs a selection again on the GPU by overriding the `target` fixture.
"""

import importlib.util
import math
import sys

import ml_dtypes
import numpy as np
import pytest

import weft
from cuda import device
from launching import line_of, run

SEED = 20260508


@pytest.fixture(scope="module")
def target():
    return "cpu"


# ---- integers of the uint64 range (and -2**63 next to an int64) ----

G = 2**63 + 5
BIG = 18446744073709551614


@device.kernel
def uint64_literals(u, s, alone):
    i = device.tid(1)
    if i < u.size:
        u[i] = u[i] - 18446744073709551614 + device.uint64(18446744073709551615) * (u[i] & 1)
        s[i] = s[i] + -9223372036854775808
        alone[i] = G + u[i] * 0
    if i == 0:
        x = G  # a global beyond int64 is a uint64 on its own
        alone[u.size] = x // 2 + BIG % 1000


def test_ints_of_the_uint64_range_take_the_other_operands_type(target):
    rng = np.random.default_rng(SEED)
    n = 64
    u = rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)
    s = rng.integers(0, 2**62, n, dtype=np.int64)
    alone = np.zeros(n + 1, np.uint64)
    expected_u = (u - np.uint64(BIG) + np.uint64(2**64 - 1) * (u & np.uint64(1))).astype(np.uint64)
    expected_s = s + np.int64(-(2**63))
    run(target, uint64_literals, u, s, alone, block=64)
    np.testing.assert_array_equal(u, expected_u)
    np.testing.assert_array_equal(s, expected_s)
    assert (alone[:n] == G).all()
    assert alone[n] == G // 2 + BIG % 1000


@device.kernel
def too_big(a):
    a[0] = a[0] + 18446744073709551616


def test_an_int_beyond_uint64_is_an_error_at_its_line():
    with pytest.raises(weft.CompileError, match=r"the constant 18446744073709551616 does not fit") as error:
        weft.launch(too_big, np.zeros(1, np.uint64), grid=1, block=1, target="cpu")
    assert f":{line_of(too_big, '18446744073709551616')}:" in str(error.value)


# ---- constructors: one conversion rule for constants, run-time values and host objects ----

TYPES = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
         "bfloat16", "float8e4m3", "float8e5m2", "float32", "float64", "complex64", "complex128"]

INTS = [0, 1, -1, 7, 200, -129, 255, 256, 300, 65535, 65536, -32769, 2**31, -2**31 - 1, 2**32 + 5,
        2**53 + 1, 2**63 - 1, -2**63, 2**63 + 5, 2**64 - 1]
FLOATS = [0.0, -0.0, 0.1, -3.7, 3.7, 200.9, -200.9, 1e10, -1e10, 1e20, -1e20, 65504.0, 65519.0, 65520.0,
          70000.0, 448.0, 464.0, 1000.0, 57344.0, 61440.0, 3.5e38, 1e300, 5e-324, 2.0**63, 2.0**64, 1.5e19,
          -1.5e19, math.nan, math.inf, -math.inf]
COMPLEXES = [1 + 2j, -0.5j, complex(3.7, -1e10)]


def random_values():
    """Seeded random ints over int64 and uint64 and floats of every magnitude, both signs."""
    rng = np.random.default_rng(SEED)
    ints = [int(x) for x in rng.integers(-2**63, 2**63, 16, dtype=np.int64)]
    ints += [int(x) for x in rng.integers(2**63, 2**64, 8, dtype=np.uint64, endpoint=False)]
    floats = [float(x) for x in rng.standard_normal(16) * 10.0 ** rng.integers(-10, 30, 16)]
    return ints, floats


def literal(value):
    """`value` as Python source that device code folds to that exact value."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, complex):
        # Python's complex arithmetic on literals (device code's complex() is complex64)
        return f"({literal(value.real)} + {literal(value.imag)} * 1j)"
    if isinstance(value, float):
        if math.isnan(value):
            return "math.nan"
        if math.isinf(value):
            return "math.inf" if value > 0 else "(-math.inf)"
        return f"({value!r})"
    return f"({value})"


def source_kind(value):
    """The array that holds `value` at run time: its Python type and range decide."""
    if isinstance(value, bool):
        return "b"
    if isinstance(value, complex):
        return "c"
    if isinstance(value, float):
        return "f"
    return "u" if value > 2**63 - 1 else "i"


SOURCE_DTYPES = {"b": np.bool_, "i": np.int64, "u": np.uint64, "f": np.float64, "c": np.complex128}


def conversion_cases():
    """(type, value) pairs whose conversion is defined (a complex converts only to a complex type
    or bool)."""
    ints, floats = random_values()
    values = [True, False] + INTS + ints + FLOATS + floats + COMPLEXES
    return {t: [v for v in values if not isinstance(v, complex) or t.startswith("complex") or t == "bool_"]
            for t in TYPES}


def conversion_module(tmp_path, cases):
    """A module with `constants(out_<type>...)`, which converts each value written as a constant, and
    `runtime(out_<type>..., src_b, src_i, src_u, src_f, src_c, where_<type>...)`, which converts
    it read from the source array of its kind at run time."""
    outs = ", ".join(f"out_{t}" for t in TYPES)
    lines = ["import math", "from cuda import device", "", "@device.kernel", f"def constants({outs}):"]
    for t, values in cases.items():
        lines += [f"    out_{t}[{k}] = device.{t}({literal(v)})" for k, v in enumerate(values)]
    wheres = ", ".join(f"where_{t}" for t in TYPES)
    lines += ["", "@device.kernel", f"def runtime({outs}, src_b, src_i, src_u, src_f, src_c, {wheres}):"]
    for t, values in cases.items():
        lines += [f"    for k in range({len(values)}):"]
        for kind in sorted({source_kind(v) for v in values}):
            lines += [f"        if where_{t}[k, 0] == {ord(kind)}:",
                      f"            out_{t}[k] = device.{t}(src_{kind}[where_{t}[k, 1]])"]
    path = tmp_path / "conversions.py"
    path.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location("conversions", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["conversions"] = module
    spec.loader.exec_module(module)
    return module


def same(a, b):
    """Equal values (bit for bit: a zero's sign counts), or both NaN."""
    a, b = complex(a) if np.iscomplexobj(a) else float(a), complex(b) if np.iscomplexobj(b) else float(b)
    if isinstance(a, complex):
        return same(a.real, b.real) and same(a.imag, b.imag)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def check_conversions(target, tmp_path):
    cases = conversion_cases()
    module = conversion_module(tmp_path, cases)
    dtypes = {t: getattr(weft, t).dtype for t in TYPES}
    from_constants = [np.zeros(len(cases[t]), dtypes[t]) for t in TYPES]
    from_runtime = [np.zeros(len(cases[t]), dtypes[t]) for t in TYPES]
    sources = {kind: [] for kind in "biufc"}
    wheres = []
    for t in TYPES:
        where = np.zeros((len(cases[t]), 2), np.int32)
        for k, v in enumerate(cases[t]):
            kind = source_kind(v)
            where[k] = (ord(kind), len(sources[kind]))
            sources[kind].append(v)
        wheres.append(where)
    arrays = [np.array(sources[kind] or [0], SOURCE_DTYPES[kind]) for kind in "biufc"]
    run(target, module.constants, *from_constants)
    run(target, module.runtime, *from_runtime, *arrays, *wheres)
    mismatches = []
    for t, constant, runtime in zip(TYPES, from_constants, from_runtime):
        for k, v in enumerate(cases[t]):
            host = getattr(weft, t)(v)
            if not (same(constant[k], host) and same(runtime[k], host)):
                mismatches.append(f"{t}({v!r}): constant {constant[k]!r}, run time {runtime[k]!r}, host {host!r}")
    assert not mismatches, "\n".join(mismatches[:40])


def test_constructors_convert_constants_as_run_time_values_and_host_objects(target, tmp_path):
    check_conversions(target, tmp_path)


@device.kernel
def issue_constructors(out, x):
    out[0] = device.int8(200)
    out[1] = device.uint8(-1)
    out[2] = device.uint8(-3.7)
    out[3] = device.int8(x[0])
    out[4] = device.uint8(x[1])
    out[5] = device.uint8(x[2])


def test_constructors_of_the_issue_wrap_as_documented(target):
    out = np.zeros(6, np.int32)
    run(target, issue_constructors, out, np.array([200.0, -1.0, -3.7]))
    assert list(out) == [-56, 255, 253, -56, 255, 253]
    assert weft.int8(200) == -56 and weft.uint8(-1) == 255 and weft.uint8(-3.7) == 253


def test_host_objects_follow_the_device_rule():
    assert weft.int32(math.nan) == 0 and weft.uint8(math.inf) == 0 and weft.int64(-math.inf) == 0
    assert weft.float8e4m3(1000.0) == 448 and weft.float8e5m2(-math.inf) == -57344
    assert weft.uint64(2**64 - 1) == 2**64 - 1 and weft.int8(2**70 + 3) == 3
    assert weft.bfloat16(2**64 - 1) == ml_dtypes.bfloat16(2.0**64)
    assert weft.bool_(0.5j) and not weft.bool_(0j)
    with pytest.raises(TypeError, match=r"int8\(\) needs a real number, not complex"):
        weft.int8(1 + 2j)


# ---- conditions known at compile time ----

DEBUG = False
FLAG = None


@device.kernel
def debug_only(a, out):
    i = device.tid(1)
    if i < a.size:
        if DEBUG:
            t = a[i] * 2
            out[i] = t
        if FLAG is not None:
            scale = FLAG
            out[i] = a[i] * scale
        if not DEBUG and FLAG is None:
            out[i] = a[i] + 1


def test_a_variable_assigned_only_in_a_removed_branch(target):
    rng = np.random.default_rng(SEED)
    a = rng.integers(-1000, 1000, 40).astype(np.int32)
    out = np.zeros_like(a)
    run(target, debug_only, a, out, block=64)
    np.testing.assert_array_equal(out, a + 1)


@device.kernel
def used_after_removed(a):
    if FLAG is not None:
        t = FLAG
    a[0] = t


def test_a_variable_used_after_its_removed_branch_is_reported_at_its_line():
    with pytest.raises(weft.CompileError) as error:
        weft.launch(used_after_removed, np.zeros(1, np.int32), grid=1, block=1, target="cpu")
    text = str(error.value)
    assert f":{line_of(used_after_removed, 'a[0] = t')}:" in text
    assert "local variable 't' is used but only assigned in code that is not compiled" in text
    assert f"the condition of the if at line {line_of(used_after_removed, 'if FLAG')} is always False" in text
    assert "[RemovedAssignment]" in text


# ---- one mistake, one message ----

@device.kernel
def bad_shape(a, n):
    buf = device.shared_array(n, device.float32)
    buf[0] = a[0]
    a[1] = buf[0]


@device.kernel
def bad_list(a):
    buf = [1, 2]
    a[0] = buf[0] + buf[1]


@device.kernel
def bad_walrus(a):
    if (m := a[0]) > 0:
        a[1] = m


@device.kernel
def bad_iterable(a):
    for x in a:
        a[0] = x
    a[1] = x


@pytest.mark.parametrize("kernel, args, kind, line", [
    (bad_shape, (np.zeros(2, np.float32), 4), "ArrayShape", "shared_array"),
    (bad_list, (np.zeros(2, np.int32),), "UnsupportedExpression", "[1, 2]"),
    (bad_walrus, (np.zeros(2, np.int32),), "UnsupportedExpression", ":="),
    (bad_iterable, (np.zeros(2, np.int32),), "ForIterable", "for x in a"),
])
def test_one_mistake_one_message(kernel, args, kind, line):
    with pytest.raises(weft.CompileError) as error:
        weft.launch(kernel, *args, grid=1, block=1, target="cpu")
    text = str(error.value)
    assert text.count("error:") == 1, text
    assert f"[{kind}]" in text and f":{line_of(kernel, line)}:" in text


# ---- vectors in for loops ----

@device.kernel
def vector_loops(a, out):
    i = device.tid(1)
    if i < a.shape[0]:
        v = device.int32x4(a[i, 0], a[i, 1], a[i, 2], a[i, 3])
        total = 0
        for e in v:
            if e < 0:
                continue
            total += e
            v = device.int32x4(0, 0, 0, 0)  # the loop goes on over the vector it started with
        out[i, 0] = total
        weighted = 0
        for k, e in enumerate(v):
            weighted += k * e
        out[i, 1] = weighted
        w = device.float64x3(a[i, 0], a[i, 1], a[i, 2])
        found = -1
        for k, e in enumerate(w, start=10):
            if e > 500:
                found = k
                break
        else:
            found = 0
        out[i, 2] = found


def test_for_loops_over_vectors(target):
    rng = np.random.default_rng(SEED)
    a = rng.integers(-1000, 1000, (50, 4)).astype(np.int32)
    out = np.zeros((50, 3), np.int64)
    run(target, vector_loops, a, out, block=64)
    np.testing.assert_array_equal(out[:, 0], np.where(a > 0, a, 0).sum(axis=1))
    # v was rebound to zeros once the first loop reached a component >= 0
    weighted = np.where((a >= 0).any(axis=1), 0, a @ np.arange(4))
    np.testing.assert_array_equal(out[:, 1], weighted)
    first = [next((10 + k for k in range(3) if row[k] > 500), 0) for row in a]
    np.testing.assert_array_equal(out[:, 2], first)


# ---- sm_90: the same programs compile through NVRTC and ptxas ----

SM90_SOURCE = """
import math
from cuda import device

G = 2**63 + 5
DEBUG = False

@device.kernel
def k(u: device.uint64[:], s: device.int64[:], f: device.float16[:], c: device.int8[:]):
    u[0] = u[0] - 18446744073709551614 + device.uint64(18446744073709551615) + G
    s[0] = s[0] + -9223372036854775808
    f[0] = device.float16(70000.0) + device.float16(0.1)
    c[0] = device.int8(200) + device.int8(math.nan) + device.uint8(-3.7)
    if DEBUG:
        t = s[1]
        s[2] = t
    v = device.int16x3(c[1], c[2], c[3])
    for i, e in enumerate(v):
        if e == 0:
            continue
        c[4] += e * i
"""


def test_compiles_for_sm90(tmp_path):
    from test_sm90_ptxas import CUDA, compile_for_sm90

    if not (CUDA / "bin").is_dir():
        pytest.skip(f"no CUDA toolkit at {CUDA}")
    compile_for_sm90(tmp_path, "constants", SM90_SOURCE)
