"""The machinery both tile faces share (docs/tiles.md): tile kernel decorators, device-only tile
functions, and launching with a grid only."""

from ._autotune import Autotune, AutotunedKernel, check_stages
from ._decorators import _check_function, _check_options
from ._intrinsics import DeviceFunction

_TILE_KERNEL_OPTIONS = ("debug", "fastmath", "boundscheck", "stages", "autotune")


def make_kernel(face: str):
    """The `kernel` decorator of a face ("tiles" or "cutile")."""

    def kernel(function=None, /, **options):
        """Marks a function as a tile kernel: the program of one tile block. Launch it with a grid
        only: `ct.launch(stream, grid, kernel, args)`, `weft.launch(kernel, *args, grid=)` or
        `kernel[grid](*args)`. Options as @weft.kernel's: debug, fastmath, boundscheck; and
        stages (an int from 2 to 8: the most pipeline stages of its mma K loops) and autotune
        (an Autotune, or a list of Config: docs/tiles.md, "Autotuning")."""
        stages = options.pop("stages", None)
        autotune = options.pop("autotune", None)
        _check_options("kernel", options, _TILE_KERNEL_OPTIONS)
        check_stages(stages, "@kernel(stages=...)")
        if autotune is not None and not isinstance(autotune, Autotune):
            if not isinstance(autotune, (list, tuple)):
                raise TypeError(f"@kernel(autotune=...) takes an Autotune or a list of Config, not {autotune!r}")
            autotune = Autotune(autotune)
        debug, fastmath = bool(options.get("debug", False)), bool(options.get("fastmath", False))

        def decorate(fn):
            _check_function("kernel", fn)
            if getattr(fn, "__weft_kernel__", False):
                raise TypeError("@kernel applied twice")
            if autotune is not None:
                return AutotunedKernel(fn, face, debug, fastmath, options.get("boundscheck"), stages, autotune)
            from ._weft import Kernel

            return Kernel(fn, debug, fastmath, False, options.get("boundscheck"), None, face, stages or 0)

        return decorate if function is None else decorate(function)

    return kernel


def function(fn=None, /):
    """Marks a device function of tile code (optional: any plain function a kernel calls is
    compiled for the device)."""

    def decorate(f):
        _check_function("function", f)
        return f

    return decorate if fn is None else decorate(fn)


def device_functions(module: str, names) -> dict:
    """The device-only functions `names` of tile module `module` ("tiles" or "cutile")."""
    return {name: DeviceFunction(f"{module}.{name}") for name in names}


def launch(stream, grid, kernel, args) -> None:
    """Launches the tile kernel `kernel` on `grid` (an int or a tuple of 1 to 3 ints; for an
    autotuned kernel also a function of `meta`) tile blocks with the tuple `args`, on `stream`
    (None: the default stream)."""
    from ._weft import launch as _launch

    if not isinstance(args, tuple):
        raise TypeError(f"launch(stream, grid, kernel, args): args must be a tuple, not {type(args).__name__}")
    if stream is None:
        _launch(kernel, *args, grid=grid)
    else:
        _launch(kernel, *args, grid=grid, stream=stream)
