"""Target specialization on the host: `target(desc)`, `TargetDescription` (`| & ~`),
`SMSelector` (`sm35` ... `sm121`, with the `a` and `f` variants CUDA defines: `sm90a`, `sm100f`),
`is_exactly`, `provides`, `is_host`, `is_device`, `any_target`, `no_target`.

In device code the compiler evaluates `if target(...)` per lowering (a preprocessor test on
`__CUDA_ARCH__` and, for `a`/`f` targets, `__CUDA_ARCH_SPECIFIC__`/`__CUDA_ARCH_FAMILY_SPECIFIC__`);
when a `@func` runs in the Python interpreter the current target is the host, so
`target(is_host)` is True there. The compiler decides the selectors and the meaning of every
description: this module holds each description as the compiler's encoding of it and asks the
compiler (`weft._weft`) for the selectors and for `|`, `&`, `~` and membership."""

from . import _weft


class TargetDescription:
    """A set of execution spaces (the host and GPU targets); combine with `|`, `&`, `~`."""

    __slots__ = ("_encoded", "_name")

    def __init__(self, encoded: str, name=None):
        self._encoded = encoded
        self._name = name

    @property
    def __weft_name__(self) -> str:
        # How the compiler finds this description when device code names it as a global.
        return f"weft.{self._encoded}"

    def _other(self, other, operator: str) -> "TargetDescription":
        if not isinstance(other, TargetDescription):
            raise TypeError(f"unsupported operand for {operator}: TargetDescription and {type(other).__name__}")
        return other

    def __or__(self, other):
        return TargetDescription(_weft.target_union(self._encoded, self._other(other, "|")._encoded))

    def __and__(self, other):
        return TargetDescription(_weft.target_intersection(self._encoded, self._other(other, "&")._encoded))

    def __invert__(self):
        return TargetDescription(_weft.target_complement(self._encoded))

    def __eq__(self, other):
        return isinstance(other, TargetDescription) and self._encoded == other._encoded

    def __hash__(self):
        return hash(self._encoded)

    def __bool__(self):
        raise TypeError("a TargetDescription is not a condition; test it with target(desc)")

    def matches_host(self) -> bool:
        """Whether the host is among the targets."""
        return _weft.target_includes(self._encoded, "host")

    def matches(self, sm) -> bool:
        """Whether a GPU target is among the targets: an SMSelector (`sm90a`), a target name
        (`"sm_90a"`) or the XY of sm_XY (`90`)."""
        if isinstance(sm, SMSelector):
            name = sm.name
        elif isinstance(sm, int) and not isinstance(sm, bool):
            name = f"sm_{sm}"
        elif isinstance(sm, str):
            name = sm
        else:
            raise TypeError(f"matches() takes an SMSelector, a target name or an int, not {type(sm).__name__}")
        return _weft.target_includes(self._encoded, name)

    def condition(self) -> str:
        """The preprocessor condition each lowering tests (e.g. `__CUDA_ARCH__ >= 900`)."""
        return _weft.target_condition(self._encoded)

    def __repr__(self) -> str:
        if self._name:
            return self._name
        return f"TargetDescription({self.condition()})"


class SMSelector:
    """A CUDA architecture: `sm90` is sm_90 (Hopper), `sm90a` its architecture-specific features,
    `sm100f` the family-specific features of sm_100."""

    __slots__ = ("name", "arch", "suffix")

    def __init__(self, name: str, arch: int, suffix: str):
        self.name = name
        self.arch = arch
        self.suffix = suffix

    @property
    def __weft_name__(self) -> str:
        return f"weft.{self.name}"

    def __repr__(self) -> str:
        return self.name


def _selector(sm, function: str) -> str:
    if not isinstance(sm, SMSelector):
        raise TypeError(f"{function}() takes an SMSelector such as sm90, not {type(sm).__name__}")
    return sm.name


class _TargetFunction:
    """A target function; device code calls it at compile time, the host at run time."""

    def __init__(self, name: str, implementation):
        self.__name__ = name
        self.__weft_name__ = f"weft.{name}"
        self._implementation = implementation

    def __call__(self, *args, **kwargs):
        return self._implementation(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<weft.{self.__name__}>"


def _is_exactly(sm) -> TargetDescription:
    return TargetDescription(_weft.target_select("is_exactly", _selector(sm, "is_exactly")), f"is_exactly({sm!r})")


def _provides(sm) -> TargetDescription:
    return TargetDescription(_weft.target_select("provides", _selector(sm, "provides")), f"provides({sm!r})")


def _target(desc) -> bool:
    """True if the current target matches `desc`: in the Python interpreter, the host."""
    if not isinstance(desc, TargetDescription):
        raise TypeError(f"target() takes a TargetDescription such as is_host, not {type(desc).__name__}")
    return desc.matches_host()


target = _TargetFunction("target", _target)
is_exactly = _TargetFunction("is_exactly", _is_exactly)
provides = _TargetFunction("provides", _provides)
is_host = TargetDescription(_weft.target_entity("is_host"), "is_host")
is_device = TargetDescription(_weft.target_entity("is_device"), "is_device")
any_target = TargetDescription(_weft.target_entity("any_target"), "any_target")
no_target = TargetDescription(_weft.target_entity("no_target"), "no_target")

SELECTORS = {name: SMSelector(name, arch, suffix) for name, arch, suffix in _weft.target_selectors()}

NAMES = ("target", "TargetDescription", "SMSelector", "is_exactly", "provides", "is_host", "is_device",
         "any_target", "no_target", *SELECTORS)
