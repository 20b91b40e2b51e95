// Parser tests: every AST node kind with CPython's exact positions, every syntax diagnostic kind
// at its location, and robustness against random and truncated input.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "syntax/syntax.h"
#include "syntax/syntax_diagnostics.h"

namespace weft::syntax {
namespace {

struct ParseResult {
  std::string dump;       // dumpAst with positions, empty on error
  std::string errorKind;  // first diagnostic's kind
  std::string message;
  uint32_t line = 0;
  uint32_t column = 0;
  size_t errors = 0;
};

ParseResult parseText(const std::string& text, bool positions = true) {
  SourceManager sources;
  uint32_t id = sources.add("test.py", text);
  Diagnostics diagnostics(sources);
  std::unique_ptr<Module> module = parse(id, diagnostics);
  ParseResult result;
  result.errors = diagnostics.all().size();
  if (!diagnostics.all().empty()) {
    const Diagnostic& first = diagnostics.all().front();
    result.errorKind = std::string(first.kind);
    result.message = first.message;
    result.line = first.loc.line;
    result.column = first.loc.column;
  } else if (module != nullptr) {
    result.dump = dumpAst(*module, positions);
  }
  return result;
}

struct KindCase {
  const char* kind;
  const char* source;
  const char* expected;
};

// Generated from CPython 3.11: ast.dump(ast.parse(src), include_attributes=True).
const KindCase kKindCases[] = {
    {"FunctionDef", "@d\ndef f(a, /, b=1, *c, d, e=2, **g) -> int:\n    return a\n",
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[arg(arg='a', lineno=2, col_offset=6, end_lineno=2, end_col_offset=7)], args=[arg(arg='b', lineno=2, col_offset=12, end_lineno=2, end_col_offset=13)], vararg=arg(arg='c', lineno=2, col_offset=18, end_lineno=2, end_col_offset=19), kwonlyargs=[arg(arg='d', lineno=2, col_offset=21, end_lineno=2, end_col_offset=22), arg(arg='e', lineno=2, col_offset=24, end_lineno=2, end_col_offset=25)], kw_defaults=[None, Constant(value=2, lineno=2, col_offset=26, end_lineno=2, end_col_offset=27)], kwarg=arg(arg='g', lineno=2, col_offset=31, end_lineno=2, end_col_offset=32), defaults=[Constant(value=1, lineno=2, col_offset=14, end_lineno=2, end_col_offset=15)]), body=[Return(value=Name(id='a', ctx=Load(), lineno=3, col_offset=11, end_lineno=3, end_col_offset=12), lineno=3, col_offset=4, end_lineno=3, end_col_offset=12)], decorator_list=[Name(id='d', ctx=Load(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2)], returns=Name(id='int', ctx=Load(), lineno=2, col_offset=37, end_lineno=2, end_col_offset=40), lineno=2, col_offset=0, end_lineno=3, end_col_offset=12)], type_ignores=[])"},
    {"AsyncFunctionDef", "async def f():\n    await x\n",
     "Module(body=[AsyncFunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=[Expr(value=Await(value=Name(id='x', ctx=Load(), lineno=2, col_offset=10, end_lineno=2, end_col_offset=11), lineno=2, col_offset=4, end_lineno=2, end_col_offset=11), lineno=2, col_offset=4, end_lineno=2, end_col_offset=11)], decorator_list=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=11)], type_ignores=[])"},
    {"ClassDef", "class C(B, metaclass=M):\n    pass\n",
     "Module(body=[ClassDef(name='C', bases=[Name(id='B', ctx=Load(), lineno=1, col_offset=8, end_lineno=1, end_col_offset=9)], keywords=[keyword(arg='metaclass', value=Name(id='M', ctx=Load(), lineno=1, col_offset=21, end_lineno=1, end_col_offset=22), lineno=1, col_offset=11, end_lineno=1, end_col_offset=22)], body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], decorator_list=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=8)], type_ignores=[])"},
    {"Return", "def f():\n    return 1, 2\n",
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=[Return(value=Tuple(elts=[Constant(value=1, lineno=2, col_offset=11, end_lineno=2, end_col_offset=12), Constant(value=2, lineno=2, col_offset=14, end_lineno=2, end_col_offset=15)], ctx=Load(), lineno=2, col_offset=11, end_lineno=2, end_col_offset=15), lineno=2, col_offset=4, end_lineno=2, end_col_offset=15)], decorator_list=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=15)], type_ignores=[])"},
    {"Delete", "del a, b[0], c.d\n",
     "Module(body=[Delete(targets=[Name(id='a', ctx=Del(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), Subscript(value=Name(id='b', ctx=Load(), lineno=1, col_offset=7, end_lineno=1, end_col_offset=8), slice=Constant(value=0, lineno=1, col_offset=9, end_lineno=1, end_col_offset=10), ctx=Del(), lineno=1, col_offset=7, end_lineno=1, end_col_offset=11), Attribute(value=Name(id='c', ctx=Load(), lineno=1, col_offset=13, end_lineno=1, end_col_offset=14), attr='d', ctx=Del(), lineno=1, col_offset=13, end_lineno=1, end_col_offset=16)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=16)], type_ignores=[])"},
    {"Assign", "a = b, c = 1, 2\n",
     "Module(body=[Assign(targets=[Name(id='a', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), Tuple(elts=[Name(id='b', ctx=Store(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), Name(id='c', ctx=Store(), lineno=1, col_offset=7, end_lineno=1, end_col_offset=8)], ctx=Store(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=8)], value=Tuple(elts=[Constant(value=1, lineno=1, col_offset=11, end_lineno=1, end_col_offset=12), Constant(value=2, lineno=1, col_offset=14, end_lineno=1, end_col_offset=15)], ctx=Load(), lineno=1, col_offset=11, end_lineno=1, end_col_offset=15), lineno=1, col_offset=0, end_lineno=1, end_col_offset=15)], type_ignores=[])"},
    {"AugAssign", "x **= 2\n",
     "Module(body=[AugAssign(target=Name(id='x', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), op=Pow(), value=Constant(value=2, lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), lineno=1, col_offset=0, end_lineno=1, end_col_offset=7)], type_ignores=[])"},
    {"AnnAssign", "(x): int = 1\ny.z: str\n",
     "Module(body=[AnnAssign(target=Name(id='x', ctx=Store(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), annotation=Name(id='int', ctx=Load(), lineno=1, col_offset=5, end_lineno=1, end_col_offset=8), value=Constant(value=1, lineno=1, col_offset=11, end_lineno=1, end_col_offset=12), simple=0, lineno=1, col_offset=0, end_lineno=1, end_col_offset=12), AnnAssign(target=Attribute(value=Name(id='y', ctx=Load(), lineno=2, col_offset=0, end_lineno=2, end_col_offset=1), attr='z', ctx=Store(), lineno=2, col_offset=0, end_lineno=2, end_col_offset=3), annotation=Name(id='str', ctx=Load(), lineno=2, col_offset=5, end_lineno=2, end_col_offset=8), simple=0, lineno=2, col_offset=0, end_lineno=2, end_col_offset=8)], type_ignores=[])"},
    {"For", "for i, j in x:\n    pass\nelse:\n    pass\n",
     "Module(body=[For(target=Tuple(elts=[Name(id='i', ctx=Store(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), Name(id='j', ctx=Store(), lineno=1, col_offset=7, end_lineno=1, end_col_offset=8)], ctx=Store(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=8), iter=Name(id='x', ctx=Load(), lineno=1, col_offset=12, end_lineno=1, end_col_offset=13), body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], orelse=[Pass(lineno=4, col_offset=4, end_lineno=4, end_col_offset=8)], lineno=1, col_offset=0, end_lineno=4, end_col_offset=8)], type_ignores=[])"},
    {"AsyncFor", "async def f():\n    async for x in y: pass\n",
     "Module(body=[AsyncFunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=[AsyncFor(target=Name(id='x', ctx=Store(), lineno=2, col_offset=14, end_lineno=2, end_col_offset=15), iter=Name(id='y', ctx=Load(), lineno=2, col_offset=19, end_lineno=2, end_col_offset=20), body=[Pass(lineno=2, col_offset=22, end_lineno=2, end_col_offset=26)], orelse=[], lineno=2, col_offset=4, end_lineno=2, end_col_offset=26)], decorator_list=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=26)], type_ignores=[])"},
    {"While", "while x := f():\n    break\nelse:\n    continue\n",
     "Module(body=[While(test=NamedExpr(target=Name(id='x', ctx=Store(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), value=Call(func=Name(id='f', ctx=Load(), lineno=1, col_offset=11, end_lineno=1, end_col_offset=12), args=[], keywords=[], lineno=1, col_offset=11, end_lineno=1, end_col_offset=14), lineno=1, col_offset=6, end_lineno=1, end_col_offset=14), body=[Break(lineno=2, col_offset=4, end_lineno=2, end_col_offset=9)], orelse=[Continue(lineno=4, col_offset=4, end_lineno=4, end_col_offset=12)], lineno=1, col_offset=0, end_lineno=4, end_col_offset=12)], type_ignores=[])"},
    {"If", "if a:\n    pass\nelif b:\n    pass\nelse:\n    pass\n",
     "Module(body=[If(test=Name(id='a', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, end_col_offset=4), body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], orelse=[If(test=Name(id='b', ctx=Load(), lineno=3, col_offset=5, end_lineno=3, end_col_offset=6), body=[Pass(lineno=4, col_offset=4, end_lineno=4, end_col_offset=8)], orelse=[Pass(lineno=6, col_offset=4, end_lineno=6, end_col_offset=8)], lineno=3, col_offset=0, end_lineno=6, end_col_offset=8)], lineno=1, col_offset=0, end_lineno=6, end_col_offset=8)], type_ignores=[])"},
    {"With", "with (a as b, c):\n    pass\n",
     "Module(body=[With(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), optional_vars=Name(id='b', ctx=Store(), lineno=1, col_offset=11, end_lineno=1, end_col_offset=12)), withitem(context_expr=Name(id='c', ctx=Load(), lineno=1, col_offset=14, end_lineno=1, end_col_offset=15))], body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], lineno=1, col_offset=0, end_lineno=2, end_col_offset=8)], type_ignores=[])"},
    {"AsyncWith", "async def f():\n    async with a as (b, c): pass\n",
     "Module(body=[AsyncFunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=[AsyncWith(items=[withitem(context_expr=Name(id='a', ctx=Load(), lineno=2, col_offset=15, end_lineno=2, end_col_offset=16), optional_vars=Tuple(elts=[Name(id='b', ctx=Store(), lineno=2, col_offset=21, end_lineno=2, end_col_offset=22), Name(id='c', ctx=Store(), lineno=2, col_offset=24, end_lineno=2, end_col_offset=25)], ctx=Store(), lineno=2, col_offset=20, end_lineno=2, end_col_offset=26))], body=[Pass(lineno=2, col_offset=28, end_lineno=2, end_col_offset=32)], lineno=2, col_offset=4, end_lineno=2, end_col_offset=32)], decorator_list=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=32)], type_ignores=[])"},
    {"Raise", "raise E from None\n",
     "Module(body=[Raise(exc=Name(id='E', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), cause=Constant(value=None, lineno=1, col_offset=13, end_lineno=1, end_col_offset=17), lineno=1, col_offset=0, end_lineno=1, end_col_offset=17)], type_ignores=[])"},
    {"Try", "try:\n    pass\nexcept E as e:\n    pass\nelse:\n    pass\nfinally:\n    pass\n",
     "Module(body=[Try(body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], handlers=[ExceptHandler(type=Name(id='E', ctx=Load(), lineno=3, col_offset=7, end_lineno=3, end_col_offset=8), name='e', body=[Pass(lineno=4, col_offset=4, end_lineno=4, end_col_offset=8)], lineno=3, col_offset=0, end_lineno=4, end_col_offset=8)], orelse=[Pass(lineno=6, col_offset=4, end_lineno=6, end_col_offset=8)], finalbody=[Pass(lineno=8, col_offset=4, end_lineno=8, end_col_offset=8)], lineno=1, col_offset=0, end_lineno=8, end_col_offset=8)], type_ignores=[])"},
    {"TryStar", "try:\n    pass\nexcept* E:\n    pass\n",
     "Module(body=[TryStar(body=[Pass(lineno=2, col_offset=4, end_lineno=2, end_col_offset=8)], handlers=[ExceptHandler(type=Name(id='E', ctx=Load(), lineno=3, col_offset=8, end_lineno=3, end_col_offset=9), body=[Pass(lineno=4, col_offset=4, end_lineno=4, end_col_offset=8)], lineno=3, col_offset=0, end_lineno=4, end_col_offset=8)], orelse=[], finalbody=[], lineno=1, col_offset=0, end_lineno=4, end_col_offset=8)], type_ignores=[])"},
    {"Assert", "assert x, 'm'\n",
     "Module(body=[Assert(test=Name(id='x', ctx=Load(), lineno=1, col_offset=7, end_lineno=1, end_col_offset=8), msg=Constant(value='m', lineno=1, col_offset=10, end_lineno=1, end_col_offset=13), lineno=1, col_offset=0, end_lineno=1, end_col_offset=13)], type_ignores=[])"},
    {"Import", "import a.b as c, d\n",
     "Module(body=[Import(names=[alias(name='a.b', asname='c', lineno=1, col_offset=7, end_lineno=1, end_col_offset=15), alias(name='d', lineno=1, col_offset=17, end_lineno=1, end_col_offset=18)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=18)], type_ignores=[])"},
    {"ImportFrom", "from ..a import (b as c, d)\n",
     "Module(body=[ImportFrom(module='a', names=[alias(name='b', asname='c', lineno=1, col_offset=17, end_lineno=1, end_col_offset=23), alias(name='d', lineno=1, col_offset=25, end_lineno=1, end_col_offset=26)], level=2, lineno=1, col_offset=0, end_lineno=1, end_col_offset=27)], type_ignores=[])"},
    {"Global", "global a, b\n",
     "Module(body=[Global(names=['a', 'b'], lineno=1, col_offset=0, end_lineno=1, end_col_offset=11)], type_ignores=[])"},
    {"Nonlocal", "def f():\n    nonlocal a\n",
     "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=[Nonlocal(names=['a'], lineno=2, col_offset=4, end_lineno=2, end_col_offset=14)], decorator_list=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=14)], type_ignores=[])"},
    {"Pass", "pass\n",
     "Module(body=[Pass(lineno=1, col_offset=0, end_lineno=1, end_col_offset=4)], type_ignores=[])"},
    {"BoolOp", "a or b and c\n",
     "Module(body=[Expr(value=BoolOp(op=Or(), values=[Name(id='a', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), BoolOp(op=And(), values=[Name(id='b', ctx=Load(), lineno=1, col_offset=5, end_lineno=1, end_col_offset=6), Name(id='c', ctx=Load(), lineno=1, col_offset=11, end_lineno=1, end_col_offset=12)], lineno=1, col_offset=5, end_lineno=1, end_col_offset=12)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=12), lineno=1, col_offset=0, end_lineno=1, end_col_offset=12)], type_ignores=[])"},
    {"NamedExpr", "(y := 2)\n",
     "Module(body=[Expr(value=NamedExpr(target=Name(id='y', ctx=Store(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), value=Constant(value=2, lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), lineno=1, col_offset=1, end_lineno=1, end_col_offset=7), lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], type_ignores=[])"},
    {"BinOp", "a + b * c ** -d // e @ f\n",
     "Module(body=[Expr(value=BinOp(left=Name(id='a', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), op=Add(), right=BinOp(left=BinOp(left=BinOp(left=Name(id='b', ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), op=Mult(), right=BinOp(left=Name(id='c', ctx=Load(), lineno=1, col_offset=8, end_lineno=1, end_col_offset=9), op=Pow(), right=UnaryOp(op=USub(), operand=Name(id='d', ctx=Load(), lineno=1, col_offset=14, end_lineno=1, end_col_offset=15), lineno=1, col_offset=13, end_lineno=1, end_col_offset=15), lineno=1, col_offset=8, end_lineno=1, end_col_offset=15), lineno=1, col_offset=4, end_lineno=1, end_col_offset=15), op=FloorDiv(), right=Name(id='e', ctx=Load(), lineno=1, col_offset=19, end_lineno=1, end_col_offset=20), lineno=1, col_offset=4, end_lineno=1, end_col_offset=20), op=MatMult(), right=Name(id='f', ctx=Load(), lineno=1, col_offset=23, end_lineno=1, end_col_offset=24), lineno=1, col_offset=4, end_lineno=1, end_col_offset=24), lineno=1, col_offset=0, end_lineno=1, end_col_offset=24), lineno=1, col_offset=0, end_lineno=1, end_col_offset=24)], type_ignores=[])"},
    {"UnaryOp", "-~+x\n",
     "Module(body=[Expr(value=UnaryOp(op=USub(), operand=UnaryOp(op=Invert(), operand=UnaryOp(op=UAdd(), operand=Name(id='x', ctx=Load(), lineno=1, col_offset=3, end_lineno=1, end_col_offset=4), lineno=1, col_offset=2, end_lineno=1, end_col_offset=4), lineno=1, col_offset=1, end_lineno=1, end_col_offset=4), lineno=1, col_offset=0, end_lineno=1, end_col_offset=4), lineno=1, col_offset=0, end_lineno=1, end_col_offset=4)], type_ignores=[])"},
    {"Lambda", "lambda x, *y, z=1, **k: x\n",
     "Module(body=[Expr(value=Lambda(args=arguments(posonlyargs=[], args=[arg(arg='x', lineno=1, col_offset=7, end_lineno=1, end_col_offset=8)], vararg=arg(arg='y', lineno=1, col_offset=11, end_lineno=1, end_col_offset=12), kwonlyargs=[arg(arg='z', lineno=1, col_offset=14, end_lineno=1, end_col_offset=15)], kw_defaults=[Constant(value=1, lineno=1, col_offset=16, end_lineno=1, end_col_offset=17)], kwarg=arg(arg='k', lineno=1, col_offset=21, end_lineno=1, end_col_offset=22), defaults=[]), body=Name(id='x', ctx=Load(), lineno=1, col_offset=24, end_lineno=1, end_col_offset=25), lineno=1, col_offset=0, end_lineno=1, end_col_offset=25), lineno=1, col_offset=0, end_lineno=1, end_col_offset=25)], type_ignores=[])"},
    {"IfExp", "a if b else c\n",
     "Module(body=[Expr(value=IfExp(test=Name(id='b', ctx=Load(), lineno=1, col_offset=5, end_lineno=1, end_col_offset=6), body=Name(id='a', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), orelse=Name(id='c', ctx=Load(), lineno=1, col_offset=12, end_lineno=1, end_col_offset=13), lineno=1, col_offset=0, end_lineno=1, end_col_offset=13), lineno=1, col_offset=0, end_lineno=1, end_col_offset=13)], type_ignores=[])"},
    {"Dict", "{1: 2, **d}\n",
     "Module(body=[Expr(value=Dict(keys=[Constant(value=1, lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), None], values=[Constant(value=2, lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), Name(id='d', ctx=Load(), lineno=1, col_offset=9, end_lineno=1, end_col_offset=10)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=11), lineno=1, col_offset=0, end_lineno=1, end_col_offset=11)], type_ignores=[])"},
    {"Set", "{1, *s}\n",
     "Module(body=[Expr(value=Set(elts=[Constant(value=1, lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), Starred(value=Name(id='s', ctx=Load(), lineno=1, col_offset=5, end_lineno=1, end_col_offset=6), ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=6)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=7), lineno=1, col_offset=0, end_lineno=1, end_col_offset=7)], type_ignores=[])"},
    {"ListComp", "[x for x in y if x for z in w]\n",
     "Module(body=[Expr(value=ListComp(elt=Name(id='x', ctx=Load(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), generators=[comprehension(target=Name(id='x', ctx=Store(), lineno=1, col_offset=7, end_lineno=1, end_col_offset=8), iter=Name(id='y', ctx=Load(), lineno=1, col_offset=12, end_lineno=1, end_col_offset=13), ifs=[Name(id='x', ctx=Load(), lineno=1, col_offset=17, end_lineno=1, end_col_offset=18)], is_async=0), comprehension(target=Name(id='z', ctx=Store(), lineno=1, col_offset=23, end_lineno=1, end_col_offset=24), iter=Name(id='w', ctx=Load(), lineno=1, col_offset=28, end_lineno=1, end_col_offset=29), ifs=[], is_async=0)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=30), lineno=1, col_offset=0, end_lineno=1, end_col_offset=30)], type_ignores=[])"},
    {"SetComp", "{x async for x in y}\n",
     "Module(body=[Expr(value=SetComp(elt=Name(id='x', ctx=Load(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), generators=[comprehension(target=Name(id='x', ctx=Store(), lineno=1, col_offset=13, end_lineno=1, end_col_offset=14), iter=Name(id='y', ctx=Load(), lineno=1, col_offset=18, end_lineno=1, end_col_offset=19), ifs=[], is_async=1)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=20), lineno=1, col_offset=0, end_lineno=1, end_col_offset=20)], type_ignores=[])"},
    {"DictComp", "{k: v for k, v in items}\n",
     "Module(body=[Expr(value=DictComp(key=Name(id='k', ctx=Load(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), value=Name(id='v', ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), generators=[comprehension(target=Tuple(elts=[Name(id='k', ctx=Store(), lineno=1, col_offset=10, end_lineno=1, end_col_offset=11), Name(id='v', ctx=Store(), lineno=1, col_offset=13, end_lineno=1, end_col_offset=14)], ctx=Store(), lineno=1, col_offset=10, end_lineno=1, end_col_offset=14), iter=Name(id='items', ctx=Load(), lineno=1, col_offset=18, end_lineno=1, end_col_offset=23), ifs=[], is_async=0)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=24), lineno=1, col_offset=0, end_lineno=1, end_col_offset=24)], type_ignores=[])"},
    {"GeneratorExp", "f(x for x in y)\n",
     "Module(body=[Expr(value=Call(func=Name(id='f', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), args=[GeneratorExp(elt=Name(id='x', ctx=Load(), lineno=1, col_offset=2, end_lineno=1, end_col_offset=3), generators=[comprehension(target=Name(id='x', ctx=Store(), lineno=1, col_offset=8, end_lineno=1, end_col_offset=9), iter=Name(id='y', ctx=Load(), lineno=1, col_offset=13, end_lineno=1, end_col_offset=14), ifs=[], is_async=0)], lineno=1, col_offset=1, end_lineno=1, end_col_offset=15)], keywords=[], lineno=1, col_offset=0, end_lineno=1, end_col_offset=15), lineno=1, col_offset=0, end_lineno=1, end_col_offset=15)], type_ignores=[])"},
    {"Yield", "def g():\n    x = yield 1\n    yield\n",
     "Module(body=[FunctionDef(name='g', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=[Assign(targets=[Name(id='x', ctx=Store(), lineno=2, col_offset=4, end_lineno=2, end_col_offset=5)], value=Yield(value=Constant(value=1, lineno=2, col_offset=14, end_lineno=2, end_col_offset=15), lineno=2, col_offset=8, end_lineno=2, end_col_offset=15), lineno=2, col_offset=4, end_lineno=2, end_col_offset=15), Expr(value=Yield(lineno=3, col_offset=4, end_lineno=3, end_col_offset=9), lineno=3, col_offset=4, end_lineno=3, end_col_offset=9)], decorator_list=[], lineno=1, col_offset=0, end_lineno=3, end_col_offset=9)], type_ignores=[])"},
    {"YieldFrom", "def g():\n    yield from y\n",
     "Module(body=[FunctionDef(name='g', args=arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=[Expr(value=YieldFrom(value=Name(id='y', ctx=Load(), lineno=2, col_offset=15, end_lineno=2, end_col_offset=16), lineno=2, col_offset=4, end_lineno=2, end_col_offset=16), lineno=2, col_offset=4, end_lineno=2, end_col_offset=16)], decorator_list=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=16)], type_ignores=[])"},
    {"Compare", "a < b not in c is not d\n",
     "Module(body=[Expr(value=Compare(left=Name(id='a', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), ops=[Lt(), NotIn(), IsNot()], comparators=[Name(id='b', ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), Name(id='c', ctx=Load(), lineno=1, col_offset=13, end_lineno=1, end_col_offset=14), Name(id='d', ctx=Load(), lineno=1, col_offset=22, end_lineno=1, end_col_offset=23)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=23), lineno=1, col_offset=0, end_lineno=1, end_col_offset=23)], type_ignores=[])"},
    {"Call", "f(1, *a, k=2, **kw)\n",
     "Module(body=[Expr(value=Call(func=Name(id='f', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), args=[Constant(value=1, lineno=1, col_offset=2, end_lineno=1, end_col_offset=3), Starred(value=Name(id='a', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), ctx=Load(), lineno=1, col_offset=5, end_lineno=1, end_col_offset=7)], keywords=[keyword(arg='k', value=Constant(value=2, lineno=1, col_offset=11, end_lineno=1, end_col_offset=12), lineno=1, col_offset=9, end_lineno=1, end_col_offset=12), keyword(value=Name(id='kw', ctx=Load(), lineno=1, col_offset=16, end_lineno=1, end_col_offset=18), lineno=1, col_offset=14, end_lineno=1, end_col_offset=18)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=19), lineno=1, col_offset=0, end_lineno=1, end_col_offset=19)], type_ignores=[])"},
    {"JoinedStr", "f'a{b!r:>{w}}c{d=}'\n",
     "Module(body=[Expr(value=JoinedStr(values=[Constant(value='a', lineno=1, col_offset=0, end_lineno=1, end_col_offset=19), FormattedValue(value=Name(id='b', ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), conversion=114, format_spec=JoinedStr(values=[Constant(value='>', lineno=1, col_offset=0, end_lineno=1, end_col_offset=19), FormattedValue(value=Name(id='w', ctx=Load(), lineno=1, col_offset=10, end_lineno=1, end_col_offset=11), conversion=-1, lineno=1, col_offset=0, end_lineno=1, end_col_offset=19)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=19), lineno=1, col_offset=0, end_lineno=1, end_col_offset=19), Constant(value='cd=', lineno=1, col_offset=0, end_lineno=1, end_col_offset=19), FormattedValue(value=Name(id='d', ctx=Load(), lineno=1, col_offset=15, end_lineno=1, end_col_offset=16), conversion=114, lineno=1, col_offset=0, end_lineno=1, end_col_offset=19)], lineno=1, col_offset=0, end_lineno=1, end_col_offset=19), lineno=1, col_offset=0, end_lineno=1, end_col_offset=19)], type_ignores=[])"},
    {"Constant", "(None, True, ..., 1, 1.5, 2j, 'u', b'b', u'k', 0xff, 1e16)\n",
     "Module(body=[Expr(value=Tuple(elts=[Constant(value=None, lineno=1, col_offset=1, end_lineno=1, end_col_offset=5), Constant(value=True, lineno=1, col_offset=7, end_lineno=1, end_col_offset=11), Constant(value=Ellipsis, lineno=1, col_offset=13, end_lineno=1, end_col_offset=16), Constant(value=1, lineno=1, col_offset=18, end_lineno=1, end_col_offset=19), Constant(value=1.5, lineno=1, col_offset=21, end_lineno=1, end_col_offset=24), Constant(value=2j, lineno=1, col_offset=26, end_lineno=1, end_col_offset=28), Constant(value='u', lineno=1, col_offset=30, end_lineno=1, end_col_offset=33), Constant(value=b'b', lineno=1, col_offset=35, end_lineno=1, end_col_offset=39), Constant(value='k', kind='u', lineno=1, col_offset=41, end_lineno=1, end_col_offset=45), Constant(value=255, lineno=1, col_offset=47, end_lineno=1, end_col_offset=51), Constant(value=1e+16, lineno=1, col_offset=53, end_lineno=1, end_col_offset=57)], ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=58), lineno=1, col_offset=0, end_lineno=1, end_col_offset=58)], type_ignores=[])"},
    {"Attribute", "a.b.c = 1\n",
     "Module(body=[Assign(targets=[Attribute(value=Attribute(value=Name(id='a', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), attr='b', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=3), attr='c', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=5)], value=Constant(value=1, lineno=1, col_offset=8, end_lineno=1, end_col_offset=9), lineno=1, col_offset=0, end_lineno=1, end_col_offset=9)], type_ignores=[])"},
    {"Subscript", "a[1:2, ::3, ...] = x\n",
     "Module(body=[Assign(targets=[Subscript(value=Name(id='a', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), slice=Tuple(elts=[Slice(lower=Constant(value=1, lineno=1, col_offset=2, end_lineno=1, end_col_offset=3), upper=Constant(value=2, lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), lineno=1, col_offset=2, end_lineno=1, end_col_offset=5), Slice(step=Constant(value=3, lineno=1, col_offset=9, end_lineno=1, end_col_offset=10), lineno=1, col_offset=7, end_lineno=1, end_col_offset=10), Constant(value=Ellipsis, lineno=1, col_offset=12, end_lineno=1, end_col_offset=15)], ctx=Load(), lineno=1, col_offset=2, end_lineno=1, end_col_offset=15), ctx=Store(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=16)], value=Name(id='x', ctx=Load(), lineno=1, col_offset=19, end_lineno=1, end_col_offset=20), lineno=1, col_offset=0, end_lineno=1, end_col_offset=20)], type_ignores=[])"},
    {"Starred", "a, *b = c\n",
     "Module(body=[Assign(targets=[Tuple(elts=[Name(id='a', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), Starred(value=Name(id='b', ctx=Store(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), ctx=Store(), lineno=1, col_offset=3, end_lineno=1, end_col_offset=5)], ctx=Store(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=5)], value=Name(id='c', ctx=Load(), lineno=1, col_offset=8, end_lineno=1, end_col_offset=9), lineno=1, col_offset=0, end_lineno=1, end_col_offset=9)], type_ignores=[])"},
    {"List", "[a, b] = [1, 2]\n",
     "Module(body=[Assign(targets=[List(elts=[Name(id='a', ctx=Store(), lineno=1, col_offset=1, end_lineno=1, end_col_offset=2), Name(id='b', ctx=Store(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5)], ctx=Store(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=6)], value=List(elts=[Constant(value=1, lineno=1, col_offset=10, end_lineno=1, end_col_offset=11), Constant(value=2, lineno=1, col_offset=13, end_lineno=1, end_col_offset=14)], ctx=Load(), lineno=1, col_offset=9, end_lineno=1, end_col_offset=15), lineno=1, col_offset=0, end_lineno=1, end_col_offset=15)], type_ignores=[])"},
    {"Slice", "x[a:b:c]\n",
     "Module(body=[Expr(value=Subscript(value=Name(id='x', ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=1), slice=Slice(lower=Name(id='a', ctx=Load(), lineno=1, col_offset=2, end_lineno=1, end_col_offset=3), upper=Name(id='b', ctx=Load(), lineno=1, col_offset=4, end_lineno=1, end_col_offset=5), step=Name(id='c', ctx=Load(), lineno=1, col_offset=6, end_lineno=1, end_col_offset=7), lineno=1, col_offset=2, end_lineno=1, end_col_offset=7), ctx=Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=8), lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], type_ignores=[])"},
};

