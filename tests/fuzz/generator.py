"""Random well-typed programs for the differential fuzzer, from a seed (deterministic).

A program is helper functions (calling earlier helpers, some called with several argument
types) and an entry function taking one value per parameter and returning a tuple. Bodies mix
assignments (a variable keeps one type), augmented assignments, tuple unpacking, `if` on run-time
conditions and on global constants, `for ... in range(...)` and `while` loops with `break`,
`continue` and `else`, early returns; expressions cover every operator on every number type
with weak literals and globals, casts, comparisons and chains, `and`/`or` values, conditional
expressions, min/max/abs, the math module, complex parts and type assertions (`fz_same`).

The generator builds expressions of a wanted type with the typing rules of tests/fuzz/interp.py,
and the model compiles each finished program (for every launch's globals) to confirm it: a
program the model rejects is generated again.
"""

import random
from dataclasses import dataclass, field

from . import interp, ir
from .model import MATH, SMOOTH
from .scalars import (
    COMPLEXES, FLOATS, INTEGERS, SCALARS, combine_weak, fits, floating_for, int_range, is_complex, is_float, is_int,
    is_intlike, literal_kind, promote, real_part,
)

ALL_TYPES = ("bool", *INTEGERS, *FLOATS, *COMPLEXES)


@dataclass(frozen=True)
class Config:
    """What the generator may produce."""

    types: tuple = ALL_TYPES
    contraction: bool = False  # float products are approximate (programs meant for the GPU)
    max_helpers: int = 2
    max_statements: int = 5
    max_expr_depth: int = 3
    max_block_depth: int = 2


@dataclass
class Var:
    type: str
    approx: bool = False  # may hold an approximate value
    fixed: bool = False  # a loop counter: read, never assigned
    constant: bool = False  # assigned a constant expression, which weft treats as a constant


@dataclass
class Signature:
    params: tuple
    ret: object  # a scalar type or a tuple of them
    ret_approx: object


@dataclass
class Helper:
    name: str
    signatures: list = field(default_factory=list)


class Retry(Exception):
    """The generator painted itself into a corner; start the piece again."""


