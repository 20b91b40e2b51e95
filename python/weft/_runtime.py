"""The process-wide runtime (one C++ `Compiler`, created on first use) and the facts about
Python functions that the C++ dispatcher asks for when it compiles a specialization."""

import linecache
import os

_runtime = None


def include_dir() -> str:
    """The directory holding weft/device/*.h: `weft/include` inside the installed package, else
    (running from a source checkout) the repository's `include/`; $WEFT_INCLUDE_DIR overrides."""
    override = os.environ.get("WEFT_INCLUDE_DIR")
    if override:
        return override
    here = os.path.dirname(os.path.abspath(__file__))
    installed = os.path.join(here, "include")
    if os.path.isdir(installed):
        return installed
    return os.path.join(os.path.dirname(os.path.dirname(here)), "include")


def runtime():
    """The process's `_weft.Runtime`, created on first use."""
    global _runtime
    if _runtime is None:
        from . import _weft

        _runtime = _weft.Runtime(include_dir())
    return _runtime


def function_source(function):
    """(file name, whole file text, first line, name) of a Python function, for the compiler.
    The first line is that of the first decorator, as `co_firstlineno` gives it."""
    code = function.__code__
    filename = code.co_filename
    try:
        import inspect

        filename = inspect.getsourcefile(function) or filename
    except TypeError:
        pass
    # A module reloaded after an edit must compile its new text, not the lines linecache kept.
    linecache.checkcache(filename)
    lines = linecache.getlines(filename, function.__globals__)
    return filename, "".join(lines), code.co_firstlineno, function.__name__
