"""`weft.DeviceArray`: an array in the memory of the target that kernels run on, for users with
no array library. On the GPU it owns device memory; when the CPU is the target it is backed by a
NumPy array, so the same program runs on both targets. It exports `__cuda_array_interface__`
(GPU) and `__dlpack__`; the C++ launcher reads its fields directly (DeviceArrayBase)."""

import numpy as np

from . import _runtime
from ._types import BY_DTYPE_NAME, NumberType
from ._weft import DeviceArrayBase, DeviceBuffer, copy_to_device_async, copy_to_host_async, dlpack_capsule, parse_stream

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


def _contiguous_strides(shape: tuple, order: str) -> tuple:
    """Element strides of a gapless array of `shape` in C or Fortran order."""
    strides, step = [], 1
    for extent in (reversed(shape) if order == "C" else shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides)) if order == "C" else tuple(strides)


def _is_contiguous(shape: tuple, element_strides: tuple, order: str) -> bool:
    """NumPy's rule: the elements lie without gaps in `order` ("C" or "F"), extents of 1 and empty
    arrays aside."""
    if 0 in shape:
        return True
    step = 1
    pairs = list(zip(shape, element_strides))
    for extent, stride in (reversed(pairs) if order == "C" else pairs):
        if extent == 1:
            continue
        if stride != step:
            return False
        step *= extent
    return True


