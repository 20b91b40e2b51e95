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


# File name -> (the list of lines linecache holds for it, the _weft.SourceText of their text).
_source_texts = {}

# What each function and struct class compiles, read when it is first prepared: (file name,
# source_text(), first line). Weak keys: an entry lives as long as its function or class.
_prepared = weakref.WeakKeyDictionary()


def source_text(filename, module_globals):
    """The compiler's copy of a file's text as linecache has it, or None when it has none. One
    copy per file for as long as linecache keeps the same lines, so that the functions and
    classes of a file (thousands, in generated code) share it instead of each holding its own.
    linecache.checkcache comes first: a module rewritten and executed again compiles its new
    text, not the lines linecache kept."""
    linecache.checkcache(filename)
    lines = linecache.getlines(filename, module_globals)
    if not lines:
        return None
    cached = _source_texts.get(filename)
    if cached is None or cached[0] is not lines:
        from . import _weft

        cached = (lines, _weft.SourceText(filename, "".join(lines)))
        _source_texts[filename] = cached
    return cached[1]


def prepared_source(key, read) -> tuple:
    """`read()`'s (file name, source_text() or None, first line) for `key` (a function or a
    struct class), read when it is first prepared and kept while it lives: later compilations
    neither stat nor read the file, and keep compiling that text if the file changes afterwards
    (only a new function or class, from executing the module again, reads the new text)."""
    found = _prepared.get(key)
    if found is None:
        found = read()
        if found[1] is not None:
            _prepared[key] = found
    return found


def function_source(function):
    """(source_text() of its file or None, first line, name) of a Python function, for the
    compiler. The first line is that of the first decorator, as `co_firstlineno` gives it."""

    def read():
        code = function.__code__
        filename = code.co_filename
        try:
            import inspect

            filename = inspect.getsourcefile(function) or filename
        except TypeError:
            pass
        return filename, source_text(filename, function.__globals__), code.co_firstlineno

    _, text, line = prepared_source(function, read)
    return text, line, function.__name__


def constant_array(array):
    """(dtype name, shape, C-order native-endian bytes) of a NumPy array device code reads as
    constant data, or None when its dtype is not a number type weft has (or it is 0-d)."""
    from ._types import NUMBER_TYPES

    dtype = array.dtype
    name = "bool" if dtype.kind == "b" else dtype.name
    if array.ndim == 0 or dtype.fields is not None or dtype.kind not in "biufc" or (name != "bool" and name not in NUMBER_TYPES):
        return None
    import numpy as np

    data = np.ascontiguousarray(array, dtype=dtype.newbyteorder("="))
    return name, tuple(int(n) for n in array.shape), data.tobytes()
