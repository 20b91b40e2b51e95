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
from ._intrinsics import ConstExpr
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

_FUNCTIONS = (
    "load", "store", "full", "zeros", "ones", "iota", "arange", "bid", "num_blocks", "cdiv", "exp", "exp2", "log",
    "log2", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "abs", "floor", "ceil", "maximum",
    "minimum", "where", "astype", "broadcast_to", "reshape", "permute", "transpose", "expand_dims", "cat", "extract",
    "sum", "prod", "max", "min", "argmax", "argmin", "cumsum", "cumprod", "mma", "matmul", "gather", "scatter",
    "add", "sub", "mul", "div", "fma", "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or",
    "atomic_xor", "atomic_exchange",
)
globals().update(_device_functions("tiles", _FUNCTIONS))
globals().update({name: value for name, value in _types.NUMBER_TYPES.items() if not name.startswith("complex")})

# The seed's numeric modifiers (tags passed after the operands of add, sub, mul, div, fma, sqrt,
# maximum, minimum).
round_ties_to_even, round_toward_zero = "round_ties_to_even", "round_toward_zero"
round_toward_negative, round_toward_positive = "round_toward_negative", "round_toward_positive"
round_approximate, round_full = "round_approximate", "round_full"
round_subnormals_to_zero, preserve_subnormals = "round_subnormals_to_zero", "preserve_subnormals"
propagate_nan, suppress_nan = "propagate_nan", "suppress_nan"
_MODIFIERS = ("round_ties_to_even", "round_toward_zero", "round_toward_negative", "round_toward_positive",
              "round_approximate", "round_full", "round_subnormals_to_zero", "preserve_subnormals",
              "propagate_nan", "suppress_nan")

# The seed's view paddings: the values a load gives outside the array.
padding_zero, padding_neg_zero, padding_pos_inf, padding_neg_inf, padding_nan = "zero", "-0", "+inf", "-inf", "nan"

__all__ = ["kernel", "function", "launch", "ConstExpr", "tile", *_FUNCTIONS, *_MODIFIERS, "padding_zero", "padding_neg_zero",
           "padding_pos_inf", "padding_neg_inf", "padding_nan"]
