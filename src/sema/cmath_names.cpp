// The cmath module in device code (issue 10, item 4): functions of a complex number (a real one
// converts to the complex type of its precision) and the module's constants.
#include <cmath>
#include <limits>
#include <numbers>

#include "sema/checker.h"

namespace weft::sema {

namespace {

struct CmathFunction {
  std::string_view name;
  Builtin builtin;
};

// The functions of one complex argument that give a complex.
constexpr CmathFunction kComplexFunctions[] = {
    {"exp", Builtin::CmathExp},   {"log", Builtin::CmathLog},   {"log10", Builtin::CmathLog10},
    {"sqrt", Builtin::CmathSqrt}, {"sin", Builtin::CmathSin},   {"cos", Builtin::CmathCos},
    {"tan", Builtin::CmathTan},   {"sinh", Builtin::CmathSinh}, {"cosh", Builtin::CmathCosh},
    {"tanh", Builtin::CmathTanh}, {"acos", Builtin::CmathAcos}, {"asin", Builtin::CmathAsin},
    {"atan", Builtin::CmathAtan}, {"acosh", Builtin::CmathAcosh}, {"asinh", Builtin::CmathAsinh},
    {"atanh", Builtin::CmathAtanh},
};

constexpr CmathFunction kPredicates[] = {
    {"isnan", Builtin::CmathIsNan}, {"isinf", Builtin::CmathIsInf}, {"isfinite", Builtin::CmathIsFinite}};

constexpr std::string_view kOthers[] = {"phase", "polar", "rect"};

Value numberConstant(ConstValue::Kind kind, double real, double imag) {
  Value v;
  v.kind = Value::Kind::Constant;
  v.constant = ConstValue{};
  v.constant->kind = kind;
  v.constant->floatValue = real;
  v.constant->imagValue = imag;
  return v;
}

}  // namespace

Value resolveCmathEntity(std::string_view member) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if (member == "pi") return numberConstant(ConstValue::Kind::Float, std::numbers::pi, 0);
  if (member == "e") return numberConstant(ConstValue::Kind::Float, std::numbers::e, 0);
  if (member == "tau") return numberConstant(ConstValue::Kind::Float, 2 * std::numbers::pi, 0);
  if (member == "inf") return numberConstant(ConstValue::Kind::Float, inf, 0);
  if (member == "nan") return numberConstant(ConstValue::Kind::Float, nan, 0);
  if (member == "infj") return numberConstant(ConstValue::Kind::Complex, 0, inf);
  if (member == "nanj") return numberConstant(ConstValue::Kind::Complex, 0, nan);
  bool known = std::any_of(std::begin(kComplexFunctions), std::end(kComplexFunctions),
                           [&](const CmathFunction& f) { return f.name == member; }) ||
               std::any_of(std::begin(kPredicates), std::end(kPredicates),
                           [&](const CmathFunction& f) { return f.name == member; }) ||
               std::find(std::begin(kOthers), std::end(kOthers), member) != std::end(kOthers);
  if (!known) return {};
  Value v;
  v.kind = Value::Kind::PyBuiltin;
  v.name = "cmath." + std::string(member);
  return v;
}

Value FunctionChecker::cmathCall(const Value& callee, const syntax::CallExpr& e) {
  std::string member = callee.name.substr(6);
  std::string what = callee.name + "()";
  bool rect = member == "rect";
  // log(z, base) is log(z) / log(base), a complex division (CPython's).
  bool logBase = member == "log" && e.args.size() == 2;
  if (!requireArgs(what, e, rect ? 2 : 1, rect || member == "log" ? 2 : 1)) return errorValue();
  std::vector<Value> args;
  for (size_t i = 0; i < e.args.size(); ++i) {
    Value v = value(*e.args[i]);
    if (v.isError()) return errorValue();
    if (!v.type()->isScalar() || (rect && types::isComplex(v.type()->scalar))) {
      sink.error(diag::ArgumentType, e.args[i]->loc, {std::to_string(i + 1), what, rect ? "a real number" : "a number", describe(v)});
      return errorValue();
    }
    args.push_back(v);
  }
  auto call = [&](Builtin builtin, const types::Type* type, std::vector<TypedExpr*> operands) {
    TypedExpr* c = make(TypedExprKind::BuiltinCall, type, e.loc, std::move(operands));
    c->builtin = builtin;
    return runtime(c);
  };
  if (rect) {
    // rect(r, phi): both parts in one floating type, as math's functions compute.
    types::ScalarKind kind = types::ScalarKind::Float32;
    for (const Value& v : args)
      if (!v.weak && types::floatingFor(v.type()->scalar) == types::ScalarKind::Float64) kind = types::ScalarKind::Float64;
    Value r = promoteTo(args[0], kind, e.loc), phi = promoteTo(args[1], kind, e.loc);
    if (r.isError() || phi.isError()) return errorValue();
    return call(Builtin::CmathRect, types.scalar(types::complexFor(kind)), {r.expr, phi.expr});
  }
  if (logBase) {
    // Both logarithms in the complex type of the two arguments' common precision.
    types::ScalarKind complex = types::ScalarKind::Complex64;
    for (const Value& v : args)
      if (!v.weak && types::complexFor(v.type()->scalar) == types::ScalarKind::Complex128) complex = types::ScalarKind::Complex128;
    std::vector<Value> logs;
    for (const Value& v : args) {
      Value converted = promoteTo(v, complex, e.loc);
      if (converted.isError()) return errorValue();
      logs.push_back(call(Builtin::CmathLog, types.scalar(complex), {converted.expr}));
    }
    return binary(BinaryOp::TrueDiv, logs[0], logs[1], e.loc);
  }
  Value z = args[0];
  types::ScalarKind complex = types::complexFor(z.weak ? builtinKindOf(*z.constant) : z.type()->scalar);
  z = promoteTo(z, complex, e.loc);
  if (z.isError()) return errorValue();
  const types::Type* complexType = types.scalar(complex);
  const types::Type* realType = types.scalar(types::realPartOf(complex));
  for (const CmathFunction& f : kComplexFunctions)
    if (f.name == member) return call(f.builtin, complexType, {z.expr});
  for (const CmathFunction& f : kPredicates)
    if (f.name == member) return call(f.builtin, types.scalar(types::ScalarKind::Bool), {z.expr});
  if (member == "phase") return call(Builtin::CmathPhase, realType, {z.expr});
  // polar(z): (abs(z), phase(z)) of one evaluation of z.
  z = evaluatedOnce(z, e.loc);
  TypedExpr* magnitude = make(TypedExprKind::BuiltinCall, realType, e.loc, {z.expr});
  magnitude->builtin = Builtin::Abs;
  Value phase = call(Builtin::CmathPhase, realType, {z.expr});
  return runtime(make(TypedExprKind::TupleMake, types.tuple({realType, realType}), e.loc, {magnitude, phase.expr}));
}

}  // namespace weft::sema