TEST(Parser, EveryNodeKindMatchesCPythonWithPositions) {
  for (const KindCase& c : kKindCases) {
    ParseResult result = parseText(c.source);
    EXPECT_EQ(result.errorKind, "") << c.kind << ": " << result.message;
    EXPECT_EQ(result.dump, c.expected) << c.kind;
  }
}

TEST(Parser, KindCasesCoverEveryStatementAndExpressionKind) {
  std::set<std::string> covered;
  for (const KindCase& c : kKindCases) covered.insert(c.kind);
  std::set<std::string> dumped;
  for (const KindCase& c : kKindCases) dumped.insert(c.expected);
  auto appears = [&](const std::string& name) {
    for (const std::string& text : dumped) {
      if (text.find(name + "(") != std::string::npos) return true;
    }
    return false;
  };
#define WEFT_AST_STMT(Name) EXPECT_TRUE(appears(#Name)) << #Name;
#define WEFT_AST_EXPR(Name) EXPECT_TRUE(appears(#Name)) << #Name;
#include "syntax/ast_kinds.def"
}

TEST(Parser, DumpWithoutPositionsMatchesAstDumpDefaults) {
  ParseResult result = parseText("x: int = f(a, *b, k=1)[1:]\n", false);
  EXPECT_EQ(result.dump,
            "Module(body=[AnnAssign(target=Name(id='x', ctx=Store()), annotation=Name(id='int', ctx=Load()), "
            "value=Subscript(value=Call(func=Name(id='f', ctx=Load()), args=[Name(id='a', ctx=Load()), "
            "Starred(value=Name(id='b', ctx=Load()), ctx=Load())], keywords=[keyword(arg='k', "
            "value=Constant(value=1))]), slice=Slice(lower=Constant(value=1)), ctx=Load()), simple=1)], "
            "type_ignores=[])");
}

