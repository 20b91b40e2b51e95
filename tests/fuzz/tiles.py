"""The tile differential fuzzer (`python -m tests.fuzz tiles`): random well-typed tile kernels
(docs/tiles.md) in both faces, run on the CPU target and compared with a NumPy model of the same
program written from docs/tiles.md and docs/types.md (not from weft's sources), and in the GPU
mode the GPU's results compared with the CPU target's.

A program loads one to three 2-D tiles of random shapes and dtypes from arrays of random sizes
(the last tile of each axis is usually an edge tile; some arrays hold NaNs and infinities) with a
random padding, computes on them (element-wise operators and functions with broadcasting, mixed
element types, literals, comparisons and `where`, `astype`, reductions along an axis or all,
scans, shape operations, creation, `gather` with and without a mask) and stores one to three
results into arrays that are not multiples of the tile either, so stores clip; some also update
a 1-D array with an atomic (add, max, min, and, or, xor) from every tile block. Every tile block
of a 2-D grid runs it at its own position.

Values that an approximate operation produced (exp, floating sums, products and scans; on the
GPU every floating product, which may be fused into an fma) are compared within a tolerance and
never feed an operation whose result jumps (a comparison, a float-to-integer astype, argmax,
floor), so every other output must match exactly.
"""

import dataclasses
import importlib.util
import itertools
import os
import pathlib
import random
import sys
import time

import numpy as np

from .differential import stable_seed
from .scalars import wrap

# The element types of tile arithmetic, and those only loaded, stored and converted.
ARITH = ("int32", "int64", "float32", "float64")
CONVERT = ARITH + ("int16", "float16")
EXTENTS = (1, 2, 4, 8, 16, 32)
PADDINGS = {  # seed spelling, cuTile spelling, value
    "zero": ("'zero'", "ZERO", 0.0),
    "neg_zero": ("'-0'", "NEG_ZERO", -0.0),
    "pos_inf": ("'+inf'", "POS_INF", np.inf),
    "neg_inf": ("'-inf'", "NEG_INF", -np.inf),
    "nan": ("'nan'", "NAN", np.nan),
}


@dataclasses.dataclass(frozen=True)
class Config:
    """What the generator makes: statements per program, the largest tile (elements), and whether
    floating products are approximate (the GPU fuses them)."""

    max_statements: int = 8
    max_elements: int = 256
    contraction: bool = False


@dataclasses.dataclass
class Value:
    """A tile the program computed: its variable, dtype, shape and what it may hold."""

    name: str
    dtype: str
    shape: tuple
    approx: bool = False  # computed by an approximate operation: compared within a tolerance
    nan: bool = False  # may hold NaN
    inf: bool = False  # may hold an infinity


@dataclasses.dataclass
class Statement:
    """`target = text` in the kernel; `model(env)` computes the target's tile with NumPy."""

    target: Value
    text: str
    model: object
    uses: tuple
    feature: str


@dataclasses.dataclass
class Load:
    """An input array and its tile: the array's shape, the tile shape, the padding."""

    value: Value
    array_shape: tuple
    padding: str
    specials: bool = False  # the array holds some NaNs and infinities


@dataclasses.dataclass
class Store:
    """An output array of `value`'s tiles: its shape (stores clip at its edges). With `atomic`
    (add, max, min, and, or, xor), a 1-D array that every tile block updates with that atomic
    at the elements `index % (n + 2) - 1` (some outside: skipped), where `index % 3 != 0` if
    `masked`; the old values it gives back are not used (their order between blocks is free)."""

    value: Value
    array_shape: tuple
    atomic: str = ""
    index: Value = None
    masked: bool = False

    def line(self, m: str, array: str) -> str:
        if not self.atomic:
            return f"{m}.store({array}, (bi, bj), {self.value.name})"
        mask = f", mask={self.index.name} % 3 != 0" if self.masked else ""
        return (f"{m}.atomic_{self.atomic}({array}, {self.index.name} % {self.array_shape[0] + 2} - 1, "
                f"{self.value.name}{mask})")

    def apply(self, env: dict, out):
        """The model of one tile block's atomic update of `out`."""
        value = env[self.value.name]
        size = self.array_shape[0]
        index = np.mod(env[self.index.name], size + 2) - 1
        keep = (index >= 0) & (index < size)
        if self.masked:
            keep &= np.mod(env[self.index.name], 3) != 0
        ufunc = {"add": np.add, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and, "or": np.bitwise_or,
                 "xor": np.bitwise_xor}[self.atomic]
        ufunc.at(out, index[keep], value[keep])


