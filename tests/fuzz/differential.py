"""The differential fuzzer: generated programs run by weft (CPU target, GPU target) against the
model, and compiled for sm_90 by weftc (NVRTC).

Programs are batched: one module holds many programs and one kernel (`fz_batch`) that calls each
program's entry once per thread, so a batch is one compilation per target. Every program output
is stored through `fz_same(device.T(0), value)`, a compile error unless weft gives the output
the model's type T. The kernel is launched three times per target, with each program's global
constants at their first values, changed, and back (weft must recompile and must not reuse a
stale specialization).

A batch that fails to compile is split (by the failing source line when the error names one,
else in halves) until each failing program stands alone; each failure keeps the program's own
module as a reproducer.
"""

import hashlib
import importlib.util
import itertools
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from . import generator, interp, ir, model
from .scalars import SCALARS, is_complex, is_float, real_part

LAUNCHES = (0, 1, 0)  # the global values of each launch: first, changed, first again
WEFTC_TIMEOUT = 300
_SERIAL = itertools.count(1)


@dataclass
class Failure:
    """One failing program: what failed, how, and a module that reproduces it."""

    program: str
    stage: str  # "compile-cpu", "run-cpu", "compile-gpu", "run-gpu", "sm90", "model"
    message: str
    reproducer: str
    features: list = field(default_factory=list)
    seed: object = None  # the program's generator seed


@dataclass
class Counts:
    """What a run did, for the report."""

    programs: int = 0
    batches: int = 0
    compilations: int = 0
    launches: int = 0
    outputs_exact: int = 0
    outputs_tolerance: int = 0
    outputs_unchecked: int = 0
    sm90_units: int = 0
    features: dict = field(default_factory=dict)


@dataclass
class Options:
    targets: tuple = ("cpu",)
    threads: int = 32
    sm90: bool = True
    sm90_output: str = "ptx"  # weftc's --ptx (NVRTC) or --cubin (NVRTC and its ptxas)
    sm90_all_launches: bool = False  # also compile the changed globals' module (the other constant branches)
    work: pathlib.Path = pathlib.Path("/tmp/weft-fuzz")
    config: generator.Config = field(default_factory=generator.Config)
    weftc: str = ""
    frontend_only: bool = False  # check only that the front end accepts the batch (the reducer's fast check)


