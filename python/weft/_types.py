"""The numeric types of the device dialect (`weft.float32`, ...) and array type annotations
(`weft.float32[:, :]`). Sema identifies them by `__weft_name__`; on the host they convert
values to NumPy scalars. The types and their dtypes come from the C++ scalar-kind table
(src/types/scalar_kinds.def)."""

import importlib

from ._weft import scalar_kinds


class ArrayType:
    """The annotation `dtype[:]`, `dtype[:, :]`, ...: an array of `ndim` dimensions. `layout` is
    numba's: 'C' (`dtype[:, ::1]`), 'F' (`dtype[::1, :]`) or 'A' (any strides)."""

    def __init__(self, dtype: "NumberType", ndim: int, layout: str = "A"):
        self.element = dtype
        self.dtype = dtype
        self.ndim = ndim
        self.layout = layout
        self.__weft_name__ = f"{dtype.__weft_name__}[{', '.join([':'] * ndim)}]"

    def __call__(self, *args) -> "Signature":
        return Signature(self, args)

    def __repr__(self) -> str:
        dims = [":"] * self.ndim
        if self.layout == "C":
            dims[-1] = "::1"
        elif self.layout == "F":
            dims[0] = "::1"
        return f"{self.element.__weft_name__}[{', '.join(dims)}]"

    def __eq__(self, other) -> bool:
        return isinstance(other, ArrayType) and (self.element, self.ndim, self.layout) == (
            other.element, other.ndim, other.layout)

    def __hash__(self) -> int:
        return hash((self.element.name, self.ndim, self.layout))


class Signature:
    """numba's signature object, what `void(float32[:], int32)` or `float64(float64)` gives:
    `return_type` (None for void) and `args` (NumberType and ArrayType objects)."""

    def __init__(self, return_type, args):
        for arg in args:
            if not isinstance(arg, (NumberType, ArrayType)):
                raise TypeError(f"a signature's argument types are number or array types, not {arg!r}")
        self.return_type = return_type
        self.args = tuple(args)

    def __eq__(self, other) -> bool:
        return isinstance(other, Signature) and (self.return_type, self.args) == (other.return_type, other.args)

    def __hash__(self) -> int:
        return hash((repr(self.return_type), self.args))

    def __repr__(self) -> str:
        result = "void" if self.return_type is None else repr(self.return_type)
        return f"{result}({', '.join(map(repr, self.args))})"


class VoidType:
    """numba's `void` (`none`): the return type of a kernel; `void(float32[:])` is a signature."""

    __weft_name__ = "weft.void"

    def __call__(self, *args) -> Signature:
        return Signature(None, args)

    def __repr__(self) -> str:
        return "void"


void = VoidType()


def _layout(dims) -> str:
    """numba's layout of the array type `dtype[dims]` ('C', 'F' or 'A'); TypeError when a
    dimension is not `:` or `::1`, or `::1` is neither the last nor the first dimension."""
    contiguous = []
    for position, dim in enumerate(dims):
        if not isinstance(dim, slice) or dim.start is not None or dim.stop is not None or dim.step not in (None, 1):
            raise TypeError("array types are written dtype[:], dtype[:, :], ... (numba's dtype[:, ::1] and "
                            "dtype[::1, :] give C and F layouts)")
        if dim.step == 1:
            contiguous.append(position)
    if not contiguous:
        return "A"
    if contiguous == [len(dims) - 1]:
        return "C"
    if contiguous == [0]:
        return "F"
    raise TypeError("in an array type, ::1 marks the contiguous dimension: the last (C layout) or the first (F)")


