"""cuTile Python's face of weft's tile engine (docs/tiles.md): a program written for
`import cuda.tile as ct` runs on weft by changing that import to::

    from weft import cutile as ct

Kernels, `ct.launch(stream, grid, kernel, args)` (stream may be None), `ct.Constant[int]`,
`ct.PaddingMode` and cuTile's typing rules where they differ from the seed's; NumPy arrays work
on the CPU target.
"""

from . import _types
from ._autotune import Autotune, Config, TuningResult
from ._intrinsics import ConstExpr
from ._weft import tile_names as _tile_names
from ._tiles import device_functions as _device_functions, function, launch, make_kernel as _make_kernel

kernel = _make_kernel("cutile")
Constant = ConstExpr

# The device functions are sema's (check_tiles.cpp).
_FUNCTIONS, _ = _tile_names("cutile")
globals().update(_device_functions("cutile", _FUNCTIONS))
globals().update({name: value for name, value in _types.NUMBER_TYPES.items() if not name.startswith("complex")})
globals().update(_types.TILE_ONLY_TYPES)  # tfloat32
# cuTile spells the fp8 types by their dtype names (sema resolves them the same way).
globals().update({name: value for name, value in _types.BY_DTYPE_NAME.items() if name.startswith("float8")})


class _Member:
    """A member of one of cuTile's enumerations (PaddingMode, RoundingMode), named for sema."""

    def __init__(self, enum: str, name: str):
        self.name = name
        self._enum = enum
        self.__weft_name__ = f"weft.cutile.{enum}.{name}"

    def __repr__(self) -> str:
        return f"{self._enum}.{self.name}"


class PaddingMode:
    """What a load gives outside the array (UNDETERMINED: weft gives zero)."""

    __weft_name__ = "weft.cutile.PaddingMode"
    ZERO = _Member("PaddingMode", "ZERO")
    NEG_ZERO = _Member("PaddingMode", "NEG_ZERO")
    NAN = _Member("PaddingMode", "NAN")
    POS_INF = _Member("PaddingMode", "POS_INF")
    NEG_INF = _Member("PaddingMode", "NEG_INF")
    UNDETERMINED = _Member("PaddingMode", "UNDETERMINED")


class RoundingMode:
    """The rounding of add, sub, mul, truediv, fma and sqrt: to nearest even (RN), toward zero
    (RZ), toward negative (RM), toward positive (RP); APPROX and FULL for truediv (APPROX for
    sqrt)."""

    __weft_name__ = "weft.cutile.RoundingMode"
    RN = _Member("RoundingMode", "RN")
    RZ = _Member("RoundingMode", "RZ")
    RM = _Member("RoundingMode", "RM")
    RP = _Member("RoundingMode", "RP")
    APPROX = _Member("RoundingMode", "APPROX")
    FULL = _Member("RoundingMode", "FULL")


class MemoryOrder:
    """The memory order of an atomic read-modify-write: RELAXED or ACQ_REL (the default)."""

    __weft_name__ = "weft.cutile.MemoryOrder"
    RELAXED = _Member("MemoryOrder", "RELAXED")
    ACQUIRE = _Member("MemoryOrder", "ACQUIRE")
    RELEASE = _Member("MemoryOrder", "RELEASE")
    ACQ_REL = _Member("MemoryOrder", "ACQ_REL")


class MemoryScope:
    """The threads an atomic synchronizes with: BLOCK, DEVICE (cuTile's default) or SYS."""

    __weft_name__ = "weft.cutile.MemoryScope"
    BLOCK = _Member("MemoryScope", "BLOCK")
    DEVICE = _Member("MemoryScope", "DEVICE")
    SYS = _Member("MemoryScope", "SYS")


__all__ = ["kernel", "function", "launch", "Autotune", "Config", "TuningResult", "Constant", "ConstExpr", "PaddingMode",
           "RoundingMode", "MemoryOrder", "MemoryScope", *_FUNCTIONS]