class Batch:
    """Programs sharing one module and one kernel."""

    def __init__(self, programs: list, name: str, options: Options, seed):
        self.programs = programs
        self.name = name
        self.options = options
        self.rng = np.random.default_rng(stable_seed(seed))
        self.models = {}  # (program name, launch) -> CompiledProgram
        for p in programs:
            for launch in set(LAUNCHES):
                self.models[p.name, launch] = interp.compile_program(p, launch, options.config.contraction)
        self.model_errors = {}  # program name -> the model's traceback
        self.inputs = {}  # type -> 2-D array, one row per input slot
        self.in_slots = {}  # (program, parameter) -> (type, row)
        self.out_slots = {}  # (program, output) -> (type, row)
        self.layout()

    def layout(self):
        n = self.options.threads
        rows_in, rows_out = {}, {}
        for p in self.programs:
            for j, t in enumerate(p.param_types):
                self.in_slots[p.name, j] = (t, rows_in.get(t, 0))
                rows_in[t] = rows_in.get(t, 0) + 1
            for j, t in enumerate(self.models[p.name, 0].output_types):
                self.out_slots[p.name, j] = (t, rows_out.get(t, 0))
                rows_out[t] = rows_out.get(t, 0) + 1
        for t, rows in rows_in.items():
            self.inputs[t] = np.stack([model.input_values(self.rng, t, n) for _ in range(rows)])
        self.rows_out = rows_out

    def source(self, launch: int = 0) -> tuple:
        """(module text, {program name: (first line, last line)})."""
        lines = ["import math", "from cuda import device", "", *ir.SAME_HELPER.splitlines(), ""]
        spans = {}
        for p in self.programs:
            first = len(lines) + 1
            lines += ir.program_source(p, launch).splitlines() + [""]
            spans[p.name] = (first, len(lines))
        params = [f"in_{t}: {SCALARS[t].device}[:, :]" for t in sorted(self.inputs)]
        params += [f"out_{t}: {SCALARS[t].device}[:, :]" for t in sorted(self.rows_out)]
        any_out = sorted(self.rows_out)[0]
        lines += ["", "@device.kernel", f"def fz_batch({', '.join(params)}):", "    i = device.tid(1)",
                  f"    if i < out_{any_out}.shape[1]:"]
        for p in self.programs:
            first = len(lines) + 1
            args = ", ".join(f"in_{t}[{row}, i]" for t, row in (self.in_slots[p.name, j] for j in range(len(p.param_types))))
            lines.append(f"        r_{p.name} = {p.entry.name}({args})")
            for j in range(len(self.models[p.name, 0].output_types)):
                t, row = self.out_slots[p.name, j]
                zero = "device.bool_(0)" if t == "bool" else f"device.{t}(0)"
                lines.append(f"        out_{t}[{row}, i] = fz_same({zero}, r_{p.name}[{j}])")
            spans[p.name + "@kernel"] = (first, len(lines))
        return "\n".join(lines) + "\n", spans

    def write(self, launch: int = 0) -> pathlib.Path:
        path = self.options.work / f"{self.name}_l{launch}.py"
        path.write_text(self.source(launch)[0])
        return path

    def outputs(self) -> dict:
        n = self.options.threads
        return {t: np.zeros((rows, n), SCALARS[t].dtype) for t, rows in self.rows_out.items()}

    def expected(self, launch: int) -> dict:
        """The model's outputs: {(program, output): [(value, spread, approximate) per thread]};
        spread is the largest move of a perturbed run (inf where it cannot be bounded)."""
        result = {}
        for p in self.programs:
            try:
                result.update(self.expected_of(p, launch))
            except Exception:  # a bug of the fuzzer's model, reported as such
                self.model_errors[p.name] = traceback.format_exc(limit=6)
        return result

    def expected_of(self, p: ir.Program, launch: int) -> dict:
        """One program's part of expected()."""
        compiled = self.models[p.name, launch]
        columns = [[] for _ in compiled.output_types]
        for i in range(self.options.threads):
            args = [model.from_array(self.inputs[t][row, i], t)
                    for t, row in (self.in_slots[p.name, j] for j in range(len(p.param_types)))]
            model.Perturbation.active = False
            base = compiled.run(*args)
            spreads = [0.0] * len(base)
            if any(compiled.output_approx):
                try:
                    for k in range(2):
                        model.Perturbation.active = True
                        model.Perturbation.direction = 1 if k == 0 else -1
                        model.Perturbation.rng.seed(stable_seed((p.name, i, k)))
                        moved = compiled.run(*args)
                        for j, t in enumerate(compiled.output_types):
                            spreads[j] = max(spreads[j], _distance(base[j], moved[j], t))
                finally:
                    model.Perturbation.active = False
            for j, value in enumerate(base):
                columns[j].append((value, spreads[j], compiled.output_approx[j]))
        return {(p.name, j): column for j, column in enumerate(columns)}


def stable_seed(value) -> int:
    """A seed from any value's repr, the same in every process (unlike hash())."""
    return int.from_bytes(hashlib.sha256(repr(value).encode()).digest()[:8], "little")


def _distance(a, b, t: str) -> float:
    """How far apart two values of type `t` are (0 when identical, inf when one is nan)."""
    if is_complex(t):
        part = real_part(t)
        return max(_distance(a.real, b.real, part), _distance(a.imag, b.imag, part))
    if not is_float(t):
        return 0.0 if a == b else math.inf
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return 0.0 if math.isnan(x) and math.isnan(y) else math.inf
    if x == y:
        return 0.0
    return abs(x - y)


def _finite(z) -> bool:
    return math.isfinite(float(z.real)) and math.isfinite(float(z.imag))


def _close(got, want, spread: float, t: str, approximate: bool) -> bool:
    """Whether weft's `got` matches the model's `want`: exactly, or for an approximate output
    within four times the perturbed runs' `spread` plus four ulps."""
    if not approximate:
        return model.same(got, want, t)
    if is_complex(t):
        part = real_part(t)
        if not _finite(want) and not _finite(got):
            # Which infinity or NaN a part is can hang on whether an approximate value is exactly
            # zero (0/0 is NaN, the GPU's fma residue over 0 an infinity): the runs cannot move it.
            return True
        return _close(got.real, want.real, spread, part, True) and _close(got.imag, want.imag, spread, part, True)
    x, y = float(got), float(want)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(y) or math.isinf(x):
        return x == y
    return abs(x - y) <= 4 * spread + 4 * model.ulp(y, t)



