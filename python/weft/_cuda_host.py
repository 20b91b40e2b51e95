"""numba-cuda's host API in the classic front (`weft.cuda`): device arrays, page-locked and
mapped host memory, streams, events and the device. On the CPU target, as numba's simulator
does, streams and events exist but every operation is synchronous, and host memory needs no
pinning (docs/classic.md, "Host API")."""

import numpy as np

from . import _runtime
from ._arrays import DeviceArray, empty, to_device as _to_device


def _layout(order: str, strides) -> str:
    """numba's `order` argument; explicit strides are only those of a contiguous layout."""
    if order not in ("C", "F", "A"):
        raise ValueError(f"order must be 'C' or 'F', not {order!r}")
    if strides is not None:
        raise ValueError("weft device arrays take order='C' or 'F', not explicit strides")
    return "F" if order == "F" else "C"


def to_device(obj, stream=0, copy=True, to=None) -> DeviceArray:
    """numba's `cuda.to_device`: a device array holding a copy of `obj`, in its layout (C or
    Fortran order); with `to`, `obj` is copied into that device array, which is returned."""
    if to is not None:
        to.copy_to_device(obj, stream=stream)
        return to
    return _to_device(obj)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0) -> DeviceArray:
    """numba's `cuda.device_array`: an uninitialized device array (dtype float64 by default, as
    NumPy's), C- or (order='F') Fortran-ordered; `dtype` may be a structured (record) dtype."""
    return empty(shape, np.float64 if dtype is None else dtype, order=_layout(order, strides))


def device_array_like(ary, stream=0) -> DeviceArray:
    """An uninitialized device array of `ary`'s shape, dtype and layout (Fortran order when
    `ary` is Fortran-contiguous and not C-contiguous)."""
    return device_array(ary.shape, ary.dtype, order=_order_of(ary))


def _order_of(ary) -> str:
    """'F' for an array that is Fortran-contiguous and not C-contiguous, else 'C'."""
    flags = ary.flags
    return "F" if flags["F_CONTIGUOUS"] and not flags["C_CONTIGUOUS"] else "C"


def synchronize() -> None:
    """Waits for all work on the GPU (the CPU target finishes launches before they return)."""
    _runtime.runtime().synchronize(0)


def is_available() -> bool:
    """Whether a CUDA GPU is usable."""
    return _runtime.runtime().gpu_available()
