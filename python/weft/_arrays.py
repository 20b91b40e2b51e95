"""`weft.DeviceArray`: an array in the memory of the target that kernels run on, for users with
no array library. On the GPU it owns device memory; when the CPU is the target it is backed by a
NumPy array, so the same program runs on both targets. It exports `__cuda_array_interface__`
(GPU) and `__dlpack__`; the C++ launcher reads its fields directly (DeviceArrayBase)."""

import numpy as np

from . import _runtime
from ._types import BY_DTYPE_NAME, NumberType
from ._weft import DeviceArrayBase, DeviceBuffer, dlpack_capsule

_DLPACK_CPU = 1
_DLPACK_CUDA = 2


def _shape_tuple(shape) -> tuple:
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"array dimensions must be non-negative, got {shape}")
    return shape


def _resolve_target(target):
    if target is None:
        return _runtime.runtime().default_target()
    if target not in ("gpu", "cpu"):
        raise ValueError(f"target must be 'gpu', 'cpu' or None, not {target!r}")
    return target


class DeviceArray(DeviceArrayBase):
    """A C-contiguous array in the memory of `target` ("gpu" or "cpu")."""

    def __init__(self, shape, dtype, target=None):
        shape = _shape_tuple(shape)
        dtype = dtype.dtype if isinstance(dtype, NumberType) else np.dtype(dtype)
        target = _resolve_target(target)
        if target == "cpu":
            self._host = np.empty(shape, dtype)
            owner, address = self._host, self._host.ctypes.data
        else:
            self._host = None
            owner = DeviceBuffer(_runtime.runtime(), max(1, int(np.prod(shape, dtype=np.int64)) * dtype.itemsize))
            address = owner.address
        strides, step = [], 1
        for extent in reversed(shape):
            strides.append(step)
            step *= max(extent, 1)
        super().__init__(address, shape, tuple(reversed(strides)), dtype.name, target == "cpu", owner)
        self._dtype = dtype

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def strides(self) -> tuple:
        """Strides in bytes, as NumPy counts them."""
        return tuple(s * self._dtype.itemsize for s in self.element_strides)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self._dtype.itemsize

    @property
    def target(self) -> str:
        return "cpu" if self.on_host else "gpu"

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"weft.DeviceArray(shape={self.shape}, dtype={self._dtype.name}, target={self.target!r})"

    def copy_to_host(self, ary=None, stream=0) -> np.ndarray:
        """A new NumPy array with the contents (waits for earlier work on the default stream);
        with `ary` (numba-cuda's form), the contents are copied into `ary`, which is returned."""
        if ary is not None:
            if tuple(ary.shape) != self.shape or np.dtype(ary.dtype) != self._dtype:
                raise ValueError(f"copy_to_host(ary): ary must have shape {self.shape} and dtype {self._dtype}")
            ary[...] = self.copy_to_host()
            return ary
        if self._host is not None:
            return self._host.copy()
        out = np.empty(self.shape, self._dtype)
        _runtime.runtime().copy_to_host(out, self.data)
        return out

    def copy_from_host(self, array) -> None:
        """Overwrites the contents with `array` (same shape, converted to this dtype)."""
        array = np.ascontiguousarray(np.broadcast_to(np.asarray(array, dtype=self._dtype), self.shape))
        if self._host is not None:
            self._host[...] = array
        else:
            _runtime.runtime().copy_to_device(self.data, array)

    def __array__(self, dtype=None, copy=None):
        if self._host is None:
            raise TypeError("a GPU DeviceArray is not host memory; use .copy_to_host()")
        return self._host if dtype is None else self._host.astype(dtype)

    @property
    def __cuda_array_interface__(self) -> dict:
        if self._host is not None:
            raise AttributeError("a CPU-backed DeviceArray has no __cuda_array_interface__")
        interface = {"shape": self.shape, "strides": None, "data": (self.data, False), "version": 3, "stream": None}
        number = BY_DTYPE_NAME.get(self._dtype.name)
        if number is None:
            # A structured dtype: NumPy's typestr ("|V12") and its fields.
            interface["typestr"] = self._dtype.str
            interface["descr"] = self._dtype.descr
        elif number._typestr:
            interface["typestr"] = number._typestr
        else:
            # AttributeError, so that consumers that probe with hasattr() fall back to DLPack.
            raise AttributeError(
                f"a {number.name} DeviceArray has no __cuda_array_interface__: no typestr names {number.name}; "
                "use __dlpack__ (e.g. torch.from_dlpack(array))")
        return interface

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return dlpack_capsule(self)

    def __dlpack_device__(self) -> tuple:
        return (_DLPACK_CPU, 0) if self._host is not None else (_DLPACK_CUDA, 0)


def to_device(array, target=None) -> DeviceArray:
    """A DeviceArray holding a copy of `array` (anything NumPy can convert)."""
    array = np.asarray(array)
    result = DeviceArray(array.shape, array.dtype, target)
    result.copy_from_host(array)
    return result


def empty(shape, dtype, target=None) -> DeviceArray:
    """An uninitialized DeviceArray."""
    return DeviceArray(shape, dtype, target)


def zeros(shape, dtype, target=None) -> DeviceArray:
    """A DeviceArray of zeros."""
    result = DeviceArray(shape, dtype, target)
    if result.on_host:
        result._host[...] = 0
    else:
        _runtime.runtime().memset(result.data, 0, result.nbytes)
    return result
