"""The numeric types of the device dialect (`weft.float32`, ...) and array type annotations
(`weft.float32[:, :]`). Sema identifies them by `__weft_name__`; on the host they convert
values to NumPy scalars."""


class ArrayType:
    """The annotation `dtype[:]`, `dtype[:, :]`, ...: an array of `ndim` dimensions."""

    def __init__(self, dtype: "NumberType", ndim: int):
        self.element = dtype
        self.ndim = ndim
        self.__weft_name__ = f"{dtype.__weft_name__}[{', '.join([':'] * ndim)}]"

    def __repr__(self) -> str:
        return self.__weft_name__

    def __eq__(self, other) -> bool:
        return isinstance(other, ArrayType) and (self.element, self.ndim) == (other.element, other.ndim)

    def __hash__(self) -> int:
        return hash((self.element.name, self.ndim))


class NumberType:
    """A fixed-format number type: `name` is its dtype name ("float32")."""

    def __init__(self, name: str, numpy_name: str):
        self.name = name
        self._numpy_name = numpy_name
        self.__weft_name__ = f"weft.{name}"

    @property
    def dtype(self):
        """The NumPy dtype of this type (NumPy is imported on first use)."""
        import numpy

        return numpy.dtype(self._numpy_name)

    def __call__(self, value=0):
        """On the host: `value` converted to this type, as a NumPy scalar."""
        return self.dtype.type(value)

    def __getitem__(self, dims) -> ArrayType:
        if not isinstance(dims, tuple):
            dims = (dims,)
        if not dims or not all(isinstance(d, slice) and d == slice(None) for d in dims):
            raise TypeError(f"array annotations are written {self.name}[:], {self.name}[:, :], ...")
        return ArrayType(self, len(dims))

    def __repr__(self) -> str:
        return self.__weft_name__


_NAMES = [
    ("bool_", "bool"), ("int8", "int8"), ("int16", "int16"), ("int32", "int32"),
    ("int64", "int64"), ("uint8", "uint8"), ("uint16", "uint16"), ("uint32", "uint32"),
    ("uint64", "uint64"), ("float16", "float16"), ("float32", "float32"),
    ("float64", "float64"), ("complex64", "complex64"), ("complex128", "complex128"),
]

# name -> NumberType, in the order above.
NUMBER_TYPES = {python_name: NumberType(python_name.rstrip("_"), numpy_name) for python_name, numpy_name in _NAMES}
