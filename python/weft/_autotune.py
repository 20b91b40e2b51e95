"""Autotuning of tile kernels (docs/tiles.md, "Autotuning"): `@ct.kernel(autotune=ct.Autotune(
configs=[ct.Config(TM=128, TN=128, stages=3), ...]))` tries each configuration on the actual
arguments at the first launch for a key, keeps the fastest, and caches the choice on disk next to
the compiled kernels, so that a new process does not tune again."""

import hashlib
import inspect
import json
import linecache
import os
import platform
import statistics
import sys
import time

MIN_STAGES, MAX_STAGES = 2, 8
# Bumped when the disk entries' layout changes: older entries are then never read.
_FORMAT = 1
_PLAIN = (bool, int, float, str, type(None))


def check_stages(value, where: str) -> None:
    """Raises TypeError or ValueError unless `value` is None or an int from 2 to 8."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where}: stages takes an int from {MIN_STAGES} to {MAX_STAGES}, not {value!r}")
    if not MIN_STAGES <= value <= MAX_STAGES:
        raise ValueError(f"{where}: stages must be from {MIN_STAGES} to {MAX_STAGES}, not {value}")


def _is_plain(value) -> bool:
    # What a ConstExpr argument, a JSON file and repr() all keep as it is.
    if isinstance(value, tuple):
        return all(_is_plain(element) for element in value)
    return isinstance(value, _PLAIN)


class Config:
    """One configuration to try: values of the kernel's parameters by name (usually its
    ConstExpr / ct.Constant tile sizes) and, optionally, `stages` (the kernel option: the most
    pipeline stages of its mma K loops, an int from 2 to 8)."""

    def __init__(self, *, stages=None, **values):
        check_stages(stages, "Config")
        if not values:
            raise TypeError("Config needs the value of at least one kernel parameter, e.g. Config(TM=64)")
        for name, value in values.items():
            if not _is_plain(value):
                raise TypeError(f"Config({name}=...): a value must be an int, float, bool, str, None or a tuple "
                                f"of those, not {value!r}")
        self.values = dict(values)
        self.stages = stages

    def __getitem__(self, name):
        return self.values[name]

    def __eq__(self, other) -> bool:
        return isinstance(other, Config) and (self.values, self.stages) == (other.values, other.stages)

    def __hash__(self) -> int:
        return hash((tuple(sorted(self.values.items())), self.stages))

    def __repr__(self) -> str:
        items = [f"{name}={value!r}" for name, value in self.values.items()]
        if self.stages is not None:
            items.append(f"stages={self.stages}")
        return f"Config({', '.join(items)})"


class Autotune:
    """What to tune: `configs` (Config objects, each setting the same parameters), `key` (which
    argument properties select a tuning: None, every array argument's shape and dtype and every
    other argument's type; a sequence of parameter names, those arguments' shapes and dtypes
    or, for numbers, values; or a function of the launch's arguments returning ints, floats,
    bools, strs, None or tuples of those), `restore` (names of arguments the kernel reads and
    writes, e.g. `c` of `c += a @ b`: every trial starts from their values at the launch, and
    the chosen configuration's launch too) and `repetitions` (timed runs of each configuration,
    after a warm-up run; the median counts)."""

    def __init__(self, configs, key=None, restore=(), repetitions=5):
        if isinstance(configs, Config):
            configs = [configs]
        if not isinstance(configs, (list, tuple)) or not configs:
            raise TypeError(f"Autotune(configs=...) takes a non-empty list of Config, not {configs!r}")
        for config in configs:
            if not isinstance(config, Config):
                raise TypeError(f"Autotune(configs=...): {config!r} is not a Config")
        names = set(configs[0].values)
        for config in configs:
            if set(config.values) != names:
                raise ValueError(f"Autotune(configs=...): every Config must set the same parameters; "
                                 f"{configs[0]!r} and {config!r} do not")
        if key is not None and not callable(key):
            key = _names("key", key)
        if isinstance(repetitions, bool) or not isinstance(repetitions, int) or repetitions < 1:
            raise TypeError(f"Autotune(repetitions=...) takes a positive int, not {repetitions!r}")
        self.configs = tuple(configs)
        self.key = key
        self.restore = _names("restore", restore)
        self.repetitions = repetitions

    def __repr__(self) -> str:
        return f"Autotune(configs={list(self.configs)!r}, key={self.key!r}, restore={self.restore!r})"


def _names(option: str, names) -> tuple:
    if isinstance(names, str):
        names = (names,)
    if not isinstance(names, (list, tuple)) or not all(isinstance(name, str) for name in names):
        raise TypeError(f"Autotune({option}=...) takes parameter names (strs), not {names!r}")
    return tuple(names)


class TuningResult:
    """What tuning chose for one key on one target: `config` (the fastest), `seconds` (per
    configuration, in `configs`' order, the median time or None where it failed), `errors`
    (why each failing configuration failed, by Config) and `from_cache` (read from the disk
    cache, not tuned in this process)."""

    def __init__(self, target, key, configs, seconds, errors, from_cache):
        self.target = target
        self.key = key
        self.configs = configs
        self.seconds = seconds
        self.errors = errors
        self.from_cache = from_cache
        timed = [i for i, s in enumerate(seconds) if s is not None]
        self.config = configs[min(timed, key=lambda i: seconds[i])]

    def summary(self) -> str:
        """One line: the configurations' times (or failures) and the choice."""
        times = []
        for config, seconds in zip(self.configs, self.seconds):
            if seconds is None:
                first = self.errors[config].splitlines()[0] if self.errors[config] else ""
                times.append(f"{config!r} failed ({first})")
            else:
                times.append(f"{config!r} {seconds * 1e3:.4g} ms")
        source = "from the disk cache" if self.from_cache else "tuned"
        return f"key {self.key}, target {self.target}: chose {self.config!r} ({source}); {'; '.join(times)}"

    def __repr__(self) -> str:
        return f"<TuningResult {self.summary()}>"


class AutotunedKernel:
    """A tile kernel with `autotune=`: launched as a tile kernel is (`ct.launch`, `weft.launch`,
    `kernel[grid]`) with the arguments of the parameters the configurations do not set; the
    grid may be a function of `meta`, a dict of every parameter's argument by name (the tuned
    ones included)."""

    __weft_kernel__ = True

    def __init__(self, function, face: str, debug: bool, fastmath: bool, boundscheck, stages, spec: Autotune):
        self.underlying = function
        self.__wrapped__ = function
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.debug = debug
        self.fastmath = fastmath
        self.boundscheck = boundscheck
        self.stages = stages
        self.autotune = spec
        self._face = face
        self._kernels = {}
        self._results = {}
        parameters = list(inspect.signature(function).parameters)
        tuned = set(spec.configs[0].values)
        for name in sorted(tuned):
            if name not in parameters:
                raise TypeError(f"kernel '{self.__name__}': Config sets {name!r}, which is not one of its "
                                f"parameters ({', '.join(parameters)})")
        self._parameters = parameters
        self._free = [name for name in parameters if name not in tuned]
        for option, names in (("key", () if callable(spec.key) else spec.key or ()), ("restore", spec.restore)):
            for name in names:
                if name not in self._free:
                    what = "set by the configs" if name in tuned else "not one of its parameters"
                    raise TypeError(f"kernel '{self.__name__}': Autotune({option}=...) names {name!r}, which is "
                                    f"{what}")

    @property
    def autotune_results(self) -> list:
        """The TuningResult of every key this kernel has tuned or read from the disk cache."""
        return list(self._results.values())

    def best_config(self, *args, target=None):
        """The Config chosen for these arguments (those of the untuned parameters) on `target`
        (None: the default target), or None when no launch has chosen one yet."""
        result = self._results.get((_target_name(target), self._key(args)))
        return None if result is None else result.config

    def __getitem__(self, index):
        grid, stream = index, None
        # kernel[grid, stream], as a tile kernel takes it: a grid's second extent is an int.
        if isinstance(index, tuple) and len(index) == 2 and not isinstance(index[1], int) and index[1] is not None:
            grid, stream = index
        return lambda *args: self._launch(args, grid, stream, None, {})

    def __weft_launch__(self, *args, grid=None, block=None, stream=None, target=None, cluster=None, shared=None):
        if block is not None:
            raise TypeError(f"kernel '{self.__name__}' is a tile kernel: launch it with a grid only (weft runs each "
                            f"tile block with the threads it needs), e.g. ct.launch(stream, grid, {self.__name__}, "
                            f"args)")
        if grid is None:
            raise TypeError("launch() needs grid= (an int, a tuple of 1 to 3 ints, or a function of meta)")
        extra = {name: value for name, value in (("cluster", cluster), ("shared", shared)) if value is not None}
        self._launch(args, grid, stream, target, extra)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"kernel '{self.__name__}' cannot be called like a function; launch it with "
                        f"ct.launch(stream, grid, {self.__name__}, args) or {self.__name__}[grid](*args)")

    def __repr__(self) -> str:
        return f"<weft.kernel {self.__qualname__} autotuned over {len(self.autotune.configs)} configs>"

    def _emit_cuda(self, config, *args, target=None) -> str:
        """The CUDA C++ unit of `config` for these arguments (those of the untuned parameters)."""
        return self._kernel(config)._emit_cuda(*self._arguments(args, config), target=target)

    def _kernel(self, config):
        stages = config.stages if config.stages is not None else self.stages
        kernel = self._kernels.get(stages)
        if kernel is None:
            from ._weft import Kernel

            kernel = Kernel(self.underlying, self.debug, self.fastmath, False, self.boundscheck, None, self._face,
                            stages or 0)
            self._kernels[stages] = kernel
        return kernel

    def _arguments(self, args, config) -> list:
        if len(args) != len(self._free):
            raise TypeError(f"kernel '{self.__name__}' is autotuned over {', '.join(config.values)}: pass the "
                            f"other {len(self._free)} argument{'s' if len(self._free) != 1 else ''} "
                            f"({', '.join(self._free)}), not {len(args)}")
        given = dict(zip(self._free, args))
        given.update(config.values)
        return [given[name] for name in self._parameters]

    def _key(self, args) -> str:
        spec = self.autotune
        if len(args) != len(self._free):
            self._arguments(args, spec.configs[0])  # raises the count's TypeError
        if callable(spec.key):
            key = spec.key(*args)
            if not _is_plain(key):
                raise TypeError(f"kernel '{self.__name__}': Autotune(key=...) must return ints, floats, bools, "
                                f"strs, None or tuples of those, not {key!r}")
            return repr(key)
        by_name = dict(zip(self._free, args))
        if spec.key is None:
            return repr(tuple(_describe(value, False) for value in args))
        return repr(tuple(_describe(by_name[name], True) for name in spec.key))

    def _launch(self, args, grid, stream, target, extra) -> None:
        """Launches with the configuration chosen for `args`' key, tuning first if none is;
        `extra`: launch()'s other keyword arguments (cluster=, shared=), passed on."""
        target = _target_name(target)
        key = self._key(args)
        result = self._results.get((target, key))
        if result is None:
            result = self._read_cache(target, key)
            if result is None:
                result = self._tune(args, grid, stream, target, extra, key)
                self._write_cache(result)
            self._results[(target, key)] = result
            if os.environ.get("WEFT_AUTOTUNE_VERBOSE") == "1":
                print(f"weft autotune: kernel '{self.__qualname__}', {result.summary()}", file=sys.stderr)
        self._run(result.config, args, grid, stream, target, extra)

    def _run(self, config, args, grid, stream, target, extra) -> None:
        from ._weft import launch

        arguments = self._arguments(args, config)
        if callable(grid):
            grid = grid(dict(zip(self._parameters, arguments)))
        options = {"grid": grid, "target": target}
        if stream is not None:
            options["stream"] = stream
        options.update(extra)
        launch(self._kernel(config), *arguments, **options)

    def _tune(self, args, grid, stream, target, extra, key) -> TuningResult:
        spec = self.autotune
        by_name = dict(zip(self._free, args))
        saved = [(by_name[name], _snapshot(by_name[name], name)) for name in spec.restore]
        seconds, errors, first_error = [], {}, None
        try:
            for config in spec.configs:
                try:
                    seconds.append(self._time(config, args, grid, stream, target, extra, saved))
                except Exception as error:  # a configuration that fails is skipped, its reason kept
                    first_error = first_error or error
                    errors[config] = f"{type(error).__name__}: {error}"
                    seconds.append(None)
        finally:
            _restore(saved, target)
        if first_error is not None and len(errors) == len(spec.configs):
            raise first_error
        return TuningResult(target, key, spec.configs, seconds, errors, False)

    def _time(self, config, args, grid, stream, target, extra, saved) -> float:
        _restore(saved, target)
        self._run(config, args, grid, stream, target, extra)  # the warm-up compiles
        samples = []
        if target == "gpu":
            from ._cuda_host import Event

            start, end = Event(), Event()
            recorded_on = 0 if stream is None else stream
            for _ in range(self.autotune.repetitions):
                _restore(saved, target)
                start.record(recorded_on)
                self._run(config, args, grid, stream, target, extra)
                end.record(recorded_on)
                end.synchronize()
                samples.append(start.elapsed_time(end) / 1e3)
        else:
            for _ in range(self.autotune.repetitions):
                _restore(saved, target)
                begin = time.perf_counter()
                self._run(config, args, grid, stream, target, extra)
                samples.append(time.perf_counter() - begin)
        return statistics.median(samples)

    def _cache_path(self, target, key):
        """The disk cache's file for `key` on `target`, or None when the disk cache is off."""
        from . import __version__, cache_dir
        from ._weft import cache_enabled

        if not cache_enabled():
            return None

        function = self.underlying
        filename = function.__code__.co_filename
        text = "".join(linecache.getlines(filename, function.__globals__))
        identity = [_FORMAT, __version__, self._face, filename, self.__qualname__,
                    hashlib.sha256(text.encode()).hexdigest(), self.debug, self.fastmath, self.boundscheck,
                    self.stages, [repr(config) for config in self.autotune.configs], key, _device(target)]
        digest = hashlib.sha256(json.dumps(identity).encode()).hexdigest()
        return os.path.join(cache_dir(), "autotune", digest + ".json")

    def _read_cache(self, target, key):
        """The disk cache's entry for `key`, or None (absent, unreadable, corrupt or stale)."""
        configs = self.autotune.configs
        path = self._cache_path(target, key)
        if path is None:
            return None
        try:
            with open(path, encoding="utf-8") as file:
                entry = json.load(file)
            seconds = entry["seconds"]
            errors = entry["errors"]
            if (entry["configs"] != [repr(config) for config in configs] or entry["key"] != key
                    or not isinstance(seconds, list) or len(seconds) != len(configs)
                    or not all(s is None or (isinstance(s, (int, float)) and not isinstance(s, bool)) for s in seconds)
                    or all(s is None for s in seconds) or not isinstance(errors, dict)):
                return None
            errors = {config: str(errors.get(repr(config), "")) for config, s in zip(configs, seconds) if s is None}
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return TuningResult(target, key, configs, seconds, errors, True)

    def _write_cache(self, result) -> None:
        path = self._cache_path(result.target, result.key)
        if path is None:
            return
        entry = {"kernel": self.__qualname__, "key": result.key, "configs": [repr(c) for c in result.configs],
                 "seconds": result.seconds, "errors": {repr(c): e for c, e in result.errors.items()}}
        temporary = f"{path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(temporary, "w", encoding="utf-8") as file:
                json.dump(entry, file)
            os.replace(temporary, path)
        except OSError:
            # An unwritable cache costs a new process a tuning, nothing else.
            return


