"""The run-time half of the fuzzer's model: DESIGN.md section 3's semantics of every operation on
weft's number types, computed with Python integers (wrapped explicitly) and NumPy / ml_dtypes
scalars of the right width.

Values: bool is a Python bool, integers are Python ints within their type's range, floats and
complexes are NumPy (ml_dtypes for bfloat16) scalars of their type. Every function here takes
operands already converted to the operation's type. Where Python raises (integer division by
zero, shifts by negative counts, int() of nan), weft defines a result in
include/weft/device/numeric.h's header comment, and the model follows that contract.

Operations whose results differ by a few ulps between implementations (math functions, pow,
complex division; float products when the GPU may contract them into fmas) are *approximate*:
`perturb` moves their results by a few ulps while `Perturbation.active`, and the driver runs the
model once plain and twice perturbed to learn how far each output may legitimately move.
"""

import math
import random
import struct
from fractions import Fraction

import numpy as np

from .scalars import FORMATS, NARROW, SATURATING, SCALARS, int_range, is_complex, is_float, is_int, real_part, wrap

np.seterr(all="ignore")

_NUMPY = {name: s.dtype.type for name, s in SCALARS.items() if s.kind in "fc"}


class Perturbation:
    """Whether approximate results are moved, and the generator that moves them."""

    active = False
    rng = random.Random(0)
    ulps = 4
    direction = 1  # every result of a run moves the same way, so that moves do not cancel


def _round_exact(q: Fraction, t: str) -> float:
    """The exact rational `q` rounded to nearest even in floating format `t`, as a Python float
    (every value of weft's formats is a float64); overflows to infinity as IEEE rounding does."""
    if q == 0:
        return 0.0
    precision, emin, largest = FORMATS[t]
    sign = -1.0 if q < 0 else 1.0
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    e = max(e, emin)
    quantum = Fraction(2) ** (e - (precision - 1))
    rounded = round(q / quantum) * quantum
    if rounded > largest:
        return sign * math.inf
    return sign * float(rounded)


def _to_narrow(x, t: str):
    """A float32 or float64 value (or Python float) rounded once to a narrow float; the fp8
    types saturate (infinities and values beyond the largest finite one give it, as CUDA's
    __NV_SATFINITE conversions do), NaN stays NaN."""
    saturating = t in SATURATING
    if isinstance(x, np.float32) and not saturating:
        return _NUMPY[t](x)
    x = float(x)
    if math.isnan(x) or x == 0:
        return _NUMPY[t](x)  # NaN and zeros (with their sign) convert exactly
    if math.isinf(x):
        return _NUMPY[t](math.copysign(FORMATS[t][2], x) if saturating else x)
    rounded = _round_exact(Fraction(x), t)
    if saturating and math.isinf(rounded):
        rounded = math.copysign(FORMATS[t][2], rounded)
    return _NUMPY[t](rounded)


def from_float(x, t: str):
    """A real floating value (NumPy scalar or Python float) converted to floating type `t`."""
    if t in NARROW:
        return _to_narrow(x, t)
    return _NUMPY[t](x)


def _int_to_float(x: int, t: str):
    if t in NARROW:  # docs/types.md: integers reach the narrow floats through float64
        return _to_narrow(float(x), t)
    if abs(x) <= 2**53:
        return _NUMPY[t](float(x))
    return _NUMPY[t](_round_exact(Fraction(x), t))


def truth(x) -> bool:
    """Python truthiness: nonzero (either part of a complex; NaN is true)."""
    return bool(x != 0)


def convert(x, src: str, dst: str):
    """Python's conversion `dst(x)` of a value of type `src`: bool() is truthiness; int() truncates
    toward zero and wraps (nan and inf give 0); floats round to nearest even; a real becomes a
    complex with a zero imaginary part. Complex to real never happens (a compile error)."""
    if src == dst:
        return x
    d = SCALARS[dst]
    s = SCALARS[src]
    if d.kind == "b":
        return truth(x)
    if d.kind in "iu":
        if s.kind in "biu":
            return wrap(int(x), dst)
        f = float(x)
        if not math.isfinite(f):
            return 0
        return wrap(math.trunc(f), dst)
    if d.kind == "f":
        if s.kind in "biu":
            return _int_to_float(int(x), dst)
        return from_float(np.float32(x) if src in NARROW else x, dst)
    part = "float32" if dst == "complex64" else "float64"
    if s.kind == "c":
        re = from_float(x.real, part)
        im = from_float(x.imag, part)
    else:
        re = convert(x, src, part)
        im = _NUMPY[part](0.0)
    return _NUMPY[dst](complex(float(re), float(im)))


