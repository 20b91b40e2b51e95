"""The model: compiles a generated program (tests/fuzz/ir.py) into a Python function that computes
what DESIGN.md section 3 says the program computes, with the operations of tests/fuzz/model.py.

Typing follows DESIGN.md: weak literals (folded with Python semantics while both operands are
literals), Array API promotion, one type per variable (the promotion of every value assigned,
found by iterating to a fixed point), functions specialized per argument types, `if` on a
compile-time constant checking only the branch taken. A program the rules reject raises
`Rejected`: the generator then made a program it did not mean to.

Every value also carries an *approximate* flag (tests/fuzz/model.py). An approximate value may
flow into arithmetic, min/max, conversions to floating types, smooth math functions and outputs;
anywhere a few ulps could change a discrete outcome (conditions, comparisons, `//`, `%`,
conversions to integers, step-like math functions) it is rejected, so that every integer and
bool output is exact and float outputs are compared with the tolerance the perturbed runs show.
"""

import math
import operator
from dataclasses import dataclass, replace

import numpy as np

from . import ir, model
from .scalars import (
    SCALARS, combine_weak, fits, floating_for, is_complex, is_float, is_intlike, join_weak, literal_kind, promote,
    real_part,
)


class Rejected(Exception):
    """The program breaks a typing rule or the approximate-value rule."""


@dataclass(frozen=True)
class Value:
    """A typed expression: `type` is a scalar name or a tuple of them; a weak literal has its
    Python `const` and no code; `approx` is a bool (a tuple of bools for tuples). A typed value
    weft knows at compile time (a conversion of a constant, a local assigned a constant once, a
    math predicate of an integer, a comparison decided by its constants) has its value, of its
    type, as `known` (a tuple of them for a tuple of such values): weft then checks only the
    branch such a condition takes."""

    type: object
    code: str = ""
    weak: bool = False
    const: object = None
    approx: object = False
    known: object = None

    @property
    def constant(self) -> bool:
        """Whether weft knows the value at compile time (a weak literal or a known value)."""
        return self.weak or self.known is not None

    @property
    def truth_value(self) -> bool:
        return bool(model.truth(self.const if self.weak else self.known))


_FOLD = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "<<": operator.lshift, ">>": operator.rshift, "&": operator.and_,
    "|": operator.or_, "^": operator.xor,
}
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
            ">=": operator.ge}


