"""The process-wide runtime (one C++ `Compiler`, created on first use) and the facts about
Python functions that the C++ dispatcher asks for when it compiles a specialization."""

import linecache
import os
import weakref

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


# What each function and struct class compiles, read when it is first prepared: (file name,
# first line, lines of the file). Weak keys: an entry lives as long as its function or class.
_prepared = weakref.WeakKeyDictionary()


def current_lines(filename: str, module_globals) -> list:
    """The lines of `filename` as the file is now: linecache is checked against it first, so a
    module rewritten and executed again gives its new text, not the one an earlier version left
    in the cache (a stat of the file)."""
    linecache.checkcache(filename)
    return linecache.getlines(filename, module_globals)


def prepared_source(key, read) -> tuple:
    """`read()`'s (file name, first line, lines) for `key` (a function or a struct class), read
    when it is first prepared and kept while it lives: later compilations neither stat nor read
    the file, and keep compiling that text if the file changes afterwards."""
    found = _prepared.get(key)
    if found is None:
        found = read()
        if found[2]:
            _prepared[key] = found
    return found


def function_source(function):
    """(file name, whole file text, first line, name) of a Python function, for the compiler.
    The first line is that of the first decorator, as `co_firstlineno` gives it."""

    def read():
        code = function.__code__
        filename = code.co_filename
        try:
            import inspect

            filename = inspect.getsourcefile(function) or filename
        except TypeError:
            pass
        return filename, code.co_firstlineno, current_lines(filename, function.__globals__)

    filename, line, lines = prepared_source(function, read)
    return filename, "".join(lines), line, function.__name__