TEST(Parser, ConstantReprsFollowPython) {
  struct Case {
    const char* source;
    const char* repr;
  };
  const Case cases[] = {
      {"1e16", "1e+16"},
      {"1e15", "1000000000000000.0"},
      {"0.0001", "0.0001"},
      {"0.00001", "1e-05"},
      {"1e400", "inf"},
      {"0.1", "0.1"},
      {"5e-324", "5e-324"},
      {"2.5", "2.5"},
      {"1j", "1j"},
      {"2.0j", "2j"},
      {"1e16j", "1e+16j"},
      {"0xFFFFFFFFFFFFFFFFFFFF", "1208925819614629174706175"},
      {"0b101", "5"},
      {"0o17", "15"},
      {"007", ""},
      {"1_000", "1000"},
      {"'it''s'", "'its'"},
      {"\"it's\"", "\"it's\""},
      {"'a\"b' \"'\"", "'a\"b\\''"},
      {"'\\x00\\t\\n\\x7f\\xa0\\u200b\\U0001F600é'", "'\\x00\\t\\n\\x7f\\xa0\\u200b😀é'"},
      {"'\\d\\101\\u00e9'", "'\\\\dAé'"},
      {"b'\\xff\\'\"'", "b'\\xff\\'\"'"},
      {"r'\\n'", "'\\\\n'"},
      {"...", "Ellipsis"},
  };
  for (const Case& c : cases) {
    ParseResult result = parseText(std::string(c.source) + "\n", false);
    if (std::string(c.repr).empty()) {
      EXPECT_EQ(result.errorKind, "LeadingZeros") << c.source;
      continue;
    }
    std::string expected = "Module(body=[Expr(value=Constant(value=" + std::string(c.repr) + "))], type_ignores=[])";
    EXPECT_EQ(result.dump, expected) << c.source;
  }
}