def _check_constant(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and not -(2**63) <= value < 2**64:
        raise Rejected("a constant expression overflows int64 and uint64")
    if isinstance(value, complex) and not (math.isfinite(value.real) and math.isfinite(value.imag)):
        raise Rejected("a non-finite complex constant")
    return value


def fold(op: str, a, b):
    """A binary operation on two weak constants, with Python semantics and weft's limits."""
    if op in ("//", "%", "/") and b == 0:
        raise Rejected("division by zero in a constant expression")
    if op in ("<<", ">>", "&", "|", "^") and not (isinstance(a, int) and isinstance(b, int)):
        raise Rejected(f"{op} of non-integer constants")
    if op in ("<<", ">>") and not 0 <= b < 64:
        raise Rejected("a constant shift count outside 0..63")
    if op == "**" and (abs(b) > 64 or isinstance(a, complex) or isinstance(b, complex)):
        raise Rejected("a constant power out of the generator's range")
    if op in ("//", "%") and (isinstance(a, complex) or isinstance(b, complex)):
        raise Rejected("// or % of complex constants")
    try:
        return _check_constant(_FOLD[op](a, b))
    except (OverflowError, ZeroDivisionError) as error:
        raise Rejected(f"constant folding failed: {error}") from error


class Namespace:
    """The model functions and constants a compiled program's code refers to, by name."""

    def __init__(self):
        self.names = {"truth": model.truth}
        self._keys = {}

    def bind(self, key, make) -> str:
        """The name of the object `make()` builds, built once per key."""
        name = self._keys.get(key)
        if name is None:
            name = f"_m{len(self._keys)}"
            self._keys[key] = name
            self.names[name] = make()
        return name

    def constant(self, value, t: str) -> str:
        """The name of the constant `value` (a Python number) converted to type `t`."""
        return self.bind(("const", t, repr(value), type(value).__name__), lambda: constant_value(value, t))


def constant_value(value, t: str):
    """A Python constant converted to type `t` as a literal is: from its exact value, rounded once
    (a float constant is a float64, a complex one a complex128)."""
    if isinstance(value, float):
        return model.convert(np.float64(value), "float64", t)
    if isinstance(value, complex):
        return model.convert(np.complex128(value), "complex128", t)
    return model.convert(value, literal_kind(value), t)


def _weak_value(value) -> "Value":
    return Value(literal_kind(value), weak=True, const=_check_constant(value))


class FunctionCompiler:
    """Types and translates one specialization of one function."""

    def __init__(self, program: "ProgramCompiler", function: ir.Function, types: tuple, approx: tuple, name: str):
        self.program = program
        self.function = function
        self.param_types = types
        self.param_approx = approx
        self.name = name
        self.ns = program.ns
        self.locals = {}  # name -> (strong type or None, weak kind or None, approx)
        self.arrays = {}  # local array name -> (element type, size, approx)
        self.returns = None  # (strong, weak kind, approx) of the returns seen in this pass
        self.assumed_returns = None  # the same at the end of the previous pass
        self.temp = 0
        self.loops = 0  # loops around the statement being compiled
        # How many places bind each name (weft's prescan: an augmented assignment or a for
        # loop counts twice); a name bound once from a constant is a constant local.
        self.sites = _binding_sites(function.body)
        self.constants = {}  # constant local -> its value, of its type
        self.dead = False  # the rest of the block being compiled is dead code

    # --- the fixed point ---------------------------------------------------------------------

    def compile(self) -> tuple:
        """(return type, return approx, Python source of the function)."""
        for _ in range(6):
            before = (dict(self.locals), dict(self.arrays), self.returns, repr(self.constants))
            self.assumed_returns, self.returns = self.returns, None
            self.temp = 0
            lines = self.block(self.function.body, "    ")
            if before == (self.locals, self.arrays, self.returns, repr(self.constants)):  # repr: NaN == NaN
                break
        else:
            raise Rejected("variable types did not settle")
        if self.returns is None:
            raise Rejected(f"{self.function.name} returns nothing")
        ret_type = self.join_result(self.returns)
        params = ", ".join(f"l_{p}" for p in self.function.params)
        return ret_type, self.returns[2], f"def {self.name}({params}):\n" + "\n".join(lines) + "\n"

    @staticmethod
    def join_result(state):
        strong, weak, _ = state
        if strong is None:
            return weak
        if weak is not None and isinstance(strong, str):
            return combine_weak(strong, weak)
        return strong

    def join(self, state, v: Value):
        """`state` (strong, weak, approx) joined with an assigned value, as DESIGN.md's one type
        per variable requires."""
        strong, weak, approx = state if state else (None, None, v.approx)
        approx = _merge(approx, v.approx)
        if v.weak:
            if strong is not None and not isinstance(strong, str):
                raise Rejected("a constant joins a tuple")
            weak = v.type if weak is None else join_weak(weak, v.type)
        elif strong is None:
            strong = v.type
        else:
            strong = _join_types(strong, v.type)
        return strong, weak, approx

    def local_type(self, name: str):
        if name in self.function.params:
            i = self.function.params.index(name)
            return self.param_types[i], self.param_approx[i]
        state = self.locals.get(name)
        if state is None:
            raise Rejected(f"'{name}' is used before it has a type")
        return self.join_result(state), state[2]

    def assign(self, name: str, v: Value, indent: str) -> list:
        if name in self.function.params:
            raise Rejected("a parameter is assigned")
        self.locals[name] = self.join(self.locals.get(name), v)
        t, _ = self.local_type(name)
        code = self.convert(v, t)
        if self.sites.get(name) == 1 and v.constant and isinstance(t, str):
            self.constants[name] = self.known_as(v, t)
        else:
            self.constants.pop(name, None)
        return [f"{indent}l_{name} = {code}"]

    def known_as(self, v: Value, t: str):
        """The value of constant `v` (weak or known) converted to type `t`, as weft converts it."""
        return constant_value(v.const, t) if v.weak else model.convert(v.known, v.type, t)

    # --- conversions ---------------------------------------------------------------------------

    def convert(self, v: Value, t) -> str:
        """Code for `v` converted to type `t` (a weak constant must fit)."""
        if not isinstance(t, str):
            if v.type == t:
                return v.code
            if not isinstance(v.type, tuple) or len(v.type) != len(t):
                raise Rejected(f"cannot convert {v.type} to {t}")
            tmp = self.fresh()
            parts = [self.convert(Value(a, f"{tmp}[{i}]", approx=_nth(v.approx, i)), b) for i, (a, b) in enumerate(zip(v.type, t))]
            return f"(({tmp} := {v.code}), ({', '.join(parts)},))[1]"
        if not isinstance(v.type, str):
            raise Rejected(f"cannot convert a tuple to {t}")
        if v.weak:
            if not fits(v.const, t, truncate=True) or (isinstance(v.const, complex) and not is_complex(t)):
                raise Rejected(f"constant {v.const!r} does not fit {t}")
            return self.ns.constant(v.const, t)
        if is_complex(v.type) and not is_complex(t):
            raise Rejected("a complex converts to a real")
        if v.approx and is_intlike(t):
            raise Rejected("an approximate value converts to an integer")
        if v.type == t:
            return v.code
        src = v.type
        name = self.ns.bind(("convert", src, t), lambda: (lambda x: model.convert(x, src, t)))
        return f"{name}({v.code})"

    def promote_to(self, v: Value, t: str) -> str:
        """An operand promoted to an operation's type: a weak literal must fit without truncation."""
        if v.weak and not fits(v.const, t):
            raise Rejected(f"literal {v.const!r} does not fit {t}")
        return self.convert(v, t)

    def fresh(self) -> str:
        self.temp += 1
        return f"_t{self.temp}"

    def exact(self, v: Value, what: str):
        if _any(v.approx):
            raise Rejected(f"an approximate value reaches {what}")

    # --- statements ----------------------------------------------------------------------------

    def block(self, body: list, indent: str) -> list:
        lines = []
        for s in body:
            if self.dead:
                break  # after a constant if whose branch always returns: neither checked nor run
            lines += self.statement(s, indent)
        self.dead = False
        return lines or [f"{indent}pass"]

    def statement(self, s, indent: str) -> list:
        if isinstance(s, ir.Assign):
            return self.assign(s.target, self.expr(s.value), indent)
        if isinstance(s, ir.Unpack):
            v = self.expr(s.value)
            if not isinstance(v.type, tuple) or len(v.type) != len(s.targets):
                raise Rejected("unpacking needs a tuple of as many values")
            tmp = self.fresh()
            lines = [f"{indent}{tmp} = {v.code}"]
            for i, target in enumerate(s.targets):
                known = None if v.known is None else v.known[i]
                lines += self.assign(target, Value(v.type[i], f"{tmp}[{i}]", approx=_nth(v.approx, i), known=known), indent)
            return lines
        if isinstance(s, ir.LocalArray):
            if s.target in self.locals or s.target in self.function.params or s.size < 1:
                raise Rejected("a local array needs a new name and a positive size")
            previous = self.arrays.get(s.target)
            self.arrays[s.target] = (s.type, s.size, previous[2] if previous else False)
            return [f"{indent}l_{s.target} = [None] * {s.size}"]
        if isinstance(s, ir.Store):
            t, size, approx = self.array(s.array)
            index = self.index(s.index)
            v = self.expr(s.value)
            if not isinstance(v.type, str):
                raise Rejected("a tuple stored into an array")
            self.arrays[s.array] = (t, size, approx or _any(v.approx))
            return [f"{indent}l_{s.array}[{index}] = {self.convert(v, t)}"]
        if isinstance(s, ir.AugAssign):
            return self.assign(s.target, self.binary(s.op, self.expr(ir.Name(s.target)), self.expr(s.value)), indent)
        if isinstance(s, ir.If):
            test = self.condition(s.test)
            if test.constant:  # only the branch taken exists, and when it returns, nothing after
                taken = s.body if test.truth_value else s.orelse
                lines = self.block(taken, indent) if taken else []
                self.dead = _always_returns(taken)
                return lines
            lines = [f"{indent}if {test.code}:", *self.block(s.body, indent + "    ")]
            if s.orelse:
                lines += [f"{indent}else:", *self.block(s.orelse, indent + "    ")]
            return lines
        if isinstance(s, ir.For):
            bounds, t = self.range_bounds(s.args)
            self.locals[s.target] = self.join(self.locals.get(s.target), Value(t))
            if self.local_type(s.target)[0] != t:
                raise Rejected("a loop variable is assigned another type")
            lines = [f"{indent}for l_{s.target} in range({', '.join(bounds)}):", *self.loop_body(s.body, indent + "    ")]
            if s.orelse:
                lines += [f"{indent}else:", *self.block(s.orelse, indent + "    ")]
            return lines
        if isinstance(s, ir.While):
            test = self.condition(s.test)
            if test.weak:
                raise Rejected("a while loop on a constant")
            lines = [f"{indent}while {test.code}:", *self.loop_body(s.body, indent + "    ")]
            if s.orelse:
                lines += [f"{indent}else:", *self.block(s.orelse, indent + "    ")]
            return lines
        if isinstance(s, (ir.Break, ir.Continue)):
            if not self.loops:
                raise Rejected("break or continue outside a loop")
            return [f"{indent}{'break' if isinstance(s, ir.Break) else 'continue'}"]
        if isinstance(s, ir.Return):
            v = self.expr(s.value)
            if v.weak and self.returns and self.returns[0] is not None and not isinstance(self.returns[0], str):
                raise Rejected("a constant and a tuple are returned")
            self.returns = self.join(self.returns, v)
            whole = self.join(self.assumed_returns, v) if self.assumed_returns else self.returns
            return [f"{indent}return {self.convert(v, self.join_result(whole))}"]
        raise TypeError(f"not a statement: {s!r}")

    def loop_body(self, body: list, indent: str) -> list:
        self.loops += 1
        try:
            return self.block(body, indent)
        finally:
            self.loops -= 1

    def range_bounds(self, args: list):
        if not 1 <= len(args) <= 3:
            raise Rejected("range() takes 1 to 3 arguments")
        values = [self.expr(a) for a in args]
        if len(values) == 1:
            values.insert(0, _weak_value(0))
        if len(values) == 2:
            values.append(_weak_value(1))
        strong = weak = None
        for v in values:
            if not isinstance(v.type, str) or not is_intlike(v.type):
                raise Rejected("range() of a non-integer")
            self.exact(v, "range()")
            if v.weak:
                weak = v.type if weak is None else join_weak(weak, v.type)
            else:
                strong = v.type if strong is None else _promote_or_reject(strong, v.type)
        if values[2].weak and values[2].const == 0:
            raise Rejected("range() step zero")
        t = (combine_weak(strong, weak) if weak else strong) if strong else weak
        if t == "bool":
            t = "int32"
        return [self.promote_to(v, t) for v in values], t

    # --- expressions ---------------------------------------------------------------------------

    def condition(self, e) -> Value:
        """A condition (of if, while, x if c else y): `and`/`or`/`not` of truth values (operands
        need no common type). As in weft, a constant operand that decides an `and`/`or` (False,
        True) makes it constant when no run-time operand comes before it, and ends it otherwise
        (Python evaluates nothing after it); other constant operands drop out; `not` of a
        constant is constant."""
        if isinstance(e, ir.BoolOp):
            is_and = e.op == "and"
            parts = []
            for operand in e.values:
                part = self.condition(operand)
                if part.constant and part.truth_value == is_and:
                    continue
                parts.append(part)
                if part.constant:
                    if len(parts) == 1:
                        return self.known_bool(not is_and)
                    break
            if not parts:
                return self.known_bool(is_and)
            codes = [self.ns.constant(p.truth_value, "bool") if p.constant else p.code for p in parts]
            return Value("bool", "(" + f" {e.op} ".join(codes) + ")")
        if isinstance(e, ir.Unary) and e.op == "not":
            inner = self.condition(e.operand)
            if inner.constant:
                return self.known_bool(not inner.truth_value)
            return Value("bool", f"(not {inner.code})")
        return self.truth(self.expr(e))

    def known_bool(self, value: bool) -> Value:
        """A bool weft knows at compile time (a typed constant, not a weak one)."""
        return Value("bool", self.ns.constant(value, "bool"), known=value)

    def truth(self, v: Value) -> Value:
        if not isinstance(v.type, str):
            raise Rejected("a tuple as a condition")
        if v.weak:
            return _weak_value(bool(model.truth(v.const)))
        self.exact(v, "a condition")
        if v.type == "bool":
            return v
        if v.known is not None:
            return self.known_bool(v.truth_value)
        return Value("bool", f"truth({v.code})")

    def expr(self, e) -> Value:
        method = getattr(self, "expr_" + type(e).__name__)
        return method(e)

    def expr_Lit(self, e):
        return _weak_value(e.value)

    def expr_Name(self, e):
        t, approx = self.local_type(e.id)
        return Value(t, f"l_{e.id}", approx=approx, known=self.constants.get(e.id))

    def expr_Glob(self, e):
        return _weak_value(self.program.global_value(e.id))

    def expr_Bin(self, e):
        return self.binary(e.op, self.expr(e.left), self.expr(e.right))

    def binary(self, op: str, left: Value, right: Value) -> Value:
        if not isinstance(left.type, str) or not isinstance(right.type, str):
            raise Rejected(f"{op} of a tuple")
        if left.weak and right.weak:
            return _weak_value(fold(op, left.const, right.const))
        form, t = binary_type(op, left.type, left.weak, right.type, right.weak, right.const)
        if form == "shift":
            if right.weak:
                count = self.promote_to(right, t)
            elif right.type == "bool":
                count = self.convert(right, "int32")
            else:
                count = right.code
            f = self.ns.bind(("shift", op, t), lambda: model.shift(op, t))
            return Value(t, f"{f}({self.promote_to(left, t)}, {count})")
        if form == "floor":
            self.exact(left, op)
            self.exact(right, op)
        if form == "power":
            n = int(right.const)
            self.promote_to(right, t)
            f = self.ns.bind(("powc", t, n), lambda: model.power_const(t, n))
            code = f"{f}({self.promote_to(left, t)})"
            inexact = power_inexact(t, n, self.program.contraction)
            return Value(t, self.perturbed(code, t) if inexact else code, approx=inexact or _any(left.approx))
        if form == "pow":
            self.exact(left, "pow")
            self.exact(right, "pow")
            f = self.ns.bind(("pow", t), lambda: model.power_float(t))
            return Value(t, self.perturbed(f"{f}({self.promote_to(left, t)}, {self.promote_to(right, t)})", t), approx=True)
        inexact = (op == "/" and is_complex(t)) or (op == "*" and self.program.contraction and not is_intlike(t))
        return self.apply(op, t, left, right, inexact)

    def apply(self, op: str, t: str, left: Value, right: Value, inexact: bool) -> Value:
        """`left op right` in type `t`; `inexact`: the operation itself is approximate (its result
        is perturbed), else it is approximate only when an operand is."""
        f = self.ns.bind(("binary", op, t), lambda: model.binary(op, t))
        code = f"{f}({self.promote_to(left, t)}, {self.promote_to(right, t)})"
        if inexact:
            code = self.perturbed(code, t)
        return Value(t, code, approx=inexact or _any(left.approx) or _any(right.approx))

    def perturbed(self, code: str, t: str) -> str:
        """Code for an approximate result: moved by a few ulps in perturbed runs."""
        return f"{self.ns.bind(('perturb', t), lambda: (lambda x: model.perturb(x, t)))}({code})"

    def expr_Unary(self, e):
        if e.op == "not":  # a value: `and`/`or` inside are values, not conditions
            inner = self.truth(self.expr(e.operand))
            if inner.weak:
                return _weak_value(not inner.truth_value)
            if inner.known is not None:
                return self.known_bool(not inner.truth_value)
            return Value("bool", f"(not {inner.code})")
        v = self.expr(e.operand)
        if not isinstance(v.type, str):
            raise Rejected("a unary operator on a tuple")
        if v.weak:
            if e.op == "~" and not isinstance(v.const, int):
                raise Rejected("~ of a non-integer constant")
            result = {"-": operator.neg, "+": operator.pos, "~": operator.invert}[e.op](v.const)
            return _weak_value(result)
        if e.op == "~" and not is_intlike(v.type):
            raise Rejected("~ of a non-integer")
        t = "int32" if v.type == "bool" else v.type
        code = self.convert(v, t)
        if e.op == "+":  # weft returns the operand itself, a constant staying one (not a bool: it converts)
            return Value(t, code, approx=v.approx, known=v.known if v.type == t else None)
        f = self.ns.bind((e.op, t), lambda: model.negate(t) if e.op == "-" else model.invert(t))
        return Value(t, f"{f}({code})", approx=v.approx)

    def expr_Compare(self, e):
        values = [self.expr(v) for v in e.operands]
        for v in values:
            if not isinstance(v.type, str):
                raise Rejected("a comparison of tuples")
            self.exact(v, "a comparison")
        if all(v.weak for v in values):
            result = all(_fold_compare(op, a.const, b.const) for op, a, b in zip(e.ops, values, values[1:]))
            return _weak_value(result)
        # Pairwise, as Python: each link in its own operands' promotion (every link is checked,
        # as weft does, before any is folded); a link of two constants is decided now.
        types = []
        for op, a, b in zip(e.ops, values, values[1:]):
            if a.weak and b.weak:
                types.append(None)
                continue
            if a.weak:
                t = combine_weak(b.type, a.type)
            elif b.weak:
                t = combine_weak(a.type, b.type)
            else:
                t = _promote_or_reject(a.type, b.type)
            if is_complex(t) and op not in ("==", "!="):
                raise Rejected("an ordering of complex numbers")
            types.append(t)
        temps = [self.fresh() for _ in values]
        parts = []
        for i, (op, t) in enumerate(zip(e.ops, types)):
            a, b = values[i], values[i + 1]
            if t is None:
                if _fold_compare(op, a.const, b.const):
                    continue
                if not parts:  # a false link before any run-time one: weft knows the answer
                    return self.known_bool(False)
                parts.append(self.ns.constant(False, "bool"))  # Python evaluates nothing after it
                break
            left = self.operand_code(a, temps[i], i == 0)
            right = self.operand_code(b, temps[i + 1], True)
            f = self.ns.bind(("cmp", op), lambda: model.compare(op))
            parts.append(f"{f}({self.promote_to(Value(a.type, left, a.weak, a.const), t)}, "
                         f"{self.promote_to(Value(b.type, right, b.weak, b.const), t)})")
        return Value("bool", "(" + " and ".join(parts) + ")")

    @staticmethod
    def operand_code(v: Value, temp: str, first_use: bool) -> str:
        """A chain operand evaluated once: stored in `temp` where first used, read after."""
        if v.weak:
            return ""
        return f"({temp} := {v.code})" if first_use else temp

    def expr_BoolOp(self, e):
        values = [self.expr(v) for v in e.values]
        for v in values:
            if not isinstance(v.type, str):
                raise Rejected("and/or of tuples")
        for v in values[:-1]:
            self.exact(v, "and/or")
        if all(v.weak for v in values):
            chosen = values[-1]
            for v in values[:-1]:
                if model.truth(v.const) != (e.op == "and"):
                    chosen = v
                    break
            return _weak_value(chosen.const)
        strong = weak = None
        for v in values:
            if v.weak:
                weak = v.type if weak is None else join_weak(weak, v.type)
            else:
                strong = v.type if strong is None else _promote_or_reject(strong, v.type)
        t = combine_weak(strong, weak) if weak else strong
        codes = [self.promote_to(v, t) for v in values]
        code = codes[-1]
        for c in reversed(codes[:-1]):
            tmp = self.fresh()
            keep = f"not truth({tmp} := {c})" if e.op == "and" else f"truth({tmp} := {c})"
            code = f"({tmp} if {keep} else {code})"
        return Value(t, code, approx=any(_any(v.approx) for v in values))

    def expr_IfExp(self, e):
        test = self.condition(e.test)
        body, orelse = self.expr(e.body), self.expr(e.orelse)
        if isinstance(body.type, str) and isinstance(orelse.type, str):
            if body.weak and orelse.weak:
                if test.constant:
                    return body if test.truth_value else orelse
                t = join_weak(body.type, orelse.type)
            elif body.weak:
                t = combine_weak(orelse.type, body.type)
            elif orelse.weak:
                t = combine_weak(body.type, orelse.type)
            else:
                t = _promote_or_reject(body.type, orelse.type)
            a, b = self.promote_to(body, t), self.promote_to(orelse, t)
        else:
            t = _join_types(body.type, orelse.type)
            a, b = self.convert(body, t), self.convert(orelse, t)
        test_code = self.ns.constant(test.truth_value, "bool") if test.constant else test.code
        approx = _merge(body.approx, orelse.approx)
        return Value(t, f"({a} if {test_code} else {b})", approx=approx)

    def expr_Call(self, e):
        args = [self.expr(a) for a in e.args]
        types, approx, codes = [], [], []
        for v in args:
            t = v.type
            types.append(t)
            approx.append(v.approx)
            codes.append(self.convert(v, t))
        name, ret, ret_approx = self.program.specialize(e.func, tuple(types), tuple(approx))
        return Value(ret, f"{name}({', '.join(codes)})", approx=ret_approx)

    def expr_Cast(self, e):
        v = self.expr(e.arg)
        if e.like:
            t = self.local_type(e.like)[0]
            if not isinstance(t, str):
                raise Rejected("the dtype of a tuple")
            return self.cast(v, t)
        return self.cast(v, e.type)

    def cast(self, v: Value, t: str) -> Value:
        if not isinstance(v.type, str):
            raise Rejected("a conversion of a tuple")
        if is_complex(v.type) and not is_complex(t):
            raise Rejected("a complex converts to a real")
        if t == "bool":
            return self.truth(v)
        if v.weak:  # converted now, by the run-time rule (an integer type wraps)
            return Value(t, self.ns.constant(v.const, t), known=constant_value(v.const, t))
        if v.approx and is_intlike(t):
            raise Rejected("an approximate value converts to an integer")
        known = None if v.known is None else model.convert(v.known, v.type, t)
        return Value(t, self.convert(v, t), approx=v.approx, known=known)

    def expr_MakeComplex(self, e):
        part = real_part(e.type)
        re, im = self.expr(e.re), self.expr(e.im)
        for v in (re, im):
            if not isinstance(v.type, str) or is_complex(v.type):
                raise Rejected("complex() of a non-real")
        re, im = self.cast(re, part), self.cast(im, part)
        f = self.ns.bind(("make", e.type), lambda: _make_complex(e.type))
        return Value(e.type, f"{f}({re.code}, {im.code})", approx=re.approx or im.approx)

    def expr_Math(self, e):
        args = [self.expr(a) for a in e.args]
        for v in args:
            if not isinstance(v.type, str) or is_complex(v.type):
                raise Rejected("math of a non-real")
        common = None
        for v in args:
            if not v.weak:
                k = floating_for(v.type)
                common = k if common is None else _promote_or_reject(common, k)
        t = common or ("float32" if all(fits(v.const, "float32") for v in args) else "float64")
        if e.name in model.PREDICATES:
            self.exact(args[0], "a math predicate")
            if common and not is_float(args[0].type):  # an integer or bool: weft knows the answer
                return self.known_bool(model.predicate(e.name, args[0].type)(0))
            f = self.ns.bind(("pred", e.name, t), lambda: model.predicate(e.name, t))
            return Value("bool", f"{f}({self.promote_to(args[0], t)})")
        if e.name not in model.SMOOTH:
            for v in args:
                self.exact(v, f"math.{e.name}")
        f = self.ns.bind(("math", e.name, t), lambda: model.math_function(e.name, t))
        exact = model.MATH[e.name][2]
        approx = not exact or any(_any(v.approx) for v in args)
        return Value(t, f"{f}({', '.join(self.promote_to(v, t) for v in args)})", approx=approx)

    def expr_Builtin(self, e):
        args = [self.expr(a) for a in e.args]
        for v in args:
            if not isinstance(v.type, str):
                raise Rejected(f"{e.name}() of a tuple")
        if e.name == "abs":
            (v,) = args
            if v.weak:
                return _weak_value(abs(v.const))
            t = "int32" if v.type == "bool" else v.type
            f = self.ns.bind(("abs", t), lambda: model.absolute(t))
            code = f"{f}({self.convert(v, t)})"
            if is_complex(t):
                return Value(real_part(t), self.perturbed(code, real_part(t)), approx=True)
            return Value(t, code, approx=v.approx)
        if any(isinstance(v.const, complex) or is_complex(v.type) for v in args):
            raise Rejected(f"{e.name}() of complex numbers")
        if all(v.weak for v in args):
            return _weak_value((max if e.name == "max" else min)(v.const for v in args))
        strong = weak = None
        for v in args:
            if v.weak:
                weak = v.type if weak is None else join_weak(weak, v.type)
            else:
                strong = v.type if strong is None else _promote_or_reject(strong, v.type)
        t = combine_weak(strong, weak) if weak else strong
        f = self.ns.bind(("minmax", e.name), lambda: model.minmax(e.name == "max"))
        code = self.promote_to(args[0], t)
        for v in args[1:]:
            code = f"{f}({code}, {self.promote_to(v, t)})"
        return Value(t, code, approx=any(_any(v.approx) for v in args))

    def expr_Part(self, e):
        v = self.expr(e.operand)
        if v.weak or not isinstance(v.type, str) or v.type == "bool":
            raise Rejected("a number attribute of a constant, tuple or bool")
        if e.attr == "real":
            if is_complex(v.type):
                return Value(real_part(v.type), f"{self._part('real', v.type)}({v.code})", approx=v.approx)
            return v
        if e.attr == "imag":
            if is_complex(v.type):
                return Value(real_part(v.type), f"{self._part('imag', v.type)}({v.code})", approx=v.approx)
            return Value(v.type, self.ns.constant(0, v.type))
        if is_complex(v.type):
            f = self.ns.bind(("conj", v.type), lambda: np.conjugate)
            return Value(v.type, f"{f}({v.code})", approx=v.approx)
        return v

    def _part(self, attr: str, t: str) -> str:
        part = real_part(t)
        return self.ns.bind((attr, t), lambda: (lambda z: model.from_float(getattr(z, attr), part)))

    def expr_TupleE(self, e):
        values = [self.expr(x) for x in e.elts]
        types, codes, approx = [], [], []
        for v in values:
            if not isinstance(v.type, str):
                raise Rejected("a nested tuple")
            types.append(v.type)
            codes.append(self.convert(v, v.type))
            approx.append(_any(v.approx))
        # A tuple of constants is one: unpacked, each element is a constant (a weak one as a
        # value of its builtin type).
        known = tuple(self.known_as(v, v.type) for v in values) if all(v.constant for v in values) else None
        return Value(tuple(types), "(" + ", ".join(codes) + ",)", approx=tuple(approx), known=known)

    def expr_Index(self, e):
        v = self.expr(e.operand)
        if not isinstance(v.type, tuple) or not -len(v.type) <= e.index < len(v.type):
            raise Rejected("a tuple index out of range")
        return Value(v.type[e.index], f"{v.code}[{e.index}]", approx=_nth(v.approx, e.index))

    def array(self, name: str) -> tuple:
        if name not in self.arrays:
            raise Rejected(f"'{name}' is not a local array")
        return self.arrays[name]

    def index(self, e) -> str:
        """Code for an array index: an integer, exact (a negative index counts from the end)."""
        v = self.expr(e)
        if not isinstance(v.type, str) or not is_intlike(v.type):
            raise Rejected("an array index must be an integer")
        self.exact(v, "an index")
        return self.ns.constant(v.const, literal_kind(v.const)) if v.weak else v.code

    def expr_Load(self, e):
        t, _, approx = self.array(e.array)
        return Value(t, f"l_{e.array}[{self.index(e.index)}]", approx=approx)

    def expr_Same(self, e):
        v = self.expr(e.operand)
        if v.weak or v.type != e.type:
            raise Rejected(f"the type assertion of {e.type} holds {v.type}")
        return replace(v, known=None)  # a call's result, which weft does not know


def binary_type(op: str, lt: str, lweak: bool, rt: str, rweak: bool, rconst=None) -> tuple:
    """(form, type) of `left op right` by DESIGN.md section 3, for typed operands or one weak
    literal of builtin type `lt`/`rt` (`rconst` the right one's value): the type both operands
    convert to (for a shift, the left one's), and the form of the operation: "arith", "floor"
    (// and %), "power" (** by a constant n >= 0), "pow", "bit", "shift". Raises Rejected where
    the rules reject the operands."""
    if op in ("<<", ">>"):
        if not is_intlike(lt) or not is_intlike(rt):
            raise Rejected("a shift of a non-integer")
        t = rt if lweak else lt
        return "shift", "int32" if t == "bool" else t
    if lweak:
        common = combine_weak(rt, lt)
    elif rweak:
        common = combine_weak(lt, rt)
    else:
        common = _promote_or_reject(lt, rt)
    if op in ("+", "-", "*"):
        return "arith", "int32" if common == "bool" else common
    if op == "/":
        if is_float(common) or is_complex(common):
            return "arith", common
        la = common if lweak else lt
        ra = common if rweak else rt
        return "arith", "float64" if SCALARS[la].size == 8 or SCALARS[ra].size == 8 else "float32"
    if op in ("//", "%"):
        if is_complex(common):
            raise Rejected(f"{op} of complex numbers")
        if rweak and not model.truth(rconst):
            raise Rejected(f"{op} by a constant zero")
        return "floor", "int32" if common == "bool" else common
    if op == "**":
        if is_complex(common):
            raise Rejected("** of complex numbers")
        if rweak and isinstance(rconst, int) and rconst >= 0 and not lweak:
            t = "int32" if lt == "bool" else lt
            if not fits(rconst, t):
                raise Rejected(f"exponent {rconst} does not fit {t}")
            return "power", t
        if is_intlike(lt) and is_intlike(rt) and not lweak and not rweak:
            raise Rejected("** of integers by a run-time integer (weft::pow_int, not modelled)")
        return "pow", floating_for(common)
    if op in ("&", "|", "^"):
        if not is_intlike(common):
            raise Rejected(f"{op} of non-integers")
        return "bit", common
    raise Rejected(f"unknown operator {op}")


def power_inexact(t: str, n: int, contraction: bool) -> bool:
    """Whether `x ** n` (a constant n) is approximate in type `t`: for floats the order of the
    multiplications matters from n = 4 on, and any product may be contracted on the GPU."""
    return not is_intlike(t) and (n >= 4 or (n >= 2 and contraction))


def _make_complex(t: str):
    ctor = SCALARS[t].dtype.type
    return lambda re, im: ctor(complex(float(re), float(im)))


def _fold_compare(op: str, a, b) -> bool:
    if isinstance(a, complex) or isinstance(b, complex):
        if op not in ("==", "!="):
            raise Rejected("an ordering of complex constants")
    return bool(_COMPARE[op](a, b))


def _promote_or_reject(a: str, b: str) -> str:
    t = promote(a, b)
    if t is None:
        raise Rejected(f"{a} and {b} have no common type")
    return t


def _join_types(a, b):
    if isinstance(a, str) and isinstance(b, str):
        return _promote_or_reject(a, b)
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(_join_types(x, y) for x, y in zip(a, b))
    raise Rejected(f"{a} and {b} do not join")


def _any(approx) -> bool:
    return any(approx) if isinstance(approx, tuple) else bool(approx)


def _nth(approx, i):
    return approx[i] if isinstance(approx, tuple) else approx


def _merge(a, b):
    if isinstance(a, tuple) and isinstance(b, tuple):
        return tuple(x or y for x, y in zip(a, b))
    return _any(a) or _any(b)


class ProgramCompiler:
    """Compiles a program's entry (and every specialization it reaches) for one launch's global
    values."""

    def __init__(self, program: ir.Program, launch: int, contraction: bool):
        self.program = program
        self.launch = launch
        self.contraction = contraction
        self.ns = Namespace()
        self.functions = {f.name: f for f in program.functions}
        self.specs = {}  # (name, types, approx) -> (spec name, return type, return approx)
        self.sources = []
        self.depth = 0

    def forget(self, name: str):
        """Drops a function and its specializations (a rejected probe of the generator)."""
        self.functions.pop(name, None)
        self.specs = {key: spec for key, spec in self.specs.items() if key[0] != name and spec is not None}

    def global_value(self, name: str):
        if name not in self.program.globals:
            raise Rejected(f"no global {name}")
        return self.program.globals[name][self.launch]

    def specialize(self, name: str, types: tuple, approx: tuple):
        key = (name, types, approx)
        if key in self.specs:
            if self.specs[key] is None:
                raise Rejected("recursion")
            return self.specs[key]
        function = self.functions.get(name)
        if function is None or len(function.params) != len(types):
            raise Rejected(f"no function {name} of {len(types)} parameters")
        self.specs[key] = None
        spec_name = f"_f{len(self.specs)}_{name}"
        ret, ret_approx, text = FunctionCompiler(self, function, types, approx, spec_name).compile()
        self.sources.append(text)
        self.specs[key] = (spec_name, ret, ret_approx)
        return self.specs[key]


def _binding_sites(body: list, sites=None) -> dict:
    """How many places in `body` (nested blocks included, whatever a constant condition
    removes) bind each name: weft's prescan, where an augmented assignment and a for loop count
    twice (they are never single assignments)."""
    sites = {} if sites is None else sites
    for s in body:
        names, weight = [], 1
        if isinstance(s, (ir.Assign, ir.LocalArray)):
            names = [s.target]
        elif isinstance(s, ir.Unpack):
            names = list(s.targets)
        elif isinstance(s, (ir.AugAssign, ir.For)):
            names, weight = [s.target], 2
        for name in names:
            sites[name] = sites.get(name, 0) + weight
        for inner in (getattr(s, "body", None), getattr(s, "orelse", None)):
            if inner:
                _binding_sites(inner, sites)
    return sites


def _always_returns(body: list) -> bool:
    """weft's syntactic rule: a return, or an if both of whose branches always return."""
    return any(isinstance(s, ir.Return) or (isinstance(s, ir.If) and _always_returns(s.body) and _always_returns(s.orelse))
               for s in body)


def _check_loops(body: list, in_loop: bool):
    """Python's own rule, whatever constant branches the model skips: break and continue only in
    a loop's body."""
    for s in body:
        if isinstance(s, (ir.Break, ir.Continue)) and not in_loop:
            raise Rejected("break or continue outside a loop")
        if isinstance(s, (ir.For, ir.While)):
            _check_loops(s.body, True)
            _check_loops(s.orelse, in_loop)
        elif isinstance(s, ir.If):
            _check_loops(s.body, in_loop)
            _check_loops(s.orelse, in_loop)


@dataclass
class CompiledProgram:
    """The model of one program at one launch: `run(*inputs)` returns its outputs."""

    run: object
    output_types: tuple
    output_approx: tuple
    source: str


def compile_program(program: ir.Program, launch: int = 0, contraction: bool = False) -> CompiledProgram:
    """The model of `program` with the globals of launch `launch`; raises Rejected when the
    typing rules reject it. `contraction`: float products are approximate (the GPU may fuse
    them with an addition)."""
    for function in program.functions:
        _check_loops(function.body, False)
    compiler = ProgramCompiler(program, launch, contraction)
    entry = program.entry
    name, ret, ret_approx = compiler.specialize(entry.name, tuple(program.param_types), (False,) * len(program.param_types))
    if not isinstance(ret, tuple):
        raise Rejected("the entry returns a tuple")
    text = "\n".join(compiler.sources)
    scope = dict(compiler.ns.names)
    exec(compile(text, f"<model of {program.name}>", "exec"), scope)  # noqa: S102 - the fuzzer's own generated model
    return CompiledProgram(scope[name], ret, tuple(_nth(ret_approx, i) for i in range(len(ret))), text)


__all__ = ["CompiledProgram", "Rejected", "binary_type", "compile_program", "fold", "power_inexact"]
