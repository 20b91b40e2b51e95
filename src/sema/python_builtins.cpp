// Python builtins over numbers and small fixed-length iterables (issue 10, item 4): round,
// divmod, pow, sum, any, all, isinstance, int.bit_count, tuples indexed at run time, and for
// loops over tuples (plain, enumerate, zip) and over reversed(range(...)).
#include <bit>
#include <cmath>

#include "sema/checker.h"

namespace weft::sema {

namespace {

constexpr std::string_view kPyBuiltins[] = {"round", "divmod", "pow", "sum", "any", "all", "isinstance", "zip",
                                            "reversed"};

// Python's builtin number types, by the name resolvePythonBuiltin gives them.
bool builtinTypeMatches(std::string_view name, types::ScalarKind kind) {
  if (name == "bool") return types::isBool(kind);
  if (name == "int") return types::isInteger(kind) || types::isBool(kind);  // bool is an int
  if (name == "float") return types::isFloating(kind);
  if (name == "complex") return types::isComplex(kind);
  return false;
}

// The value of Python's round(x, ndigits) as numba computes it: scaled by 10**ndigits, rounded
// half to even, scaled back.
double roundDigits(double x, int64_t digits) {
  if (!std::isfinite(x)) return x;
  if (digits >= 0) {
    double scale = std::pow(10.0, static_cast<double>(std::min<int64_t>(digits, 400)));
    double scaled = x * scale;
    return std::isfinite(scaled) ? std::nearbyint(scaled) / scale : x;
  }
  double scale = std::pow(10.0, static_cast<double>(std::min<int64_t>(-digits, 400)));
  if (!std::isfinite(scale)) return x * 0;  // 10**-ndigits beyond float64: every x rounds to 0
  return std::nearbyint(x / scale) * scale;
}

}  // namespace

Value resolvePyBuiltin(std::string_view name) {
  for (std::string_view builtin : kPyBuiltins) {
    if (builtin != name) continue;
    Value v;
    v.kind = Value::Kind::PyBuiltin;
    v.name = std::string(name);
    return v;
  }
  return {};
}

Value FunctionChecker::evaluatedOnce(Value v, SourceLoc loc) {
  if (v.isError() || v.kind != Value::Kind::RunTime || v.weak || isPure(*v.expr)) return v;
  int temporary = newTemporary(v.type(), loc);
  assignLocal(temporary, v, loc);
  TypedExpr* ref = make(TypedExprKind::Local, v.type(), loc);
  ref->local = temporary;
  Value result = runtime(ref, v.nonNegative);
  result.constant = v.constant;
  return result;
}

std::optional<std::vector<Value>> FunctionChecker::elementsOf(Value tuple, const std::string& what,
                                                              const syntax::Expr& where) {
  if (tuple.isError()) return std::nullopt;
  const types::Type* type = tuple.type();
  if (type == nullptr || (type->kind != types::TypeKind::Tuple && !type->isVector())) {
    sink.error(diag::ArgumentType, where.loc, {"1", what, "a tuple or a vector", describe(tuple)});
    return std::nullopt;
  }
  tuple = evaluatedOnce(tuple, where.loc);
  std::vector<Value> elements;
  if (type->isVector()) {
    for (int i = 0; i < type->size; ++i) {
      TypedExpr* component = make(TypedExprKind::VectorElement, types.scalar(type->scalar), where.loc, {tuple.expr});
      component->index = i;
      elements.push_back(runtime(component, types::isUnsigned(type->scalar)));
    }
    return elements;
  }
  for (size_t i = 0; i < type->elements.size(); ++i) {
    Value element = tupleElement(tuple, static_cast<int64_t>(i), where.loc);
    if (element.isError()) return std::nullopt;
    // A constant element (a literal of a constant tuple) keeps adapting to typed operands.
    if (element.constant && isNumber(*element.constant)) element = weakLiteral(*element.constant, where.loc);
    elements.push_back(element);
  }
  return elements;
}

Value FunctionChecker::tupleAt(Value tuple, Value index, SourceLoc loc) {
  const types::Type* type = tuple.type();
  if (!index.type()->isScalar() || !(types::isInteger(index.type()->scalar) || types::isBool(index.type()->scalar))) {
    sink.error(diag::IndexType, loc, {describe(index)});
    return errorValue();
  }
  const std::vector<const types::Type*>& elements = type->elements;
  bool homogeneous = !elements.empty() && std::all_of(elements.begin(), elements.end(),
                                                      [&](const types::Type* t) { return t == elements[0]; });
  if (!homogeneous) {
    sink.error(diag::NotConstant, loc,
               {"an index of " + types::toString(type) + ", whose elements do not all have one type,"});
    return errorValue();
  }
  // t[i] is a chain of selections: i == 0 ? t[0] : i == 1 ? t[1] : ... : t[n - 1]; a negative
  // index counts from the end. Like a vector's, an index out of range is not checked.
  tuple = evaluatedOnce(tuple, loc);
  const types::Type* i64 = types.scalar(types::ScalarKind::Int64);
  Value position = evaluatedOnce(cast(index, types::ScalarKind::Int64, loc), loc);
  if (position.isError()) return errorValue();
  int64_t size = static_cast<int64_t>(elements.size());
  if (!position.nonNegative && types::isSigned(index.type()->scalar)) {
    TypedExpr* negative = make(TypedExprKind::CompareChain, types.scalar(types::ScalarKind::Bool), loc,
                               {position.expr, typedLiteral(intConstant(0), types::ScalarKind::Int64, loc).expr});
    negative->compareOps = {CompareOp::Lt};
    negative->compareTypes = {i64};
    Value wrapped = binary(BinaryOp::Add, position, typedLiteral(intConstant(size), types::ScalarKind::Int64, loc), loc);
    position = evaluatedOnce(runtime(make(TypedExprKind::Conditional, i64, loc, {negative, wrapped.expr, position.expr})), loc);
  }
  Value result = tupleElement(tuple, size - 1, loc);
  for (int64_t k = size - 2; k >= 0 && !result.isError(); --k) {
    TypedExpr* test = make(TypedExprKind::CompareChain, types.scalar(types::ScalarKind::Bool), loc,
                           {position.expr, typedLiteral(intConstant(k), types::ScalarKind::Int64, loc).expr});
    test->compareOps = {CompareOp::Eq};
    test->compareTypes = {i64};
    Value element = tupleElement(tuple, k, loc);
    if (element.isError()) return element;
    result = runtime(make(TypedExprKind::Conditional, elements[0], loc, {test, element.expr, result.expr}),
                     result.nonNegative && element.nonNegative);
  }
  return result;
}

std::optional<Value> FunctionChecker::bitCount(const syntax::CallExpr& e) {
  if (e.func->kind != syntax::ExprKind::Attribute) return std::nullopt;
  const auto& attribute = syntax::as<syntax::AttributeExpr>(*e.func);
  if (attribute.attr != "bit_count") return std::nullopt;
  Value base = expr(*attribute.value);
  if (base.isError()) return errorValue();
  if (base.kind != Value::Kind::RunTime || !base.type()->isScalar() ||
      !(types::isInteger(base.type()->scalar) || types::isBool(base.type()->scalar))) {
    sink.error(diag::UnknownAttribute, attribute.loc, {describe(base), attribute.attr});
    return errorValue();
  }
  if (!requireArgs("bit_count()", e, 0, 0)) return errorValue();
  if (base.weak) {
    const ConstValue& c = *base.constant;
    uint64_t bits = c.aboveInt64 || c.intValue >= 0 ? static_cast<uint64_t>(c.intValue)
                                                    : uint64_t{0} - static_cast<uint64_t>(c.intValue);
    return weakLiteral(intConstant(std::popcount(c.kind == ConstValue::Kind::Bool ? uint64_t{c.boolValue} : bits)), e.loc);
  }
  // Python counts the bits of abs(x); abs() of a signed minimum wraps to itself, whose one bit
  // is the answer too.
  types::ScalarKind kind = base.type()->scalar;
  if (types::isBool(kind)) base = promoteTo(base, types::ScalarKind::Int32, e.loc);
  TypedExpr* magnitude = base.expr;
  if (types::isSigned(kind)) {
    magnitude = make(TypedExprKind::BuiltinCall, base.type(), e.loc, {base.expr});
    magnitude->builtin = Builtin::Abs;
  }
  TypedExpr* count = make(TypedExprKind::BuiltinCall, types.scalar(types::ScalarKind::Int32), e.loc, {magnitude});
  count->builtin = Builtin::Popc;
  return runtime(count, true);
}

Value FunctionChecker::pyBuiltinCall(const Value& callee, const syntax::CallExpr& e) {
  const std::string& name = callee.name;
  if (name.starts_with("cmath.")) return cmathCall(callee, e);
  if (name == "math.frexp" || name == "math.modf") {
    // Two math functions of one evaluation of x, in x's floating type (as math's functions).
    if (!requireArgs(name + "()", e, 1, 1)) return errorValue();
    Value x = value(*e.args[0]);
    if (x.isError()) return errorValue();
    if (!x.type()->isScalar() || types::isComplex(x.type()->scalar)) {
      sink.error(diag::ArgumentType, e.args[0]->loc, {"1", name + "()", "a real number", describe(x)});
      return errorValue();
    }
    types::ScalarKind kind =
        x.weak ? (fitsScalar(*x.constant, types::ScalarKind::Float32, false) ? types::ScalarKind::Float32 : types::ScalarKind::Float64)
               : types::floatingFor(x.type()->scalar);
    x = evaluatedOnce(promoteTo(x, kind, e.loc), e.loc);
    if (x.isError()) return errorValue();
    bool frexp = name == "math.frexp";
    const types::Type* second = types.scalar(frexp ? types::ScalarKind::Int32 : kind);
    TypedExpr* first = make(TypedExprKind::BuiltinCall, types.scalar(kind), e.loc, {x.expr});
    first->builtin = frexp ? Builtin::FrexpMantissa : Builtin::ModfFraction;
    TypedExpr* other = make(TypedExprKind::BuiltinCall, second, e.loc, {x.expr});
    other->builtin = frexp ? Builtin::FrexpExponent : Builtin::ModfWhole;
    return runtime(make(TypedExprKind::TupleMake, types.tuple({first->type, second}), e.loc, {first, other}));
  }
  std::string what = name + "()";
  auto realNumber = [&](const Value& v, size_t position) {
    if (v.isError()) return false;
    if (v.kind == Value::Kind::RunTime && v.type()->isScalar() && !types::isComplex(v.type()->scalar)) return true;
    sink.error(diag::ArgumentType, e.args[position]->loc, {std::to_string(position + 1), what, "a real number", describe(v)});
    return false;
  };
  if (name == "zip" || name == "reversed") {
    for (const syntax::Expr* arg : e.args) expr(*arg);
    sink.error(diag::ForIterable, e.loc, {": " + what + " can only be the iterable of a for loop"});
    return errorValue();
  }
  if (name == "pow") {
    if (!requireArgs(what, e, 2, 2)) return errorValue();
    Value base = value(*e.args[0]);
    Value exponent = value(*e.args[1]);
    if (base.isError() || exponent.isError()) return errorValue();
    return binary(BinaryOp::Pow, base, exponent, e.loc);
  }
  if (name == "divmod") {
    if (!requireArgs(what, e, 2, 2)) return errorValue();
    Value a = value(*e.args[0]);
    Value b = value(*e.args[1]);
    if (!realNumber(a, 0) || !realNumber(b, 1)) return errorValue();
    a = evaluatedOnce(a, e.loc);
    b = evaluatedOnce(b, e.loc);
    Value quotient = binary(BinaryOp::FloorDiv, a, b, e.loc);
    Value remainder = binary(BinaryOp::Mod, a, b, e.loc);
    if (quotient.isError() || remainder.isError()) return errorValue();
    if (quotient.weak && remainder.weak) {
      ConstValue pair;
      pair.kind = ConstValue::Kind::Tuple;
      pair.elements = {*quotient.constant, *remainder.constant};
      return constantValue(pair, e.loc);
    }
    // A weak part (divmod(7, 2) mixed with nothing typed cannot happen here) takes the other's type.
    if (quotient.weak) quotient = promoteTo(quotient, remainder.type()->scalar, e.loc);
    if (remainder.weak) remainder = promoteTo(remainder, quotient.type()->scalar, e.loc);
    return runtime(make(TypedExprKind::TupleMake, types.tuple({quotient.type(), remainder.type()}), e.loc,
                        {quotient.expr, remainder.expr}));
  }
  if (name == "round") {
    if (!requireArgs(what, e, 1, 2)) return errorValue();
    Value x = value(*e.args[0]);
    if (!realNumber(x, 0)) return errorValue();
    std::optional<Value> digits;
    if (e.args.size() == 2) {
      digits = value(*e.args[1]);
      if (digits->isError()) return errorValue();
      if (!digits->type()->isScalar() || !types::isInteger(digits->type()->scalar)) {
        sink.error(diag::ArgumentType, e.args[1]->loc, {"2", what, "an integer", describe(*digits)});
        return errorValue();
      }
    }
    types::ScalarKind kind = x.type()->scalar;
    bool integral = x.weak ? x.constant->kind != ConstValue::Kind::Float : !types::isFloating(kind);
    if (integral) return types::isBool(kind) && !x.weak ? promoteTo(x, types::ScalarKind::Int32, e.loc) : x;
    if (x.weak && (!digits || digits->weak)) {
      if (!digits) {
        double rounded = std::nearbyint(x.constant->floatValue);
        if (!std::isfinite(rounded) || std::fabs(rounded) >= 9.2e18) {
          sink.error(diag::LiteralOutOfRange, e.loc, {toString(*x.constant), "int64"});
          return errorValue();
        }
        return weakLiteral(intConstant(static_cast<int64_t>(rounded)), e.loc);
      }
      ConstValue result = *x.constant;
      result.floatValue = roundDigits(result.floatValue, int64Value(*digits->constant).value_or(0));
      return weakLiteral(result, e.loc);
    }
    if (x.weak) x = promoteTo(x, types::ScalarKind::Float64, e.loc);
    kind = x.type()->scalar;
    types::ScalarKind precision = types::isNarrowFloat(kind) ? types::ScalarKind::Float32 : kind;
    std::vector<TypedExpr*> operands{promoteTo(x, precision, e.loc).expr};
    if (digits) operands.push_back(cast(*digits, precision, e.loc).expr);
    TypedExpr* call = make(TypedExprKind::BuiltinCall, types.scalar(precision), e.loc, operands);
    call->builtin = digits ? Builtin::RoundDigits : Builtin::Rint;
    Value rounded = runtime(call);
    if (digits) return cast(rounded, kind, e.loc);
    // round(x) is an int: int64 for a float64, as numba types it; the builtin int otherwise.
    return cast(rounded, kind == types::ScalarKind::Float64 ? types::ScalarKind::Int64 : types::ScalarKind::Int32, e.loc);
  }
  if (name == "sum" || name == "any" || name == "all") {
    if (!requireArgs(what, e, 1, name == "sum" ? 2 : 1)) return errorValue();
    std::optional<std::vector<Value>> elements = elementsOf(value(*e.args[0]), what, *e.args[0]);
    if (!elements) return errorValue();
    if (name == "sum") {
      Value total = e.args.size() == 2 ? value(*e.args[1]) : weakLiteral(intConstant(0), e.loc);
      for (const Value& element : *elements) {
        if (total.isError()) return total;
        total = binary(BinaryOp::Add, total, element, e.loc);
      }
      return total;
    }
    bool isAll = name == "all";
    std::vector<TypedExpr*> tests;
    for (const Value& element : *elements) {
      Value test = truth(element, e.loc);
      if (test.isError()) return errorValue();
      // A constant element decides the answer (a False for all, a True for any) or drops out.
      if (test.constant) {
        if (truthOf(*test.constant) != isAll) return typedLiteral(test.constant.value(), types::ScalarKind::Bool, e.loc);
        continue;
      }
      tests.push_back(test.expr);
    }
    const types::Type* boolType = types.scalar(types::ScalarKind::Bool);
    if (tests.empty()) {
      ConstValue answer;
      answer.kind = ConstValue::Kind::Bool;
      answer.boolValue = isAll;
      return typedLiteral(answer, types::ScalarKind::Bool, e.loc);
    }
    return runtime(balanced(isAll ? TypedExprKind::And : TypedExprKind::Or, tests, 0, tests.size(), boolType, e.loc));
  }
  // isinstance(x, T) or isinstance(x, (T1, T2...)), decided at compile time by x's type.
  if (!requireArgs(what, e, 2, 2)) return errorValue();
  Value x = expr(*e.args[0]);
  if (x.isError()) return errorValue();
  std::vector<const syntax::Expr*> classes{e.args[1]};
  if (e.args[1]->kind == syntax::ExprKind::Tuple) {
    const auto& elts = syntax::as<syntax::ListExpr>(*e.args[1]).elts;
    classes.assign(elts.begin(), elts.end());
  }
  bool answer = false;
  for (const syntax::Expr* cls : classes) {
    Value type = expr(*cls);
    if (type.isError()) return errorValue();
    if (type.kind != Value::Kind::NumberType || type.vectorSize != 0) {
      sink.error(diag::ArgumentType, cls->loc, {"2", what, "a number type or a tuple of number types", describe(type)});
      return errorValue();
    }
    if (x.kind != Value::Kind::RunTime || !x.type()->isScalar()) continue;
    types::ScalarKind kind = x.weak ? builtinKindOf(*x.constant) : x.type()->scalar;
    bool builtinName = type.name == "int" || type.name == "float" || type.name == "bool" || type.name == "complex";
    // A literal is an object of a Python builtin type (1.0 is a float, not a numpy.float32).
    answer = answer || (builtinName ? builtinTypeMatches(type.name, kind) : !x.weak && kind == type.scalar);
  }
  ConstValue result;
  result.kind = ConstValue::Kind::Bool;
  result.boolValue = answer;
  return typedLiteral(result, types::ScalarKind::Bool, e.loc);
}

void FunctionChecker::pyBuiltinFor(const syntax::ForStmt& s, const syntax::CallExpr& call, const std::string& name) {
  std::string what = name + "()";
  auto checkBodies = [&]() {
    std::vector<TypedStmt*> body, orelse;
    loopBodies(s, body, orelse);
  };
  // reversed(range(start, stop)) counts down: range(stop - 1, start - 1, -1).
  if (name == "reversed" && call.args.size() == 1 && call.keywords.empty() &&
      call.args[0]->kind == syntax::ExprKind::Call) {
    const auto& inner = syntax::as<syntax::CallExpr>(*call.args[0]);
    Value callee = peekEntity(*inner.func);
    if (callee.kind == Value::Kind::Intrinsic && callee.intrinsic == Intrinsic::Range) {
      rangeFor(s, inner.loc, [&]() -> std::optional<std::vector<Value>> {
        if (!requireArgs("range()", inner, 1, 2)) return std::nullopt;
        std::vector<Value> bounds;
        for (const syntax::Expr* arg : inner.args) bounds.push_back(value(*arg));
        if (bounds.size() == 1) bounds.insert(bounds.begin(), weakLiteral(intConstant(0), inner.loc));
        for (const Value& bound : bounds) {
          if (bound.isError()) return std::nullopt;
          if (!bound.type()->isScalar() || !types::isInteger(bound.type()->scalar)) {
            sink.error(diag::RangeArgument, bound.expr->loc, {describe(bound)});
            return std::nullopt;
          }
        }
        Value one = weakLiteral(intConstant(1), inner.loc);
        Value first = binary(BinaryOp::Sub, bounds[1], one, inner.loc);
        Value last = binary(BinaryOp::Sub, bounds[0], one, inner.loc);
        if (first.isError() || last.isError()) return std::nullopt;
        return std::vector<Value>{first, last, weakLiteral(intConstant(-1), inner.loc)};
      });
      return;
    }
  }
  if (!requireArgs(what, call, 1, name == "zip" ? 8 : 1)) return checkBodies();
  std::vector<std::vector<Value>> columns;
  for (const syntax::Expr* arg : call.args) {
    std::optional<std::vector<Value>> elements = elementsOf(value(*arg), what, *arg);
    if (!elements) return checkBodies();
    columns.push_back(std::move(*elements));
  }
  // The iterable as one tuple evaluated now: reversed(t) its elements backwards, zip(a, b) the
  // tuples (a[k], b[k]) up to the shortest; the loop then runs over it as over any tuple.
  size_t count = columns[0].size();
  for (const std::vector<Value>& column : columns) count = std::min(count, column.size());
  std::vector<TypedExpr*> items;
  std::vector<const types::Type*> itemTypes;
  for (size_t k = 0; k < count; ++k) {
    Value item;
    if (name == "reversed") {
      item = toRunTime(columns[0][count - 1 - k], call.loc);
    } else {
      std::vector<TypedExpr*> parts;
      std::vector<const types::Type*> partTypes;
      for (const std::vector<Value>& column : columns) {
        Value part = toRunTime(column[k], call.loc);
        if (part.isError()) return checkBodies();
        parts.push_back(part.expr);
        partTypes.push_back(part.type());
      }
      item = runtime(make(TypedExprKind::TupleMake, types.tuple(partTypes), call.loc, parts));
    }
    if (item.isError()) return checkBodies();
    items.push_back(item.expr);
    itemTypes.push_back(item.type());
  }
  Value iterable = runtime(make(TypedExprKind::TupleMake, types.tuple(itemTypes), call.loc, items));
  vectorFor(s, iterable, *s.target, nullptr, Value{});
}

}  // namespace weft::sema
