"""Shrinks a failing generated program to a small one that fails the same way: greedy passes that
delete statements, replace compound statements by their bodies, replace expressions by their
operands, and drop unused functions and globals, keeping each change the model still accepts and
that still fails."""

import copy
from dataclasses import fields

from . import interp, ir


def _accepted(program: ir.Program) -> bool:
    try:
        types = {interp.compile_program(program, launch).output_types for launch in range(2)}
    except (interp.Rejected, RecursionError):
        return False
    return len(types) == 1


def _bodies(body: list, path: tuple):
    """(path, statement list) of a body and of every body nested in it."""
    yield path, body
    for k, s in enumerate(body):
        for attr in ("body", "orelse"):
            inner = getattr(s, attr, None)
            if inner:
                yield from _bodies(inner, path + (k, attr))


def _resolve(program: ir.Program, path: tuple) -> list:
    body = program.functions[path[0]].body
    for k, attr in zip(path[1::2], path[2::2]):
        body = getattr(body[k], attr)
    return body


def _statement_edits(program: ir.Program):
    """Deletions of runs of statements (halves first, as delta debugging does, then single
    ones) and replacements of compound statements by one of their bodies."""
    bodies = [(path, body) for fi, function in enumerate(program.functions) for path, body in _bodies(function.body, (fi,))]
    bodies.sort(key=lambda item: -len(item[1]))
    for path, body in bodies:
        size = len(body) // 2
        while size > 1:
            for first in range(0, len(body) - size + 1, size):
                yield ("delete", path, first, size)
            size //= 2
    for path, body in bodies:
        for k in reversed(range(len(body))):
            yield ("delete", path, k, 1)
            if isinstance(body[k], (ir.If, ir.For, ir.While)):
                yield ("inline", path, k, "body")
                if body[k].orelse:
                    yield ("inline", path, k, "orelse")


def _apply_statement_edit(program: ir.Program, edit) -> ir.Program:
    result = copy.deepcopy(program)
    body = _resolve(result, edit[1])
    k = edit[2]
    if edit[0] == "delete":
        del body[k:k + edit[3]]
    else:
        body[k:k + 1] = getattr(body[k], edit[3])
    return result


def _expression_slots(node, trail=()):
    """(trail, expression) of every expression under a statement or expression node."""
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, ir.Expr):
            yield trail + (f.name,), value
            yield from _expression_slots(value, trail + (f.name,))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, ir.Expr):
                    yield trail + (f.name, i), item
                    yield from _expression_slots(item, trail + (f.name, i))


def _children(e: ir.Expr) -> list:
    out = []
    for f in fields(e):
        value = getattr(e, f.name)
        if isinstance(value, ir.Expr):
            out.append(value)
        elif isinstance(value, list):
            out += [x for x in value if isinstance(x, ir.Expr)]
    return out


def _set(node, trail: tuple, value):
    for step in trail[:-1]:
        node = node[step] if isinstance(step, int) else getattr(node, step)
    last = trail[-1]
    if isinstance(last, int):
        node[last] = value
    else:
        setattr(node, last, value)


def _expression_edits(program: ir.Program):
    for fi, function in enumerate(program.functions):
        for path, body in list(_bodies(function.body, (fi,))):
            for k, s in enumerate(body):
                for trail, e in list(_expression_slots(s)):
                    for child in _children(e):
                        yield path, k, trail, child
                    if isinstance(e, ir.Same):
                        continue
                    for literal in (0, 1):
                        if not (isinstance(e, ir.Lit) and e.value == literal):
                            yield path, k, trail, ir.Cast("int32", ir.Lit(literal))


def _apply_expression_edit(program: ir.Program, edit) -> ir.Program:
    path, k, trail, replacement = edit
    result = copy.deepcopy(program)
    _set(_resolve(result, path)[k], trail, copy.deepcopy(replacement))
    return result


def _drop_unused(program: ir.Program, still_fails) -> ir.Program:
    for name in list(program.globals):
        candidate = copy.deepcopy(program)
        del candidate.globals[name]
        if _accepted(candidate) and still_fails(candidate):
            program = candidate
    for function in list(program.functions[:-1]):
        candidate = copy.deepcopy(program)
        candidate.functions = [f for f in candidate.functions if f.name != function.name]
        if _accepted(candidate) and still_fails(candidate):
            program = candidate
    return program


def reduce(program: ir.Program, still_fails, budget: int = 400) -> ir.Program:
    """A smaller program for which `still_fails(program)` holds, trying at most `budget` checks.
    Each pass tries every edit once; after an accepted edit the edits are enumerated again on the
    smaller program and the pass goes on from the same position."""
    checks = 0
    for edits, apply in ((_statement_edits, _apply_statement_edit), (_expression_edits, _apply_expression_edit)) * 2:
        position = 0
        while checks < budget:
            candidates = list(edits(program))[position:]
            for offset, edit in enumerate(candidates):
                candidate = apply(program, edit)
                if not _accepted(candidate):
                    continue
                checks += 1
                if still_fails(candidate):
                    program = candidate
                    position += offset
                    break
                if checks >= budget:
                    break
            else:
                break
    return _drop_unused(program, still_fails)


def _compiles(text: str) -> bool:
    try:
        compile(text, "<candidate>", "exec")
    except SyntaxError:
        return False
    return True


def reduce_lines(text: str, still_fails, budget: int = 2000) -> str:
    """A module text with lines deleted (runs of halving length, then single lines) while it
    stays valid Python and `still_fails(text)` holds: for failures that need no model."""
    lines = text.splitlines()
    checks = 0
    size = max(1, len(lines) // 2)
    while size >= 1 and checks < budget:
        first = 0
        while first < len(lines) and checks < budget:
            candidate = lines[:first] + lines[first + size:]
            joined = "\n".join(candidate) + "\n"
            if _compiles(joined):
                checks += 1
                if still_fails(joined):
                    lines = candidate
                    continue
            first += size
        size //= 2
    return "\n".join(lines) + "\n"