def _target_name(target) -> str:
    if target is None:
        from . import default_target

        return default_target()
    if target not in ("gpu", "cpu"):
        raise ValueError(f"target must be 'gpu', 'cpu' or None, not {target!r}")
    return target


def _describe(value, by_value: bool):
    # An argument as a key sees it: an array's shape and dtype; a number's value (by_value) or type.
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return (tuple(int(extent) for extent in value.shape), str(value.dtype))
    if by_value and _is_plain(value):
        return value
    return type(value).__name__


def _device(target: str) -> str:
    if target == "cpu":
        return f"cpu {platform.machine()}"
    from ._cuda_host import Device

    device = Device()
    return f"gpu {device.name} sm_{''.join(map(str, device.compute_capability))}"


def _snapshot(value, name: str):
    import numpy as np

    from ._arrays import DeviceArray

    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, DeviceArray):
        return value.copy_to_host()
    if callable(getattr(value, "clone", None)) and callable(getattr(value, "copy_", None)):
        return value.clone()
    raise TypeError(f"Autotune(restore=...): argument {name!r} must be a NumPy array, a weft DeviceArray or a "
                    f"tensor with clone() and copy_() (torch), not {type(value).__name__}")


def _restore(saved, target: str) -> None:
    import numpy as np

    from . import synchronize
    from ._arrays import DeviceArray

    if saved and target == "gpu":
        synchronize()  # the last trial may still run on its stream, which the copies may not wait for
    for value, copy in saved:
        if isinstance(value, np.ndarray):
            np.copyto(value, copy)
        elif isinstance(value, DeviceArray):
            value.copy_to_device(copy)
        else:
            value.copy_(copy)
    if saved and target == "gpu":
        synchronize()  # and a tensor's copy_ may run on another stream than the next trial's
