"""The generated programs as a small tree (expressions, statements, functions) and their Python
source text. The same tree is compiled by weft (through its source) and by the model
(tests/fuzz/interp.py); nothing here knows types."""

import math
from dataclasses import dataclass, field


class Expr:
    """An expression node."""


@dataclass
class Lit(Expr):
    value: object  # bool, int, float or complex


@dataclass
class Name(Expr):
    id: str


@dataclass
class Glob(Expr):
    id: str


@dataclass
class Bin(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass
class Unary(Expr):
    op: str  # "-", "+", "~", "not"
    operand: Expr


@dataclass
class Compare(Expr):
    ops: list
    operands: list


@dataclass
class BoolOp(Expr):
    op: str  # "and", "or"
    values: list


@dataclass
class IfExp(Expr):
    test: Expr
    body: Expr
    orelse: Expr


@dataclass
class Call(Expr):
    func: str
    args: list


@dataclass
class Cast(Expr):
    type: str
    arg: Expr
    spelling: str = ""  # "int", "float", "bool", "complex" for the Python builtins; else device.<type>
    like: str = ""  # a variable: the conversion is `like.dtype(arg)`, to that variable's type


@dataclass
class MakeComplex(Expr):
    type: str
    re: Expr
    im: Expr


@dataclass
class Math(Expr):
    name: str
    args: list


@dataclass
class Builtin(Expr):
    name: str  # "abs", "min", "max"
    args: list


@dataclass
class Part(Expr):
    operand: Expr
    attr: str  # "real", "imag", "conjugate"


@dataclass
class TupleE(Expr):
    elts: list


@dataclass
class Index(Expr):
    operand: Expr
    index: int


@dataclass
class Load(Expr):
    """`array[index]` of a local array (a negative index counts from the end)."""

    array: str
    index: Expr


@dataclass
class Same(Expr):
    """`fz_same(device.T(0), x)`: x unchanged, and a compile error unless x has type T exactly."""

    type: str
    operand: Expr


class Stmt:
    """A statement node."""


@dataclass
class Assign(Stmt):
    target: str
    value: Expr


@dataclass
class Unpack(Stmt):
    targets: list
    value: Expr


@dataclass
class LocalArray(Stmt):
    """`target = device.local_array(size, device.<type>)`."""

    target: str
    size: int
    type: str


@dataclass
class Store(Stmt):
    """`array[index] = value` (the value converts to the element type)."""

    array: str
    index: Expr
    value: Expr


@dataclass
class AugAssign(Stmt):
    target: str
    op: str
    value: Expr


@dataclass
class If(Stmt):
    test: Expr
    body: list
    orelse: list = field(default_factory=list)


@dataclass
class For(Stmt):
    target: str
    args: list
    body: list
    orelse: list = field(default_factory=list)


@dataclass
class While(Stmt):
    test: Expr
    body: list
    orelse: list = field(default_factory=list)


@dataclass
class Break(Stmt):
    pass


@dataclass
class Continue(Stmt):
    pass


@dataclass
class Return(Stmt):
    value: Expr


@dataclass
class Function:
    name: str
    params: list
    body: list


@dataclass
class Program:
    """One generated program: helper functions and an entry function (the last) called by the
    batch kernel with one value per parameter and returning a tuple; global constants with the
    value of each launch."""

    name: str
    functions: list
    param_types: list
    globals: dict  # name -> list of values, one per launch
    features: set = field(default_factory=set)
    seed: object = None  # what tests/fuzz/generator.py made it from

    @property
    def entry(self) -> Function:
        return self.functions[-1]


SAME_HELPER = """def fz_same(expected, value):
    expected = value
    value = expected
    return expected
"""


def _float_literal(x: float) -> str:
    if math.isnan(x):
        return "math.nan"
    if math.isinf(x):
        return "math.inf" if x > 0 else "(-math.inf)"
    text = repr(x)
    return f"({text})" if x < 0 or text.startswith("-") else text


def literal(value) -> str:
    """Python source for a constant (parenthesized where a sign could bind wrongly)."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return f"({value})" if value < 0 else str(value)
    if isinstance(value, float):
        return _float_literal(value)
    # A complex constant is a real literal plus or minus an imaginary one (Python folds it).
    re, im = value.real, value.imag
    sign = "-" if math.copysign(1.0, im) < 0 else "+"
    return f"({_float_literal(re)} {sign} {abs(im)!r}j)"


def source(e: Expr) -> str:
    """Python source for an expression, fully parenthesized."""
    if isinstance(e, Lit):
        return literal(e.value)
    if isinstance(e, (Name, Glob)):
        return e.id
    if isinstance(e, Bin):
        return f"({source(e.left)} {e.op} {source(e.right)})"
    if isinstance(e, Unary):
        return f"(not {source(e.operand)})" if e.op == "not" else f"({e.op}{source(e.operand)})"
    if isinstance(e, Compare):
        parts = [source(e.operands[0])]
        for op, operand in zip(e.ops, e.operands[1:]):
            parts += [op, source(operand)]
        return "(" + " ".join(parts) + ")"
    if isinstance(e, BoolOp):
        return "(" + f" {e.op} ".join(source(v) for v in e.values) + ")"
    if isinstance(e, IfExp):
        return f"({source(e.body)} if {source(e.test)} else {source(e.orelse)})"
    if isinstance(e, Call):
        return f"{e.func}({', '.join(source(a) for a in e.args)})"
    if isinstance(e, Cast):
        callee = f"{e.like}.dtype" if e.like else e.spelling or ("device.bool_" if e.type == "bool" else f"device.{e.type}")
        return f"{callee}({source(e.arg)})"
    if isinstance(e, MakeComplex):
        return f"device.{e.type}({source(e.re)}, {source(e.im)})"
    if isinstance(e, Math):
        return f"math.{e.name}({', '.join(source(a) for a in e.args)})"
    if isinstance(e, Builtin):
        return f"{e.name}({', '.join(source(a) for a in e.args)})"
    if isinstance(e, Part):
        suffix = ".conjugate()" if e.attr == "conjugate" else f".{e.attr}"
        return f"{source(e.operand)}{suffix}"
    if isinstance(e, TupleE):
        inner = ", ".join(source(x) for x in e.elts)
        return f"({inner},)" if len(e.elts) == 1 else f"({inner})"
    if isinstance(e, Index):
        return f"{source(e.operand)}[{e.index}]"
    if isinstance(e, Load):
        return f"{e.array}[{source(e.index)}]"
    if isinstance(e, Same):
        zero = "device.bool_(0)" if e.type == "bool" else f"device.{e.type}(0)"
        return f"fz_same({zero}, {source(e.operand)})"
    raise TypeError(f"not an expression: {e!r}")


def statements(body: list, indent: str) -> list:
    """Source lines of a statement list."""
    lines = []
    for s in body:
        if isinstance(s, Assign):
            lines.append(f"{indent}{s.target} = {source(s.value)}")
        elif isinstance(s, Unpack):
            lines.append(f"{indent}{', '.join(s.targets)} = {source(s.value)}")
        elif isinstance(s, LocalArray):
            dtype = "device.bool_" if s.type == "bool" else f"device.{s.type}"
            lines.append(f"{indent}{s.target} = device.local_array({s.size}, {dtype})")
        elif isinstance(s, Store):
            lines.append(f"{indent}{s.array}[{source(s.index)}] = {source(s.value)}")
        elif isinstance(s, AugAssign):
            lines.append(f"{indent}{s.target} {s.op}= {source(s.value)}")
        elif isinstance(s, If):
            lines.append(f"{indent}if {source(s.test)}:")
            lines += statements(s.body, indent + "    ") or [indent + "    pass"]
            if s.orelse:
                lines.append(f"{indent}else:")
                lines += statements(s.orelse, indent + "    ")
        elif isinstance(s, For):
            lines.append(f"{indent}for {s.target} in range({', '.join(source(a) for a in s.args)}):")
            lines += statements(s.body, indent + "    ") or [indent + "    pass"]
            if s.orelse:
                lines.append(f"{indent}else:")
                lines += statements(s.orelse, indent + "    ")
        elif isinstance(s, While):
            lines.append(f"{indent}while {source(s.test)}:")
            lines += statements(s.body, indent + "    ") or [indent + "    pass"]
            if s.orelse:
                lines.append(f"{indent}else:")
                lines += statements(s.orelse, indent + "    ")
        elif isinstance(s, Break):
            lines.append(f"{indent}break")
        elif isinstance(s, Continue):
            lines.append(f"{indent}continue")
        elif isinstance(s, Return):
            lines.append(f"{indent}return {source(s.value)}")
        else:
            raise TypeError(f"not a statement: {s!r}")
    return lines


def function_source(f: Function) -> str:
    return "\n".join([f"def {f.name}({', '.join(f.params)}):", *statements(f.body, "    ")]) + "\n"


def program_source(p: Program, launch: int = 0) -> str:
    """The program's globals (their values at launch `launch`) and functions."""
    lines = [f"{name} = {literal(values[launch])}" for name, values in sorted(p.globals.items())]
    text = "\n".join(lines) + ("\n\n" if lines else "")
    return text + "\n".join(function_source(f) for f in p.functions)


def program_module(p: Program, launch: int = 0) -> str:
    """A complete module holding one program and a kernel that runs its entry on one value per
    parameter (a reproducer a person can read and run)."""
    from .scalars import SCALARS

    params = ", ".join(f"a{i}: {SCALARS[t].device}[:]" for i, t in enumerate(p.param_types))
    call = ", ".join(f"a{i}[i]" for i in range(len(p.param_types)))
    return (
        "import math\nfrom cuda import device\n\n"
        + SAME_HELPER
        + "\n"
        + program_source(p, launch)
        + f"\n@device.kernel\ndef fz_kernel({params}):\n    i = device.tid(1)\n    r = {p.entry.name}({call})\n"
    )


def walk_statements(body: list):
    """Every statement of a body, nested ones included, in order."""
    for s in body:
        yield s
        for inner in (getattr(s, "body", None), getattr(s, "orelse", None)):
            if inner:
                yield from walk_statements(inner)
