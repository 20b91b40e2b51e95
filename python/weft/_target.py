"""Target specialization on the host: `target(desc)`, `TargetDescription` (`| & ~`),
`SMSelector` (`sm75` ... `sm121`), `is_exactly`, `provides`, `is_host`, `is_device`,
`any_target`, `no_target`.

In device code the compiler evaluates `if target(...)` per lowering (a preprocessor test on
`__CUDA_ARCH__`); when a `@func` runs in the Python interpreter the current target is the host,
so `target(is_host)` is True there. A description is a set of `__CUDA_ARCH__` values (0 stands
for the host), kept as sorted disjoint inclusive intervals, as the compiler keeps it."""

_UNBOUNDED = 2**63 - 1

# The architectures CUDA 13.0's NVRTC supports (nvrtcGetSupportedArchs), as XY of sm_XY; the
# compiler's list (src/sema/check_target.cpp) must equal it.
ARCHITECTURES = (75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121)


def _normalized(intervals):
    result = []
    for lo, hi in sorted(intervals):
        if lo > hi:
            continue
        if result and (result[-1][1] == _UNBOUNDED or lo <= result[-1][1] + 1):
            result[-1] = (result[-1][0], max(result[-1][1], hi))
        else:
            result.append((lo, hi))
    return tuple(result)


def _complement(intervals):
    result, following = [], 0
    for lo, hi in intervals:
        if lo > following:
            result.append((following, lo - 1))
        if hi == _UNBOUNDED:
            return tuple(result)
        following = hi + 1
    result.append((following, _UNBOUNDED))
    return tuple(result)


class TargetDescription:
    """A set of execution spaces (the host and GPU architectures); combine with `|`, `&`, `~`."""

    __slots__ = ("_intervals", "_name")

    def __init__(self, intervals, name=None):
        self._intervals = _normalized(intervals)
        self._name = name

    @property
    def __weft_name__(self) -> str:
        # How the compiler finds this description when device code names it as a global.
        bounds = " ".join(f"{lo}-{'max' if hi == _UNBOUNDED else hi}" for lo, hi in self._intervals)
        return f"weft.<targets{' ' if bounds else ''}{bounds}>"

    def _check(self, other, operator: str) -> "TargetDescription":
        if not isinstance(other, TargetDescription):
            raise TypeError(f"unsupported operand for {operator}: TargetDescription and {type(other).__name__}")
        return other

    def __or__(self, other):
        return TargetDescription(self._intervals + self._check(other, "|")._intervals)

    def __and__(self, other):
        other = self._check(other, "&")
        return ~TargetDescription(_complement(self._intervals) + _complement(other._intervals))

    def __invert__(self):
        return TargetDescription(_complement(self._intervals))

    def __eq__(self, other):
        return isinstance(other, TargetDescription) and self._intervals == other._intervals

    def __hash__(self):
        return hash(self._intervals)

    def __bool__(self):
        raise TypeError("a TargetDescription is not a condition; test it with target(desc)")

    def matches_host(self) -> bool:
        """Whether the host is among the targets."""
        return any(lo == 0 for lo, _ in self._intervals)

    def matches(self, arch: int) -> bool:
        """Whether the GPU architecture sm_`arch` (e.g. 90) is among the targets."""
        value = arch * 10
        return any(lo <= value <= hi for lo, hi in self._intervals)

    def __repr__(self) -> str:
        if self._name:
            return self._name
        return f"TargetDescription({list(self._intervals)})"


class SMSelector:
    """A CUDA architecture: `sm90` is sm_90 (Hopper)."""

    __slots__ = ("arch",)

    def __init__(self, arch: int):
        self.arch = arch

    @property
    def __weft_name__(self) -> str:
        return f"weft.sm{self.arch}"

    def __repr__(self) -> str:
        return f"sm{self.arch}"


def _selector(sm, function: str) -> int:
    if not isinstance(sm, SMSelector):
        raise TypeError(f"{function}() takes an SMSelector such as sm90, not {type(sm).__name__}")
    return sm.arch * 10


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
    value = _selector(sm, "is_exactly")
    return TargetDescription([(value, value)], f"is_exactly({sm!r})")


def _provides(sm) -> TargetDescription:
    return TargetDescription([(_selector(sm, "provides"), _UNBOUNDED)], f"provides({sm!r})")


def _target(desc) -> bool:
    """True if the current target matches `desc`: in the Python interpreter, the host."""
    if not isinstance(desc, TargetDescription):
        raise TypeError(f"target() takes a TargetDescription such as is_host, not {type(desc).__name__}")
    return desc.matches_host()


target = _TargetFunction("target", _target)
is_exactly = _TargetFunction("is_exactly", _is_exactly)
provides = _TargetFunction("provides", _provides)
is_host = TargetDescription([(0, 0)], "is_host")
is_device = TargetDescription([(1, _UNBOUNDED)], "is_device")
any_target = TargetDescription([(0, _UNBOUNDED)], "any_target")
no_target = TargetDescription([], "no_target")

SELECTORS = {f"sm{arch}": SMSelector(arch) for arch in ARCHITECTURES}

NAMES = ("target", "TargetDescription", "SMSelector", "is_exactly", "provides", "is_host", "is_device",
         "any_target", "no_target", *SELECTORS)
