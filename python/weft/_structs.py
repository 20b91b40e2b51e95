"""Heterogeneous structs: `@struct`, `@struct(align=N)`, `align(t, n)`.

A struct class is immutable (on the host and in device code): `s.replace(x=1.0)` returns a
modified copy. Its fields are its annotations in lexical order; its machine representation is
the standard-layout C++ struct with one member per field (see docs/structs.md). `S.dtype` is
the NumPy structured dtype with the same layout, for arrays of structs. A field annotated
`device.Atomic(dtype, align=N)` is its dtype aligned (and padded) to max(N, its own alignment);
device code uses a struct with such fields in place (in an array), never as a copy."""

_OPTIONS = ("align",)


class StructInfo:
    """What weft knows of a struct class: its fields (in order), alignment, the decorated class
    (whose source holds the field annotations and the methods) and where @struct was applied
    (`site`: file name, line and globals of that code, or None)."""

    __slots__ = ("name", "fields", "align", "underlying", "site")

    def __init__(self, name, fields, align, underlying, site):
        self.name = name
        self.fields = fields
        self.align = align
        self.underlying = underlying
        self.site = site


def _application_site():
    """(file name, line, globals) of the code applying @struct: the first frame outside this
    file, which for `@struct` / `@struct(align=N)` runs the class statement, at one of its
    decorators' lines. A class's source is found through it as a function's is through its code
    and __globals__, whether or not its module is in sys.modules."""
    import sys

    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    return None if frame is None else (frame.f_code.co_filename, frame.f_lineno, frame.f_globals)


def _check_align(align) -> int:
    if isinstance(align, bool) or not isinstance(align, int) or align <= 0 or align & (align - 1):
        raise TypeError(f"align must be a positive power of two, not {align!r}")
    return align


def _frozen_setattr(self, name, value):
    cls = type(self).__name__
    if name in type(self).__weft_struct__.fields:
        raise AttributeError(
            f"{cls} is an immutable @struct: field {name!r} cannot be assigned; "
            f"make a modified copy with s.replace({name}=...)")
    raise AttributeError(f"{cls} is a @struct: attributes cannot be added to it ({name!r})")


def _frozen_delattr(self, name):
    raise AttributeError(f"{type(self).__name__} is an immutable @struct: {name!r} cannot be deleted")


def _make(underlying, name, fields, align, site):
    info = StructInfo(name, fields, align, underlying, site)
    parameters = ", ".join(fields)

    def __init__(self, *args, **kwargs):
        if len(args) > len(fields):
            raise TypeError(f"{name}() takes {len(fields)} field values but {len(args)} were given")
        values = dict(zip(fields, args))
        for key, value in kwargs.items():
            if key not in fields:
                raise TypeError(f"{name}() got an unexpected keyword argument {key!r}")
            if key in values:
                raise TypeError(f"{name}() got more than one value for field {key!r}")
            values[key] = value
        missing = [field for field in fields if field not in values]
        if missing:
            raise TypeError(f"{name}() is missing a value for field {missing[0]!r}")
        for field in fields:
            object.__setattr__(self, field, values[field])

    def replace(self, **changes):
        """A copy of this struct with the fields named in `changes` set to their values."""
        for key in changes:
            if key not in fields:
                raise TypeError(f"{name} has no field {key!r}")
        return type(self)(**{field: changes.get(field, getattr(self, field)) for field in fields})

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in fields)

    def __hash__(self):
        return hash(tuple(getattr(self, f) for f in fields))

    def __repr__(self):
        return f"{name}(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in fields) + ")"

    __init__.__doc__ = f"{name}({parameters})"
    namespace = {
        "__weft_struct__": info,
        "__slots__": (),
        "__init__": __init__,
        "__setattr__": _frozen_setattr,
        "__delattr__": _frozen_delattr,
        "__eq__": __eq__,
        "__hash__": __hash__,
        "__repr__": __repr__,
        "__match_args__": fields,
        "replace": replace,
        "underlying": underlying,
        "__doc__": underlying.__doc__,
        "__module__": underlying.__module__,
        "__qualname__": underlying.__qualname__,
    }
    cls = type(name, (underlying,), namespace)
    cls.dtype = _DtypeProperty()
    return cls


class _DtypeProperty:
    """`S.dtype`: the NumPy structured dtype laid out as the struct (computed on first use)."""

    def __get__(self, instance, owner):
        cached = owner.__dict__.get("_weft_dtype")
        if cached is None:
            cached = _dtype_of(owner)
            type.__setattr__(owner, "_weft_dtype", cached)
        return cached


