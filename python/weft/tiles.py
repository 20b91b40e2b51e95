"""Tile programming with the Tile C++ seed's names and rules (docs/tiles.md)::

    from weft import tiles as ct

    @ct.kernel
    def vec_add(a, b, c, n: ct.ConstExpr):
        i = ct.bid(0)
        x = ct.load(a, (i,), (n,))
        y = ct.load(b, (i,), (n,))
        ct.store(c, (i,), x + y)

    ct.launch(None, (a.size // 1024,), vec_add, (a, b, c, 1024))

A tile kernel is the program of one tile block; tiles are immutable arrays with static
power-of-2 shapes, and every tile operation is done by the whole block.
"""

from . import _types
from ._autotune import Autotune, Config, TuningResult
from ._intrinsics import ConstExpr
from ._weft import tile_names as _tile_names
from ._tiles import device_functions as _device_functions, function, launch, make_kernel as _make_kernel

kernel = _make_kernel("tiles")


class _TileType:
    """`ct.tile[dtype, shape]`: the annotation of a tile parameter or variable (a tile of
    `dtype` elements with the static power-of-2 extents `shape`)."""

    __weft_name__ = "weft.tiles.tile"

    def __getitem__(self, item):
        dtype, shape = item
        return _TileAnnotation(dtype, shape if isinstance(shape, tuple) else (shape,))

    def __repr__(self) -> str:
        return "ct.tile"


class _TileAnnotation:
    def __init__(self, dtype, shape):
        self.dtype = dtype
        self.shape = shape

    def __repr__(self) -> str:
        return f"ct.tile[{self.dtype!r}, {self.shape!r}]"


tile = _TileType()

# The device functions and the constants (modifier tags, paddings) are sema's (check_tiles.cpp).
_FUNCTIONS, _CONSTANTS = _tile_names("tiles")
globals().update(_device_functions("tiles", _FUNCTIONS))
globals().update(_CONSTANTS)
globals().update({name: value for name, value in _types.NUMBER_TYPES.items() if not name.startswith("complex")})
globals().update(_types.TILE_ONLY_TYPES)  # tfloat32


__all__ = ["kernel", "function", "launch", "Autotune", "Config", "TuningResult", "ConstExpr", "tile", *_FUNCTIONS,
           *_CONSTANTS]
