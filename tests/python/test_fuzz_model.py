"""The differential fuzzer's own model (tests/fuzz/) checked against CPython and NumPy on random
data, so that a fuzzer failure points at weft, not at the model: wrapping integer arithmetic,
Python's floor division and modulo, shifts, conversions (float64 to the narrow floats rounded
once), the Array API promotion table, weak literals, and the generator's determinism."""

import math
import pathlib
import sys
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

from tests.fuzz import generator, interp, ir, model  # noqa: E402
from tests.fuzz.scalars import INTEGERS, SCALARS, combine_weak, int_range, promote, wrap  # noqa: E402


@pytest.mark.parametrize("t", INTEGERS)
def test_integer_arithmetic_wraps_like_numpy(rng, t):
    lo, hi = int_range(t)
    a = [int(v) for v in rng.integers(lo, hi, 200, endpoint=True, dtype=np.int64 if t != "uint64" else np.uint64)]
    b = [int(v) for v in rng.integers(lo, hi, 200, endpoint=True, dtype=np.int64 if t != "uint64" else np.uint64)]
    na, nb = np.array(a, SCALARS[t].dtype), np.array(b, SCALARS[t].dtype)
    with np.errstate(all="ignore"):
        for op, want in (("+", na + nb), ("-", na - nb), ("*", na * nb), ("&", na & nb), ("^", na ^ nb)):
            got = [model.binary(op, t)(x, y) for x, y in zip(a, b)]
            assert got == [int(v) for v in want], op


@pytest.mark.parametrize("t", ["int8", "int32", "int64", "uint16", "uint64"])
def test_floor_division_and_modulo_are_pythons(rng, t):
    lo, hi = int_range(t)
    for _ in range(300):
        a = int(rng.integers(max(lo, -(2**62)), min(hi, 2**62)))
        b = int(rng.integers(max(lo, -50), min(hi, 50)))
        floordiv, mod = model.binary("//", t), model.binary("%", t)
        if b == 0:  # weft's defined result (include/weft/device/numeric.h)
            assert floordiv(a, b) == 0 and mod(a, b) == 0
        else:
            assert floordiv(a, b) == wrap(a // b, t) and mod(a, b) == a % b


def test_float_floor_division_and_modulo_match_python(rng):
    a = rng.standard_normal(300) * 100
    b = rng.standard_normal(300) * 10
    for x, y in zip(a, b):
        assert float(model.binary("//", "float64")(np.float64(x), np.float64(y))) == float(x) // float(y)
        assert float(model.binary("%", "float64")(np.float64(x), np.float64(y))) == float(x) % float(y)


@pytest.mark.parametrize("t", ["int8", "uint8", "int32", "uint64"])
def test_shifts_are_pythons_within_the_type(rng, t):
    bits = SCALARS[t].bits
    lo, hi = int_range(t)
    for _ in range(300):
        a = int(rng.integers(max(lo, -(2**62)), min(hi, 2**62)))
        s = int(rng.integers(0, bits + 4))
        assert model.shift("<<", t)(a, s) == wrap(a << s, t)
        assert model.shift(">>", t)(a, s) == a >> s
    assert model.shift("<<", t)(1, -1) == 0  # weft's defined result for a negative count


def test_float_to_integer_conversion_truncates_and_wraps(rng):
    for x in rng.standard_normal(200) * 1e6:
        assert model.convert(np.float64(x), "float64", "int8") == wrap(math.trunc(x), "int8")
        assert model.convert(np.float64(x), "float64", "uint16") == wrap(math.trunc(x), "uint16")
    assert model.convert(np.float64(math.nan), "float64", "int32") == 0


def _nearest(x: float, values: np.ndarray) -> float:
    """The bfloat16 value nearest to x, ties to the even significand (brute force)."""
    exact = Fraction(x)
    distance = {float(v): abs(Fraction(float(v)) - exact) for v in values}
    best = min(distance.values())
    ties = [v for v, d in distance.items() if d == best]
    return min(ties, key=lambda v: int(np.array([v], np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)[0]) & 1)


def test_float64_to_bfloat16_rounds_once(rng):
    all_values = np.arange(0, 1 << 16, dtype=np.uint32).astype(np.uint16).view(ml_dtypes.bfloat16)
    positive = np.sort(all_values[(all_values.astype(np.float32) > 0.5) & (all_values.astype(np.float32) < 4)])
    for x in rng.uniform(0.6, 3.9, 200):
        assert float(model.from_float(np.float64(x), "bfloat16")) == _nearest(float(x), positive)
    # 1 + 2**-8 + 2**-30 lies just above a tie: rounded through float32 it would go down to 1.0.
    assert float(model.from_float(np.float64(1 + 2**-8 + 2**-30), "bfloat16")) == 1 + 2**-7


def test_float64_to_float16_matches_numpy(rng):
    for x in np.concatenate([rng.standard_normal(200) * 1000, [65519.99, 65520.0, -0.0, 1e-8]]):
        assert model.same(model.from_float(np.float64(x), "float16"), np.float16(x), "float16")


def test_promotion_table_follows_the_array_api():
    assert promote("int8", "uint8") == "int16"
    assert promote("int32", "uint32") == "int64"
    assert promote("int64", "uint64") is None
    assert promote("float16", "bfloat16") == "float32"
    assert promote("complex64", "float64") == "complex128"
    assert promote("bool", "uint16") == "uint16"
    for a in SCALARS:
        for b in SCALARS:
            assert promote(a, b) == promote(b, a)
    assert combine_weak("uint8", "int32") == "uint8"  # weak literals take the other operand's type
    assert combine_weak("int64", "float32") == "float64"
    assert combine_weak("bool", "int32") == "int32"


def test_the_model_computes_a_small_program():
    body = [
        ir.Assign("v", ir.Bin("//", ir.Name("x"), ir.Name("y"))),
        ir.AugAssign("v", "+", ir.Lit(200)),
        ir.Return(ir.TupleE([ir.Name("v"), ir.Compare(["<", "<"], [ir.Name("x"), ir.Name("y"), ir.Lit(3)]),
                             ir.Bin("/", ir.Name("x"), ir.Lit(2))])),
    ]
    program = ir.Program("p", [ir.Function("p", ["x", "y"], body)], ["int16", "int16"], {})
    compiled = interp.compile_program(program)
    assert compiled.output_types == ("int16", "bool", "float32")
    assert compiled.run(-7, 2) == (-4 + 200, True, np.float32(-3.5))
    assert compiled.run(5, 0)[0] == 200  # x // 0 == 0 (numeric.h)
    assert compiled.run(32767, 1)[0] == wrap(32767 + 200, "int16")


def test_the_generator_is_deterministic():
    first = ir.program_source(generator.generate((7, 3), "p3"))
    assert first == ir.program_source(generator.generate((7, 3), "p3"))
    assert first != ir.program_source(generator.generate((7, 4), "p3"))