class DeviceArray(DeviceArrayBase):
    """An array in the memory of `target` ("gpu" or "cpu"), C-ordered or (order="F") Fortran-
    ordered. Indexing it from the host with integers and slices (NumPy's basic indexing) reads
    and writes elements (`d[3]`, `d[1:5] = values`) and gives views that share its memory
    (`d[2:, 1]`), which kernels take like the array itself."""

    def __init__(self, shape, dtype, target=None, order="C"):
        shape = _shape_tuple(shape)
        dtype = dtype.dtype if isinstance(dtype, NumberType) else np.dtype(dtype)
        if order not in ("C", "F"):
            raise ValueError(f"order must be 'C' or 'F', not {order!r}")
        target = _resolve_target(target)
        if target == "cpu":
            host = np.empty(shape, dtype, order=order)
            owner, address = host, host.ctypes.data
        else:
            host = None
            owner = DeviceBuffer(_runtime.runtime(), max(1, int(np.prod(shape, dtype=np.int64)) * dtype.itemsize))
            address = owner.address
        self._attach(address, shape, _contiguous_strides(shape, order), dtype, host, owner)

    def _attach(self, address, shape, element_strides, dtype, host, owner) -> None:
        """Fills the fields launches read; `host` is the NumPy array of a CPU array, else None."""
        super().__init__(address, shape, tuple(element_strides), dtype.name, host is not None, owner)
        self._dtype = dtype
        self._host = host

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

    @property
    def flags(self) -> dict:
        """numba's `flags`: {"C_CONTIGUOUS": ..., "F_CONTIGUOUS": ...}."""
        return {"C_CONTIGUOUS": self.is_c_contiguous(), "F_CONTIGUOUS": self.is_f_contiguous()}

    def is_c_contiguous(self) -> bool:
        """Whether the elements lie in C order with no gaps."""
        return _is_contiguous(self.shape, self.element_strides, "C")

    def is_f_contiguous(self) -> bool:
        """Whether the elements lie in Fortran order with no gaps."""
        return _is_contiguous(self.shape, self.element_strides, "F")

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"weft.DeviceArray(shape={self.shape}, dtype={self._dtype.name}, target={self.target!r})"

    def _locate(self, key):
        """(whether `key` names one element, the DeviceArray it names) for basic indexing; the
        element's array is 0-d. NumPy computes the view on a stand-in with this array's layout
        and no memory of its own (as_strided reads nothing), so its rules and errors apply."""
        items = key if isinstance(key, tuple) else (key,)
        for item in items:
            if isinstance(item, (bool, np.bool_)) or not (
                    item is None or item is Ellipsis or isinstance(item, (slice, int, np.integer))):
                raise TypeError(
                    "a weft.DeviceArray takes integers, slices, None and ... as indices (basic indexing), not "
                    f"{type(item).__name__}; copy it to the host (copy_to_host()) for other indexing")
        stand_in = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), shape=self.shape, strides=self.strides)
        found = stand_in[items]
        element = not isinstance(found, np.ndarray)
        if element:
            found = stand_in[items + (Ellipsis,)]
        itemsize = self._dtype.itemsize
        host = None if self._host is None else self._host[items + (Ellipsis,) if element else items]
        return element, self._derive(found.ctypes.data - stand_in.ctypes.data, found.shape,
                                     tuple(s // itemsize for s in found.strides), host)

    def _derive(self, offset: int, shape: tuple, element_strides: tuple, host) -> "DeviceArray":
        """A view of this array's memory from byte `offset`; `host` is its NumPy view on the CPU."""
        view = DeviceArray.__new__(DeviceArray)
        view._attach(self.data + offset, shape, element_strides, self._dtype, host, self.owner)
        return view

    def reshape(self, *newshape, order="C") -> "DeviceArray":
        """numba's `reshape`: a view with another shape (one extent may be -1), reading the
        elements in `order`; the array must be contiguous in that order (NotImplementedError
        otherwise: a reshape that would copy)."""
        if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)):
            newshape = tuple(newshape[0])
        shape = [int(extent) for extent in newshape]
        if order not in ("C", "F"):
            raise ValueError(f"order must be 'C' or 'F', not {order!r}")
        if shape.count(-1) > 1 or any(extent < -1 for extent in shape):
            raise ValueError(f"cannot reshape to {tuple(shape)}: at most one extent may be -1, the others >= 0")
        known = int(np.prod([extent for extent in shape if extent != -1], dtype=np.int64))
        if -1 in shape and known:
            shape[shape.index(-1)] = self.size // known
        if int(np.prod(shape, dtype=np.int64)) != self.size:
            raise ValueError(f"cannot reshape an array of size {self.size} into shape {tuple(newshape)}")
        if not (self.is_c_contiguous() if order == "C" else self.is_f_contiguous()):
            raise NotImplementedError(f"reshape in order {order!r} of an array not contiguous in that order would copy")
        shape = tuple(shape)
        host = None if self._host is None else self._host.reshape(shape, order=order)
        return self._derive(0, shape, _contiguous_strides(shape, order), host)

    def ravel(self, order="C", stream=0) -> "DeviceArray":
        """numba's `ravel`: a 1-d view of a contiguous array."""
        return self.reshape(self.size, order=order)

    def split(self, section: int, stream=0) -> list:
        """numba's `split`: views of consecutive parts of a 1-d array, `section` elements each
        (the last one shorter when they do not divide the array)."""
        if self.ndim != 1:
            raise ValueError("split takes a 1-d array")
        return [self[start:start + section] for start in range(0, self.shape[0], section)]

    def transpose(self, axes=None) -> "DeviceArray":
        """A view with the dimensions permuted (reversed without `axes`), as NumPy's."""
        axes = tuple(reversed(range(self.ndim))) if axes is None else tuple(int(a) for a in axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"axes {axes} do not permute the {self.ndim} dimensions")
        host = None if self._host is None else self._host.transpose(axes)
        return self._derive(0, tuple(self.shape[a] for a in axes), tuple(self.element_strides[a] for a in axes), host)

    @property
    def T(self) -> "DeviceArray":
        return self.transpose()

    def __getitem__(self, key):
        element, view = self._locate(key)
        if element:
            return view._read()[()]
        return view

    def __setitem__(self, key, value) -> None:
        self._locate(key)[1]._write(value)

    def _span(self) -> tuple:
        """(first, last + 1) byte offsets from `data` that the elements occupy."""
        if self.size == 0:
            return 0, 0
        low = sum(min(0, (n - 1) * s) for n, s in zip(self.shape, self.strides))
        high = sum(max(0, (n - 1) * s) for n, s in zip(self.shape, self.strides))
        return low, high + self._dtype.itemsize

    def _read(self) -> np.ndarray:
        """A new host array with the contents: Fortran-ordered for a Fortran-contiguous array,
        else C-ordered."""
        order = "F" if self.is_f_contiguous() and not self.is_c_contiguous() else "C"
        if self._host is not None:
            return np.array(self._host, order=order)
        out = np.empty(self.shape, self._dtype, order=order)
        if self.size == 0:
            return out
        if self.is_c_contiguous() or self.is_f_contiguous():
            _runtime.runtime().copy_to_host(out if order == "C" else out.T, self.data)
            return out
        # A strided view: its whole span comes over and NumPy picks the elements out.
        low, high = self._span()
        span = np.empty(high - low, np.uint8)
        _runtime.runtime().copy_to_host(span, self.data + low)
        out[...] = np.ndarray(self.shape, self._dtype, buffer=span, offset=-low, strides=self.strides)
        return out

    def _write(self, value) -> None:
        """Stores `value` (broadcast to this shape, converted to this dtype) into the elements."""
        if isinstance(value, DeviceArray):
            if (value.target == self.target == "gpu" and value.shape == self.shape and value.dtype == self._dtype
                    and value.is_c_contiguous() and self.is_c_contiguous()):
                if self.nbytes:
                    _runtime.runtime().copy_on_device(self.data, value.data, self.nbytes)
                return
            value = value._read()
        if self._host is not None:
            self._host[...] = value
            return
        value = np.broadcast_to(np.asarray(value, dtype=self._dtype), self.shape)
        if self.size == 0:
            return
        runtime = _runtime.runtime()
        if self.is_c_contiguous():
            runtime.copy_to_device(self.data, np.ascontiguousarray(value))
        elif self.is_f_contiguous():
            runtime.copy_to_device(self.data, np.asfortranarray(value).T)
        else:
            # A strided view: its span is read, updated and written back whole (synchronously,
            # so nothing else writes the gaps meanwhile).
            low, high = self._span()
            span = np.empty(high - low, np.uint8)
            runtime.copy_to_host(span, self.data + low)
            np.ndarray(self.shape, self._dtype, buffer=span, offset=-low, strides=self.strides)[...] = value
            runtime.copy_to_device(self.data + low, span)

    def copy_to_host(self, ary=None, stream=0) -> np.ndarray:
        """A new NumPy array with the contents (waits for earlier work on the default stream);
        with `ary` (numba-cuda's form), the contents are copied into `ary`, which is returned.
        With a stream other than the default one (numba's `stream=`), a contiguous GPU array is
        copied on that stream without waiting: synchronize the stream before reading the result."""
        if ary is None:
            if self._host is None and self.is_c_contiguous() and self.size and parse_stream(stream):
                ary = np.empty(self.shape, self._dtype)
            else:
                return self._read()
        if tuple(ary.shape) != self.shape or np.dtype(ary.dtype) != self._dtype:
            raise ValueError(f"copy_to_host(ary): ary must have shape {self.shape} and dtype {self._dtype}")
        if self._host is None and self.is_c_contiguous() and ary.flags.c_contiguous and self.size:
            handle = parse_stream(stream)
            if handle:
                copy_to_host_async(_runtime.runtime(), ary, self.data, handle)
            else:
                _runtime.runtime().copy_to_host(ary, self.data)
        else:
            ary[...] = self._read()
        return ary

    def copy_to_device(self, ary, stream=0) -> None:
        """numba-cuda's `copy_to_device`: overwrites the contents with `ary` (a host array or a
        DeviceArray of this shape). With a stream other than the default one, a C-contiguous
        host array of this dtype is copied on that stream without waiting (it must stay alive
        and unchanged until the stream gets there)."""
        shape = tuple(ary.shape) if isinstance(ary, DeviceArray) else np.shape(ary)
        if shape != self.shape:
            raise ValueError(f"copy_to_device(ary): ary must have shape {self.shape}, not {shape}")
        handle = parse_stream(stream)
        if (handle and self._host is None and isinstance(ary, np.ndarray) and ary.dtype == self._dtype
                and ary.flags.c_contiguous and self.is_c_contiguous() and self.size):
            copy_to_device_async(_runtime.runtime(), self.data, ary, handle)
        else:
            self._write(ary)

    def copy_from_host(self, array) -> None:
        """Overwrites the contents with `array` (broadcast to this shape, converted to this dtype)."""
        self._write(array)

    def __array__(self, dtype=None, copy=None):
        if self._host is None:
            raise TypeError("a GPU DeviceArray is not host memory; use .copy_to_host()")
        return self._host if dtype is None else self._host.astype(dtype)

    @property
    def __cuda_array_interface__(self) -> dict:
        if self._host is not None:
            raise AttributeError("a CPU-backed DeviceArray has no __cuda_array_interface__")
        strides = None if self.is_c_contiguous() else self.strides
        interface = {"shape": self.shape, "strides": strides, "data": (self.data, False), "version": 3, "stream": None}
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
    """A DeviceArray holding a copy of `array` (anything NumPy can convert), Fortran-ordered
    when `array` is Fortran-contiguous and not C-contiguous (as numba-cuda keeps the layout)."""
    array = np.asarray(array)
    order = "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"
    result = DeviceArray(array.shape, array.dtype, target, order)
    result.copy_from_host(array)
    return result


def empty(shape, dtype, target=None, order="C") -> DeviceArray:
    """An uninitialized DeviceArray."""
    return DeviceArray(shape, dtype, target, order)


def zeros(shape, dtype, target=None, order="C") -> DeviceArray:
    """A DeviceArray of zeros."""
    result = DeviceArray(shape, dtype, target, order)
    if result.on_host:
        result._host[...] = 0
    else:
        _runtime.runtime().memset(result.data, 0, result.nbytes)
    return result