class NumberType:
    """A fixed-format number type: `name` is its name in device code ("float32"); its host
    dtype comes from NumPy, or from ml_dtypes for bfloat16 and the fp8 types."""

    def __init__(self, kind: dict):
        # `kind` is one row of the C++ scalar-kind table (_weft.scalar_kinds()).
        self.name = kind["name"]
        self._category = kind["category"]
        self._dtype_module = kind["dtype_module"]
        self._dtype_name = kind["dtype_name"]
        self._typestr = kind["typestr"]
        self.__weft_name__ = f"weft.{self.name}"

    @property
    def dtype(self):
        """The NumPy dtype of this type (NumPy is imported on first use; bfloat16 and the fp8
        types are ml_dtypes' dtypes)."""
        import numpy

        if not self._dtype_module:
            raise TypeError(f"{self.name} is a tile element type only: it has no host dtype")
        if self._dtype_module == "numpy":
            return numpy.dtype(self._dtype_name)
        return numpy.dtype(getattr(importlib.import_module(self._dtype_module), self._dtype_name))

    def __call__(self, value=0, *more):
        """On the host: `value` converted to this type, as a NumPy scalar, by the rule device
        code uses (one implementation, in weft's C++ core): fixed-width integers wrap (two's
        complement) and take floats truncated toward zero (nan and inf give 0), floating types
        round to nearest even (the fp8 types saturate), a complex converts only to a complex
        type. A complex type also takes the parts: `complex64(re, im)`. Given types instead
        (`float64(float64)`), it is numba's signature of a function returning this type."""
        from ._weft import convert_number

        if isinstance(value, (NumberType, ArrayType)):
            # numba's signature form: float64(float64), int32(int32[:], int32).
            return Signature(self, (value, *more))
        if len(more) > 1:
            raise TypeError(f"{self.name}() takes at most 2 arguments ({1 + len(more)} given)")
        imag = more[0] if more else None
        dtype = self.dtype
        if imag is not None:
            if dtype.kind != "c":
                raise TypeError(f"{self.name}() takes at most 1 argument (2 given)")
            value = complex(value, imag)
        converted = convert_number(value, self.name)
        if converted is not None:
            return dtype.type(converted)
        # Not a Python or NumPy number within 64 bits. An int beyond them wraps into an integer
        # type and converts through float elsewhere; anything else converts as NumPy does.
        if isinstance(value, int):
            if dtype.kind not in "iu":
                return self(float(value))
            bits = 8 * dtype.itemsize
            wrapped = value & ((1 << bits) - 1)
            if dtype.kind == "i" and wrapped >= 1 << (bits - 1):
                wrapped -= 1 << bits
            return dtype.type(wrapped)
        return dtype.type(value)

    def __getitem__(self, dims) -> ArrayType:
        if not isinstance(dims, tuple):
            dims = (dims,)
        if not dims:
            raise TypeError(f"array annotations are written {self.name}[:], {self.name}[:, :], ...")
        return ArrayType(self, len(dims), _layout(dims))

    def __repr__(self) -> str:
        return self.__weft_name__


# attribute of the weft package ("bool_", "float32") -> NumberType, in the table's order: the
# kinds with a host dtype.
NUMBER_TYPES = {kind["attribute"]: NumberType(kind) for kind in scalar_kinds() if kind["dtype_module"]}

# The tile element types without a host dtype (tfloat32): names of the tile faces only.
TILE_ONLY_TYPES = {kind["attribute"]: NumberType(kind) for kind in scalar_kinds() if not kind["dtype_module"]}
for _number in TILE_ONLY_TYPES.values():
    _number.__weft_name__ = f"weft.tiles.{_number.name}"

# NumPy's dtype.name ("float32", "float8_e4m3fn") -> NumberType.
BY_DTYPE_NAME = {number._dtype_name: number for number in NUMBER_TYPES.values()}


class Vector:
    """A host vector (docs/types.md): an immutable value of `type.size` numbers of `type.dtype`,
    with the device API: `size`, `len()`, `dtype`, indexing, iteration, `.x .y .z .w`."""

    __slots__ = ("_type", "_elements")

    def __init__(self, vector_type: "VectorType", elements: tuple):
        object.__setattr__(self, "_type", vector_type)
        object.__setattr__(self, "_elements", elements)

    @property
    def size(self) -> int:
        return self._type.size

    @property
    def dtype(self) -> NumberType:
        return self._type.element

    def __len__(self) -> int:
        return self._type.size

    def __getitem__(self, index):
        return self._elements[index]

    def __iter__(self):
        return iter(self._elements)

    def __getattr__(self, name):
        components = "xyzw"
        if len(name) == 1 and name in components:
            position = components.index(name)
            if position < self._type.size:
                return self._elements[position]
        raise AttributeError(f"{self._type.name} has no attribute {name!r}")

    def __setattr__(self, name, value):
        raise AttributeError(
            f"vectors are immutable: build a new one instead, e.g. {self._type.__weft_name__}(...)")

    def __setitem__(self, index, value):
        raise TypeError(f"vectors are immutable: build a new {self._type.name} instead")

    def __eq__(self, other) -> bool:
        return isinstance(other, Vector) and self._type is other._type and all(
            bool(a == b) for a, b in zip(self._elements, other._elements))

    def __hash__(self) -> int:
        return hash((self._type.name, tuple(float(e) for e in self._elements)))

    def __repr__(self) -> str:
        return f"{self._type.name}({', '.join(str(e) for e in self._elements)})"


class VectorType:
    """A vector type such as `float32x4`: calling it builds a host vector from `size` values,
    each converted as `element(value)` would."""

    def __init__(self, element: NumberType, size: int):
        self.element = element
        self.size = size
        self.name = f"{element.name}x{size}"
        self.__weft_name__ = f"weft.{self.name}"

    @property
    def dtype(self) -> NumberType:
        return self.element

    def __call__(self, *args) -> Vector:
        if len(args) != self.size:
            raise TypeError(f"{self.name}() takes {self.size} values (one per component), not {len(args)}")
        return Vector(self, tuple(self.element(a) for a in args))

    def __repr__(self) -> str:
        return self.__weft_name__


# name -> VectorType: every real fixed-format number type, N = 1..4 (CUDA's vector types).
VECTOR_TYPES = {
    f"{number.name}x{size}": VectorType(number, size)
    for number in NUMBER_TYPES.values()
    if number._category in "SUF"
    for size in (1, 2, 3, 4)
}