class ProgramGenerator:
    """Generates one program from a seed."""

    def __init__(self, seed, name: str, config: Config):
        self.rng = random.Random(seed)
        self.name = name
        self.config = config
        self.types = [t for t in config.types]
        self.reals = [t for t in self.types if not is_complex(t)]
        self.globals = {}
        self.helpers = []
        self.functions = []
        self.features = set()
        self.counter = 0
        self.arrays = {}  # the local arrays of the function being generated
        # One model compiler per launch, shared by every probe so that helpers compile once.
        self.probe = ir.Program(name, [], [], self.globals)
        self.compilers = [interp.ProgramCompiler(self.probe, launch, config.contraction) for launch in range(2)]

    # --- the program ---------------------------------------------------------------------------

    def program(self) -> ir.Program:
        for k in range(self.rng.randint(0, 3)):
            self.make_global(f"{self.name}_g{k}")
        for k in range(self.rng.randint(0, self.config.max_helpers)):
            for _ in range(8):
                try:
                    self.make_helper(f"{self.name}_h{k}")
                    break
                except (Retry, interp.Rejected, RecursionError):
                    continue
        params = [self.pick_type() for _ in range(self.rng.randint(1, 4))]
        outputs = tuple(self.pick_type() for _ in range(self.rng.randint(1, 4)))
        body = self.function_body(params, outputs, is_entry=True)
        entry = ir.Function(self.name, [f"x{i}" for i in range(len(params))], body)
        program = ir.Program(self.name, self.functions + [entry], params, self.globals, self.features)
        return program

    def make_global(self, name: str):
        kind = self.rng.choice(["bool", "int", "int", "float"])
        if kind == "bool":
            first = self.rng.random() < 0.5
            values = [first, not first]
        elif kind == "int":
            first = self.rng.randint(0, 9)
            values = [first, self.rng.choice([v for v in range(0, 12) if v != first])]
        else:
            first = self.rng.choice([0.5, 1.5, 2.25, -0.75, 3.0])
            values = [first, self.rng.choice([v for v in (0.25, 1.0, -2.5, 4.5) if v != first])]
        self.globals[name] = values

    def make_helper(self, name: str):
        params = [self.pick_type() for _ in range(self.rng.randint(1, 3))]
        if self.rng.random() < 0.4:
            outputs = tuple(self.pick_type() for _ in range(self.rng.randint(2, 3)))
        else:
            outputs = self.pick_type()
        body = self.function_body(params, outputs, is_entry=False)
        function = ir.Function(name, [f"a{i}" for i in range(len(params))], body)
        helper = Helper(name)
        sig = self.try_signature(function, tuple(params), first=True)
        if sig is None:
            raise Retry()
        helper.signatures.append(sig)
        # The same helper with other argument types: a specialization per signature.
        for _ in range(2):
            other = tuple(self.similar_type(t) for t in params)
            if other != tuple(params) and (sig2 := self.try_signature(function, other, first=False)) is not None:
                helper.signatures.append(sig2)
                self.features.add("helper_specializations")
        self.functions.append(function)
        self.helpers.append(helper)
        self.features.add("helpers")

    def try_signature(self, function: ir.Function, params: tuple, first: bool):
        """The helper's signature for these argument types, if the model accepts it for every
        launch's globals with one result type (`first`: the helper is new, and is dropped from
        the model compilers when rejected)."""
        results = set()
        for compiler in self.compilers:
            compiler.functions[function.name] = function
            try:
                _, ret, approx = compiler.specialize(function.name, params, (False,) * len(params))
            except (interp.Rejected, RecursionError):
                results.add(None)
                break
            results.add((ret, approx))
        if len(results) != 1 or None in results:
            if first:
                for compiler in self.compilers:
                    compiler.forget(function.name)
            return None
        ret, approx = results.pop()
        return Signature(params, ret, approx)

    def function_body(self, params: list, outputs, is_entry: bool) -> list:
        scope = {f"{'x' if is_entry else 'a'}{i}": Var(t) for i, t in enumerate(params)}
        self.arrays = {}  # local array name -> (element type, size, approx)
        self.outputs = outputs
        self.output_approx = (
            tuple(self.rng.random() < 0.6 and not is_intlike(t) for t in outputs)
            if isinstance(outputs, tuple) else False
        )
        body = self.block(scope, depth=0, in_loop=False, constant_branch=False, count=self.rng.randint(2, self.config.max_statements))
        body.append(ir.Return(self.returned(scope)))
        return body

    def returned(self, scope: dict) -> ir.Expr:
        if isinstance(self.outputs, tuple):
            return ir.TupleE([self.approximate(t, scope) if a else self.expr(t, scope, self.config.max_expr_depth, exact=True)
                              for t, a in zip(self.outputs, self.output_approx)])
        return self.expr(self.outputs, scope, self.config.max_expr_depth, exact=True)

    def approximate(self, t: str, scope: dict) -> ir.Expr:
        """An output that may be approximate, mostly made so: math functions, pow, complex
        division, magnitudes."""
        depth = self.config.max_expr_depth
        e = None
        if self.rng.random() < 0.7:
            if is_float(t):
                e = self.e_math(t, scope, depth - 1, False, inexact=True)
            elif is_complex(t):
                e = ir.Bin("/", self.expr(t, scope, depth - 1, False), self.expr(t, scope, depth - 1, False))
        return e if e is not None else self.expr(t, scope, depth, exact=False)

    # --- statements ----------------------------------------------------------------------------

    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def block(self, scope: dict, depth: int, in_loop: bool, constant_branch: bool, count: int) -> list:
        scope = dict(scope)
        body = []
        for _ in range(count):
            body += self.statement(scope, depth, in_loop, constant_branch)
        return body

    def statement(self, scope: dict, depth: int, in_loop: bool, constant_branch: bool) -> list:
        r = self.rng
        choices = ["assign_new"] * 4 + ["assign"] * 2 + ["aug"] * 2 + ["unpack"]
        if depth == 0 and not constant_branch:
            choices += ["array"]
        if self.arrays:
            choices += ["store", "store"]
        if depth < self.config.max_block_depth:
            choices += ["if", "if", "const_if", "for", "while"]
        if in_loop:
            choices += ["break", "continue"]
        if depth > 0:
            choices += ["return"]
        kind = r.choice(choices)
        return getattr(self, "stmt_" + kind)(scope, depth, in_loop, constant_branch)

    def assignable(self, scope: dict):
        return [name for name, v in scope.items() if not v.fixed and not name.startswith(("x", "a"))]

    def stmt_assign_new(self, scope, depth, in_loop, constant_branch):
        t = self.pick_type()
        approx = not is_intlike(t) and self.rng.random() < 0.3
        name = self.fresh()
        if self.rng.random() < 0.15 and is_int(t) and depth == 0:
            # A variable first assigned a literal takes the type of its typed assignments.
            stmts = [ir.Assign(name, self.weak_literal(t)), ir.Assign(name, self.expr(t, scope, self.depth(), exact=True))]
            scope[name] = Var(t)
            self.features.add("literal_then_typed")
            return stmts
        value = self.expr(t, scope, self.depth(), exact=not approx)
        scope[name] = Var(t, approx, constant=self.is_constant(value, scope))
        if constant_branch:
            self.features.add("dead_branch_assign")
        return [ir.Assign(name, value)]

    def stmt_assign(self, scope, depth, in_loop, constant_branch):
        names = self.assignable(scope)
        if not names:
            return self.stmt_assign_new(scope, depth, in_loop, constant_branch) if not constant_branch else []
        name = self.rng.choice(names)
        v = scope[name]
        return [ir.Assign(name, self.expr(v.type, scope, self.depth(), exact=not v.approx))]

    def stmt_aug(self, scope, depth, in_loop, constant_branch):
        names = self.assignable(scope)
        if not names:
            return []
        name = self.rng.choice(names)
        v = scope[name]
        t = v.type
        ops = []
        if is_int(t):
            ops = ["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>"]
        elif t == "bool":
            ops = ["&", "|", "^"]
        elif is_float(t):
            ops = ["+", "-", "*", "/", "//", "%"]
        else:
            ops = ["+", "-", "*", "/"]
        op = self.rng.choice(ops)
        floor = op in ("//", "%")
        if (floor or op in ("<<", ">>")) and v.approx:
            return []
        if not v.approx and self.inexact(op, t):
            return []
        if op in ("<<", ">>"):
            value = self.shift_count(scope, t)
        elif self.rng.random() < 0.4:
            value = self.weak_literal(t, nonzero=floor)
        else:
            value = self.expr(t, scope, self.depth() - 1, exact=floor or not v.approx)
        self.features.add("augmented_assignment")
        return [ir.AugAssign(name, op, value)]

    def stmt_array(self, scope, depth, in_loop, constant_branch):
        """A local array, every element initialized by a loop (its memory starts undefined)."""
        t = self.pick_type()
        size = self.rng.randint(2, 6)
        approx = not is_intlike(t) and self.rng.random() < 0.3
        name, k = self.fresh("arr"), self.fresh("j")
        inner = dict(scope)
        inner[k] = Var("int32", fixed=True)
        fill = ir.For(k, [ir.Lit(size)], [ir.Store(name, ir.Name(k), self.expr(t, inner, self.depth() - 1, exact=not approx))])
        self.arrays[name] = (t, size, approx)
        self.features.add("local_arrays")
        return [ir.LocalArray(name, size, t), fill]

    def stmt_store(self, scope, depth, in_loop, constant_branch):
        name = self.rng.choice(sorted(self.arrays))
        t, size, approx = self.arrays[name]
        value = self.weak_literal(t) if self.rng.random() < 0.2 else self.expr(t, scope, self.depth() - 1, exact=not approx)
        return [ir.Store(name, self.index(size, scope), value)]

    def index(self, size: int, scope: dict) -> ir.Expr:
        """An index of an array of `size` elements: in range, sometimes negative (Python counts it
        from the end)."""
        r = self.rng
        pick = r.random()
        if pick < 0.3:
            value = r.randint(-size, size - 1)
            if value < 0:
                self.features.add("negative_index")
            return ir.Lit(value)
        ints = [x for x in self.types if is_int(x)] or ["int32"]
        t = r.choice(ints)
        wrapped = ir.Bin("%", self.expr(t, scope, 1, exact=True), ir.Lit(size))
        if SCALARS[t].kind == "i" and pick < 0.6:
            self.features.add("negative_index")
            return ir.Bin("-", wrapped, ir.Lit(size))
        return wrapped

    def stmt_unpack(self, scope, depth, in_loop, constant_branch):
        calls = [(h, s) for h in self.helpers for s in h.signatures if isinstance(s.ret, tuple)]
        if calls and self.rng.random() < 0.6:
            helper, sig = self.rng.choice(calls)
            value = ir.Call(helper.name, [self.expr(t, scope, self.depth() - 1, exact=True) for t in sig.params])
            types, approx = sig.ret, tuple(sig.ret_approx)
        else:
            types = tuple(self.pick_type() for _ in range(2))
            approx = (False, False)
            value = ir.TupleE([self.expr(t, scope, self.depth() - 1, exact=True) for t in types])
        names = [self.fresh() for _ in types]
        elements = value.elts if isinstance(value, ir.TupleE) else [None] * len(types)
        for name, t, a, element in zip(names, types, approx, elements):
            scope[name] = Var(t, a, constant=element is not None and self.is_constant(element, scope))
        self.features.add("tuples")
        return [ir.Unpack(names, value)]

    def stmt_if(self, scope, depth, in_loop, constant_branch):
        test = self.condition(scope)
        body = self.block(scope, depth + 1, in_loop, constant_branch, self.rng.randint(1, 3))
        orelse = self.block(scope, depth + 1, in_loop, constant_branch, self.rng.randint(0, 2))
        return [ir.If(test, body, orelse)]

    def stmt_const_if(self, scope, depth, in_loop, constant_branch):
        flags = [n for n, v in self.globals.items() if not isinstance(v[0], float)]
        if not flags:
            return self.stmt_if(scope, depth, in_loop, constant_branch)
        g = ir.Glob(self.rng.choice(flags))
        if isinstance(self.globals[g.id][0], bool):
            test = self.rng.choice([g, ir.Unary("not", g)])
        else:
            test = ir.Compare([self.rng.choice([">", "<=", "=="])], [g, ir.Lit(self.rng.randint(0, 9))])
        body = self.block(scope, depth + 1, in_loop, True, self.rng.randint(1, 3))
        orelse = self.block(scope, depth + 1, in_loop, True, self.rng.randint(0, 2))
        self.features.add("constant_branch")
        return [ir.If(test, body, orelse)]

    def stmt_for(self, scope, depth, in_loop, constant_branch):
        r = self.rng
        name = self.fresh("j")
        ints = [t for t in self.types if is_int(t)]
        if r.random() < 0.4 or not ints:
            args = [ir.Lit(r.randint(0, 6))] if r.random() < 0.5 else [ir.Lit(r.randint(-2, 2)), ir.Lit(r.randint(0, 7))]
            t = "int32"
        else:
            t = r.choice(ints)
            bound = ir.Bin("&", self.expr(t, scope, 1, exact=True), ir.Lit(7))
            if r.random() < 0.5:
                args = [bound]
            elif SCALARS[t].kind == "i" and r.random() < 0.5:
                args = [bound, ir.Lit(-1), ir.Lit(-r.randint(1, 2))]
                self.features.add("negative_step")
            else:
                args = [ir.Lit(r.randint(0, 2)), bound, ir.Lit(r.randint(1, 3))]
        inner = dict(scope)
        inner[name] = Var(t, fixed=True)
        body = self.block(inner, depth + 1, True, constant_branch, r.randint(1, 3))
        orelse = self.block(scope, depth + 1, in_loop, constant_branch, r.randint(1, 2)) if r.random() < 0.3 else []
        self.features.add("for")
        return [ir.For(name, args, body, orelse)]

    def stmt_while(self, scope, depth, in_loop, constant_branch):
        r = self.rng
        counter = self.fresh("w")
        limit = ir.Lit(r.randint(1, 5))
        inner = dict(scope)
        inner[counter] = Var("int32", fixed=True)
        body = [ir.AugAssign(counter, "+", ir.Lit(1))]
        body += self.block(inner, depth + 1, True, constant_branch, r.randint(1, 3))
        orelse = self.block(scope, depth + 1, in_loop, constant_branch, 1) if r.random() < 0.3 else []
        scope[counter] = Var("int32", fixed=True)
        self.features.add("while")
        return [ir.Assign(counter, ir.Lit(0)), ir.While(ir.Compare(["<"], [ir.Name(counter), limit]), body, orelse)]

    def stmt_break(self, scope, depth, in_loop, constant_branch):
        self.features.add("break")
        return [ir.If(self.condition(scope), [ir.Break()])]

    def stmt_continue(self, scope, depth, in_loop, constant_branch):
        self.features.add("continue")
        return [ir.If(self.condition(scope), [ir.Continue()])]

    def stmt_return(self, scope, depth, in_loop, constant_branch):
        self.features.add("early_return")
        return [ir.If(self.condition(scope), [ir.Return(self.returned(scope))])]

    # --- expressions ---------------------------------------------------------------------------

    def depth(self) -> int:
        return self.rng.randint(1, self.config.max_expr_depth)

    def pick_type(self) -> str:
        weights = {"int32": 3, "float32": 3, "int64": 2, "float64": 2, "bool": 2}
        types = self.types
        return self.rng.choices(types, [weights.get(t, 1) for t in types])[0]

    def similar_type(self, t: str) -> str:
        family = {"i": [x for x in INTEGERS if SCALARS[x].kind == "i"], "u": [x for x in INTEGERS if SCALARS[x].kind == "u"],
                  "f": FLOATS, "c": COMPLEXES, "b": ["bool"]}[SCALARS[t].kind]
        family = [x for x in family if x in self.types]
        return self.rng.choice(family) if family else t

    def is_constant(self, e: ir.Expr, scope: dict) -> bool:
        """Whether `e` is made of constants only (literals, globals, typed constants such as
        device.int32(0), variables assigned one), for the feature counts: the model decides what
        weft knows at compile time."""
        if isinstance(e, (ir.Lit, ir.Glob)):
            return True
        if isinstance(e, ir.Name):
            return e.id in scope and scope[e.id].constant
        if isinstance(e, (ir.Call, ir.Same)):
            return False
        children = [v for v in vars(e).values() if isinstance(v, ir.Expr)]
        children += [x for v in vars(e).values() if isinstance(v, list) for x in v if isinstance(x, ir.Expr)]
        return all(self.is_constant(c, scope) for c in children)

    def condition(self, scope: dict) -> ir.Expr:
        """A condition: run-time or known at compile time (then weft checks only the branch it
        takes, and the model follows)."""
        r = self.rng
        if r.random() < 0.1:
            self.features.add("constant_condition")
            return self.constant_condition(scope)
        pick = r.random()
        if pick < 0.2:
            return ir.BoolOp(r.choice(["and", "or"]), [self.condition_leaf(scope), self.condition_leaf(scope)])
        if pick < 0.3:
            return ir.Unary("not", self.condition_leaf(scope))
        return self.condition_leaf(scope)

    def constant_condition(self, scope: dict) -> ir.Expr:
        """A condition weft decides at compile time, or one whose `and`/`or` a constant decides:
        typed constants, variables assigned a constant once, math predicates of integers,
        comparison chains ended by a false link of constants, `not` of those."""
        r = self.rng

        def known() -> ir.Expr:
            pick = r.random()
            names = [n for n, v in scope.items() if v.constant]
            if names and pick < 0.25:
                return ir.Name(r.choice(names))
            if pick < 0.5:
                return self.typed_constant(r.choice(self.types))
            if pick < 0.75:
                ints = [t for t in self.types if is_intlike(t)] or ["int32"]
                return ir.Math(r.choice(["isnan", "isinf", "isfinite"]), [self.expr(r.choice(ints), scope, 1, True)])
            a, b = r.randint(0, 3), r.randint(0, 3)
            t = r.choice(self.reals)
            return ir.Compare(["<", r.choice(["<", "==", "!="])], [ir.Lit(a), ir.Lit(b), self.expr(t, scope, 1, True)])

        pick = r.random()
        if pick < 0.3:
            return known()
        if pick < 0.45:
            return ir.Unary("not", known())
        parts = [known(), self.condition_leaf(scope)]
        if pick < 0.7:
            parts.reverse()
        if r.random() < 0.3:
            parts.insert(r.randint(0, 2), known())
        return ir.BoolOp(r.choice(["and", "or"]), parts)

    def condition_leaf(self, scope: dict) -> ir.Expr:
        if self.rng.random() < 0.75:
            return self.expr("bool", scope, 2, exact=True)
        return self.expr(self.rng.choice(self.reals), scope, 1, exact=True)

    def expr(self, t: str, scope: dict, depth: int, exact: bool) -> ir.Expr:
        """An expression of type exactly `t`; `exact`: no approximate value in it."""
        if depth <= 0 or self.rng.random() < 0.2:
            return self.leaf(t, scope, exact)
        producers = self.producers(t)
        for _ in range(6):
            producer = self.rng.choice(producers)
            e = producer(t, scope, depth - 1, exact)
            if e is not None:
                if self.rng.random() < 0.05:
                    self.features.add("type_assertion")
                    return ir.Same(t, e)
                return e
        return self.leaf(t, scope, exact)

    def producers(self, t: str) -> list:
        p = [self.e_binary, self.e_binary, self.e_binary, self.e_ifexp, self.e_cast, self.e_call]
        if t == "bool":
            p += [self.e_compare, self.e_compare, self.e_compare, self.e_not, self.e_boolop, self.e_predicate]
        else:
            p += [self.e_unary, self.e_boolop]
        if not is_complex(t) and t != "bool":
            p += [self.e_minmax, self.e_abs]
        if is_float(t):
            p += [self.e_math, self.e_math, self.e_part]
        if is_complex(t):
            p += [self.e_make_complex, self.e_part]
        if any(a[0] == t for a in self.arrays.values()):
            p += [self.e_load, self.e_load]
        return p

    def leaf(self, t: str, scope: dict, exact: bool) -> ir.Expr:
        names = [n for n, v in scope.items() if v.type == t and not (exact and v.approx)]
        pick = self.rng.random()
        if names and pick < 0.75:
            return ir.Name(self.rng.choice(names))
        if t == "bool":
            others = [n for n, v in scope.items() if not v.approx and not is_complex(v.type) and v.type != "bool"]
            if others:
                n = self.rng.choice(others)
                return ir.Compare([self.rng.choice(["<", "==", ">=", "!="])], [ir.Name(n), self.weak_literal(scope[n].type)])
            return ir.Compare(["<"], [ir.Cast("int32", ir.Lit(self.rng.randint(0, 3))), ir.Lit(2)])
        convertible = [n for n, v in scope.items() if (not is_complex(v.type) or is_complex(t)) and not (v.approx and (exact or is_intlike(t)))]
        if convertible and pick < 0.9:
            return ir.Cast(t, ir.Name(self.rng.choice(convertible)))
        return self.typed_constant(t)

    def typed_constant(self, t: str) -> ir.Expr:
        """`device.t(c)`: a typed (not weak) constant."""
        value = self.weak_value(t)
        if is_int(t) and self.rng.random() < 0.3:
            lo, hi = int_range(t)
            value = self.rng.choice([hi + 1 + self.rng.randint(0, 100), lo - 1 - self.rng.randint(0, 100)])
            self.features.add("constant_conversion")
            return ir.Cast(t, ir.Lit(value))
        if isinstance(value, bool):
            value = int(value)
        return ir.Cast(t, ir.Lit(value))

    def weak_value(self, t: str, nonzero: bool = False):
        """A Python constant that, as a weak literal beside a `t` operand, keeps type `t`."""
        r = self.rng
        if t == "bool":
            return r.random() < 0.5
        if is_int(t):
            lo, hi = int_range(t)
            pick = r.random()
            if pick < 0.8:
                value = r.randint(max(lo, -9), min(hi, 9))
            elif pick < 0.9:
                value = r.choice([lo, hi])  # the int64 minimum is -9223372036854775808: - of a uint64 literal
            else:
                value = r.randint(max(lo, -(2**40)), min(hi, 2**40))
            if nonzero and value == 0:
                value = 3
            return value
        choices = [v for v in (0.5, 2.0, -3.25, 0.1, 1e-3, 7.0, 100.0, -1.0, 1e10, 3.0e-20) if fits(v, t)]
        if is_complex(t) and r.random() < 0.5:
            return complex(r.choice([0.5, -1.0, 2.0]), r.choice([1.0, -0.25]))
        if r.random() < 0.3:
            return r.randint(-9, 9) or 3
        return r.choice(choices)

    def weak_literal(self, t: str, nonzero: bool = False) -> ir.Expr:
        """A weak operand beside a `t` operand: a literal, a global, or a folded constant."""
        r = self.rng
        usable = [n for n, v in self.globals.items() if all(self.weak_keeps(t, x) and (not nonzero or x) for x in v)]
        if usable and r.random() < 0.25:
            self.features.add("globals")
            g = ir.Glob(r.choice(usable))
            if r.random() < 0.3 and not isinstance(self.globals[g.id][0], bool):
                folded = ir.Bin(r.choice(["+", "*"]), g, ir.Lit(2))
                if all(self.weak_keeps(t, x) for x in self.fold_values(folded)) and (not nonzero or all(self.fold_values(folded))):
                    self.features.add("constant_folding")
                    return folded
            return g
        return ir.Lit(self.weak_value(t, nonzero))

    def fold_values(self, e: ir.Bin) -> list:
        return [interp.fold(e.op, v, e.right.value) for v in self.globals[e.left.id]]

    @staticmethod
    def weak_keeps(t: str, value) -> bool:
        return combine_weak(t, literal_kind(value)) == t and fits(value, t)

    def shift_count(self, scope: dict, t: str) -> ir.Expr:
        r = self.rng
        bits = SCALARS[t].bits
        if r.random() < 0.5:
            return ir.Lit(r.choice([0, 1, 2, 3, bits - 1, bits, bits + 3]) if fits(bits + 3, t) else r.randint(0, 3))
        s = r.choice([x for x in self.types if is_int(x)] or ["int32"])
        count = self.expr(s, scope, 1, exact=True)
        self.features.add("shift")
        return ir.Bin("&", count, ir.Lit(r.choice([7, 15, 63]))) if r.random() < 0.8 else count

    def operand_types(self, op: str, t: str) -> list:
        """(left, right) typed operand types whose `op` has type `t`."""
        pairs = []
        for a in self.types:
            for b in self.types:
                try:
                    form, result = interp.binary_type(op, a, False, b, False)
                except interp.Rejected:
                    continue
                if result == t and form not in ("shift", "power"):
                    pairs.append((a, b))
        return pairs

    def e_binary(self, t: str, scope: dict, depth: int, exact: bool):
        r = self.rng
        if t == "bool":
            ops = ["&", "|", "^"]
        elif is_int(t):
            ops = ["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>", "**", "+", "-", "*"]
        elif is_float(t):
            ops = ["+", "-", "*", "/", "//", "%", "**", "+", "-", "*", "/"]
        else:
            ops = ["+", "-", "*", "/"]
        op = r.choice(ops)
        floor = op in ("//", "%")
        inner_exact = exact or floor
        if exact and self.inexact(op, t):
            return None
        if op in ("<<", ">>"):
            self.features.add("shift")
            if r.random() < 0.2:
                return ir.Bin(op, self.weak_literal(t), self.expr(t, scope, depth, True))
            return ir.Bin(op, self.expr(t, scope, depth, True), self.shift_count(scope, t))
        if op == "**":
            self.features.add("pow")
            if is_float(t) and r.random() < 0.4:
                if exact:
                    return None
                base_t = r.choice([x for x in self.types if floating_for(x) == t and not is_intlike(x)] or [t])
                return ir.Bin("**", self.expr(base_t, scope, depth, True), self.expr(base_t, scope, 0, True))
            n = r.randint(0, 5)
            if not is_intlike(t) and interp.power_inexact(t, n, self.config.contraction) and exact:
                n = r.randint(0, 1)
            return ir.Bin("**", self.expr(t, scope, depth, inner_exact), ir.Lit(n))
        pick = r.random()
        if pick < 0.35:
            left = self.expr(t, scope, depth, inner_exact)
            right = self.weak_literal(t, nonzero=floor)
            if r.random() < 0.3 and not floor:
                left, right = right, left
            return ir.Bin(op, left, right)
        pairs = self.operand_types(op, t) if pick < 0.6 else [(t, t)]
        if not pairs:
            return None
        a, b = r.choice(pairs)
        if op == "/" and is_intlike(a) and is_intlike(b):
            self.features.add("int_true_division")
        if floor:
            self.features.add("floor_division")
        return ir.Bin(op, self.expr(a, scope, depth, inner_exact), self.expr(b, scope, depth, inner_exact))

    def inexact(self, op: str, t: str) -> bool:
        """Whether `op` in type `t` is an approximate operation (tests/fuzz/interp.py)."""
        return (op == "/" and is_complex(t)) or (op == "*" and self.config.contraction and not is_intlike(t))

    def e_unary(self, t, scope, depth, exact):
        if is_int(t) and self.rng.random() < 0.3:
            return ir.Unary("~", self.expr(t, scope, depth, exact))
        if t == "int32" and self.rng.random() < 0.2:
            return ir.Unary("-", self.expr("bool", scope, depth, True))
        return ir.Unary(self.rng.choice(["-", "-", "+"]), self.expr(t, scope, depth, exact))

    def e_not(self, t, scope, depth, exact):
        return ir.Unary("not", self.expr(self.rng.choice(self.types), scope, depth, True))

    def e_ifexp(self, t, scope, depth, exact):
        body = self.expr(t, scope, depth, exact)
        orelse = self.weak_literal(t) if self.rng.random() < 0.3 else self.expr(t, scope, depth, exact)
        if self.rng.random() < 0.5:
            body, orelse = orelse, body
        self.features.add("conditional_expression")
        return ir.IfExp(self.condition(scope), body, orelse)

    def e_boolop(self, t, scope, depth, exact):
        self.features.add("and_or_values")
        values = [self.expr(t, scope, depth, True) for _ in range(self.rng.randint(1, 2))]
        last = self.weak_literal(t) if self.rng.random() < 0.3 else self.expr(t, scope, depth, exact)
        return ir.BoolOp(self.rng.choice(["and", "or"]), values + [last])

    def e_compare(self, t, scope, depth, exact):
        r = self.rng
        s = r.choice(self.types)
        ops = ["==", "!="] if is_complex(s) else ["<", "<=", ">", ">=", "==", "!="]
        count = 2 if r.random() < 0.7 else 3
        operands = [self.expr(s, scope, depth, True)]
        for _ in range(count - 1):
            pick = r.random()
            if pick < 0.3:
                operands.append(self.weak_literal(s))
            elif pick < 0.45 and count == 2:
                other = r.choice([x for x in self.types if promote(s, x) is not None and (not is_complex(x) or "==" in ops)])
                if is_complex(other):
                    ops = ["==", "!="]
                operands.append(self.expr(other, scope, depth, True))
                self.features.add("mixed_compare")
            elif pick < 0.55:
                other = r.choice([x for x in self.reals if promote(s, x) is not None] or [s])
                operands.append(self.expr(other, scope, depth, True))
                self.features.add("mixed_chains")
            else:
                operands.append(self.expr(s, scope, depth, True))
        if count == 3:
            self.features.add("comparison_chain")
        return ir.Compare([r.choice(ops) for _ in range(count - 1)], operands)

    def e_predicate(self, t, scope, depth, exact):
        r = self.rng
        floats = [x for x in self.types if is_float(x)]
        if r.random() < 0.3:
            s = r.choice([x for x in self.types if is_intlike(x)] or ["int32"])
            self.features.add("isfinite_int")
            return ir.Math(r.choice(["isnan", "isinf", "isfinite"]), [self.expr(s, scope, depth, True)])
        if not floats:
            return None
        self.features.add("math")
        return ir.Math(r.choice(["isnan", "isinf", "isfinite"]), [self.expr(r.choice(floats), scope, depth, True)])

    def e_minmax(self, t, scope, depth, exact):
        args = [self.expr(t, scope, depth, exact) for _ in range(self.rng.randint(2, 3))]
        if self.rng.random() < 0.3:
            args[self.rng.randrange(len(args))] = self.weak_literal(t)
        return ir.Builtin(self.rng.choice(["min", "max"]), args)

    def e_abs(self, t, scope, depth, exact):
        complexes = [c for c in self.types if is_complex(c) and real_part(c) == t]
        if complexes and not exact and self.rng.random() < 0.3:
            return ir.Builtin("abs", [self.expr(self.rng.choice(complexes), scope, depth, True)])
        return ir.Builtin("abs", [self.expr(t, scope, depth, exact)])

    def e_cast(self, t, scope, depth, exact):
        r = self.rng
        sources = [x for x in self.types if not is_complex(x) or is_complex(t)]
        s = r.choice(sources)
        inner_exact = exact or is_intlike(t)
        spelling = {"int32": "int", "float32": "float", "bool": "bool", "complex64": "complex"}.get(t, "")
        source = self.expr(s, scope, depth, inner_exact)
        if self.is_constant(source, scope):
            self.features.add("constant_conversion")
        self.features.add("casts")
        same_type = [n for n, v in scope.items() if v.type == t and t != "bool"]
        if same_type and r.random() < 0.15:
            self.features.add("dtype_cast")  # a number's dtype is its type, callable
            return ir.Cast(t, source, like=r.choice(same_type))
        return ir.Cast(t, source, spelling if r.random() < 0.3 else "")

    def e_call(self, t, scope, depth, exact):
        options = []
        for helper in self.helpers:
            for sig in helper.signatures:
                if sig.ret == t and not (exact and sig.ret_approx):
                    options.append((helper, sig, None))
                elif isinstance(sig.ret, tuple):
                    for k, rt in enumerate(sig.ret):
                        if rt == t and not (exact and sig.ret_approx[k]):
                            options.append((helper, sig, k))
        if not options:
            return None
        helper, sig, k = self.rng.choice(options)
        call = ir.Call(helper.name, [self.expr(p, scope, depth, True) for p in sig.params])
        return call if k is None else ir.Index(call, k)

    def e_math(self, t, scope, depth, exact, inexact=False):
        r = self.rng
        names = [n for n, (_, _, is_exact) in MATH.items() if (is_exact and not inexact) or not exact]
        name = r.choice(names)
        arity = MATH[name][0]
        arg_types = [x for x in self.types if not is_complex(x) and floating_for(x) == t] or [t]
        arg_exact = exact or name not in SMOOTH
        args = [self.expr(r.choice(arg_types), scope, depth, arg_exact) for _ in range(arity)]
        self.features.add("math")
        return ir.Math(name, args)

    def e_make_complex(self, t, scope, depth, exact):
        part = real_part(t)
        reals = [x for x in self.reals if x != "bool"] or [part]
        re, im = (self.expr(self.rng.choice(reals), scope, depth, exact) for _ in range(2))
        if self.is_constant(re, scope) or self.is_constant(im, scope):
            self.features.add("constant_conversion")  # each part converts like device.float64(part)
        return ir.MakeComplex(t, re, im)

    def e_load(self, t, scope, depth, exact):
        names = [n for n, (at, _, approx) in self.arrays.items() if at == t and not (exact and approx)]
        if not names:
            return None
        name = self.rng.choice(names)
        return ir.Load(name, self.index(self.arrays[name][1], scope))

    def e_part(self, t, scope, depth, exact):
        r = self.rng
        self.features.add("number_parts")
        if is_float(t):
            complexes = [c for c in self.types if is_complex(c) and real_part(c) == t]
            if complexes and r.random() < 0.6:
                return ir.Part(self.expr(r.choice(complexes), scope, depth, exact), r.choice(["real", "imag"]))
        attrs = ["conjugate"] if is_complex(t) else ["real", "imag", "conjugate"]
        return ir.Part(self.expr(t, scope, depth, exact), r.choice(attrs))


def generate(seed, name: str, config: Config = Config()) -> ir.Program:
    """A program the model accepts for every launch, from `seed` (tries derived seeds until one
    is accepted)."""
    for attempt in range(50):
        generator = ProgramGenerator((seed, attempt).__repr__(), name, config)
        try:
            program = generator.program()
            outputs = {interp.compile_program(program, launch, config.contraction).output_types for launch in range(2)}
        except (Retry, interp.Rejected, RecursionError):
            continue
        if len(outputs) == 1:
            program.seed = seed
            return program
    raise RuntimeError(f"no program accepted for seed {seed!r}")
