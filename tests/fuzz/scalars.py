"""The fuzzer's model of weft's number types and of DESIGN.md section 3's typing rules: Array API
promotion, weak literals, the types of `/`, `**`, shifts and the math functions, and which
constants fit a type. Written from DESIGN.md and docs/types.md, not from weft's sources, so that
it can disagree with them."""

import math
from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class Scalar:
    """One number type: its weft name, NumPy dtype, kind (b, i, u, f, c) and size in bytes."""

    name: str
    dtype: np.dtype
    kind: str
    size: int

    @property
    def bits(self) -> int:
        return 8 * self.size

    @property
    def device(self) -> str:
        """How device code names the type (`device.int8`, `device.bool_`)."""
        return "device.bool_" if self.name == "bool" else f"device.{self.name}"


def _scalar(name, dtype, kind):
    dtype = np.dtype(dtype)
    return Scalar(name, dtype, kind, dtype.itemsize)


SCALARS = {
    s.name: s
    for s in [
        _scalar("bool", np.bool_, "b"),
        _scalar("int8", np.int8, "i"),
        _scalar("int16", np.int16, "i"),
        _scalar("int32", np.int32, "i"),
        _scalar("int64", np.int64, "i"),
        _scalar("uint8", np.uint8, "u"),
        _scalar("uint16", np.uint16, "u"),
        _scalar("uint32", np.uint32, "u"),
        _scalar("uint64", np.uint64, "u"),
        _scalar("float8e4m3", ml_dtypes.float8_e4m3fn, "f"),
        _scalar("float8e5m2", ml_dtypes.float8_e5m2, "f"),
        _scalar("float16", np.float16, "f"),
        _scalar("bfloat16", ml_dtypes.bfloat16, "f"),
        _scalar("float32", np.float32, "f"),
        _scalar("float64", np.float64, "f"),
        _scalar("complex64", np.complex64, "c"),
        _scalar("complex128", np.complex128, "c"),
    ]
}
INTEGERS = [n for n, s in SCALARS.items() if s.kind in "iu"]
FLOATS = [n for n, s in SCALARS.items() if s.kind == "f"]
COMPLEXES = [n for n, s in SCALARS.items() if s.kind == "c"]
NARROW = ("float8e4m3", "float8e5m2", "float16", "bfloat16")  # computed in float32, rounded once
SATURATING = ("float8e4m3", "float8e5m2")  # out of range gives the largest finite value, not inf

# Significand bits (with the implicit one), smallest normal exponent and largest finite value of
# each floating format, for correctly rounded conversions.
FORMATS = {
    "float8e4m3": (4, -6, 448.0),
    "float8e5m2": (3, -14, 57344.0),
    "float16": (11, -14, 65504.0),
    "bfloat16": (8, -126, float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)),
    "float32": (24, -126, float(np.finfo(np.float32).max)),
    "float64": (53, -1022, float(np.finfo(np.float64).max)),
}


def is_int(t: str) -> bool:
    return SCALARS[t].kind in "iu"


def is_intlike(t: str) -> bool:
    """Integer or bool: the operands of shifts, bitwise operators and range()."""
    return SCALARS[t].kind in "iub"


def is_float(t: str) -> bool:
    return SCALARS[t].kind == "f"


def is_complex(t: str) -> bool:
    return SCALARS[t].kind == "c"


def int_range(t: str) -> tuple[int, int]:
    """The smallest and largest value of an integer (or bool) type."""
    s = SCALARS[t]
    if s.kind == "b":
        return 0, 1
    if s.kind == "u":
        return 0, (1 << s.bits) - 1
    return -(1 << (s.bits - 1)), (1 << (s.bits - 1)) - 1


def wrap(value: int, t: str) -> int:
    """An integer wrapped (two's complement) into the range of integer type `t`."""
    s = SCALARS[t]
    value &= (1 << s.bits) - 1
    if s.kind == "i" and value >> (s.bits - 1):
        value -= 1 << s.bits
    return value


def _signed_of_size(size: int) -> str:
    return {1: "int8", 2: "int16", 4: "int32", 8: "int64"}[size]


