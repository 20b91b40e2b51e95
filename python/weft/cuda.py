"""The classic CUDA Python front: numba-cuda's spelling of kernels, provided by weft.

A numba-cuda program runs on weft by changing only its import::

    from weft import cuda          # was: from numba import cuda

    @cuda.jit
    def axpy(r, a, x, y):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = a * x[i] + y[i]

    axpy[blocks, threads](r, a, x, y)

Kernels are weft kernels (the same compiler, the same targets: the GPU, or the CPU when no GPU is
present or WEFT_TARGET=cpu). As with numba-cuda, NumPy arrays passed to a GPU launch are copied to
the device and back around the launch; on the CPU target they are used in place.
"""

import re

from . import _runtime
from ._decorators import Function, _check_function
from ._intrinsics import DeviceFunction, DeviceValue

__all__ = [
    "jit", "threadIdx", "blockIdx", "blockDim", "gridDim", "grid", "gridsize", "warpsize", "laneid",
    "syncthreads", "shared", "local", "const", "atomic", "to_device", "device_array", "device_array_like",
    "synchronize", "is_available",
]

threadIdx = DeviceValue("cuda.threadIdx")
blockIdx = DeviceValue("cuda.blockIdx")
blockDim = DeviceValue("cuda.blockDim")
gridDim = DeviceValue("cuda.gridDim")
warpsize = DeviceValue("cuda.warpsize")
laneid = DeviceValue("cuda.laneid")
grid = DeviceFunction("cuda.grid")
gridsize = DeviceFunction("cuda.gridsize")
syncthreads = DeviceFunction("cuda.syncthreads")


class _Namespace:
    """`cuda.shared`, `cuda.local`, `cuda.const`, `cuda.atomic`: device-only functions."""

    def __init__(self, name: str, members):
        self.__weft_name__ = f"weft.cuda.{name}"
        self._name = name
        for member in members:
            setattr(self, member, DeviceFunction(f"cuda.{name}.{member}"))

    def __repr__(self) -> str:
        return f"<weft.cuda.{self._name}>"


shared = _Namespace("shared", ["array"])
local = _Namespace("local", ["array"])
const = _Namespace("const", ["array_like"])
atomic = _Namespace("atomic", ["add", "sub", "max", "min", "cas", "exch", "and_", "or_", "xor",
                               "nanmax", "nanmin"])

# numba's type names in signatures, as NumPy dtype names.
_TYPE_NAMES = {
    "boolean": "bool", "bool_": "bool", "b1": "bool",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "intp": "int64",
    "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "uintp": "uint64",
    "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
    "float16": "float16", "float32": "float32", "float64": "float64", "f2": "float16", "f4": "float32",
    "f8": "float64", "complex64": "complex64", "complex128": "complex128", "c8": "complex64", "c16": "complex128",
}

_ARGUMENT = re.compile(r"^\s*(\w+)\s*(?:\[\s*([:,\s\d]*)\])?\s*$")


def _parse_signature(signature: str):
    """("void" or a dtype name, [(dtype name, ndim)...]) of a numba signature string."""
    match = re.fullmatch(r"\s*(\w+)\s*\((.*)\)\s*", signature)
    if not match:
        raise TypeError(f"cuda.jit signature {signature!r} is not of the form 'void(float32[:], int32)'")
    result, text = match.group(1), match.group(2)
    if result != "void" and result not in _TYPE_NAMES:
        raise TypeError(f"cuda.jit signature {signature!r}: unknown return type {result!r}")
    arguments, depth, current = [], 0, ""
    for char in text:
        depth += char == "["
        depth -= char == "]"
        if char == "," and depth == 0:
            arguments.append(current)
            current = ""
        else:
            current += char
    if current.strip():
        arguments.append(current)
    parsed = []
    for argument in arguments:
        m = _ARGUMENT.match(argument)
        if not m or m.group(1) not in _TYPE_NAMES:
            raise TypeError(f"cuda.jit signature {signature!r}: cannot read argument type {argument.strip()!r}")
        ndim = 0 if m.group(2) is None else m.group(2).count(":") - m.group(2).count("::")
        parsed.append((_TYPE_NAMES[m.group(1)], ndim))
    return ("void" if result == "void" else _TYPE_NAMES[result]), parsed


_JIT_OPTIONS = ("device", "debug", "fastmath", "inline", "link", "opt", "lineinfo", "cache", "max_registers")


