"""The open weft bugs the fuzzers found or meet (tests/fuzz/known_bugs.py), each a minimal
reproducer asserting the correct behaviour, marked as a strict xfail: a fix turns it into an
unexpected pass, which fails this module until the mark and the generator switch are removed
(tests/fuzz/generator.py generates the construct once `Config.bugs` no longer needs to name it).
"""

import importlib.util
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import weft

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

from tests.fuzz.known_bugs import BY_ID  # noqa: E402
from test_sm90_ptxas import weftc_path  # noqa: E402


def load(tmp_path, bug_id, register=True):
    """The reproducer as a module (entered in sys.modules as an import does, unless not `register`)."""
    path = tmp_path / f"{bug_id.replace('-', '_')}.py"
    path.write_text(BY_ID[bug_id].reproducer)
    spec = importlib.util.spec_from_file_location(f"known_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def xfail(bug_id):
    return pytest.mark.xfail(strict=True, reason=f"known bug {bug_id}: {BY_ID[bug_id].summary}")


@xfail("dead-branch-variable")
def test_a_variable_assigned_only_in_a_constant_false_branch(tmp_path, rng):
    module = load(tmp_path, "dead-branch-variable")
    x = rng.integers(-1000, 1000, 4).astype(np.int32)
    out = np.zeros(1, np.int32)
    weft.launch(module.k, x, out, grid=1, block=1, target="cpu")
    assert out[0] == x[0] + 1


@xfail("constant-conversion-range")
def test_a_conversion_of_a_constant_wraps(tmp_path):
    module = load(tmp_path, "constant-conversion-range")
    out = np.zeros(3, np.int32)
    weft.launch(module.k, out, grid=1, block=1, target="cpu")
    assert list(out) == [-56, -56, 253]


@xfail("int64-min-literal")
def test_the_int64_minimum_literal(tmp_path):
    module = load(tmp_path, "int64-min-literal")
    out = np.zeros(1, np.int64)
    weft.launch(module.k, out, grid=1, block=1, target="cpu")
    assert out[0] == -(2**63)


@xfail("chain-common-type")
def test_a_comparison_chain_compares_pairwise(tmp_path):
    module = load(tmp_path, "chain-common-type")
    x = np.array([16777216, 0], np.int32)
    y = np.array([1e9], np.float32)
    out = np.zeros(1, np.bool_)
    weft.launch(module.k, x, y, out, grid=1, block=1, target="cpu")
    assert out[0] == (int(x[0]) < int(x[0]) + 1 and np.float32(int(x[0]) + 1) < y[0])


@xfail("isfinite-integer")
def test_isfinite_of_an_integer_is_true(tmp_path, rng):
    module = load(tmp_path, "isfinite-integer")
    out = np.zeros(1, np.bool_)
    weft.launch(module.k, rng.integers(-9, 9, 1).astype(np.int32), out, grid=1, block=1, target="cpu")
    assert out[0]


@xfail("deep-chain")
def test_a_long_chain_compiles_or_gives_a_diagnostic(tmp_path):
    path = tmp_path / "chain.py"
    path.write_text(BY_ID["deep-chain"].reproducer)
    proc = subprocess.run([weftc_path(), str(path), "--emit-cuda"], capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), f"weftc died: exit {proc.returncode}"


def _brace_depth(text: str) -> int:
    depth = deepest = 0
    for c in text:
        depth += {"{": 1, "}": -1}.get(c, 0)
        deepest = max(deepest, depth)
    return deepest


@xfail("and-chain-compile-time")
def test_an_and_chain_does_not_nest_the_generated_code(tmp_path):
    # NVRTC's time grows about quadratically with the nesting of the C++ weft emits for `and`
    # (tests/fuzz/known_bugs.py); the depth must not grow with the number of operands.
    depths = []
    for n in (50, 100):
        path = tmp_path / f"and{n}.py"
        path.write_text(BY_ID["and-chain-compile-time"].reproducer.replace(" and ".join(["x[0]"] * 2000),
                                                                           " and ".join(["x[0]"] * n)))
        proc = subprocess.run([weftc_path(), str(path), "--emit-cuda"], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        depths.append(_brace_depth(proc.stdout))
    assert depths[1] < depths[0] + 10, f"brace depth {depths[0]} for 50 operands, {depths[1]} for 100"


@xfail("macro-named-field")
def test_struct_fields_named_like_c_macros(tmp_path, rng):
    module = load(tmp_path, "macro-named-field")
    x = rng.standard_normal(2).astype(np.float32)
    out = np.zeros(1, np.float32)
    weft.launch(module.k, x, out, grid=1, block=1, target="cpu")
    assert out[0] == x[0] + x[1]


@xfail("struct-outside-sys-modules")
def test_a_struct_of_a_module_outside_sys_modules(tmp_path, rng):
    module = load(tmp_path, "struct-outside-sys-modules", register=False)
    x = rng.standard_normal(1).astype(np.float32)
    out = np.zeros(1, np.float32)
    weft.launch(module.k, x, out, grid=1, block=1, target="cpu")
    assert out[0] == x[0]


@xfail("stale-source")
def test_a_rewritten_module_compiles_its_new_text(tmp_path):
    path = tmp_path / "rewritten.py"
    a, b = np.zeros(1, np.int32), np.zeros(1, np.int32)
    texts = ("from cuda import device\n\n@device.kernel\ndef k(a: device.int32[:]):\n    a[0] = 1\n",
             BY_ID["stale-source"].reproducer)
    for version, text in enumerate(texts):
        path.write_text(text)
        spec = importlib.util.spec_from_file_location(f"rewritten{version}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        weft.launch(module.k, *((a,) if version == 0 else (a, b)), grid=1, block=1, target="cpu")
    assert (a[0], b[0]) == (2, 3)


@xfail("constant-conversion-precision")
def test_a_conversion_of_a_constant_rounds_to_its_type(tmp_path):
    import ml_dtypes

    module = load(tmp_path, "constant-conversion-precision")
    out, z = np.zeros(3), np.zeros(1, np.complex128)
    weft.launch(module.k, out, z, grid=1, block=1, target="cpu")
    assert list(out) == [float(np.float32(0.001)), float(np.float16(0.1)), float(ml_dtypes.float8_e4m3fn(0.3))]
    assert z[0] == complex(1.0, float(np.float32(0.001)))