TEST(Parser, UnicodeColumnsAreUtf8ByteOffsets) {
  ParseResult result = parseText("é = 'ü' + x\n");
  EXPECT_NE(result.dump.find("Name(id='x', ctx=Load(), lineno=1, col_offset=12, end_lineno=1, end_col_offset=13)"),
            std::string::npos)
      << result.dump;
}

struct ErrorCase {
  const char* kind;
  const char* source;
  uint32_t line;
  uint32_t column;  // 0-based
  const char* message;
};

const ErrorCase kErrorCases[] = {
    {"InvalidUtf8", "x = '\xff'\n", 1, 5, "invalid UTF-8 in source: byte 0xff"},
    {"InvalidCharacter", "x = a $ b\n", 1, 6, "invalid character '$' (U+0024)"},
    {"InvalidNonPrintableCharacter", "x = a\xc2\xa0" "b\n", 1, 5, "invalid non-printable character U+00A0"},
    {"UnterminatedString", "x = 'abc\n", 1, 4, "unterminated string literal (detected at line 1)"},
    {"UnterminatedTripleQuotedString", "x = \"\"\"abc\n\n", 1, 4,
     "unterminated triple-quoted string literal (detected at line 2)"},
    {"InvalidNumber", "x = 0xg\n", 1, 5, "invalid hexadecimal literal"},
    {"LeadingZeros", "x = 012\n", 1, 4,
     "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers"},
    {"InconsistentIndent", "if x:\n        a\n    b\n", 3, 4, "unindent does not match any outer indentation level"},
    {"InconsistentTabs", "if x:\n\ta\n        b\n", 3, 8, "inconsistent use of tabs and spaces in indentation"},
    {"TooDeeplyNested", "x = ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
                        "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
                        "((((((((((((((((((((((((((((((((((((((((1\n",
     1, 204, "too many nested parentheses"},
    {"UnclosedBracket", "x = (1,\ny = 2\n", 1, 4, "'(' was never closed"},
    {"UnmatchedBracket", "x = )\n", 1, 4, "unmatched ')'"},
    {"MismatchedBracket", "x = (1]\n", 1, 6, "closing parenthesis ']' does not match opening parenthesis '('"},
    {"UnexpectedLineContinuation", "x = 1 \\ 2\n", 1, 6, "unexpected character after line continuation character"},
    {"UnexpectedEof", "x = 1 \\", 1, 7, "unexpected EOF while parsing"},
    {"UnexpectedIndent", "x = 1\n    y = 2\n", 2, 4, "unexpected indent"},
    {"ExpectedIndent", "def f():\npass\n", 2, 0, "expected an indented block after function definition on line 1"},
    {"UnexpectedToken", "x = = 1\n", 1, 4, "invalid syntax: unexpected '='"},
    {"ExpectedToken", "if x\n    pass\n", 1, 4, "expected ':'"},
    {"InvalidTarget", "f() = 1\n", 1, 0, "cannot assign to function call here. Maybe you meant '==' instead of '='?"},
    {"InvalidEscape", "x = '\\x4'\n", 1, 4,
     "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: truncated \\xXX escape"},
    {"UnsupportedNamedEscape", "x = '\\N{EM DASH}'\n", 1, 4,
     "\\N{...} escapes are not supported by weft; write the character itself or a \\u/\\U escape"},
    {"BytesNonAscii", "x = b'\xc3\xa9'\n", 1, 4, "bytes can only contain ASCII literal characters"},
    {"MixedBytesAndStr", "x = b'a' 'b'\n", 1, 4, "cannot mix bytes and nonbytes literals"},
    {"InvalidFString", "x = f'a}'\n", 1, 4, "f-string: single '}' is not allowed"},
    {"InvalidArguments", "f(a=1, b)\n", 1, 7, "positional argument follows keyword argument"},
    {"InvalidParameters", "def f(a=1, b): pass\n", 1, 11, "non-default argument follows default argument"},
    {"InvalidSyntax", "a, b += 1\n", 1, 0, "'tuple' is an illegal expression for augmented assignment"},
    // More messages of the same kinds.
    {"InvalidTarget", "del 1\n", 1, 4, "cannot delete literal"},
    {"InvalidTarget", "for 1 in x: pass\n", 1, 4, "cannot assign to literal"},
    {"InvalidTarget", "with a as f(): pass\n", 1, 10, "cannot assign to function call"},
    {"InvalidFString", "f'{}'\n", 1, 0, "f-string: empty expression not allowed"},
    {"InvalidFString", "f'{a!x}'\n", 1, 0, "f-string: invalid conversion character: expected 's', 'r', or 'a'"},
    {"InvalidFString", "f'{a'\n", 1, 0, "f-string: expecting '}'"},
    {"InvalidFString", "f'{a#}'\n", 1, 0, "f-string: expression part cannot include '#'"},
    {"InvalidFString", "f'{a:{b:{c}}}'\n", 1, 0, "f-string: expressions nested too deeply"},
    {"UnexpectedToken", "f'{a b}'\n", 1, 5, "invalid syntax: unexpected 'b'"},
    {"InvalidArguments", "f(x for x in y, 1)\n", 1, 2, "Generator expression must be parenthesized"},
    {"InvalidArguments", "f(**k, *a)\n", 1, 7, "iterable argument unpacking follows keyword argument unpacking"},
    {"InvalidArguments", "f(a.b=1)\n", 1, 2, "expression cannot contain assignment, perhaps you meant \"==\"?"},
    {"InvalidParameters", "def f(*): pass\n", 1, 6, "named arguments must follow bare *"},
    {"InvalidParameters", "def f(/, a): pass\n", 1, 6, "at least one argument must precede /"},
    {"InvalidParameters", "def f(**k, a): pass\n", 1, 11, "arguments cannot follow var-keyword argument"},
    {"InvalidParameters", "lambda *a, *b: 0\n", 1, 11, "* argument may appear only once"},
    {"InvalidSyntax", "a, b: int\n", 1, 0, "only single target (not tuple) can be annotated"},
    {"InvalidSyntax", "try:\n    pass\nexcept A, B:\n    pass\n", 3, 7, "multiple exception types must be parenthesized"},
    {"InvalidSyntax", "(a.b := 1)\n", 1, 1, "cannot use assignment expressions with attribute"},
    {"InvalidSyntax", "from a import b,\n", 1, 16, "trailing comma not allowed without surrounding parentheses"},
    {"InvalidSyntax", "try:\n    pass\nexcept A:\n    pass\nexcept* B:\n    pass\n", 5, 0,
     "cannot have both 'except' and 'except*' on the same 'try'"},
    {"InvalidSyntax", "print(*a)\nx = (*a)\n", 2, 5, "cannot use starred expression here"},
    {"ExpectedToken", "try:\n    pass\nx = 1\n", 3, 0, "expected 'except' or 'finally' block"},
};

