// Functions and types as values (issue 10, item 3): a device function, lambda, builtin, math
// function, intrinsic, number type or struct class passed to a device function is a static
// argument. It has no run-time form: it specializes the callee, whose parameter then names it
// (as a ConstExpr parameter names its value), so `apply(f, x)` calls `f` by identity.
#include <algorithm>

#include "sema/checker.h"

namespace weft::sema {

namespace {

// Appends the names `e` reads (every Name in it, nested lambdas' included, each once).
void namesIn(const syntax::Expr* e, std::vector<std::string>& out) {
  if (e == nullptr) return;
  auto all = [&](const std::vector<syntax::Expr*>& list) {
    for (const syntax::Expr* item : list) namesIn(item, out);
  };
  auto generators = [&](const std::vector<syntax::Comprehension*>& list) {
    for (const syntax::Comprehension* g : list) {
      namesIn(g->iter, out);
      all(g->ifs);
    }
  };
  switch (e->kind) {
    case syntax::ExprKind::Name: {
      const std::string& id = syntax::as<syntax::NameExpr>(*e).id;
      if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
      return;
    }
    case syntax::ExprKind::BoolOp: all(syntax::as<syntax::BoolOpExpr>(*e).values); return;
    case syntax::ExprKind::NamedExpr: namesIn(syntax::as<syntax::NamedExprExpr>(*e).value, out); return;
    case syntax::ExprKind::BinOp:
      namesIn(syntax::as<syntax::BinOpExpr>(*e).left, out);
      namesIn(syntax::as<syntax::BinOpExpr>(*e).right, out);
      return;
    case syntax::ExprKind::UnaryOp: namesIn(syntax::as<syntax::UnaryOpExpr>(*e).operand, out); return;
    case syntax::ExprKind::Lambda: namesIn(syntax::as<syntax::LambdaExpr>(*e).body, out); return;
    case syntax::ExprKind::IfExp: {
      const auto& x = syntax::as<syntax::IfExpExpr>(*e);
      all({x.test, x.body, x.orelse});
      return;
    }
    case syntax::ExprKind::Dict:
      all(syntax::as<syntax::DictExpr>(*e).keys);
      all(syntax::as<syntax::DictExpr>(*e).values);
      return;
    case syntax::ExprKind::Set: all(syntax::as<syntax::SetExpr>(*e).elts); return;
    case syntax::ExprKind::ListComp:
    case syntax::ExprKind::SetComp:
    case syntax::ExprKind::GeneratorExp:
      namesIn(syntax::as<syntax::ListCompExpr>(*e).elt, out);
      generators(syntax::as<syntax::ListCompExpr>(*e).generators);
      return;
    case syntax::ExprKind::DictComp:
      namesIn(syntax::as<syntax::DictCompExpr>(*e).key, out);
      namesIn(syntax::as<syntax::DictCompExpr>(*e).value, out);
      generators(syntax::as<syntax::DictCompExpr>(*e).generators);
      return;
    case syntax::ExprKind::Await: namesIn(syntax::as<syntax::AwaitExpr>(*e).value, out); return;
    case syntax::ExprKind::Yield: namesIn(syntax::as<syntax::YieldExpr>(*e).value, out); return;
    case syntax::ExprKind::YieldFrom: namesIn(syntax::as<syntax::YieldFromExpr>(*e).value, out); return;
    case syntax::ExprKind::Compare:
      namesIn(syntax::as<syntax::CompareExpr>(*e).left, out);
      all(syntax::as<syntax::CompareExpr>(*e).comparators);
      return;
    case syntax::ExprKind::Call: {
      const auto& call = syntax::as<syntax::CallExpr>(*e);
      namesIn(call.func, out);
      all(call.args);
      for (const syntax::Keyword* keyword : call.keywords) namesIn(keyword->value, out);
      return;
    }
    case syntax::ExprKind::FormattedValue:
      namesIn(syntax::as<syntax::FormattedValueExpr>(*e).value, out);
      namesIn(syntax::as<syntax::FormattedValueExpr>(*e).formatSpec, out);
      return;
    case syntax::ExprKind::JoinedStr: all(syntax::as<syntax::JoinedStrExpr>(*e).values); return;
    case syntax::ExprKind::Constant: return;
    case syntax::ExprKind::Attribute: namesIn(syntax::as<syntax::AttributeExpr>(*e).value, out); return;
    case syntax::ExprKind::Subscript:
      namesIn(syntax::as<syntax::SubscriptExpr>(*e).value, out);
      namesIn(syntax::as<syntax::SubscriptExpr>(*e).slice, out);
      return;
    case syntax::ExprKind::Starred: namesIn(syntax::as<syntax::StarredExpr>(*e).value, out); return;
    case syntax::ExprKind::List:
    case syntax::ExprKind::Tuple: all(syntax::as<syntax::ListExpr>(*e).elts); return;
    case syntax::ExprKind::Slice: {
      const auto& slice = syntax::as<syntax::SliceExpr>(*e);
      all({slice.lower, slice.upper, slice.step});
      return;
    }
  }
}

}  // namespace

bool isStaticArgument(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Function:
    case Value::Kind::NumberType:
    case Value::Kind::StructType:
    case Value::Kind::Module:
    case Value::Kind::PyBuiltin:
    case Value::Kind::StaticTuple: return true;
    case Value::Kind::Intrinsic:
      // warp_size and lane_id are numbers.
      return v.intrinsic != Intrinsic::WarpSize && v.intrinsic != Intrinsic::LaneId;
    case Value::Kind::Error:
    case Value::Kind::RunTime:
    case Value::Kind::Constant:
    case Value::Kind::Method: return false;
  }
  return false;
}

