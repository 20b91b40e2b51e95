"""Device-only entities: on the host they exist (so that kernels can name them) but using
them is a TypeError, as the specification requires. Sema recognizes them by `__weft_name__`."""


def _device_only(name: str) -> TypeError:
    return TypeError(
        f"weft.{name} is device-only: it can be used only inside a @kernel (or a function a kernel "
        f"calls), launched with weft.launch(kernel, *args, grid=..., block=...)"
    )


class DeviceFunction:
    """A device-only function such as `tid` or `syncthreads`."""

    def __init__(self, name: str):
        self.__name__ = name
        self.__weft_name__ = f"weft.{name}"

    def __call__(self, *args, **kwargs):
        raise _device_only(self.__name__)

    def __repr__(self) -> str:
        return f"<device-only function weft.{self.__name__}>"


class DeviceValue:
    """A device-only value such as `thread_idx` (a Dim3) or `warp_size`: any use on the host
    (attribute, arithmetic, conversion) raises TypeError."""

    def __init__(self, name: str):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "__weft_name__", f"weft.{name}")

    def __getattr__(self, attribute):
        raise _device_only(object.__getattribute__(self, "_name"))

    def __call__(self, *args, **kwargs):
        raise _device_only(self._name)

    def __int__(self):
        raise _device_only(self._name)

    __index__ = __int__
    __float__ = __int__
    __bool__ = __int__

    def __repr__(self) -> str:
        return f"<device-only value weft.{self._name}>"


class _ConstExprOf:
    """`ConstExpr[T]`: a parameter that must be a constant expression of type T."""

    __weft_constexpr__ = True

    def __init__(self, type_):
        self.type = type_
        self.__weft_name__ = "weft.ConstExpr"

    def __repr__(self) -> str:
        return f"ConstExpr[{self.type!r}]"


class _ConstExprType:
    """`ConstExpr`: the annotation of a parameter whose value (not only its type) specializes the
    kernel; `ConstExpr[T]` also requires type T."""

    __weft_constexpr__ = True
    __weft_name__ = "weft.ConstExpr"

    def __getitem__(self, type_) -> _ConstExprOf:
        return _ConstExprOf(type_)

    def __call__(self, *args, **kwargs):
        raise TypeError("ConstExpr is a type hint for kernel parameters (def k(n: ConstExpr)); it cannot be called")

    def __repr__(self) -> str:
        return "ConstExpr"


ConstExpr = _ConstExprType()

FUNCTIONS = ["tid", "grid_size", "syncthreads", "shared_array", "local_array"]
VALUES = ["thread_idx", "block_idx", "block_dim", "grid_dim", "warp_size", "lane_id"]
