"""numba-cuda's host API in the classic front (`weft.cuda`): device arrays, page-locked and
mapped host memory, streams, events and the device. On the CPU target, as numba's simulator
does, streams and events exist but every operation is synchronous, and host memory needs no
pinning (docs/classic.md, "Host API")."""

import contextlib
import time

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


# ---- page-locked and mapped host memory ----


def _on_gpu() -> bool:
    """Whether the classic front's host memory is for the GPU: the default target is the GPU."""
    return _runtime.runtime().default_target() == "gpu"


class _HostMemory:
    """Exposes page-locked memory (a _weft.HostBuffer, kept alive by the arrays over it) to NumPy."""

    def __init__(self, buffer):
        self._buffer = buffer
        self.__array_interface__ = {"shape": (buffer.nbytes,), "typestr": "|u1", "data": (buffer.handle, False),
                                    "version": 3}


class MappedArray(np.ndarray):
    """numba's mapped array: a NumPy array in page-locked host memory that kernels on the GPU
    read and write in place (its `__cuda_array_interface__` is its device address). Views of it
    are mapped too; the result of an operation on it (`m * 2`) is new, unmapped memory, which
    has no `__cuda_array_interface__` and is copied to the GPU like any NumPy array."""

    # (first host address, last + 1, device address - host address) of the mapped buffer.
    _mapping = None

    def __array_finalize__(self, obj) -> None:
        mapping = getattr(obj, "_mapping", None)
        if mapping is not None and not mapping[0] <= self.__array_interface__["data"][0] < mapping[1]:
            mapping = None
        self._mapping = mapping

    @property
    def __cuda_array_interface__(self) -> dict:
        if self._mapping is None:
            raise AttributeError("this array is not in mapped memory (an operation on a mapped array makes a new "
                                 "one); pass cuda.to_device(a) or use a cuda.mapped_array")
        interface = self.__array_interface__
        structured = self.dtype.fields is not None
        result = {"shape": self.shape, "strides": interface["strides"],
                  "typestr": f"|V{self.dtype.itemsize}" if structured else self.dtype.str,
                  "data": (interface["data"][0] + self._mapping[2], False), "version": 3, "stream": None}
        if structured:
            result["descr"] = self.dtype.descr
        return result


def _host_array(shape, dtype, strides, order, mapped: bool) -> np.ndarray:
    order = _layout(order, strides)
    dtype = np.dtype(np.float64 if dtype is None else dtype)
    if not _on_gpu():
        # The CPU target: host memory is what kernels use, as in numba's simulator.
        return np.empty(shape, dtype, order=order)
    from ._weft import HostBuffer

    count = int(np.prod(shape, dtype=np.int64))
    buffer = HostBuffer(_runtime.runtime(), max(1, count * dtype.itemsize), mapped)
    memory = np.asarray(_HostMemory(buffer))
    result = np.ndarray(shape, dtype, buffer=memory, order=order)
    if not mapped:
        return result
    result = result.view(MappedArray)
    result._mapping = (buffer.handle, buffer.handle + buffer.nbytes, buffer.device_address - buffer.handle)
    return result


def pinned_array(shape, dtype=np.float64, strides=None, order="C") -> np.ndarray:
    """numba's `cuda.pinned_array`: an uninitialized NumPy array in page-locked host memory
    (copies between it and the GPU are faster and may be asynchronous); on the CPU target, an
    ordinary NumPy array."""
    return _host_array(shape, dtype, strides, order, False)


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False, wc=False):
    """numba's `cuda.mapped_array`: an uninitialized NumPy array in page-locked host memory
    mapped into the GPU's address space: kernels take it without a copy and read and write the
    host memory itself (synchronize before reading results on the host)."""
    return _host_array(shape, dtype, strides, order, True)


def pinned_array_like(ary) -> np.ndarray:
    """A pinned_array of `ary`'s shape, dtype and layout."""
    return pinned_array(ary.shape, ary.dtype, order=_order_of(ary))


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    """A mapped_array of `ary`'s shape, dtype and layout."""
    return mapped_array(ary.shape, ary.dtype, order=_order_of(ary))


class _Registration:
    """The page-locking of existing arrays, undone by close() (the GPU only)."""

    def __init__(self, arrays, mapped: bool):
        from ._weft import register_host

        self.locks = []
        for array in arrays:
            if not isinstance(array, np.ndarray) or not (array.flags.c_contiguous or array.flags.f_contiguous):
                raise TypeError("cuda.pinned/cuda.mapped take contiguous NumPy arrays")
            if array.nbytes:
                self.locks.append(register_host(_runtime.runtime(), array.ctypes.data, array.nbytes, mapped))

    def close(self) -> None:
        for lock in self.locks:
            lock.close()


class pinned:
    """numba's `with cuda.pinned(a, b): ...`: page-locks existing NumPy arrays for the block (on
    the CPU target, nothing to do)."""

    def __init__(self, *arylist):
        self._arrays = arylist
        self._registration = None

    def __enter__(self):
        if _on_gpu():
            self._registration = _Registration(self._arrays, False)
        return None

    def __exit__(self, *exc) -> None:
        if self._registration is not None:
            self._registration.close()