def _dtype_of(cls):
    """The NumPy dtype of struct class `cls`, from the layout weft's C++ layout code computes
    (sema resolves the fields from the class's source, as it does for device code)."""
    from ._weft import struct_layout

    if not struct_source(cls)[1]:
        raise TypeError(f"{cls.__name__}: weft reads a struct's fields from its source code, which is not available "
                        "(define the class in a file, not at the interactive prompt or with exec or type())")
    return _numpy_dtype(struct_layout(cls), {"weft_struct": cls})


def _numpy_dtype(layout, metadata=None):
    """A NumPy structured dtype from struct_layout()'s description."""
    import numpy

    spec = {"names": layout["names"], "formats": [_numpy_format(f) for f in layout["formats"]],
            "offsets": layout["offsets"], "itemsize": layout["itemsize"]}
    return numpy.dtype(spec, metadata=metadata) if metadata else numpy.dtype(spec)


def _numpy_format(member):
    from ._types import NUMBER_TYPES

    if isinstance(member, dict):
        return _numpy_dtype(member)
    if isinstance(member, tuple):
        return (_numpy_format(member[0]), member[1])
    return NUMBER_TYPES["bool_" if member == "bool" else member].dtype


def struct(cls=None, /, **options):
    """Makes a class a heterogeneous struct: its annotated fields (in lexical order) are its
    members; instances are immutable (`s.replace(field=value)` copies); methods decorated with
    @func work on the host and in device code. `@struct(align=N)` aligns it to N bytes."""
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise TypeError(f"@struct got unknown keyword argument(s) {', '.join(map(repr, unknown))}; it accepts align")
    align = _check_align(options["align"]) if "align" in options else 0

    def decorate(c):
        if not isinstance(c, type):
            raise TypeError(f"@struct decorates a class, not {type(c).__name__}")
        if hasattr(c, "__weft_struct__"):
            raise TypeError("@struct applied twice")
        fields = tuple(c.__dict__.get("__annotations__", {}))
        if "replace" in fields:
            raise TypeError(f"{c.__name__}: a field cannot be named 'replace' (it is the method that copies a struct)")
        return _make(c, c.__name__, fields, align, _application_site())

    return decorate if cls is None else decorate(cls)


def align(t, n):
    """A struct type equivalent to `t` (a @struct class) aligned to at least `n` bytes."""
    n = _check_align(n)
    info = getattr(t, "__weft_struct__", None)
    if info is None:
        raise TypeError(f"align() takes a @struct class, not {t!r}")
    return _make(info.underlying, info.name, info.fields, max(n, info.align), info.site)


def machine_representation() -> str:
    """The C++ ABI that interoperable functions and kernels use: "itanium" (Linux)."""
    return "itanium"


def is_struct(value) -> bool:
    """Whether `value` is a @struct class."""
    return isinstance(value, type) and hasattr(value, "__weft_struct__")


def struct_source(cls):
    """(file name, source_text() of the file or None, first line, name, align, module globals) of
    a @struct class, for the compiler; the text is None when the source is not available. The
    class is found as inspect finds it, in its module in sys.modules, unless that module is
    missing or is not the one @struct was applied in (importlib's exec_module without an entry
    there), or inspect cannot find it (a module without __file__): then where @struct was
    applied, as a function is found through its code and __globals__."""
    import sys

    from ._runtime import prepared_source, source_text

    info = cls.__weft_struct__
    underlying = info.underlying
    module = sys.modules.get(underlying.__module__)
    site_file, site_line, site_globals = info.site or ("", 0, {})
    own_site = site_globals.get("__name__") == underlying.__module__
    found_by_site = module is None or (own_site and vars(module) is not site_globals)
    module_globals = site_globals if found_by_site else vars(module)

    def read():
        if not found_by_site:
            import inspect

            try:
                filename = inspect.getsourcefile(underlying) or ""
                _, line = inspect.getsourcelines(underlying)
                return filename, source_text(filename, module_globals), line
            except (OSError, TypeError):
                pass
        return site_file, source_text(site_file, module_globals) if site_file else None, site_line

    filename, text, line = prepared_source(underlying, read)
    return filename, text, line, info.name, info.align, module_globals


__all__ = ["struct", "align", "machine_representation", "is_struct", "StructInfo"]