@dataclasses.dataclass
class Program:
    name: str
    face: str  # "seed" (weft.tiles) or "cutile" (weft.cutile)
    grid: tuple
    loads: list
    statements: list
    stores: list

    @property
    def features(self) -> set:
        found = {s.feature for s in self.statements} | {f"pad_{l.padding}" for l in self.loads} | {self.face}
        found |= {"nan_inf_inputs"} if any(l.specials for l in self.loads) else set()
        found |= {f"atomic_{s.atomic}" for s in self.stores if s.atomic}
        edges = any(l.array_shape[d] % l.value.shape[d] for l in self.loads for d in (0, 1))
        return found | ({"edge_tiles"} if edges else set())

    def body(self, first_array: int) -> list:
        """The program's lines in a kernel whose array parameters a<first_array>... are its
        inputs, then its outputs; `bi`, `bj` are the tile block's position. In a kernel of
        several programs (a batch) each runs where its own grid has the block."""
        m = "ct" if self.face == "seed" else "cu"
        lines = [f"if bi < {self.grid[0]} and bj < {self.grid[1]}:"]
        for i, load in enumerate(self.loads):
            spelled = PADDINGS[load.padding][0 if self.face == "seed" else 1]
            pad = f", padding={spelled}" if self.face == "seed" else f", padding_mode={m}.PaddingMode.{spelled}"
            lines.append(f"    {load.value.name} = {m}.load(a{first_array + i}, (bi, bj), {load.value.shape}{pad})")
        body = [f"    {s.target.name} = {s.text}" for s in self.statements]
        for i, load in enumerate(self.loads):  # a gather names the array of a load
            body = [line.replace(f"@{load.value.name}@", f"a{first_array + i}") for line in body]
        lines += body
        first_out = first_array + len(self.loads)
        lines += [f"    {s.line(m, f'a{first_out + i}')}" for i, s in enumerate(self.stores)]
        return lines

    @property
    def arrays(self) -> int:
        return len(self.loads) + len(self.stores)


def module(programs: list, kernel: str) -> str:
    """A module with one tile kernel that runs the programs (all of one face) on the largest of
    their grids: its parameters are each program's inputs, then outputs, in turn."""
    m = "ct" if programs[0].face == "seed" else "cu"
    count = sum(p.arrays for p in programs)
    lines = [f"@{m}.kernel", f"def {kernel}({', '.join(f'a{i}' for i in range(count))}):",
             f"    bi = {m}.bid(0)", f"    bj = {m}.bid(1)"]
    first = 0
    for p in programs:
        lines += ["    " + line for line in p.body(first)]
        first += p.arrays
    return "from weft import tiles as ct\nfrom weft import cutile as cu\n\n\n" + "\n".join(lines) + "\n"


def _np(dtype: str):
    return np.dtype(dtype)


def _is_float(dtype: str) -> bool:
    return dtype.startswith("float")


def _py_elementwise(fn, dtype: str):
    """A binary integer operation computed on Python ints, wrapped into `dtype`."""

    def apply(x, y):
        x, y = np.broadcast_arrays(x, y)
        out = [wrap(fn(int(a), int(b)), dtype) for a, b in zip(x.ravel(), y.ravel())]
        return np.array(out, dtype=_np(dtype)).reshape(x.shape)

    return apply


def _floordiv(a, b):
    return 0 if b == 0 else a // b


def _mod(a, b):
    return 0 if b == 0 else a % b


def _shl(a, c):
    return 0 if c < 0 else a << min(c, 128)


def _shr(a, c):
    return 0 if c < 0 else a >> min(c, 128)


def _to_int(x, dtype: str):
    """weft's float-to-integer conversion: truncate toward zero, wrap; NaN and infinities give 0."""
    flat = [0 if not np.isfinite(v) else int(v) for v in x.astype(np.float64).ravel()]
    return np.array([wrap(v, dtype) for v in flat], dtype=_np(dtype)).reshape(x.shape)


def astype(x, dtype: str):
    """The model of astype(x, dtype)."""
    if not _is_float(dtype) and x.dtype.kind == "f":
        return _to_int(x, dtype)
    if not _is_float(dtype):
        return np.array([wrap(int(v), dtype) for v in x.ravel()], dtype=_np(dtype)).reshape(x.shape)
    return x.astype(_np(dtype))


