// Tile reductions and scans (docs/tiles.md): the named ones (sum prod max min argmax argmin,
// cumsum cumprod) and reduce()/scan() with a user's combining function. Both kinds share the
// checks of the axis and keepdims, and lower to the header's one reduction and one scan
// (include/weft/tiles/reduce.h), the named ones with the header's operations, the others with
// the user's function as a scalar expression of two elements (MapInput 0 and 1).
#include <algorithm>

#include "sema/checker.h"
#include "support/check.h"

namespace weft::sema {

using types::ScalarKind;

namespace {

constexpr std::pair<std::string_view, TileOp> kNamed[] = {
    {"sum", TileOp::Sum},       {"prod", TileOp::Prod},     {"max", TileOp::Max},
    {"min", TileOp::Min},       {"argmax", TileOp::Argmax}, {"argmin", TileOp::Argmin},
    {"cumsum", TileOp::Cumsum}, {"cumprod", TileOp::Cumprod}};

}  // namespace

bool isTileReduction(std::string_view name) {
  return name == "reduce" || name == "scan" ||
         std::any_of(std::begin(kNamed), std::end(kNamed), [&](const auto& entry) { return entry.first == name; });
}

Value FunctionChecker::tileReduction(const std::string& name, const syntax::CallExpr& e, const std::string& what) {
  bool custom = name == "reduce" || name == "scan";
  TileOp op = name == "reduce" ? TileOp::Reduce : TileOp::Scan;
  for (const auto& [named, namedOp] : kNamed)
    if (name == named) op = namedOp;
  bool scan = op == TileOp::Cumsum || op == TileOp::Cumprod || op == TileOp::Scan;
  // Parameters: x, axis, the combining function and its identity (reduce, scan), then keepdims
  // (reductions) or reverse (scan).
  std::vector<std::string_view> params{"x", "axis"};
  if (custom) params.insert(params.end(), {"func", "identity"});
  if (!scan) params.push_back("keepdims");
  if (op == TileOp::Scan) params.push_back("reverse");
  bool hasOption = params.back() == "keepdims" || params.back() == "reverse";
  std::vector<const syntax::Expr*> a;
  if (!bindArguments(what, e, params, custom ? 4 : 1, a, nullptr)) return errorValue();
  Value x = tileValue(*a[0], what);
  if (x.isError()) return x;
  ScalarKind kind = x.type()->scalar;
  if (types::isBool(kind) || (!types::isFloating(kind) && !types::isInteger(kind))) {
    sink.error(diag::TileElementType, a[0]->loc, {types::pythonName(kind), what});
    return errorValue();
  }
  int rank = static_cast<int>(x.type()->shape.size());
  int axis = -1;
  if (a[1] != nullptr) {
    Value axisValue = expr(*a[1]);
    if (axisValue.isError()) return axisValue;
    if (!(axisValue.constant && axisValue.constant->kind == ConstValue::Kind::None)) {
      std::optional<int> given = tileAxis(*a[1], rank, what);
      if (!given) return errorValue();
      axis = *given;
    }
  }
  auto flag = [&](const syntax::Expr* arg, const std::string& role) -> std::optional<bool> {
    if (arg == nullptr) return false;
    Value k = expr(*arg);
    if (k.isError()) return std::nullopt;
    if (!k.constant || k.constant->kind != ConstValue::Kind::Bool) {
      sink.error(diag::NotConstant, arg->loc, {role + " of " + what + " (True or False)"});
      return std::nullopt;
    }
    return k.constant->boolValue;
  };
  std::optional<bool> option = flag(hasOption ? a.back() : nullptr, std::string(params.back()));
  if (!option) return errorValue();
  std::vector<TypedExpr*> operands{x.expr};
  if (custom) {
    Value identity = expr(*a[3]);
    if (identity.isError()) return identity;
    if (!identity.constant || !isNumber(*identity.constant)) {
      sink.error(diag::NotConstant, a[3]->loc, {"the identity of " + what + " (a number)"});
      return errorValue();
    }
    Value converted = identity.weak ? promoteTo(identity, kind, a[3]->loc) : cast(identity, kind, a[3]->loc);
    if (converted.isError()) return converted;
    Value combined = tileCombiner(*a[2], kind, what);
    if (combined.isError()) return combined;
    operands.push_back(combined.expr);
    operands.push_back(converted.expr);
  }
  if (scan) {
    if (rank == 0) {
      sink.error(diag::TileRank, e.loc, {what, "()", "at least 1"});
      return errorValue();
    }
    return runtime(tileCall(op, x.type(), e.loc, std::move(operands), {axis < 0 ? 0 : axis, *option ? 1 : 0}));
  }
  bool keepdims = *option;
  std::vector<int64_t> shape;
  for (int i = 0; i < rank; ++i) {
    if (axis < 0 || i == axis) {
      if (keepdims) shape.push_back(1);
    } else {
      shape.push_back(x.type()->shape[static_cast<size_t>(i)]);
    }
  }
  ScalarKind result = (op == TileOp::Argmax || op == TileOp::Argmin) ? ScalarKind::Int32 : kind;
  return runtime(tileCall(op, types.tile(result, shape), e.loc, std::move(operands), {axis, keepdims ? 1 : 0}));
}

Value FunctionChecker::tileCombiner(const syntax::Expr& arg, ScalarKind kind, const std::string& what) {
  std::string expected = "a function of two " + std::string(types::pythonName(kind)) + " values";
  Value first = mapInput(0, kind, arg.loc), second = mapInput(1, kind, arg.loc);
  Value combined;
  if (arg.kind == syntax::ExprKind::Lambda) {
    const auto& lambda = syntax::as<syntax::LambdaExpr>(arg);
    const syntax::Arguments& params = *lambda.args;
    if (!params.posonlyargs.empty() || params.args.size() != 2 || params.vararg != nullptr ||
        !params.kwonlyargs.empty() || params.kwarg != nullptr) {
      sink.error(diag::TileCombiner, arg.loc, {what, expected, "a lambda with other parameters"});
      return errorValue();
    }
    // The body is checked in place with the parameters standing for two elements.
    std::map<std::string, Value> saved = std::move(lambdaParams_);
    lambdaParams_ = {{params.args[0]->arg, first}, {params.args[1]->arg, second}};
    combined = value(*lambda.body);
    lambdaParams_ = std::move(saved);
  } else {
    Value callee = expr(arg);
    if (callee.isError()) return callee;
    if (callee.kind != Value::Kind::Function || callee.function->decorator == FunctionSource::Decorator::Kernel) {
      sink.error(diag::TileCombiner, arg.loc, {what, expected, describe(callee)});
      return errorValue();
    }
    combined = userCallWith(callee, {first, second}, arg.loc);
  }
  if (combined.isError()) return combined;
  if (!combined.type()->isScalar() || types::isComplex(combined.type()->scalar)) {
    sink.error(diag::TileCombiner, arg.loc, {what, expected, "one that returns " + describe(combined)});
    return errorValue();
  }
  // The combined value has the element type, as cuTile's 0-d tiles of it would.
  return combined.weak ? promoteTo(combined, kind, arg.loc) : cast(combined, kind, arg.loc);
}

}  // namespace weft::sema