class mapped:
    """numba's `with cuda.mapped(a, b) as (da, db): ...`: page-locks and maps existing NumPy
    arrays for the block and gives device arrays over the same memory (one array alone is given
    by itself, as numba does); on the CPU target, the arrays themselves."""

    def __init__(self, *arylist, stream=0):
        self._arrays = arylist
        self._registration = None

    def __enter__(self):
        if not _on_gpu():
            views = list(self._arrays)
        else:
            from ._weft import mapped_device_address

            self._registration = _Registration(self._arrays, True)
            views = []
            for array in self._arrays:
                view = DeviceArray.__new__(DeviceArray)
                address = mapped_device_address(_runtime.runtime(), array.ctypes.data) if array.nbytes else 0
                itemsize = array.dtype.itemsize
                view._attach(address, array.shape, tuple(s // itemsize for s in array.strides), array.dtype, None,
                             (array, self._registration))
                views.append(view)
        return views[0] if len(views) == 1 else views

    def __exit__(self, *exc) -> None:
        if self._registration is not None:
            self._registration.close()


# ---- streams and events ----


class Stream:
    """numba's CUDA stream: launches (`kernel[grid, block, stream]`) and copies (`stream=`) on it
    run in order, asynchronously to the host. On the CPU target every operation completes before
    it returns, as in numba's simulator, and the handle is 0."""

    def __init__(self, handle: int, owner=None, name: str = "CUDA stream"):
        self.handle = handle
        self._owner = owner
        self._name = name

    def __int__(self) -> int:
        return self.handle

    def __cuda_stream__(self) -> tuple:
        return (0, self.handle)

    def __repr__(self) -> str:
        return f"<{self._name} {self.handle}>" if self._owner is not None else f"<{self._name}>"

    def synchronize(self) -> None:
        """Waits for all work queued on the stream."""
        _runtime.runtime().synchronize(self.handle)

    def query(self) -> bool:
        """Whether all work queued on the stream has completed."""
        if not _runtime.runtime().gpu_available():
            return True
        from ._weft import stream_done

        return stream_done(_runtime.runtime(), self.handle)

    @contextlib.contextmanager
    def auto_synchronize(self):
        """`with stream.auto_synchronize():` synchronizes the stream when the block ends."""
        yield self
        self.synchronize()


def stream() -> Stream:
    """numba's `cuda.stream()`: a new stream (on the CPU target, a synchronous stand-in)."""
    if not _on_gpu():
        return Stream(0, None, "CUDA stream (CPU target: synchronous)")
    from ._weft import create_stream

    owner = create_stream(_runtime.runtime())
    return Stream(owner.handle, owner)


def default_stream() -> Stream:
    """The default stream (handle 0: the legacy default stream)."""
    return Stream(0, None, "Default CUDA stream")


def legacy_default_stream() -> Stream:
    """The legacy default stream, which synchronizes with the other blocking streams."""
    return Stream(0, None, "Legacy default CUDA stream")


_PER_THREAD_STREAM = 2  # cuda.h's CU_STREAM_PER_THREAD


def per_thread_default_stream() -> Stream:
    """The calling thread's default stream."""
    return Stream(_PER_THREAD_STREAM if _on_gpu() else 0, None, "Per-thread default CUDA stream")


def external_stream(ptr: int) -> Stream:
    """A stream made elsewhere (its CUstream handle as an int); weft does not destroy it."""
    return Stream(int(ptr), None, "External CUDA stream")


class Event:
    """numba's CUDA event: `record(stream)` marks a point in a stream, `synchronize()` waits for
    it, `elapsed_time(end)` gives the milliseconds between two recorded events. On the CPU
    target work is synchronous and an event records the host's clock when it is recorded."""

    def __init__(self, timing: bool = True):
        self._timing = timing
        self._owner = None
        self._recorded_at = None
        if _on_gpu():
            from ._weft import create_event

            self._owner = create_event(_runtime.runtime(), timing)

    @property
    def handle(self) -> int:
        return 0 if self._owner is None else self._owner.handle

    def record(self, stream=0) -> None:
        """Records the event on `stream` (0: the default stream)."""
        if self._owner is None:
            self._recorded_at = time.perf_counter()
            return
        from ._weft import parse_stream, record_event

        record_event(_runtime.runtime(), self.handle, parse_stream(stream))

    def synchronize(self) -> None:
        """Waits until the work before the event's record has completed."""
        if self._owner is not None:
            from ._weft import synchronize_event

            synchronize_event(_runtime.runtime(), self.handle)

    def query(self) -> bool:
        """Whether the work before the event's record has completed."""
        if self._owner is None:
            return True
        from ._weft import event_done

        return event_done(_runtime.runtime(), self.handle)

    def wait(self, stream=0) -> None:
        """Makes later work on `stream` wait for this event."""
        if self._owner is not None:
            from ._weft import parse_stream, stream_wait_event

            stream_wait_event(_runtime.runtime(), parse_stream(stream), self.handle)

    def elapsed_time(self, evtend: "Event") -> float:
        """Milliseconds from this event to `evtend` (both recorded, with timing)."""
        return event_elapsed_time(self, evtend)


def event(timing: bool = True) -> Event:
    """numba's `cuda.event()`: a new event (recording timing unless timing=False)."""
    return Event(timing)


def event_elapsed_time(evtstart: Event, evtend: Event) -> float:
    """Milliseconds between two recorded events."""
    if not (evtstart._timing and evtend._timing):
        raise ValueError("elapsed_time needs two events made with timing=True")
    if evtstart._owner is None or evtend._owner is None:
        if evtstart._recorded_at is None or evtend._recorded_at is None:
            raise ValueError("elapsed_time needs two recorded events")
        return (evtend._recorded_at - evtstart._recorded_at) * 1000.0
    from ._weft import elapsed_milliseconds

    return elapsed_milliseconds(_runtime.runtime(), evtstart.handle, evtend.handle)


# ---- the device ----

# cuda.h's CU_DEVICE_ATTRIBUTE_* numbers of the attributes numba's Device names most often.
_DEVICE_ATTRIBUTES = {
    "MAX_THREADS_PER_BLOCK": 1, "MAX_BLOCK_DIM_X": 2, "MAX_BLOCK_DIM_Y": 3, "MAX_BLOCK_DIM_Z": 4,
    "MAX_GRID_DIM_X": 5, "MAX_GRID_DIM_Y": 6, "MAX_GRID_DIM_Z": 7, "MAX_SHARED_MEMORY_PER_BLOCK": 8,
    "TOTAL_CONSTANT_MEMORY": 9, "WARP_SIZE": 10, "MAX_REGISTERS_PER_BLOCK": 12, "CLOCK_RATE": 13,
    "MULTIPROCESSOR_COUNT": 16, "INTEGRATED": 18, "CAN_MAP_HOST_MEMORY": 19, "PCI_BUS_ID": 33,
    "PCI_DEVICE_ID": 34, "MEMORY_CLOCK_RATE": 36, "GLOBAL_MEMORY_BUS_WIDTH": 37, "L2_CACHE_SIZE": 38,
    "MAX_THREADS_PER_MULTIPROCESSOR": 39, "UNIFIED_ADDRESSING": 41, "COMPUTE_CAPABILITY_MAJOR": 75,
    "COMPUTE_CAPABILITY_MINOR": 76, "PCI_DOMAIN_ID": 50, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 97,
}


class Device:
    """numba's CUDA device: `id`, `name`, `compute_capability` and driver attributes by their
    cuda.h names (`MULTIPROCESSOR_COUNT`, `WARP_SIZE`, ...). weft uses device 0; without a GPU
    its properties raise weft.CudaError ("no CUDA GPU is available")."""

    def __init__(self, device_id: int = 0):
        self.id = device_id

    @property
    def name(self) -> str:
        from ._weft import device_name

        return device_name(_runtime.runtime())

    @property
    def compute_capability(self) -> tuple:
        return (self.COMPUTE_CAPABILITY_MAJOR, self.COMPUTE_CAPABILITY_MINOR)

    def __getattr__(self, attribute):
        number = _DEVICE_ATTRIBUTES.get(attribute)
        if number is None:
            raise AttributeError(f"weft's cuda Device has no attribute {attribute!r}")
        from ._weft import device_attribute

        return device_attribute(_runtime.runtime(), number)

    def __eq__(self, other) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"<CUDA device {self.id}>"

    def __enter__(self) -> "Device":
        """`with cuda.gpus[0]:` (numba's form for choosing a device): device 0 is always current."""
        return self

    def __exit__(self, *exc) -> None:
        return None


def select_device(device_id: int = 0) -> Device:
    """numba's `cuda.select_device`: weft runs on device 0, so only 0 is accepted."""
    if int(device_id) != 0:
        raise ValueError(f"weft uses CUDA device 0; device {device_id} cannot be selected")
    return Device(0)


def get_current_device() -> Device:
    """The device kernels run on (device 0)."""
    return Device(0)


class _Context:
    """numba's `cuda.current_context()`, for its `device` and `get_memory_info()`."""

    device = Device(0)

    def get_memory_info(self) -> tuple:
        """(free, total) bytes of device memory."""
        from ._weft import memory_info

        return tuple(memory_info(_runtime.runtime()))

    def synchronize(self) -> None:
        synchronize()


def current_context() -> _Context:
    """The current context (device 0's primary context)."""
    return _Context()


class _GPUList:
    """numba's `cuda.gpus`: the usable devices (weft uses device 0; empty without a GPU)."""

    def __len__(self) -> int:
        return 1 if is_available() else 0

    def __getitem__(self, index: int) -> Device:
        if not 0 <= index < len(self):
            raise IndexError(f"there is no CUDA device {index}")
        return Device(index)

    def __iter__(self):
        return iter([Device(i) for i in range(len(self))])

    @property
    def current(self) -> Device:
        return Device(0)

    def __repr__(self) -> str:
        return f"<weft.cuda.gpus: {len(self)} device(s)>"


gpus = _GPUList()


def list_devices() -> list:
    """The usable devices (a list of Device)."""
    return list(gpus)