TEST(Parser, ErrorsHaveTheirKindMessageAndLocation) {
  for (const ErrorCase& c : kErrorCases) {
    ParseResult result = parseText(c.source);
    EXPECT_EQ(result.errorKind, c.kind) << c.source << " -> " << result.message;
    EXPECT_EQ(result.message, c.message) << c.source;
    EXPECT_EQ(result.line, c.line) << c.source;
    EXPECT_EQ(result.column, c.column) << c.source;
    EXPECT_EQ(result.errors, 1u) << "one mistake gives one message: " << c.source;
  }
}

TEST(Parser, EveryDiagnosticKindIsTested) {
  std::set<std::string> tested;
  for (const ErrorCase& c : kErrorCases) tested.insert(c.kind);
  for (const DiagnosticKind& kind : diag::kAll) {
    EXPECT_TRUE(tested.count(std::string(kind.name))) << kind.name << " has no test";
  }
}

TEST(Parser, ErrorRendersWithFileLineColumnAndCaret) {
  SourceManager sources;
  uint32_t id = sources.add("kernel.py", "def f(a):\n    return a +\n");
  Diagnostics diagnostics(sources);
  parse(id, diagnostics);
  ASSERT_TRUE(diagnostics.hasErrors());
  std::string text = diagnostics.render();
  EXPECT_NE(text.find("kernel.py:2:15: error:"), std::string::npos) << text;
  EXPECT_NE(text.find("    return a +"), std::string::npos) << text;
}

