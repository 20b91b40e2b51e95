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

import sys as _sys

from . import _runtime
from ._decorators import Function, _check_function
from ._intrinsics import DeviceFunction, DeviceValue
from ._types import BY_DTYPE_NAME as _BY_DTYPE_NAME, NUMBER_TYPES as _NUMBER_TYPES, VECTOR_TYPES as _VECTOR_TYPES
from ._types import ArrayType as _ArrayType, Signature as _Signature, void as _void

__all__ = [
    "jit", "threadIdx", "blockIdx", "blockDim", "gridDim", "grid", "gridsize", "warpsize", "laneid",
    "syncthreads", "shared", "local", "const", "atomic", "fp16", "to_device", "device_array", "device_array_like",
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
                               "nanmax", "nanmin", "inc", "dec", "compare_and_swap"])
# numba-cuda's cuda.fp16 functions of float16 values (docs/classic.md, "cuda.fp16").
fp16 = _Namespace("fp16", ["hadd", "hsub", "hmul", "hdiv", "hfma", "hneg", "habs", "heq", "hne", "hlt", "hle",
                           "hgt", "hge", "hmax", "hmin", "hsqrt", "hrsqrt", "hrcp", "hexp", "hexp2", "hexp10",
                           "hlog", "hlog2", "hlog10", "hsin", "hcos", "hceil", "hfloor", "htrunc", "hrint"])

# numba's type objects (numba.cuda.types, re-exported by numba.cuda): weft's own number and
# vector types under numba's names and aliases, so that `from weft.cuda import float32, void`,
# `cuda.types.float64` and signatures such as "void(float32[:], intp)" mean what they do in numba.
_NUMBA_ALIASES = {
    "boolean": "bool_", "bool_": "bool_", "byte": "uint8", "intp": "int64", "uintp": "uint64",
    "intc": "int32", "uintc": "uint32", "ssize_t": "int64", "size_t": "uint64", "double": "float64",
    "float_": "float32",
}
# CUDA C's vector names (numba-cuda's aliases on 64-bit Linux): float4 is float32x4.
_VECTOR_ALIASES = {
    "char": "int8", "short": "int16", "int": "int32", "long": "int64", "longlong": "int64", "uchar": "uint8",
    "ushort": "uint16", "uint": "uint32", "ulong": "uint64", "ulonglong": "uint64", "float": "float32",
    "double": "float64",
}
_NUMBA_TYPES = {name: _NUMBER_TYPES[name] for name in (
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64",
    "complex64", "complex128", "bfloat16")}
