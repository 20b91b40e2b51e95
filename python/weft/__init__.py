"""weft: a compiler and runtime for the CUDA Python device dialect, for NVIDIA GPUs and the CPU.

    from cuda import device        # or: import weft as device

    @device.kernel
    def vec_add(a, b, c):
        i = device.tid(1)
        if i < c.size:
            c[i] = a[i] + b[i]

    device.launch(vec_add, a, b, c, grid=4, block=256)

Importing weft loads no CUDA library and no compiler: the runtime starts on first use, and NumPy
is imported only by the array helpers (DeviceArray, to_device, empty, zeros).
"""

from ._decorators import Function, func, kernel
from ._errors import CompileError, CudaError, Diagnostic, DiagnosticNote, InternalCompilerError
from ._intrinsics import ConstExpr, DeviceFunction, DeviceValue
from ._intrinsics import FUNCTIONS as _FUNCTIONS, FUNCTION_CLASSES as _FUNCTION_CLASSES, VALUES as _VALUES
from ._types import ArrayType, NumberType, NUMBER_TYPES as _NUMBER_TYPES
from ._types import Vector, VectorType, VECTOR_TYPES as _VECTOR_TYPES
from ._structs import align, machine_representation, struct
from ._weft import launch
from . import _runtime

__version__ = "0.1.0"

globals().update(_NUMBER_TYPES)
globals().update(_VECTOR_TYPES)
globals().update({name: _FUNCTION_CLASSES.get(name, DeviceFunction)(name) for name in _FUNCTIONS})
globals().update({name: DeviceValue(name) for name in _VALUES})

from ._target import NAMES as _TARGET_NAMES, SELECTORS as _SELECTORS  # noqa: E402
from ._target import SMSelector, TargetDescription, any_target, is_device, is_exactly  # noqa: E402
from ._target import is_host, no_target, provides, target  # noqa: E402

globals().update(_SELECTORS)

# The specification's entities, re-exported by cuda.device (weft's extras are not among them).
SPEC_NAMES = ("kernel", "func", "launch", "ConstExpr", "struct", "align", "machine_representation", *_NUMBER_TYPES, *_FUNCTIONS, *_VALUES)

SPEC_NAMES = (*SPEC_NAMES, *_TARGET_NAMES)

SPEC_NAMES = (*SPEC_NAMES, *_VECTOR_TYPES)

_ARRAY_NAMES = ("DeviceArray", "to_device", "empty", "zeros")


def __getattr__(name):
    # The array helpers need NumPy; importing them on first use keeps `import weft` fast.
    if name in _ARRAY_NAMES:
        from . import _arrays

        return getattr(_arrays, name)
    raise AttributeError(f"module 'weft' has no attribute {name!r}")


def gpu_available() -> bool:
    """Whether a CUDA GPU is usable (the driver loads and reports at least one device)."""
    return _runtime.runtime().gpu_available()


def default_target() -> str:
    """The target launches use when none is given: $WEFT_TARGET ("gpu" or "cpu") if set, else
    "gpu" when a GPU is usable, else "cpu"."""
    return _runtime.runtime().default_target()


def synchronize() -> None:
    """Waits for all work on the GPU (CPU launches finish before launch returns)."""
    _runtime.runtime().synchronize(0)


def cache_dir() -> str:
    """The disk cache directory ($WEFT_CACHE_DIR, else ~/.cache/weft)."""
    from ._weft import cache_dir as _cache_dir

    return _cache_dir()


__all__ = [
    *SPEC_NAMES, "Function", "CompileError", "Diagnostic", "DiagnosticNote", "CudaError", "InternalCompilerError",
    "ArrayType",
    "NumberType", "DeviceFunction", "DeviceValue", *_ARRAY_NAMES, "gpu_available", "default_target",
    "synchronize", "cache_dir",
]