TEST(Parser, PartialModuleKeepsStatementsBeforeTheError) {
  SourceManager sources;
  uint32_t id = sources.add("t.py", "a = 1\nb = 2\nc = = 3\nd = 4\n");
  Diagnostics diagnostics(sources);
  std::unique_ptr<Module> module = parse(id, diagnostics);
  ASSERT_NE(module, nullptr);
  EXPECT_TRUE(diagnostics.hasErrors());
  // The failing statement is kept partially; nothing after it is parsed.
  ASSERT_EQ(module->body.size(), 3u);
  EXPECT_EQ(module->body[0]->kind, StmtKind::Assign);
  EXPECT_EQ(module->body[1]->loc.line, 2u);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Random bytes, random token soup and every prefix of real files must give a result or an
// error, never a crash or a hang.
TEST(Parser, SurvivesRandomAndTruncatedInput) {
  std::mt19937 rng(12345);
  const char* pieces[] = {"(", ")", "[", "]", "{", "}", ":", ",", "=", "def", "x", "1", "'s'", "f'{", "}'",
                          "\n", "    ", "\t", "\\\n", "lambda", "*", "**", "if", "else", "for", "in", "@", ".",
                          "...", "\"\"\"", "#", "yield", "not", "is", "async", "await", "->", ":=", "1e", "0x"};
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    int length = static_cast<int>(rng() % 40);
    for (int i = 0; i < length; ++i) {
      if (round % 3 == 0) text += static_cast<char>(rng() % 256);
      else text += pieces[rng() % (sizeof pieces / sizeof pieces[0])];
      if (round % 3 == 2) text += ' ';
    }
    ParseResult result = parseText(text);
    EXPECT_LE(result.errors, 1u) << text;
  }
  std::string kernel = readFile(std::string(WEFT_SOURCE_DIR) + "/tests/corpus/kernel_matmul_shared.py");
  std::string strings = readFile(std::string(WEFT_SOURCE_DIR) + "/tests/corpus/fstrings_basic.py");
  ASSERT_FALSE(kernel.empty());
  for (const std::string& file : {kernel, strings}) {
    for (size_t cut = 0; cut <= file.size(); cut += 3) {
      ParseResult result = parseText(file.substr(0, cut));
      EXPECT_LE(result.errors, 1u);
    }
  }
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string unary = "x = " + std::string(5000, '-') + "1\n";
  EXPECT_EQ(parseText(unary).errorKind, "TooDeeplyNested");
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "not ";
  EXPECT_EQ(parseText("x = " + nots + "y\n").errorKind, "TooDeeplyNested");
  std::string blocks;
  for (int i = 0; i < 150; ++i) blocks += std::string(static_cast<size_t>(i), ' ') + "if x:\n";
  blocks += std::string(150, ' ') + "pass\n";
  EXPECT_EQ(parseText(blocks).errorKind, "TooDeeplyNested");
  std::string brackets = "x = " + std::string(150, '[') + std::string(150, ']') + "\n";
  EXPECT_EQ(parseText(brackets).errorKind, "");
}