def _import(path: pathlib.Path):
    name = f"weft_fuzz_{path.stem}_{time.monotonic_ns()}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # as an import does
    spec.loader.exec_module(module)
    return module


class Runner:
    """Runs batches, isolates failing programs and counts."""

    def __init__(self, options: Options):
        self.options = options
        options.work.mkdir(parents=True, exist_ok=True)
        self.counts = Counts()
        self.failures = []

    @staticmethod
    def name() -> str:
        """A module name used once per process: weft reads a kernel's source through linecache,
        which would hand back an earlier module's text for a reused file name."""
        return f"fz{os.getpid()}_{next(_SERIAL)}"

    def run_programs(self, programs: list, seed):
        """Runs one batch of programs and records every failure."""
        self.counts.batches += 1
        for p in programs:
            self.counts.programs += 1
            for feature in p.features:
                self.counts.features[feature] = self.counts.features.get(feature, 0) + 1
        self.check(programs, seed)

    def check(self, programs: list, seed, sm90_only: bool = False):
        """Checks a set of programs, splitting it where it fails to compile (`sm90_only`: the
        targets already passed; only the sm_90 compilation is checked again)."""
        if not programs:
            return
        batch = Batch(programs, self.name(), self.options, seed)
        for target in () if sm90_only else self.options.targets:
            error = self.run_target(batch, target)
            if error is not None:
                stage, message = error
                self.isolate(programs, batch, stage, message, seed)
                return
        if self.options.sm90:
            for launch in sorted(set(LAUNCHES)) if self.options.sm90_all_launches else [LAUNCHES[0]]:
                error = self.compile_sm90(batch, launch)
                if error is not None:
                    self.isolate(programs, batch, "sm90", error, seed)
                    return

    def isolate(self, programs: list, batch: Batch, stage: str, message: str, seed):
        """Finds which programs make a batch fail to compile: those whose source lines the error
        names, else by halves; one failing program alone is recorded, and so is a batch none of
        whose parts fails."""
        if len(programs) == 1:
            self.record(programs[0], stage, message)
            return
        before = len(self.failures)
        self.split(programs, batch, stage, message, seed)
        if len(self.failures) == before:
            # No part fails alone (a timeout under load, a limit only the whole batch reaches):
            # the batch itself is the reproducer.
            self.failures.append(Failure(",".join(p.name for p in programs), stage + " (whole batch only)", message[:4000],
                                         batch.source()[0]))

    def split(self, programs: list, batch: Batch, stage: str, message: str, seed):
        """Checks the parts of a failing batch: the programs the error's lines name, else halves."""
        sm90_only = stage == "sm90"
        _, spans = batch.source()
        blamed = set()
        for line in map(int, re.findall(re.escape(batch.name) + r"_l\d\.py:(\d+):", message)):
            for name, (first, last) in spans.items():
                if first <= line <= last:
                    blamed.add(name.split("@")[0])
        if blamed and len(blamed) < len(programs):
            for p in programs:
                if p.name in blamed:
                    self.check([p], seed, sm90_only)
            self.check([p for p in programs if p.name not in blamed], seed, sm90_only)
            return
        half = len(programs) // 2
        self.check(programs[:half], seed, sm90_only)
        self.check(programs[half:], seed, sm90_only)

    def record(self, program: ir.Program, stage: str, message: str):
        failure = Failure(program.name, stage, message[:4000], ir.program_module(program), sorted(program.features),
                          seed=program.seed)
        self.failures.append(failure)

    def run_target(self, batch: Batch, target: str):
        """Launches the batch on `target` once per entry of LAUNCHES and compares; returns
        (stage, message) when it fails to compile or crashes, after recording mismatches."""
        import weft

        path = batch.write()
        module = _import(path)
        if self.options.frontend_only:
            arrays = [batch.inputs[t] for t in sorted(batch.inputs)] + list(batch.outputs()[t] for t in sorted(batch.rows_out))
            try:
                module.fz_batch._emit_cuda(*arrays, target=target)
            except (weft.CompileError, weft.InternalCompilerError) as error:
                return f"compile-{target}", f"{type(error).__name__}: {error}"
            return None
        expected = {launch: batch.expected(launch) for launch in set(LAUNCHES)}
        n = self.options.threads
        wrong = {}  # program name -> descriptions of wrong outputs, over all launches
        for launch in LAUNCHES:
            for p in batch.programs:
                for name, values in p.globals.items():
                    setattr(module, name, values[launch])
            outputs = batch.outputs()
            arrays = [batch.inputs[t] for t in sorted(batch.inputs)] + [outputs[t] for t in sorted(outputs)]
            try:
                if target == "gpu":
                    on_device = [weft.to_device(a) for a in arrays]
                    weft.launch(module.fz_batch, *on_device, grid=(n + 31) // 32, block=32, target="gpu")
                    weft.synchronize()
                    for t, d in zip(sorted(outputs), on_device[len(batch.inputs):]):
                        outputs[t][...] = d.copy_to_host()
                else:
                    weft.launch(module.fz_batch, *arrays, grid=(n + 31) // 32, block=32, target=target)
            except (weft.CompileError, weft.InternalCompilerError, weft.CudaError) as error:
                return f"compile-{target}", f"{type(error).__name__}: {error}"
            self.counts.launches += 1
            self.compare(batch, outputs, expected[launch], launch, wrong)
        for name, trace in batch.model_errors.items():
            wrong.pop(name, None)
            self.record(next(p for p in batch.programs if p.name == name), "model", trace)
        self.counts.compilations += module.fz_batch._compile_count
        for p in batch.programs:
            if p.name in wrong:
                bad = wrong[p.name]
                self.record(p, f"run-{target}", f"{len(bad)} wrong outputs; first: " + "\n".join(bad[:3]))
        return None

    def compare(self, batch: Batch, outputs: dict, expected: dict, launch: int, wrong: dict):
        """Counts the outputs of one launch and adds the wrong ones to `wrong`."""
        n = self.options.threads
        for p in batch.programs:
            if p.name in batch.model_errors:
                continue
            bad = wrong.setdefault(p.name, [])
            for j, t in enumerate(batch.models[p.name, launch].output_types):
                ty, row = batch.out_slots[p.name, j]
                for i in range(n):
                    want, spread, approximate = expected[p.name, j][i]
                    got = model.from_array(outputs[ty][row, i], ty)
                    if math.isnan(spread) or math.isinf(spread):
                        self.counts.outputs_unchecked += 1
                        continue
                    if approximate:
                        self.counts.outputs_tolerance += 1
                    else:
                        self.counts.outputs_exact += 1
                    if not _close(got, want, spread, t, approximate):
                        args = [model.from_array(batch.inputs[it][irow, i], it)
                                for it, irow in (batch.in_slots[p.name, k] for k in range(len(p.param_types)))]
                        bad.append(f"output {j} ({t}) of thread {i}, inputs {args!r}, globals of launch {launch}: "
                                   f"weft {model.bits(got, t)}, model {model.bits(want, t)} (spread {spread:g})")
            if not bad:
                del wrong[p.name]

    def compile_sm90(self, batch: Batch, launch: int):
        """weftc --ptx or --cubin -arch sm_90 on the batch module with one launch's globals; the
        error text or None."""
        path = batch.write(launch)
        kind = self.options.sm90_output
        out = path.with_suffix("." + kind)
        try:
            proc = subprocess.run([self.options.weftc, str(path), "--" + kind, "-arch", "sm_90", "-o", str(out)],
                                  capture_output=True, text=True, timeout=WEFTC_TIMEOUT)
        except subprocess.TimeoutExpired:
            return f"weftc timed out after {WEFTC_TIMEOUT} s"
        self.counts.sm90_units += 1
        if proc.returncode != 0:
            return f"weftc exit {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
        written = out.read_bytes() if out.exists() else b""
        if kind == "cubin" and written[:4] != b"\x7fELF":
            return "weftc wrote no cubin"
        if kind == "ptx" and (b".target sm_90" not in written or b".entry" not in written):
            return "weftc wrote no sm_90 PTX with an entry point"
        return None


def signature(failure: Failure) -> str:
    """What makes two failures the same bug for the reducer: the stage and, for compile errors,
    the first message line without places, names and numbers."""
    if failure.stage.startswith("run"):
        return failure.stage
    first = next((line for line in failure.message.splitlines() if "error" in line), failure.message[:200])
    first = re.sub(r"\S+\.py:\d+:\d+: ", "", first)
    first = re.sub(r"'[^']*'", "'_'", first)
    return failure.stage + ":" + re.sub(r"\d+", "N", first)


def failure_of(program: ir.Program, options: Options):
    """The first failure of one program checked alone, or None."""
    runner = Runner(options)
    runner.check([program], 0)
    return runner.failures[0] if runner.failures else None


def frontend_error(text: str, param_types: list, work: pathlib.Path) -> str:
    """The error weft's front end gives for a reproducer module (ir.program_module), or ""."""
    import weft

    path = work / f"fz_frontend_{os.getpid()}_{time.monotonic_ns()}.py"
    path.write_text(text)
    arrays = [np.zeros(2, SCALARS[t].dtype) for t in param_types]
    try:
        module = _import(path)
        module.fz_kernel._emit_cuda(*arrays, target="cpu")
    except (weft.CompileError, weft.InternalCompilerError) as error:
        return f"{type(error).__name__}: {error}"
    except Exception as error:  # a candidate that is no longer a working module: another failure
        return f"candidate: {type(error).__name__}"
    return ""


def minimize(program: ir.Program, failure: Failure, options: Options, budget: int = 600) -> str:
    """A small reproducer module for a failure: the program reduced as a tree (the model keeps
    it well typed), then, for front-end failures, line by line."""
    from . import reduce

    wanted = signature(failure)
    frontend = failure.stage.startswith("compile") and ("InternalCompilerError" in failure.message or
                                                         "CompileError" in failure.message)
    fast = replace(options, frontend_only=True, sm90=False) if frontend else options
    if failure.stage == "sm90":
        fast = replace(options, targets=())

    def still_fails(candidate):
        found = failure_of(candidate, fast)
        return found is not None and signature(found) == wanted

    program = reduce.reduce(program, still_fails, budget)
    text = ir.program_module(program)
    if not frontend:
        return text

    def text_fails(candidate):
        message = frontend_error(candidate, program.param_types, options.work)
        return bool(message) and signature(Failure("", failure.stage, message, "")) == wanted

    return reduce.reduce_lines(text, text_fails)


def find_weftc() -> str:
    """weftc beside this interpreter, else on PATH; "" when absent."""
    beside = pathlib.Path(sys.executable).parent / "weftc"
    if beside.exists():
        return str(beside)
    return shutil.which("weftc") or ""


def _run_batch(seed: int, first: int, last: int, options: Options, deadline: float) -> tuple:
    """Checks programs first..last-1 of `seed` (in a pool worker, or in this process); returns
    (counts, failures), or None when the deadline (time.time()) has passed."""
    if deadline and time.time() > deadline:
        return None
    runner = Runner(options)
    programs = [generator.generate((seed, k), f"p{k}", options.config) for k in range(first, last)]
    runner.run_programs(programs, (seed, first))
    return asdict(runner.counts), [asdict(f) for f in runner.failures]


def _merge(total: dict, counts: dict):
    for key, value in counts.items():
        if isinstance(value, dict):
            for feature, n in value.items():
                total[key][feature] = total[key].get(feature, 0) + n
        else:
            total[key] += value


def run(seed: int, count: int, batch_size: int, options: Options, log=print, time_limit: float = 0, jobs: int = 1,
        first: int = 0) -> dict:
    """Generates `count` programs of `seed` from number `first` on and checks them in batches
    (batch k starts at program first + k * batch_size, so a batch of a report is run again with
    that `first`), `jobs` batches at a time in worker processes (starting no batch after
    `time_limit` seconds, when given); returns the report."""
    started = time.monotonic()
    deadline = time.time() + time_limit if time_limit else 0
    end = first + count
    ranges = [(start, min(end, start + batch_size)) for start in range(first, end, batch_size)]
    counts = asdict(Counts())
    failures = []

    def collect(result):
        if result is None:
            return
        _merge(counts, result[0])
        failures.extend(result[1])
        log(f"fuzz: {counts['programs']}/{count} programs, {len(failures)} failures ({time.monotonic() - started:.0f} s)")

    if jobs <= 1:
        for start, last in ranges:
            collect(_run_batch(seed, start, last, options, deadline))
    else:
        import concurrent.futures
        import multiprocessing

        # Workers start fresh (spawn): a CUDA context does not survive a fork.
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
            futures = [pool.submit(_run_batch, seed, start, last, options, deadline) for start, last in ranges]
            for future in concurrent.futures.as_completed(futures):
                collect(future.result())
    if counts["programs"] < count:
        log(f"fuzz: time limit reached after {counts['programs']} programs")
    failures.sort(key=lambda f: int(re.match(r"p(\d+)", f["program"]).group(1)))
    return {
        "seed": seed,
        "targets": list(options.targets),
        "threads": options.threads,
        "config": asdict(options.config),
        "seconds": round(time.monotonic() - started, 1),
        "counts": counts,
        "failures": failures,
    }