def perturb(x, t: str, scale: float = 0.0):
    """`x` moved by a few ulps of type `t` while a perturbed run is active (approximate results):
    ulps of `x`, or of `scale` when larger (a function accurate to ulps of 1, not of a result
    near one of its zeros)."""
    if not Perturbation.active:
        return x
    rng = Perturbation.rng
    if is_complex(t):
        part = "float32" if t == "complex64" else "float64"
        return _NUMPY[t](complex(float(perturb(x.real, part)), float(perturb(x.imag, part))))
    f = float(x)
    if f == 0 or not math.isfinite(f):
        return x
    steps = rng.randint(1, Perturbation.ulps) * Perturbation.direction
    eps = 2.0 ** (1 - FORMATS[t][0])
    return from_float(f + math.copysign(max(abs(f), scale), f) * steps * eps, t)


# --- arithmetic, per operation and type --------------------------------------------------------


def _narrow(op, t):
    """A narrow-float operation: computed in float32, rounded once to `t` (docs/types.md)."""
    return lambda a, b: _to_narrow(op(np.float32(a), np.float32(b)), t)


def _int_floordiv(t):
    def floordiv(a, b):
        return 0 if b == 0 else wrap(a // b, t)

    return floordiv


def _int_mod(a, b):
    return 0 if b == 0 else a % b


def _complex_mul(t):
    part = _NUMPY["float32" if t == "complex64" else "float64"]

    def mul(a, b):
        ar, ai, br, bi = part(a.real), part(a.imag), part(b.real), part(b.imag)
        return _NUMPY[t](complex(float(ar * br - ai * bi), float(ar * bi + ai * br)))

    return mul


def _complex_div(t):
    part = "float32" if t == "complex64" else "float64"

    def div(a, b):
        # The exact quotient in float64, rounded per part; approximate, so the few ulps by which
        # Smith's algorithm differs do not matter.
        with np.errstate(all="ignore"):
            q = np.complex128(a) / np.complex128(b)
        return _NUMPY[t](complex(float(from_float(q.real, part)), float(from_float(q.imag, part))))

    return div


def _int_pow(t):
    def power(a, n):
        return wrap(pow(a, n, 1 << SCALARS[t].bits), t)

    return power


def _shift(left: bool, t: str):
    bits = SCALARS[t].bits

    def shift(a, s):
        if s < 0:
            return 0  # numeric.h: a shift by a negative count gives 0
        if s >= bits:
            return 0 if left or a >= 0 else -1
        return wrap(a << s, t) if left else a >> s

    return shift


def binary(op: str, t: str):
    """The function computing `a op b` for operands of type `t` (already converted), for
    `+ - * / // % & | ^`; `/` on floats and complexes only (integers are converted first)."""
    kind = SCALARS[t].kind
    if kind in "iu":
        return {
            "+": lambda a, b: wrap(a + b, t),
            "-": lambda a, b: wrap(a - b, t),
            "*": lambda a, b: wrap(a * b, t),
            "//": _int_floordiv(t),
            "%": _int_mod,
            "&": lambda a, b: a & b,
            "|": lambda a, b: a | b,
            "^": lambda a, b: a ^ b,
        }[op]
    if kind == "b":
        return {"&": lambda a, b: a and b, "|": lambda a, b: a or b, "^": lambda a, b: a != b}[op]
    if t in NARROW:
        f = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "//": np.floor_divide, "%": np.remainder}
        return _narrow(f[op], t)
    if kind == "f":
        return {
            "+": lambda a, b: a + b,
            "-": lambda a, b: a - b,
            "*": lambda a, b: a * b,
            "/": lambda a, b: a / b,
            "//": np.floor_divide,
            "%": np.remainder,
        }[op]
    return {
        "+": lambda a, b: a + b,
        "-": lambda a, b: a - b,
        "*": _complex_mul(t),
        "/": _complex_div(t),
    }[op]


def shift(op: str, t: str):
    """`a << s` or `a >> s` within integer type `t` (Python's value, wrapped)."""
    return _shift(op == "<<", t)


def power_const(t: str, n: int):
    """`a ** n` for a constant n >= 0: repeated multiplication in type `t` (integers wrap)."""
    if is_int(t):
        int_power = _int_pow(t)
        return lambda a: int_power(a, n)
    mul = binary("*", t)
    one = convert(1, "int32", t)

    def power(a):
        result = one
        for _ in range(n):
            result = mul(result, a)
        return result

    return power