// Chains that the parser builds in loops nest as deep as they are long: each operator counts
// one level of the nesting limit (1000), so the AST dump and every later pass stay within it.
TEST(Parser, LongChainsCountAsNesting) {
  auto repeat = [](const std::string& piece, int n) {
    std::string text;
    for (int i = 0; i < n; ++i) text += piece;
    return text;
  };
  const std::vector<std::string> deep = {
      "x = a" + repeat(" + a", 60000) + "\n",  // left-nested BinOp
      "x = a" + repeat(" * a", 1500) + "\n",
      "x = a" + repeat(".b", 5000) + "\n",                        // attributes
      "x = f" + repeat("()", 5000) + "\n",                        // calls
      "x = a" + repeat("[0]", 5000) + "\n",                       // subscripts
      "x = a" + repeat(" ** a", 100000) + "\n",                   // right-nested power
      "x = a" + repeat(" if a else a", 5000) + "\n",              // conditional expressions
      "if a:\n    pass\n" + repeat("elif a:\n    pass\n", 5000),  // elif: an if in the else
  };
  for (const std::string& text : deep) {
    ParseResult result = parseText(text, false);
    EXPECT_EQ(result.errorKind, "TooDeeplyNested") << text.substr(0, 40);
    EXPECT_NE(result.message.find("weft's limit is 1000 levels"), std::string::npos) << result.message;
    EXPECT_EQ(result.errors, 1u);
  }
  // Within the limit, the chains parse (and dump, recursively, as CPython does).
  const std::vector<std::string> shallow = {
      "x = a" + repeat(" + a", 900) + "\n", "x = a" + repeat(".b", 900) + "\n",
      "x = f" + repeat("()", 900) + "\n", "x = a" + repeat(" ** a", 900) + "\n",
      "if a:\n    pass\n" + repeat("elif a:\n    pass\n", 900),
      // flat lists are not nesting
      "x = a" + repeat(" and a", 80000) + "\n", "x = a" + repeat(" < a", 20000) + "\n",
      "x = (a" + repeat(", a", 20000) + ")\n", "x = f(a" + repeat(", a", 20000) + ")\n"};
  for (const std::string& text : shallow) {
    ParseResult result = parseText(text, false);
    EXPECT_EQ(result.errorKind, "") << text.substr(0, 40) << ": " << result.message;
    EXPECT_FALSE(result.dump.empty());
  }
}

TEST(Parser, ParsesTwoThousandLinesQuickly) {
  std::string text;
  for (int i = 0; i < 250; ++i) {
    text += "@device.kernel\ndef k" + std::to_string(i) + "(a, b, c, n: int32):\n";
    text += "    i = device.block_idx.x * device.block_dim.x + device.thread_idx.x\n";
    text += "    if i < n and a[i] > 0.5:\n        c[i] = a[i] * 2.0 + b[i] ** 2 - (a[i] // 3)\n";
    text += "    s = f'{i:>4} {c[i]!r}'\n    return (i, [x for x in range(n) if x % 2])\n";
  }
  auto start = std::chrono::steady_clock::now();
  ParseResult result = parseText(text, false);
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(result.errorKind, "");
  // Generous bound for unoptimized builds; an optimized build takes a few milliseconds.
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), 1000);
}

}  // namespace
}  // namespace weft::syntax
