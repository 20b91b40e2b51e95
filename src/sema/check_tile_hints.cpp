// The tile faces' assumptions (docs/tiles.md): the seed's assume_divisible, assume_bounded,
// assume_bounded_below and assume_bounded_above, cuTile's assume_divisible_by. Each gives its
// integer argument unchanged and lets the compiler assume the fact; with debug=True the fact is
// checked where the value is computed, and a false one raises AssertionError at the user's line.
#include "sema/checker.h"
#include "support/check.h"

namespace weft::sema {

using types::ScalarKind;

bool isTileAssumption(std::string_view name) {
  return name == "assume_divisible" || name == "assume_divisible_by" || name == "assume_bounded" ||
         name == "assume_bounded_below" || name == "assume_bounded_above";
}

Value FunctionChecker::tileAssumption(const std::string& name, const syntax::CallExpr& e, const std::string& what) {
  bool divisible = name == "assume_divisible" || name == "assume_divisible_by";
  TileAssume kind = divisible                         ? TileAssume::Divisible
                    : name == "assume_bounded"        ? TileAssume::Bounded
                    : name == "assume_bounded_below" ? TileAssume::Below
                                                      : TileAssume::Above;
  std::vector<std::string_view> params{"x"};
  switch (kind) {
    case TileAssume::Divisible: params.push_back(name == "assume_divisible_by" ? "divisor" : "k"); break;
    case TileAssume::Bounded: params.insert(params.end(), {"lo", "hi"}); break;
    case TileAssume::Below: params.push_back("lo"); break;
    case TileAssume::Above: params.push_back("hi"); break;
  }
  std::vector<const syntax::Expr*> a;
  if (!bindArguments(what, e, params, params.size(), a, nullptr)) return errorValue();
  Value x = value(*a[0]);
  if (x.isError()) return x;
  if (!x.type()->isScalar() || !types::isInteger(x.type()->scalar)) {
    sink.error(diag::ArgumentType, a[0]->loc, {"x", what, "an integer", describe(x)});
    return errorValue();
  }
  ScalarKind element = x.type()->scalar;
  // The constants: the divisor (positive), or the bounds (lo <= hi), in x's type.
  std::vector<TypedExpr*> operands{x.expr};
  std::vector<int64_t> values;
  for (size_t i = 1; i < a.size(); ++i) {
    std::optional<int64_t> c = tileConstantInt(*a[i], std::string(params[i]) + " of " + what + " (an int)");
    if (!c) return errorValue();
    if (!fitsScalar(intConstant(*c), element, false)) {
      sink.error(diag::TileAssume, a[i]->loc, {what, std::to_string(*c) + " does not fit " + types::pythonName(element)});
      return errorValue();
    }
    values.push_back(*c);
    operands.push_back(typedLiteral(intConstant(*c), element, a[i]->loc).expr);
  }
  if (divisible && values[0] <= 0) {
    sink.error(diag::TileAssume, a[1]->loc, {what, "the divisor must be positive, not " + std::to_string(values[0])});
    return errorValue();
  }
  if (kind == TileAssume::Bounded && values[0] > values[1]) {
    sink.error(diag::TileAssume, e.loc, {what, "the bounds " + std::to_string(values[0]) + " > " +
                                                   std::to_string(values[1]) + " hold for no value"});
    return errorValue();
  }
  if (program.debug) {
    // The check's failure: AssertionError with the assumption as its message.
    TypedExpr* trap = make(TypedExprKind::BuiltinCall, types.none(), e.loc);
    trap->builtin = Builtin::AssertFail;
    trap->text = what + ": the assumption is false";
    operands.push_back(trap);
  }
  return runtime(tileCall(TileOp::Assume, x.type(), e.loc, std::move(operands),
                          {static_cast<int64_t>(kind), program.debug ? 1 : 0}),
                 x.nonNegative);
}

}  // namespace weft::sema