_NUMBA_TYPES.update({alias: _NUMBER_TYPES[name] for alias, name in _NUMBA_ALIASES.items()})
_NUMBA_TYPES.update({"void": _void, "none": _void})
_NUMBA_TYPES.update({name: vector for name, vector in _VECTOR_TYPES.items() if vector.element.name in (
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")})
_NUMBA_TYPES.update({f"{alias}{n}": _VECTOR_TYPES[f"{name}x{n}"] for alias, name in _VECTOR_ALIASES.items()
                     for n in (1, 2, 3, 4)})
globals().update(_NUMBA_TYPES)
__all__ += [*_NUMBA_TYPES, "types"]


def _array(dtype, ndim, layout="A"):
    """numba's `types.Array(dtype, ndim, layout)`."""
    if layout not in ("C", "F", "A"):
        raise TypeError(f"an array layout is 'C', 'F' or 'A', not {layout!r}")
    return _ArrayType(dtype, ndim, layout)


class _TypesModule:
    """`cuda.types`: numba's type objects (`types.float32`, `types.void`, `types.Array`)."""

    __weft_name__ = "weft.cuda.types"

    def __init__(self):
        self.__dict__.update(_NUMBA_TYPES)
        self.bool = _NUMBER_TYPES["bool_"]
        self.Array = _array

    def __repr__(self) -> str:
        return "<weft.cuda.types>"


types = _TypesModule()
# `from weft.cuda.types import int32`, as numba's documentation imports from numba.cuda.types.
_sys.modules[__name__ + ".types"] = types
_sys.modules[__name__ + ".fp16"] = fp16  # `from weft.cuda.fp16 import hadd`, as from numba.cuda.fp16


def _parse_signature(signature):
    """A signature as numba writes it (a string such as "void(float32[:], int32)" or
    "(float32[:],)", a `void(...)` expression, or a tuple of argument types) as a Signature."""
    if isinstance(signature, str):
        try:
            parsed = eval(signature, {"__builtins__": {}}, dict(vars(types)))  # numba's own reading
        except Exception as error:
            raise TypeError(f"cuda.jit signature {signature!r} cannot be read: {error}") from None
        if not isinstance(parsed, (_Signature, tuple)):
            raise TypeError(f"cuda.jit signature {signature!r} is not of the form 'void(float32[:], int32)'")
        return _parse_signature(parsed)
    if isinstance(signature, tuple):
        return _Signature(None, signature)
    if isinstance(signature, _Signature):
        return signature
    raise TypeError(f"cuda.jit takes a function or a signature, not {signature!r}")


def _declaration(signature: "_Signature"):
    """Per argument, the (dtype name, ndim) pair weft's Kernel takes for a signature."""
    return [(arg.element.name, arg.ndim) if isinstance(arg, _ArrayType) else (arg.name, 0) for arg in signature.args]


_JIT_OPTIONS = ("device", "debug", "fastmath", "inline", "link", "opt", "lineinfo", "cache", "max_registers")


def _exact_type(value):
    """The number type a scalar launch argument has of itself (None for anything else)."""
    import numpy as np

    if isinstance(value, bool):
        return _NUMBER_TYPES["bool_"]
    if isinstance(value, int):
        return _NUMBER_TYPES["int64"]
    if isinstance(value, float):
        return _NUMBER_TYPES["float64"]
    if isinstance(value, complex):
        return _NUMBER_TYPES["complex128"]
    if isinstance(value, np.generic):
        return _BY_DTYPE_NAME.get(value.dtype.name)
    return None


def _array_fits(declared: "_ArrayType", value) -> bool:
    dtype, shape, flags = getattr(value, "dtype", None), getattr(value, "shape", None), getattr(value, "flags", None)
    if dtype is None or shape is None or str(dtype) != declared.element.dtype.name or len(shape) != declared.ndim:
        return False
    if declared.layout == "A" or flags is None:
        return True
    return bool(flags["C_CONTIGUOUS" if declared.layout == "C" else "F_CONTIGUOUS"])


def _match(signature: "_Signature", args) -> int:
    """How well `args` fit `signature`: 2 exactly, 1 converting numbers within their kind, 0
    converting numbers across kinds (an int to a float), -1 not at all."""
    score = 2
    for declared, value in zip(signature.args, args):
        if isinstance(declared, _ArrayType):
            if not _array_fits(declared, value):
                return -1
            continue
        actual = _exact_type(value)
        if actual is None:
            return -1
        if actual is declared:
            continue
        kinds = actual.dtype.kind, declared.dtype.kind
        if kinds[0] == kinds[1] or set(kinds) <= {"i", "u"}:
            score = min(score, 1)
        elif kinds[0] in "biu" and kinds[1] in "fc" or kinds == ("f", "c") or kinds[0] == "b" and kinds[1] in "iu":
            score = min(score, 0)
        else:
            return -1
    return score


class ClassicKernel:
    """A `@cuda.jit` kernel: launch it with `kernel[grid, block](*args)`,
    `kernel[grid, block, stream, shared_bytes](*args)` or `kernel.forall(n)(*args)`."""

    __weft_kernel__ = True
    interop = False

    def __init__(self, function, signatures, debug: bool, fastmath: bool):
        from ._weft import Kernel

        _check_function("cuda.jit", function)
        # A signature declares the parameters' types as annotations do (docs/classic.md): one
        # weft Kernel per signature, compiled now, as numba compiles at decoration.
        self.signatures = list(signatures)
        self._kernels = [Kernel(function, debug, fastmath, False, None, _declaration(s)) for s in self.signatures]
        for kernel in self._kernels:
            kernel._compile_declared()
        self._kernel = self._kernels[0] if self._kernels else Kernel(function, debug, fastmath, False, None, None)
        # Per signature, the positions of its integer parameters: numba wraps an int argument
        # into them (ctypes' conversion) where weft's annotations raise ValueError.
        self._wrapped = [[(i, arg) for i, arg in enumerate(s.args)
                          if not isinstance(arg, _ArrayType) and arg.dtype.kind in "iu"] for s in self.signatures]
        self.underlying = function
        self.py_func = function
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__doc__ = function.__doc__

    def _select(self, args):
        """The weft Kernel for `args`, and `args` as it takes them."""
        if not self.signatures:
            return self._kernel, args
        chosen, best = 0, -1
        if len(self.signatures) > 1:
            for index, signature in enumerate(self.signatures):
                score = _match(signature, args) if len(args) == len(signature.args) else -1
                if score > best:
                    chosen, best = index, score
            if best < 0:
                raise TypeError(f"kernel '{self.__name__}': no signature fits the arguments' types "
                                f"{tuple(repr(_exact_type(a) or getattr(a, 'dtype', type(a).__name__)) for a in args)}; "
                                f"its signatures are {', '.join(map(repr, self.signatures))}")
        else:
            for declared, value in zip(self.signatures[0].args, args):
                flags = getattr(value, "flags", None)
                if isinstance(declared, _ArrayType) and declared.layout != "A" and flags is not None and not \
                        flags["C_CONTIGUOUS" if declared.layout == "C" else "F_CONTIGUOUS"]:
                    raise TypeError(f"kernel '{self.__name__}': the signature's {declared!r} takes "
                                    f"{'C' if declared.layout == 'C' else 'Fortran'}-contiguous arrays only")
        wrapped = self._wrapped[chosen]
        if wrapped and len(args) == len(self.signatures[chosen].args):
            import numpy as np

            args = list(args)
            for i, declared in wrapped:
                if isinstance(args[i], (int, np.integer)) and not isinstance(args[i], bool):
                    args[i] = declared(args[i])
        return self._kernels[chosen], args

    def __getitem__(self, config):
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise TypeError("launch a kernel with kernel[grid, block](*args) or kernel[grid, block, stream, shared](*args)")
        return _ClassicLaunch(self, config)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """numba's launch of `ntasks` threads: `kernel.forall(n)(*args)` runs blocks of `tpb`
        threads (weft picks 128 when 0), enough of them to cover `ntasks`."""
        if ntasks < 0:
            raise ValueError(f"forall() needs a task count of 0 or more, not {ntasks}")
        block = tpb or _FORALL_BLOCK
        return _ClassicLaunch(self, ((ntasks + block - 1) // block, block, stream, sharedmem), skip=ntasks == 0)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"kernel '{self.__name__}' needs a launch configuration: {self.__name__}[grid, block](*args)")

    def __repr__(self) -> str:
        return f"<weft.cuda.jit kernel {self.__qualname__}>"


# forall's block size when the caller gives none (numba asks the driver's occupancy calculator).
_FORALL_BLOCK = 128


class _ClassicLaunch:
    def __init__(self, kernel: ClassicKernel, config, skip: bool = False):
        self._kernel = kernel
        self._config = config
        self._skip = skip

    def __call__(self, *args):
        import numpy as np

        if self._skip:
            return
        kernel, args = self._kernel._select(args)
        config = self._config
        stream = config[2] if len(config) > 2 else None
        shared_bytes = config[3] if len(config) > 3 else 0
        configured = kernel[config[0], config[1], 0 if stream is None else stream, shared_bytes]
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
        configured(*args)
        if copies:
            synchronize()
        for host, device in copies:
            if host.flags.writeable:
                host[...] = device.copy_to_host()


def jit(func_or_sig=None, device=False, **options):
    """numba-cuda's `cuda.jit`: `@cuda.jit`, `@cuda.jit("void(float32[:], float32)")`,
    `@cuda.jit(void(float32[:], float32))`, a list of signatures, `@cuda.jit(device=True)`.
    A kernel with signatures is compiled at once (one specialization per signature). Options:
    debug, fastmath; inline, link (empty), opt, lineinfo, cache and max_registers are accepted
    and ignored."""
    unknown = sorted(set(options) - set(_JIT_OPTIONS))
    if unknown:
        raise TypeError(f"cuda.jit got unknown keyword argument(s) {', '.join(map(repr, unknown))}")
    if options.get("link"):
        raise TypeError("cuda.jit(link=...) is not supported by weft")
    debug = bool(options.get("debug") or False)
    fastmath = bool(options.get("fastmath") or False)
    signatures = []
    if isinstance(func_or_sig, list):
        signatures = [_parse_signature(s) for s in func_or_sig]
        func_or_sig = None
    elif isinstance(func_or_sig, (str, tuple, _Signature)):
        signatures = [_parse_signature(func_or_sig)]
        func_or_sig = None
    for signature in signatures:
        if not device and signature.return_type is not None:
            raise TypeError(f"a kernel returns void, not {signature.return_type!r} (signature {signature!r})")

    def decorate(function):
        if device:
            return Function(function, False)
        return ClassicKernel(function, signatures, debug, fastmath)

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