std::string staticArgumentKey(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Function: return "function " + std::to_string(v.function->identity);
    case Value::Kind::NumberType:
      return "type " + std::to_string(static_cast<int>(v.scalar)) + "x" + std::to_string(v.vectorSize) +
             (v.warpMask ? "mask" : "");
    case Value::Kind::StructType:
      return "struct " + std::to_string(v.structSource->identity) + "/" + std::to_string(v.structSource->align);
    case Value::Kind::Module:
    case Value::Kind::PyBuiltin: return v.name;
    case Value::Kind::StaticTuple: {
      // Its elements' keys in order: a constant element by its value.
      std::string key = "tuple(";
      for (const Value& element : v.elements)
        key += (element.kind == Value::Kind::Constant ? "constant " + toString(*element.constant) : staticArgumentKey(element)) + ", ";
      return key + ")";
    }
    case Value::Kind::Intrinsic:
      return "intrinsic " + v.name + " " + std::to_string(static_cast<int>(v.intrinsic)) + " " +
             std::to_string(static_cast<int>(v.math)) + " " + std::to_string(static_cast<int>(v.scalar));
    case Value::Kind::Error:
    case Value::Kind::RunTime:
    case Value::Kind::Constant:
    case Value::Kind::Method: break;
  }
  return "";
}

Value FunctionChecker::lambdaValue(const syntax::LambdaExpr& e) {
  // The lambda is a function of the file it is written in, found again by the position of its
  // body (check_function.cpp: lambdaDefinition); it sees the module's globals, and the local
  // variables and parameters of the function around it that it reads, whose values here are
  // passed to it as hidden arguments (numba inlines such closures; the values are the same
  // where the lambda is written in the call that uses it).
  const FunctionSource& around = *spec().source;
  auto source = std::make_shared<FunctionSource>();
  source->file = around.file;
  source->line = e.loc.line;
  source->name = "<lambda>";
  source->bodyLine = e.body->loc.line;
  source->bodyColumn = e.body->loc.column;
  source->identity = around.identity ^ (uint64_t{e.loc.line} << 32 | e.loc.column) ^ 0x9e3779b97f4a7c15ull;
  source->globals = around.globals;
  Value v;
  v.kind = Value::Kind::Function;
  v.name = "lambda";
  std::vector<std::string> reads;
  namesIn(e.body, reads);
  std::vector<std::string> params;
  for (const std::vector<syntax::Arg*>* list : {&e.args->posonlyargs, &e.args->args, &e.args->kwonlyargs})
    for (const syntax::Arg* arg : *list) params.push_back(arg->arg);
  for (const std::string& read : reads) {
    if (std::find(params.begin(), params.end(), read) != params.end() || lambdaParams_.count(read) != 0) continue;
    // A parameter bound to a function, type or constant (a static argument, a ConstExpr) is
    // captured as well: it passes on as a static argument (or a value).
    auto local = localByName_.find(read);
    bool assigned = local != localByName_.end() && localType(local->second) != nullptr;
    if (!assigned && constParams_.count(read) == 0) continue;
    syntax::NameExpr use;
    use.id = read;
    use.loc = e.loc;
    Value captured = name(use);
    if (captured.isError()) return captured;
    source->capturedLocals.push_back(read);
    v.captures.push_back(captured);
  }
  v.function = std::move(source);
  return v;
}

}  // namespace weft::sema