class Generator:
    """One program from one random stream."""

    def __init__(self, rng: random.Random, config: Config, name: str):
        self.rng = rng
        self.config = config
        self.name = name
        self.values = []
        self.statements = []
        self.serial = itertools.count()

    def fresh(self, dtype, shape, **flags) -> Value:
        # Names unique across the programs of a batch (one kernel).
        return Value(f"{self.name}_{next(self.serial)}", dtype, tuple(shape), **flags)

    def tile_shape(self) -> tuple:
        while True:
            shape = (self.rng.choice(EXTENTS), self.rng.choice(EXTENTS))
            if shape[0] * shape[1] <= self.config.max_elements:
                return shape

    def emit(self, target: Value, text: str, model, uses, feature: str):
        self.statements.append(Statement(target, text, model, tuple(u.name for u in uses), feature))
        self.values.append(target)
        return target

    def m(self, face: str) -> str:
        return "ct" if face == "seed" else "cu"

    def generate(self) -> Program:
        rng = self.rng
        face = rng.choice(("seed", "cutile"))
        self.face = face
        grid = (rng.randint(1, 3), rng.randint(1, 3))
        loads = []
        for _ in range(rng.randint(1, 3)):
            dtype = rng.choice(ARITH + ("float16",)) if rng.random() < 0.9 else rng.choice(CONVERT)
            shape = self.tile_shape() if not loads or rng.random() < 0.5 else loads[0].value.shape
            padding = rng.choice(list(PADDINGS)) if _is_float(dtype) else "zero"
            specials = _is_float(dtype) and rng.random() < 0.25
            value = self.fresh(dtype, shape, nan=padding == "nan" or specials, inf=padding.endswith("inf") or specials)
            array_shape = tuple(max(1, grid[d] * shape[d] - rng.randint(0, shape[d] - 1)) for d in (0, 1))
            loads.append(Load(value, array_shape, padding, specials))
            self.values.append(value)
        self.loads = loads
        for _ in range(rng.randint(1, self.config.max_statements)):
            self.statement()
        storable = [v for v in self.values if len(v.shape) == 2 and v.dtype in CONVERT]
        stores = []
        for value in rng.sample(storable[-4:], min(len(storable[-4:]), rng.randint(1, 3))):
            array_shape = tuple(max(1, grid[d] * value.shape[d] - rng.randint(0, value.shape[d] - 1)) for d in (0, 1))
            stores.append(Store(value, array_shape))
        if rng.random() < 0.4:
            stores += self.atomic()
        return Program(self.name, face, grid, loads, self.statements, stores)

    def atomic(self) -> list:
        """An atomic update of a 1-D output by every tile block (integers; float32 max and min of
        values that hold no NaN), indexed by an integer tile of the update's shape."""
        update = self.pick(lambda v: len(v.shape) == 2 and (v.dtype in ("int32", "int64") or (
            v.dtype == "float32" and not v.nan and not v.approx)))
        index = update and self.pick(lambda v: v.shape == update.shape and v.dtype in ("int32", "int64"))
        if index is None:
            return []
        ops = ["add", "max", "min", "and", "or", "xor"] if update.dtype != "float32" else ["max", "min"]
        size = self.rng.randint(3, 40)
        return [Store(update, (size,), self.rng.choice(ops), index, self.rng.random() < 0.5)]

    # ---- operations ----

    def pick(self, predicate=lambda v: True):
        choices = [v for v in self.values if predicate(v)]
        return self.rng.choice(choices) if choices else None

    def statement(self):
        kinds = ["binary"] * 5 + ["literal"] * 2 + ["compare"] * 2 + ["reduce"] * 2 + ["shape"] * 2 + [
            "unary", "astype", "scan", "create", "gather"]
        for _ in range(20):
            if getattr(self, "op_" + self.rng.choice(kinds))():
                return

    def broadcast_partner(self, x: Value):
        """A value of x's dtype whose shape broadcasts with x's to x's shape."""

        def fits(v):
            if v.dtype != x.dtype or len(v.shape) > len(x.shape):
                return False
            tail = x.shape[len(x.shape) - len(v.shape):]
            return all(a == b or a == 1 for a, b in zip(v.shape, tail))

        return self.pick(fits)

    def op_binary(self) -> bool:
        x = self.pick(lambda v: v.dtype in ARITH + ("float16",) and len(v.shape) == 2)
        if x is not None and self.rng.random() < 0.25:
            return self.op_mixed(x)
        y = x and self.broadcast_partner(x)
        if y is None:
            return False
        floating = _is_float(x.dtype)
        ops = ["+", "-", "*"]
        if not floating:
            ops += ["//", "%", "&", "|", "^", "<<", ">>"]
        elif x.dtype != "float16":
            ops += ["/"]
        ops += ["max", "min"]
        if floating and x.dtype != "float16":
            ops += ["max_propagate", "max_suppress"]
        op = self.rng.choice(ops)
        m = self.m(self.face)
        approx = x.approx or y.approx
        nan = x.nan or y.nan or (x.inf or y.inf) and op in ("+", "-", "*", "/")
        inf = floating and (x.inf or y.inf or op in "*/" or x.dtype == "float16")
        if op == "/":
            # The divisor y*y + 1 is at least 1: the quotient is exact IEEE and never 0/0.
            t = self.fresh(x.dtype, x.shape, approx=approx or self.config.contraction, nan=nan, inf=inf)
            text = f"{x.name} / ({y.name} * {y.name} + 1)"
            return self.emit(t, text, lambda e, a=x.name, b=y.name, d=x.dtype: e[a] / (e[b] * e[b] + _np(d).type(1)),
                             (x, y), "true_division")
        if op in ("max", "min", "max_propagate", "max_suppress"):
            if op in ("max", "min"):
                function = "maximum" if op == "max" else "minimum"
                text = f"{m}.{function}({x.name}, {y.name})"
                model = np.fmax if op == "max" else np.fmin
            else:
                propagate = op == "max_propagate"
                tag = (f", {m}.propagate_nan" if propagate else f", {m}.suppress_nan") if self.face == "seed" else (
                    f", propagate_nan={propagate}")
                text = f"{m}.maximum({x.name}, {y.name}{tag})"
                model = np.maximum if propagate else np.fmax
            t = self.fresh(x.dtype, x.shape, approx=approx, nan=nan, inf=inf)
            return self.emit(t, text, lambda e, a=x.name, b=y.name, f=model: f(e[a], e[b]), (x, y), "maximum")
        if op in ("//", "%", "<<", ">>"):
            if approx:
                return False
            fn = {"//": _floordiv, "%": _mod, "<<": _shl, ">>": _shr}[op]
            t = self.fresh(x.dtype, x.shape)
            return self.emit(t, f"{x.name} {op} {y.name}",
                             lambda e, a=x.name, b=y.name, f=_py_elementwise(fn, x.dtype): f(e[a], e[b]), (x, y),
                             {"//": "floor_division", "%": "modulo", "<<": "shift", ">>": "shift"}[op])
        product = op == "*" and floating and self.config.contraction
        t = self.fresh(x.dtype, x.shape, approx=approx or product, nan=nan, inf=inf)
        numpy_op = {"+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and, "|": np.bitwise_or,
                    "^": np.bitwise_xor}[op]
        return self.emit(t, f"{x.name} {op} {y.name}", lambda e, a=x.name, b=y.name, f=numpy_op: f(e[a], e[b]), (x, y),
                         "broadcast" if x.shape != y.shape else "binary")

    def op_mixed(self, x: Value) -> bool:
        """x + - * y for a y of another dtype: both faces give the float type if either is one
        (the wider of two), else the wider integer type (docs/tiles.md "How element types meet";
        signed with signed only), and convert both operands to it first."""

        def fits(v):
            tail = x.shape[len(x.shape) - len(v.shape):]
            return (v.dtype in ARITH + ("float16",) and v.dtype != x.dtype and len(v.shape) <= 2 and
                    all(a == b or a == 1 for a, b in zip(v.shape, tail)))

        y = self.pick(fits)
        if y is None:
            return False
        floats = [d for d in (x.dtype, y.dtype) if _is_float(d)]
        dtype = max(floats or (x.dtype, y.dtype), key=lambda d: _np(d).itemsize)
        op = self.rng.choice(["+", "-", "*"])
        floating = _is_float(dtype)
        t = self.fresh(dtype, x.shape, approx=x.approx or y.approx or (op == "*" and floating and self.config.contraction),
                       nan=x.nan or y.nan or (x.inf or y.inf), inf=floating)
        numpy_op = {"+": np.add, "-": np.subtract, "*": np.multiply}[op]
        return self.emit(t, f"{x.name} {op} {y.name}",
                         lambda e, a=x.name, b=y.name, f=numpy_op, d=dtype: f(astype(e[a], d), astype(e[b], d)), (x, y),
                         "mixed_types")

    def op_gather(self) -> bool:
        """gather() from an input array at indices computed from integer tiles, about a tenth of
        them outside the array (the padding value), with or without a mask."""
        load = self.rng.choice(self.loads)
        if load.value.dtype not in ARITH:
            return False
        p = self.pick(lambda v: v.dtype in ("int32", "int64") and len(v.shape) == 2)
        q = p and self.broadcast_partner(p)
        if q is None:
            return False
        rows, cols = load.array_shape
        m = self.m(self.face)
        pad = self.rng.choice([0, -1.5] if _is_float(load.value.dtype) else [0, -1])
        masked = self.rng.random() < 0.5
        mask = f", mask={p.name} % 3 != 0" if masked else ""
        text = (f"{m}.gather(@{load.value.name}@, ({p.name} % {rows + 2} - 1, {q.name} % {cols + 2} - 1), "
                f"padding_value={pad}{mask})")
        t = self.fresh(load.value.dtype, p.shape, nan=load.specials, inf=load.specials)

        def model(e, a=f"@{load.value.name}@", i=p.name, j=q.name, pad=pad, masked=masked):
            array = e[a]
            r, c = np.broadcast_arrays(np.mod(e[i], rows + 2) - 1, np.mod(e[j], cols + 2) - 1)
            inside = (r >= 0) & (r < rows) & (c >= 0) & (c < cols)
            if masked:
                inside &= np.mod(e[i], 3) != 0
            values = array[np.clip(r, 0, rows - 1), np.clip(c, 0, cols - 1)]
            return np.where(inside, values, array.dtype.type(pad)).astype(array.dtype)

        return self.emit(t, text, model, (p, q, load.value), "gather")

    def op_literal(self) -> bool:
        x = self.pick(lambda v: v.dtype in ARITH and len(v.shape) == 2)
        if x is None:
            return False
        floating = _is_float(x.dtype)
        literal = self.rng.choice([0.5, 1.25, -3.0, 2, -1] if floating else [3, -1, 7, 100, -100000])
        op = self.rng.choice(["+", "-", "*"])
        left = self.rng.random() < 0.3
        text = f"{literal} {op} {x.name}" if left else f"{x.name} {op} {literal}"
        t = self.fresh(x.dtype, x.shape, approx=x.approx or (op == "*" and floating and self.config.contraction),
                       nan=x.nan or x.inf and op == "*", inf=x.inf or floating and op == "*")
        numpy_op = {"+": np.add, "-": np.subtract, "*": np.multiply}[op]

        def model(e, a=x.name, f=numpy_op, c=_np(x.dtype).type(literal), left=left):
            return f(c, e[a]) if left else f(e[a], c)

        return self.emit(t, text, model, (x,), "literal")

    def op_unary(self) -> bool:
        x = self.pick(lambda v: v.dtype in ARITH and len(v.shape) == 2)
        if x is None:
            return False
        m = self.m(self.face)
        choices = ["neg", "abs"] + (["exp", "sqrt_abs", "floor", "ceil"] if _is_float(x.dtype) else ["invert"])
        op = self.rng.choice(choices)
        if op in ("floor", "ceil") and x.approx:
            return False
        text, model, flags = {
            "neg": (f"-{x.name}", np.negative, {}),
            "abs": (f"{m}.abs({x.name})", np.abs, {}),
            "invert": (f"~{x.name}", np.invert, {}),
            "exp": (f"{m}.exp({x.name})", np.exp, {"approx": True, "inf": True}),
            "sqrt_abs": (f"{m}.sqrt({m}.abs({x.name}))", lambda v: np.sqrt(np.abs(v)), {}),
            "floor": (f"{m}.floor({x.name})", np.floor, {}),
            "ceil": (f"{m}.ceil({x.name})", np.ceil, {}),
        }[op]
        t = self.fresh(x.dtype, x.shape, approx=x.approx or flags.get("approx", False), nan=x.nan,
                       inf=x.inf or flags.get("inf", False))
        return self.emit(t, text, lambda e, a=x.name, f=model: f(e[a]), (x,), op)

    def op_compare(self) -> bool:
        x = self.pick(lambda v: v.dtype in ARITH and len(v.shape) == 2 and not v.approx)
        y = x and self.broadcast_partner(x)
        if y is None or y.approx:
            return False
        p = self.pick(lambda v: v.shape == x.shape and v.dtype in ARITH)
        q = p and self.broadcast_partner(p)
        if q is None:
            return False
        op = self.rng.choice(["<", "<=", ">", ">=", "==", "!="])
        m = self.m(self.face)
        t = self.fresh(p.dtype, x.shape, approx=p.approx or q.approx, nan=p.nan or q.nan, inf=p.inf or q.inf)
        numpy_op = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal,
                    "!=": np.not_equal}[op]

        def model(e, a=x.name, b=y.name, c=p.name, d=q.name, f=numpy_op):
            return np.where(f(e[a], e[b]), e[c], np.broadcast_to(e[d], e[c].shape)).astype(e[c].dtype)

        return self.emit(t, f"{m}.where({x.name} {op} {y.name}, {p.name}, {q.name})", model, (x, y, p, q), "where")

    def op_astype(self) -> bool:
        x = self.pick(lambda v: len(v.shape) == 2 and v.dtype in CONVERT)
        if x is None:
            return False
        dtype = self.rng.choice([d for d in CONVERT if d != x.dtype])
        if _is_float(x.dtype) and not _is_float(dtype) and x.approx:
            return False
        m = self.m(self.face)
        text = f"{x.name}.astype({m}.{dtype})" if self.rng.random() < 0.5 else f"{m}.astype({x.name}, {m}.{dtype})"
        floating = _is_float(dtype)
        t = self.fresh(dtype, x.shape, approx=x.approx and floating, nan=x.nan and floating,
                       inf=floating and (x.inf or dtype == "float16" or x.dtype in ("float64", "int64")))
        return self.emit(t, text, lambda e, a=x.name, d=dtype: astype(e[a], d), (x,), "astype")

    def op_reduce(self) -> bool:
        x = self.pick(lambda v: v.dtype in ARITH and len(v.shape) == 2)
        if x is None:
            return False
        floating = _is_float(x.dtype)
        op = self.rng.choice(["sum", "prod", "max", "min", "argmax", "argmin"])
        if op in ("max", "min", "argmax", "argmin") and (x.approx or x.nan):
            return False  # NaN in max/argmax: docs/tiles.md does not say
        axis = self.rng.choice([0, 1, None])
        keepdims = axis is None or self.rng.random() < 0.6
        m = self.m(self.face)
        shape = (1, 1) if axis is None else tuple(1 if d == axis else n for d, n in enumerate(x.shape))
        dtype = "int32" if op.startswith("arg") else x.dtype
        text = f"{m}.{op}({x.name}, axis={axis}, keepdims=True)"
        if axis is not None and not keepdims:
            # Without keepdims the axis goes; expand_dims puts it back as a 2-D tile.
            text = f"{m}.expand_dims({m}.{op}({x.name}, axis={axis}), {axis})"
        approx = floating and op in ("sum", "prod") or x.approx
        t = self.fresh(dtype, shape, approx=approx, nan=x.nan or (x.inf and floating and op in ("sum", "prod")),
                       inf=x.inf and not op.startswith("arg") or floating and op in ("sum", "prod"))

        def model(e, a=x.name, op=op, axis=axis):
            v = e[a]
            if op == "sum":
                r = np.sum(v, axis=axis, keepdims=True, dtype=v.dtype)
            elif op == "prod":
                r = np.prod(v, axis=axis, keepdims=True, dtype=v.dtype)
            elif op in ("max", "min"):
                r = (np.max if op == "max" else np.min)(v, axis=axis, keepdims=True)
            else:
                f = np.argmax if op == "argmax" else np.argmin
                r = f(v.ravel()).reshape(1, 1) if axis is None else np.expand_dims(f(v, axis=axis), axis)
                r = r.astype(np.int32)
            return r

        return self.emit(t, text, model, (x,), f"reduce_{op}")

    def op_scan(self) -> bool:
        x = self.pick(lambda v: v.dtype in ARITH and len(v.shape) == 2)
        if x is None:
            return False
        op = self.rng.choice(["cumsum", "cumprod"])
        axis = self.rng.choice([0, 1])
        m = self.m(self.face)
        floating = _is_float(x.dtype)
        t = self.fresh(x.dtype, x.shape, approx=x.approx or floating, nan=x.nan or x.inf, inf=floating)
        f = np.cumsum if op == "cumsum" else np.cumprod
        return self.emit(t, f"{m}.{op}({x.name}, axis={axis})",
                         lambda e, a=x.name, f=f, axis=axis: f(e[a], axis=axis, dtype=e[a].dtype), (x,), "scan")

    def op_shape(self) -> bool:
        x = self.pick(lambda v: len(v.shape) == 2)
        if x is None:
            return False
        m = self.m(self.face)
        r, c = x.shape
        op = self.rng.choice(["transpose", "permute", "reshape", "broadcast", "cat", "extract"])
        same = dict(approx=x.approx, nan=x.nan, inf=x.inf)
        if op in ("transpose", "permute"):
            t = self.fresh(x.dtype, (c, r), **same)
            text = f"{m}.transpose({x.name})" if op == "transpose" else f"{m}.permute({x.name}, (1, 0))"
            return self.emit(t, text, lambda e, a=x.name: e[a].T.copy(), (x,), "transpose")
        if op == "reshape":
            n = r * c
            rows = self.rng.choice([e for e in EXTENTS if e <= n and n // e in EXTENTS])
            t = self.fresh(x.dtype, (rows, n // rows), **same)
            return self.emit(t, f"{m}.reshape({x.name}, {t.shape})",
                             lambda e, a=x.name, s=t.shape: e[a].reshape(s), (x,), "reshape")
        if op == "broadcast":
            shape = tuple(self.rng.choice([e for e in EXTENTS if e <= 32]) if n == 1 else n for n in x.shape)
            if shape[0] * shape[1] > self.config.max_elements or shape == x.shape:
                return False
            t = self.fresh(x.dtype, shape, **same)
            return self.emit(t, f"{m}.broadcast_to({x.name}, {shape})",
                             lambda e, a=x.name, s=shape: np.broadcast_to(e[a], s).copy(), (x,), "broadcast_to")
        if op == "cat":
            y = self.pick(lambda v: v.shape == x.shape and v.dtype == x.dtype)
            axis = self.rng.choice([0, 1])
            shape = (2 * r, c) if axis == 0 else (r, 2 * c)
            if shape[axis] > 32 or shape[0] * shape[1] > self.config.max_elements:
                return False
            t = self.fresh(x.dtype, shape, approx=x.approx or y.approx, nan=x.nan or y.nan, inf=x.inf or y.inf)
            return self.emit(t, f"{m}.cat(({x.name}, {y.name}), {axis})",
                             lambda e, a=x.name, b=y.name, axis=axis: np.concatenate([e[a], e[b]], axis), (x, y), "cat")
        sub = (self.rng.choice([e for e in EXTENTS if e <= r]), self.rng.choice([e for e in EXTENTS if e <= c]))
        index = (self.rng.randrange(r // sub[0]), self.rng.randrange(c // sub[1]))
        t = self.fresh(x.dtype, sub, **same)

        def model(e, a=x.name, s=sub, i=index):
            return e[a][i[0] * s[0]:(i[0] + 1) * s[0], i[1] * s[1]:(i[1] + 1) * s[1]]

        return self.emit(t, f"{m}.extract({x.name}, {index}, {sub})", model, (x,), "extract")

    def op_create(self) -> bool:
        m = self.m(self.face)
        dtype = self.rng.choice(ARITH)
        shape = self.tile_shape()
        kind = self.rng.choice(["full", "zeros", "ones", "arange"])
        if kind == "arange":
            n = shape[0] * shape[1]
            t = self.fresh("int32", shape)
            return self.emit(t, f"{m}.reshape({m}.arange({n}), {shape})",
                             lambda e, n=n, s=shape: np.arange(n, dtype=np.int32).reshape(s), (), "arange")
        value = {"full": (2.5 if _is_float(dtype) else -7), "zeros": 0, "ones": 1}[kind]
        text = (f"{m}.full({shape}, {value}, {m}.{dtype})" if kind == "full" else f"{m}.{kind}({shape}, {m}.{dtype})")
        t = self.fresh(dtype, shape)
        return self.emit(t, text, lambda e, v=value, s=shape, d=dtype: np.full(s, v, dtype=_np(d)), (), kind)


def generate(seed: int, index: int, config: Config) -> Program:
    """Program `index` of the run with `seed` (the same on every machine)."""
    name = f"tile{index}"
    return Generator(random.Random(stable_seed((seed, index, "tiles"))), config, name).generate()


# ---- inputs, the model, the comparison ----


def inputs(program: Program, seed: int):
    """Random input arrays (NumPy) and the initial contents of the outputs (random too, so that
    a store outside its tile's elements shows)."""
    rng = np.random.default_rng(stable_seed((seed, program.name, "inputs")))

    def random_array(dtype, shape):
        if _is_float(dtype):
            return (rng.standard_normal(shape) * 4).astype(_np(dtype))
        low, high = (-100, 100) if rng.random() < 0.7 else (np.iinfo(dtype).min // 2, np.iinfo(dtype).max // 2)
        return rng.integers(low, high, shape, dtype=np.int64).astype(_np(dtype))

    ins = [random_array(l.value.dtype, l.array_shape) for l in program.loads]
    for load, array in zip(program.loads, ins):
        if load.specials:
            where = rng.random(array.shape) < 0.15
            array[where] = rng.choice(np.array([np.nan, np.inf, -np.inf], array.dtype), int(where.sum()))
    outs = [random_array(s.value.dtype, s.array_shape) for s in program.stores]
    return ins, outs


def model(program: Program, ins: list, outs: list) -> list:
    """The outputs the model computes from the inputs and the outputs' initial contents."""
    expected = [o.copy() for o in outs]
    with np.errstate(all="ignore"):
        for bi, bj in itertools.product(range(program.grid[0]), range(program.grid[1])):
            env = {}
            for load, array in zip(program.loads, ins):
                m, n = load.value.shape
                padded = np.full((program.grid[0] * m, program.grid[1] * n), PADDINGS[load.padding][2], dtype=array.dtype)
                padded[: array.shape[0], : array.shape[1]] = array
                env[load.value.name] = padded[bi * m:(bi + 1) * m, bj * n:(bj + 1) * n].copy()
                env[f"@{load.value.name}@"] = array
            for s in program.statements:
                result = np.asarray(s.model(env))
                assert result.shape == s.target.shape and result.dtype == _np(s.target.dtype), (s.text, result.shape,
                                                                                              result.dtype)
                env[s.target.name] = result
            for store, out in zip(program.stores, expected):
                if store.atomic:
                    store.apply(env, out)
                    continue
                m, n = store.value.shape
                rows = out[bi * m:(bi + 1) * m, bj * n:(bj + 1) * n]
                rows[...] = env[store.value.name][: rows.shape[0], : rows.shape[1]]
    return expected


def _tolerance(dtype: str, want) -> float:
    finite = np.abs(want[np.isfinite(want)].astype(np.float64))
    scale = 1.0 + (float(finite.max()) if finite.size else 0.0)
    return scale * {"float16": 2e-2, "float32": 2e-4, "float64": 1e-9}[dtype]


def mismatch(store: Store, got, want) -> str:
    """Why `got` is not `want` for this output (exactly, or within the tolerance of an
    approximate value), or '' when it matches."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"shape/dtype {got.shape} {got.dtype} != {want.shape} {want.dtype}"
    if _is_float(store.value.dtype):
        g, w = got.astype(np.float64), want.astype(np.float64)
        same_nan = np.isnan(g) == np.isnan(w)
        if store.value.approx:
            close = np.isclose(g, w, rtol=0, atol=_tolerance(store.value.dtype, want), equal_nan=True) | (g == w)
        else:
            close = (g == w) | (np.isnan(g) & np.isnan(w))
        bad = ~(close & same_nan)
    else:
        bad = got != want
    if not bad.any():
        return ""
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return f"{int(bad.sum())} elements differ; first at {where}: got {got[where]!r}, want {want[where]!r}"


# ---- running ----


_SERIAL = itertools.count()


def _import(text: str, work: pathlib.Path, kernel: str):
    # A module name used once per process: weft reads a kernel's source through linecache.
    name = f"tfz{os.getpid()}_{next(_SERIAL)}"
    path = work / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return getattr(module, kernel)


def launch(programs: list, target: str, data: list, work: pathlib.Path) -> list:
    """Each program's outputs after running the batch on `target` (NumPy arrays); `data` holds
    each program's (inputs, initial outputs)."""
    import weft

    kernel_name = f"tiles_{programs[0].name}"
    kernel = _import(module(programs, kernel_name), work, kernel_name)
    arrays = [a.copy() for ins, outs in data for a in ins + outs]
    grid = tuple(max(p.grid[d] for p in programs) for d in (0, 1))
    if target == "gpu":
        dev = [weft.to_device(a) for a in arrays]
        weft.launch(kernel, *dev, grid=grid, target="gpu")
        weft.synchronize()
        arrays = [d.copy_to_host() for d in dev]
    else:
        weft.launch(kernel, *arrays, grid=grid, target="cpu")
    results, first = [], 0
    for p in programs:
        results.append(arrays[first + len(p.loads):first + p.arrays])
        first += p.arrays
    return results


def check(programs: list, seed: int, targets: tuple, work: pathlib.Path) -> list:
    """(program, stage, message) for each failing program of a batch: the CPU target against the
    model, the GPU against the CPU target. A batch that fails to compile or launch is checked
    again program by program."""
    data = [inputs(p, seed) for p in programs]
    wants = [model(p, ins, outs) for p, (ins, outs) in zip(programs, data)]
    results = {}
    for target in targets:
        try:
            results[target] = launch(programs, target, data, work)
        except Exception as error:  # noqa: BLE001 (any failure of weft is a finding)
            if len(programs) > 1:
                return [f for p in programs for f in check([p], seed, targets, work)]
            return [(programs[0], f"{target} launch", f"{type(error).__name__}: {error}")]
    found = []
    for k, p in enumerate(programs):
        for target, got in results.items():
            reference = wants[k] if target == "cpu" or "cpu" not in results else results["cpu"][k]
            against = "the model" if reference is wants[k] else "the CPU target"
            why = next((f"output {i} ({s.value.name}) against {against}: {w}"
                        for i, s in enumerate(p.stores) if (w := mismatch(s, got[k][i], reference[i]))), "")
            if why:
                found.append((p, f"{target} output", why))
                break
    return found


def reduce_program(program: Program, seed: int, targets: tuple, work: pathlib.Path, stage: str) -> Program:
    """A smaller program that fails at the same stage: one store alone if one suffices, then
    without the statements and loads no store needs."""

    def fails(candidate):
        return any(f[1] == stage for f in check([candidate], seed, targets, work))

    for store in program.stores:
        alone = dataclasses.replace(program, stores=[store])
        if len(program.stores) > 1 and fails(alone):
            program = alone
            break
    needed = {s.value.name for s in program.stores} | {s.index.name for s in program.stores if s.atomic}
    kept = []
    for s in reversed(program.statements):
        if s.target.name in needed:
            kept.append(s)
            needed |= set(s.uses)
    smaller = dataclasses.replace(program, statements=kept[::-1],
                                  loads=[l for l in program.loads if l.value.name in needed] or program.loads[:1])
    return smaller if fails(smaller) else program


def run(seed: int, count: int, targets: tuple = ("cpu",), config: Config = Config(), work: pathlib.Path = None,
        time_limit: float = 0, first: int = 0, batch: int = 8, log=print) -> dict:
    """Generates and checks programs first .. first+count-1, `batch` of them per kernel (by
    face); the report has counts, features and failures (each with a reduced reproducer)."""
    work = work or pathlib.Path(f"/tmp/weft-tile-fuzz-{os.getpid()}")
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    counts = {"programs": 0, "kernels": 0, "launches": 0, "outputs": 0, "approximate_outputs": 0, "features": {}}
    failures = []
    for start in range(first, first + count, batch):
        if time_limit and time.monotonic() - started > time_limit:
            break
        programs = [generate(seed, index, config) for index in range(start, min(start + batch, first + count))]
        for face in ("seed", "cutile"):
            group = [p for p in programs if p.face == face]
            if not group:
                continue
            counts["kernels"] += 1
            counts["launches"] += len(targets)
            for p in group:
                counts["programs"] += 1
                counts["outputs"] += len(p.stores)
                counts["approximate_outputs"] += sum(s.value.approx for s in p.stores)
                for feature in p.features:
                    counts["features"][feature] = counts["features"].get(feature, 0) + 1
            for program, stage, message in check(group, seed, targets, work):
                reduced = reduce_program(program, seed, targets, work, stage)
                failures.append({"program": program.name, "stage": stage, "message": message[:4000],
                                 "reproducer": module([reduced], program.name), "grid": list(reduced.grid),
                                 "arrays": [list(l.array_shape) for l in reduced.loads] +
                                           [list(s.array_shape) for s in reduced.stores]})
                log(f"tiles: {program.name} fails ({stage}): {message[:300]}")
    return {"seed": seed, "targets": list(targets), "config": dataclasses.asdict(config), "counts": counts,
            "failures": failures}