class ClassicKernel:
    """A `@cuda.jit` kernel: launch it with `kernel[grid, block](*args)` or
    `kernel[grid, block, stream, shared_bytes](*args)`."""

    __weft_kernel__ = True
    interop = False

    def __init__(self, function, signature, debug: bool, fastmath: bool):
        from ._weft import Kernel

        _check_function("cuda.jit", function)
        # A signature declares the parameters' types as annotations do (docs/classic.md).
        self._kernel = Kernel(function, debug, fastmath, False, None, None if signature is None else signature[1])
        self.underlying = function
        self.signature = signature
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__doc__ = function.__doc__

    def __getitem__(self, config):
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise TypeError("launch a kernel with kernel[grid, block](*args) or kernel[grid, block, stream, shared](*args)")
        return _ClassicLaunch(self, config)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"kernel '{self.__name__}' needs a launch configuration: {self.__name__}[grid, block](*args)")

    def __repr__(self) -> str:
        return f"<weft.cuda.jit kernel {self.__qualname__}>"


class _ClassicLaunch:
    def __init__(self, kernel: ClassicKernel, config):
        self._kernel = kernel
        grid, block = config[0], config[1]
        stream = config[2] if len(config) > 2 else None
        shared_bytes = config[3] if len(config) > 3 else 0
        self._configured = kernel._kernel[grid, block, 0 if stream is None else stream, shared_bytes]

    def __call__(self, *args):
        import numpy as np

        gpu = _runtime.runtime().default_target() == "gpu"
        copies = []
        if gpu:
            from ._arrays import to_device as _to_device

            converted = []
            for arg in args:
                # A mapped array (cuda.mapped_array) is host memory the GPU uses in place.
                if isinstance(arg, np.ndarray) and not hasattr(arg, "__cuda_array_interface__"):
                    device = _to_device(arg)
                    copies.append((arg, device))
                    converted.append(device)
                else:
                    converted.append(arg)
            args = converted
        self._configured(*args)
        if copies:
            synchronize()
        for host, device in copies:
            if host.flags.writeable:
                host[...] = device.copy_to_host()


def jit(func_or_sig=None, device=False, **options):
    """numba-cuda's `cuda.jit`: `@cuda.jit`, `@cuda.jit("void(float32[:], float32)")`,
    `@cuda.jit(device=True)`. Options: debug, fastmath; inline, link (empty), opt, lineinfo,
    cache and max_registers are accepted and ignored."""
    unknown = sorted(set(options) - set(_JIT_OPTIONS))
    if unknown:
        raise TypeError(f"cuda.jit got unknown keyword argument(s) {', '.join(map(repr, unknown))}")
    if options.get("link"):
        raise TypeError("cuda.jit(link=...) is not supported by weft")
    debug = bool(options.get("debug") or False)
    fastmath = bool(options.get("fastmath") or False)
    signature = None
    if isinstance(func_or_sig, (list, tuple)):
        if len(func_or_sig) != 1:
            raise TypeError("weft's cuda.jit takes one signature (weft specializes on the argument types itself)")
        func_or_sig = func_or_sig[0]
    if isinstance(func_or_sig, str):
        signature = _parse_signature(func_or_sig)
        if not device and signature[0] != "void":
            raise TypeError(f"a kernel returns void, not {signature[0]} (signature {func_or_sig!r})")
        func_or_sig = None

    def decorate(function):
        if device:
            return Function(function, False)
        return ClassicKernel(function, signature, debug, fastmath)

    return decorate if func_or_sig is None else decorate(func_or_sig)


# Host API: numba-cuda's device arrays, host memory, streams, events and devices
# (python/weft/_cuda_host.py).
from ._cuda_host import (  # noqa: E402
    Device, Event, MappedArray, Stream, current_context, default_stream, device_array, device_array_like, event,
    event_elapsed_time, external_stream, get_current_device, gpus, is_available, legacy_default_stream,
    list_devices, mapped, mapped_array, mapped_array_like, per_thread_default_stream, pinned, pinned_array,
    pinned_array_like, select_device, stream, synchronize, to_device,
)

__all__ += [
    "Device", "Event", "MappedArray", "Stream", "current_context", "default_stream", "event", "event_elapsed_time",
    "external_stream", "get_current_device", "gpus", "legacy_default_stream", "list_devices", "mapped",
    "mapped_array", "mapped_array_like", "per_thread_default_stream", "pinned", "pinned_array",
    "pinned_array_like", "select_device", "stream",
]

# numba's cuda.random (`from weft.cuda.random import ...` too).
from . import _cuda_random as random  # noqa: E402
import sys as _sys  # noqa: E402

_sys.modules[__name__ + ".random"] = random
__all__ += ["random"]
from ._cuda_reduce import Reduce, reduce  # noqa: E402

__all__ += ["Reduce", "reduce"]