def power_float(t: str):
    """`pow(a, b)` in floating type `t` (the `**` of DESIGN.md that is not repeated multiplication)."""
    if t in NARROW:
        return _narrow(np.power, t)
    return np.power


def negate(t: str):
    if is_int(t):
        return lambda a: wrap(-a, t)
    if t in NARROW:
        return lambda a: _to_narrow(-np.float32(a), t)
    return lambda a: -a


def invert(t: str):
    return lambda a: wrap(~a, t)


def absolute(t: str):
    """abs(): wrapping for signed integers, magnitude (in the real part type) for complexes."""
    if is_int(t):
        return lambda a: wrap(abs(a), t)
    if is_complex(t):
        part = "float32" if t == "complex64" else "float64"
        return lambda a: from_float(np.hypot(np.float64(a.real), np.float64(a.imag)), part)
    if t in NARROW:
        return lambda a: _to_narrow(np.abs(np.float32(a)), t)
    return np.abs


def compare(op: str):
    """A comparison of two operands of one type (NaN compares false, as in Python)."""
    return {
        "==": lambda a, b: bool(a == b),
        "!=": lambda a, b: bool(a != b),
        "<": lambda a, b: bool(a < b),
        "<=": lambda a, b: bool(a <= b),
        ">": lambda a, b: bool(a > b),
        ">=": lambda a, b: bool(a >= b),
    }[op]


def minmax(is_max: bool):
    """Python's min()/max() of two values: the first unless the second is strictly smaller
    (larger)."""
    if is_max:
        return lambda a, b: b if b > a else a
    return lambda a, b: b if b < a else a


# --- the math module ----------------------------------------------------------------------------


def _gamma(x: float) -> float:
    try:
        return math.gamma(x)
    except ValueError:
        return math.copysign(math.inf, x) if x == 0 else math.nan
    except OverflowError:
        return math.inf


def _lgamma(x: float) -> float:
    try:
        return math.lgamma(x)
    except (ValueError, OverflowError):
        return math.inf


def _remainder(x: float, y: float) -> float:
    try:
        return math.remainder(x, y)
    except ValueError:
        return math.nan


def _copysign(x: float, y: float) -> float:
    """copysign(x, y); the sign of a NaN `y` depends on how it was made (x86 makes 0/0 negative,
    CUDA positive; conversions may drop it), so a perturbed run moving down flips it."""
    r = math.copysign(x, y)
    if math.isnan(y) and Perturbation.active and Perturbation.direction < 0:
        return -r
    return r


def _erf(x: float) -> float:
    return math.erf(x)


def _erfc(x: float) -> float:
    return math.erfc(x)


# name: (arity, NumPy function or a function of Python floats, exact?)
MATH = {
    "acos": (1, np.arccos, False),
    "asin": (1, np.arcsin, False),
    "atan": (1, np.arctan, False),
    "acosh": (1, np.arccosh, False),
    "asinh": (1, np.arcsinh, False),
    "atanh": (1, np.arctanh, False),
    "cos": (1, np.cos, False),
    "sin": (1, np.sin, False),
    "tan": (1, np.tan, False),
    "cosh": (1, np.cosh, False),
    "sinh": (1, np.sinh, False),
    "tanh": (1, np.tanh, False),
    "atan2": (2, np.arctan2, False),
    "exp": (1, np.exp, False),
    "expm1": (1, np.expm1, False),
    "fabs": (1, np.fabs, True),
    "log": (1, np.log, False),
    "log10": (1, np.log10, False),
    "log1p": (1, np.log1p, False),
    "log2": (1, np.log2, False),
    "sqrt": (1, np.sqrt, True),
    "pow": (2, np.power, False),
    "ceil": (1, np.ceil, True),
    "floor": (1, np.floor, True),
    "trunc": (1, np.trunc, True),
    "copysign": (2, _copysign, False),
    "fmod": (2, np.fmod, True),
    "erf": (1, _erf, False),
    "erfc": (1, _erfc, False),
    "gamma": (1, _gamma, False),
    "lgamma": (1, _lgamma, False),
    "cbrt": (1, np.cbrt, False),
    "hypot": (2, np.hypot, False),
    "remainder": (2, _remainder, True),
}
PREDICATES = {"isnan": math.isnan, "isinf": math.isinf, "isfinite": math.isfinite}
# Functions continuous everywhere in their domain: an approximate argument moves their result a
# little. The others (domain edges, branch cuts, floor-like steps) take only exact arguments.
SMOOTH = {"atan", "asinh", "cos", "sin", "tan", "cosh", "sinh", "tanh", "exp", "expm1", "fabs", "erf", "erfc",
          "cbrt", "hypot"}