def floating_for(t: str) -> str:
    """The floating type integer operands compute in (`/`, math): float32, float64 for 64-bit."""
    if SCALARS[t].kind in "fc":
        return t
    return "float64" if SCALARS[t].size == 8 else "float32"


def complex_for(t: str) -> str:
    """The complex type holding a real type's values."""
    if is_complex(t):
        return t
    return "complex128" if floating_for(t) == "float64" else "complex64"


def real_part(t: str) -> str:
    return {"complex64": "float32", "complex128": "float64"}.get(t, t)


def promote(a: str, b: str):
    """The Array API v2023.12 promotion of two typed operands, with DESIGN.md's mixed-kind rules
    and docs/types.md's narrow-float rules; None where there is none (int64 with uint64)."""
    if a == b:
        return a
    sa, sb = SCALARS[a], SCALARS[b]
    if sa.kind == "b":
        return b
    if sb.kind == "b":
        return a
    if sa.kind == "c" or sb.kind == "c":
        if sa.kind == "c" and sb.kind == "c":
            return a if sa.size >= sb.size else b
        c, other = (a, b) if sa.kind == "c" else (b, a)
        if is_float(other):
            wide = complex_for(other)
            return c if SCALARS[c].size >= SCALARS[wide].size else wide
        return c
    if sa.kind == "f" or sb.kind == "f":
        if sa.kind == "f" and sb.kind == "f":
            if sa.size != sb.size:
                return a if sa.size > sb.size else b
            # Two formats of one width: the narrowest type holding both (docs/types.md).
            return "float32" if sa.size == 2 else "float16"
        return a if sa.kind == "f" else b
    if sa.kind == sb.kind:
        return a if sa.size >= sb.size else b
    signed, unsigned = (a, b) if sa.kind == "i" else (b, a)
    if unsigned == "uint64":
        return None
    if SCALARS[signed].size > SCALARS[unsigned].size:
        return signed
    return _signed_of_size(2 * SCALARS[unsigned].size)


def literal_kind(value) -> str:
    """The type of a Python number constant alone: its builtin type (bool, int32, float32,
    complex64), or the first wider one that holds it (int64, then uint64; float64; complex128),
    as docs/types.md says."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int32" if -(2**31) <= value < 2**31 else "int64" if value < 2**63 else "uint64"
    if isinstance(value, float):
        return "float32" if fits(value, "float32") else "float64"
    if fits(value.real, "float32") and fits(value.imag, "float32"):
        return "complex64"
    return "complex128"


def join_weak(a: str, b: str) -> str:
    """The type of two weak constants together (the `and`/`or`, min/max, range() and x if c else
    y of constants): the wider of int32 < int64 < uint64 for two ints (a constant it does not
    hold is reported where it is converted), else promotion."""
    if is_int(a) and is_int(b):
        return "uint64" if "uint64" in (a, b) else a if SCALARS[a].size >= SCALARS[b].size else b
    return promote(a, b)


def combine_weak(strong: str, weak: str) -> str:
    """The type of an operation between a typed operand and a weak literal of builtin type
    `weak` (the Array API's Python-scalar rule)."""
    if weak == "bool":
        return strong
    if is_int(weak):
        return weak if strong == "bool" else strong
    if is_float(weak):
        return strong if SCALARS[strong].kind in "fc" else floating_for(strong)
    if is_complex(strong):
        return strong
    return complex_for(strong)


def fits(value, t: str, truncate: bool = False) -> bool:
    """Whether the constant `value` converts to type `t` without a compile error: integers within
    range (floats truncated toward zero when `truncate`, as a conversion does), finite floats
    within the format's largest value, complexes only into complex types."""
    s = SCALARS[t]
    if isinstance(value, complex):
        return s.kind == "c"
    if s.kind == "c" or s.kind == "b":
        return True
    if s.kind == "f":
        x = float(value)
        return not math.isfinite(x) or abs(x) <= FORMATS[t][2]
    if isinstance(value, float):
        if not truncate or not math.isfinite(value):
            return False
        value = math.trunc(value)
    lo, hi = int_range(t)
    return lo <= int(value) <= hi


def annotation(t: str) -> str:
    """A two-dimensional array annotation of element type `t`."""
    return f"{SCALARS[t].device}[:, :]"
