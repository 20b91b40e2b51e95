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

class AtomicType:
    """What `Atomic(dtype, align=0)` gives on the host: the description of an atomically accessed
    scalar, so that a @struct field can be annotated with it (device code reads the annotation's
    source, where `device.Atomic(...)` is a dtype for shared_array and local_array)."""

    __weft_name__ = "weft.Atomic"

    def __init__(self, dtype, align=0):
        self.dtype = dtype
        self.align = align

    def __repr__(self) -> str:
        return f"Atomic({self.dtype!r}, align={self.align})" if self.align else f"Atomic({self.dtype!r})"


class _AtomicFunction(DeviceFunction):
    """`device.Atomic`: callable on the host (for annotations), a type in device code."""

    def __call__(self, dtype, align=0):
        return AtomicType(dtype, align)


FUNCTIONS = ["tid", "grid_size", "syncthreads", "shared_array", "local_array"]
# SIMT programming (docs/simt.md). WarpMask is a device type (a uint32 in device code).
FUNCTIONS += [
    "dynamic_shared_array", "syncthreads_count", "syncthreads_and", "syncthreads_or", "WarpMask", "activemask",
    "lanemask_lt", "syncwarp", "all_sync", "any_sync", "eq_sync", "ballot_sync", "shfl_sync", "shfl_up_sync",
    "shfl_down_sync", "shfl_xor_sync", "match_any_sync", "match_all_sync", "threadfence", "Atomic", "AtomicRef",
    "popc", "brev", "clz", "ffs", "cbrt", "fma",
]
# The FUNCTIONS whose host object is not a plain DeviceFunction.
FUNCTION_CLASSES = {"Atomic": _AtomicFunction}
VALUES = ["thread_idx", "block_idx", "block_dim", "grid_dim", "warp_size", "lane_id"]