# Functions whose implementations (CPython's, glibc's, CUDA's) are accurate to ulps of this
# magnitude rather than of the result, near the result's zeros: lgamma cancels at 1 and 2
# (lgamma(1.015625) differs by 150 ulps of the result between CPython and the C libraries).
ABSOLUTE_ERROR = {"lgamma": 1.0}


def math_function(name: str, t: str):
    """math.<name> for arguments of floating type `t` (narrow floats compute in float32 and round
    once), its result perturbed unless the function is exact."""
    _, function, exact = MATH[name]
    work = _NUMPY["float32" if t in NARROW else t]
    if isinstance(function, np.ufunc):

        def compute(*args):
            return function(*(work(a) for a in args))

    else:

        def compute(*args):
            return np.float64(function(*(float(a) for a in args)))

    def call(*args):
        r = from_float(compute(*args), t)
        return r if exact or name == "copysign" else perturb(r, t, ABSOLUTE_ERROR.get(name, 0.0))

    return call


def predicate(name: str, t: str):
    """math.isnan / isinf / isfinite of a value of type `t` (integers are finite numbers)."""
    function = PREDICATES[name]
    if is_float(t):
        return lambda x: function(float(x))
    return lambda x: function(0.0)


def _random_int(rng: np.random.Generator, t: str) -> int:
    lo, hi = int_range(t)
    pick = rng.random()
    if pick < 0.5:
        return int(rng.integers(max(lo, -12), min(hi, 12) + 1))
    if pick < 0.85:
        return wrap((int(rng.integers(0, 1 << 32)) << 32) | int(rng.integers(0, 1 << 32)), t)
    return [lo, hi, 0, 1, wrap(-1, t), lo + 1, hi - 1][int(rng.integers(0, 7))]


def _random_float(rng: np.random.Generator, t: str) -> float:
    pick = rng.random()
    if pick < 0.45:
        return float(rng.standard_normal() * (4.0 if rng.random() < 0.5 else 1000.0))
    if pick < 0.7:
        return float(rng.integers(-20, 21))
    if pick < 0.93:
        top = min(math.log(FORMATS[t][2]), 60.0)
        return float(math.exp(rng.uniform(-30, top)) * (1 if rng.random() < 0.5 else -1))
    return [0.0, -0.0, math.inf, -math.inf, math.nan, 0.5, -1.5][int(rng.integers(0, 7))]


def input_values(rng: np.random.Generator, t: str, n: int) -> np.ndarray:
    """`n` random inputs of type `t`: small values, full-range values and edge values (0, -1,
    extremes; for floats also -0.0, infinities and NaN) mixed."""
    s = SCALARS[t]
    if s.kind == "b":
        return rng.random(n) < 0.5
    if s.kind in "iu":
        return np.array([_random_int(rng, t) for _ in range(n)], dtype=s.dtype)
    if s.kind == "c":
        part = real_part(t)
        return np.array([complex(float(from_float(_random_float(rng, part), part)),
                                 float(from_float(_random_float(rng, part), part))) for _ in range(n)], dtype=s.dtype)
    return np.array([from_float(_random_float(rng, t), t) for _ in range(n)], dtype=s.dtype)


def from_array(value, t: str):
    """An element of a NumPy array of type `t` as a model value."""
    s = SCALARS[t]
    if s.kind == "b":
        return bool(value)
    if s.kind in "iu":
        return int(value)
    return _NUMPY[t](value)


def same(a, b, t: str) -> bool:
    """Exact equality of two values of type `t`, bit for bit except for NaN payloads."""
    if is_complex(t):
        part = "float32" if t == "complex64" else "float64"
        return same(a.real, b.real, part) and same(a.imag, b.imag, part)
    if is_float(t):
        x, y = float(a), float(b)
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)
    return a == b


def ulp(x, t: str) -> float:
    """The spacing of floating type `t`'s values at magnitude |x| (at least its smallest one)."""
    precision, emin, _ = FORMATS[t]
    f = abs(float(x))
    e = max(math.frexp(f)[1] - 1 if f else emin, emin) if math.isfinite(f) else emin
    return 2.0 ** (e - (precision - 1))


def bits(x, t: str) -> str:
    """A readable rendering of a value with its bits, for failure reports."""
    if is_float(t) and t not in NARROW:
        packed = struct.pack("<d", float(x)).hex() if t == "float64" else struct.pack("<f", float(x)).hex()
        return f"{float(x)!r} (0x{packed})"
    if t in NARROW:
        return f"{float(x)!r}"
    return repr(x)

