"""The `@kernel` and `@func` decorators. Both are lazy: nothing is parsed or compiled until a
kernel is first launched; only their keyword arguments are checked at decoration time."""

import functools
import types

_KERNEL_OPTIONS = ("debug", "fastmath", "interop", "boundscheck")
_FUNC_OPTIONS = ("interop",)
# Options whose default, None, means "weft decides" (boundscheck: the CPU target only).
_OPTIONAL_OPTIONS = ("boundscheck",)


def _check_options(decorator: str, options: dict, allowed) -> None:
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError(
            f"@{decorator} got unknown keyword argument(s) {', '.join(map(repr, unknown))}; "
            f"it accepts {', '.join(allowed)}"
        )
    for name, value in options.items():
        if value is None and name in _OPTIONAL_OPTIONS:
            continue
        if not isinstance(value, bool):
            choices = "True, False or None" if name in _OPTIONAL_OPTIONS else "True or False"
            raise TypeError(f"@{decorator}({name}=...) takes {choices}, not {value!r}")
    if options.get("debug") is True and options.get("boundscheck") is False:
        raise TypeError(f"@{decorator}(debug=True, boundscheck=False): debug=True checks array bounds too")


def _check_function(decorator: str, function) -> None:
    if isinstance(function, Function):
        raise TypeError(f"@{decorator} cannot be applied to a @func function (a function is either one)")
    if not isinstance(function, types.FunctionType):
        raise TypeError(f"@{decorator} decorates a Python function (def ...), not {type(function).__name__}")


def kernel(function=None, /, **options):
    """Marks a function as a kernel: launch it with `launch(k, *args, grid=, block=)` or
    `k[grid, block](*args)`. Options (docs/debugging.md): debug (every run-time check: array
    bounds, integer division by zero, assert, views' preconditions), boundscheck (None: array
    accesses are bounds-checked on the CPU target only; True: on the GPU too; False: nowhere),
    fastmath, interop. WEFT_DEBUG and WEFT_BOUNDSCHECK (1 or 0), when set, decide debug and
    boundscheck for every kernel."""
    _check_options("kernel", options, _KERNEL_OPTIONS)

    def decorate(fn):
        _check_function("kernel", fn)
        if getattr(fn, "__weft_kernel__", False):
            raise TypeError("@kernel applied twice")
        from ._weft import Kernel

        return Kernel(fn, bool(options.get("debug", False)), bool(options.get("fastmath", False)),
                      bool(options.get("interop", False)), options.get("boundscheck"))

    return decorate if function is None else decorate(function)


class Function:
    """A heterogeneous function (`@func`): called from Python it runs `underlying`; called from
    device code it is compiled with the kernel."""

    __weft_func__ = True

    def __init__(self, function, interop: bool):
        self.underlying = function
        self.interop = interop
        functools.update_wrapper(self, function)

    def __call__(self, *args, **kwargs):
        return self.underlying(*args, **kwargs)

    def __get__(self, instance, owner=None):
        # A @func method of a @struct class: `s.method()` on the host binds `s` as self.
        if instance is None:
            return self
        return types.MethodType(self.underlying, instance)

    def __repr__(self) -> str:
        return f"<weft.func {self.underlying.__qualname__}>"


def func(function=None, /, **options):
    """Marks a heterogeneous function (callable from host and device code). Option: interop."""
    _check_options("func", options, _FUNC_OPTIONS)

    def decorate(fn):
        if getattr(fn, "__weft_kernel__", False):
            raise TypeError("@func cannot be applied to a @kernel (a function is either one)")
        _check_function("func", fn)
        return Function(fn, bool(options.get("interop", False)))

    return decorate if function is None else decorate(function)
