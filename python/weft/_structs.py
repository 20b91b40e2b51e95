"""Heterogeneous structs: `@struct`, `@struct(align=N)`, `align(t, n)`.

A struct class is immutable (on the host and in device code): `s.replace(x=1.0)` returns a
modified copy. Its fields are its annotations in lexical order; its machine representation is
the standard-layout C++ struct with one member per field (see docs/structs.md). `S.dtype` is
the NumPy structured dtype with the same layout, for arrays of structs. A field annotated
`device.Atomic(dtype, align=N)` is its dtype aligned (and padded) to max(N, its own alignment);
device code uses a struct with such fields in place (in an array), never as a copy."""

_OPTIONS = ("align",)


class StructInfo:
    """What weft knows of a struct class: its fields (in order), alignment and the decorated
    class (whose source holds the field annotations and the methods)."""

    __slots__ = ("name", "fields", "align", "underlying")

    def __init__(self, name, fields, align, underlying):
        self.name = name
        self.fields = fields
        self.align = align
        self.underlying = underlying


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


def _make(underlying, name, fields, align):
    info = StructInfo(name, fields, align, underlying)
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


def _resolve_annotation(owner, annotation):
    if isinstance(annotation, str):
        import sys

        module = sys.modules.get(owner.__module__)
        annotation = eval(annotation, dict(vars(module)) if module else {})  # noqa: S307 (the user's own annotation)
    return annotation


_BUILTINS = {bool: "bool", int: "int32", float: "float32", complex: "complex64"}


def _layout(owner, annotation):
    """(NumPy dtype, alignment, size) of one field type, with the device layout."""
    import numpy

    from ._intrinsics import AtomicType

    annotation = _resolve_annotation(owner, annotation)
    if isinstance(annotation, AtomicType):
        # weft::Atomic<T, N>: T aligned to max(N, T's alignment), its size rounded up to that.
        dtype, align, size = _layout(owner, annotation.dtype)
        if dtype.fields is not None or dtype.subdtype is not None or dtype.itemsize > 8:
            raise TypeError(f"{owner.__name__}: {annotation!r} needs a number type of at most 8 bytes")
        n = annotation.align  # 0: the dtype's own alignment
        if isinstance(n, bool) or not isinstance(n, int) or n < 0 or n > 256 or n & (n - 1):
            raise TypeError(f"{owner.__name__}: the align= of {annotation!r} must be a power of two up to 256")
        align = max(align, n)
        return dtype, align, (size + align - 1) // align * align
    if annotation in _BUILTINS:
        dtype = numpy.dtype(_BUILTINS[annotation])
        return dtype, dtype.itemsize, dtype.itemsize
    info = getattr(annotation, "__weft_struct__", None)
    if info is not None:
        return annotation.dtype, _struct_align(annotation), annotation.dtype.itemsize
    name = getattr(annotation, "__weft_name__", "")
    if isinstance(name, str) and name.startswith("weft."):
        short = name[len("weft."):]
        if short == "WarpMask":  # a uint32 in device code
            short = "uint32"
        head, _, count = short.rpartition("x")
        if head and count in ("1", "2", "3", "4"):
            element = numpy.dtype("bool" if head == "bool_" else head)
            n = int(count)
            size = element.itemsize * n
            align = min(size, 16) if n in (2, 4) else element.itemsize
            return numpy.dtype((element, (n,))), align, (size + align - 1) // align * align
        dtype = numpy.dtype("bool" if short == "bool_" else short)
        return dtype, dtype.itemsize, dtype.itemsize
    raise TypeError(f"{owner.__name__}: field type {annotation!r} has no NumPy dtype")


def _struct_align(cls) -> int:
    info = cls.__weft_struct__
    align = info.align or 1
    annotations = info.underlying.__dict__.get("__annotations__", {})
    for field in info.fields:
        align = max(align, _layout(cls, annotations[field])[1])
    return align


def _dtype_of(cls):
    import numpy

    info = cls.__weft_struct__
    annotations = info.underlying.__dict__.get("__annotations__", {})
    names, formats, offsets = [], [], []
    offset, align = 0, info.align or 1
    for field in info.fields:
        dtype, field_align, field_size = _layout(cls, annotations[field])
        offset = (offset + field_align - 1) // field_align * field_align
        names.append(field)
        formats.append(dtype)
        offsets.append(offset)
        offset += field_size
        align = max(align, field_align)
    size = max((offset + align - 1) // align * align, align if not names else 0)
    return numpy.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": size},
                       metadata={"weft_struct": cls})


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
        return _make(c, c.__name__, fields, align)

    return decorate if cls is None else decorate(cls)


def align(t, n):
    """A struct type equivalent to `t` (a @struct class) aligned to at least `n` bytes."""
    n = _check_align(n)
    info = getattr(t, "__weft_struct__", None)
    if info is None:
        raise TypeError(f"align() takes a @struct class, not {t!r}")
    return _make(info.underlying, info.name, info.fields, max(n, info.align))


def machine_representation() -> str:
    """The C++ ABI that interoperable functions and kernels use: "itanium" (Linux)."""
    return "itanium"


def is_struct(value) -> bool:
    """Whether `value` is a @struct class."""
    return isinstance(value, type) and hasattr(value, "__weft_struct__")


def struct_source(cls):
    """(file name, whole file text, first line, name, align, module globals) of a @struct
    class, for the compiler; the text is empty when the source is not available."""
    import inspect
    import linecache
    import sys

    info = cls.__weft_struct__
    underlying = info.underlying
    module = sys.modules.get(underlying.__module__)
    module_globals = vars(module) if module is not None else {}
    try:
        filename = inspect.getsourcefile(underlying) or ""
        _, line = inspect.getsourcelines(underlying)
    except (OSError, TypeError):
        return "", "", 0, info.name, info.align, module_globals
    text = "".join(linecache.getlines(filename, module_globals))
    return filename, text, line, info.name, info.align, module_globals


__all__ = ["struct", "align", "machine_representation", "is_struct", "StructInfo"]
