// Vectors (float32x4 ...: construction, components, indexing, immutability) and the
// attributes numbers have as zero-dimensional arrays (.dtype .shape .ndim .size) and as
// Python numbers (.real .imag .conjugate()). docs/types.md describes them.
#include <limits>

#include "sema/checker.h"
#include "support/check.h"

namespace weft::sema {

namespace {

constexpr const char* kComponents[] = {"x", "y", "z", "w"};

// "2 elements (x, y)".
std::string componentList(int size) {
  std::string text = std::to_string(size) + (size == 1 ? " element (" : " elements (");
  for (int i = 0; i < size; ++i) text += std::string(i ? ", " : "") + kComponents[i];
  return text + ")";
}

// The constructor call that rebuilds `vector` with component `changed` replaced, for messages.
std::string rebuildHint(const types::Type* vector, int changed) {
  std::string text = "device." + types::toString(vector) + "(";
  for (int i = 0; i < vector->size; ++i) {
    if (i) text += ", ";
    text += i == changed ? std::string("new_") + kComponents[i] : std::string("v.") + kComponents[i];
  }
  return text + ")";
}

Value numberTypeValue(types::ScalarKind kind) {
  Value v;
  v.kind = Value::Kind::NumberType;
  v.scalar = kind;
  v.name = std::string("device.") + types::pythonName(kind);
  return v;
}

}  // namespace

Value FunctionChecker::vectorConstruct(const Value& callee, const syntax::CallExpr& e) {
  const types::Type* type = types.vector(callee.scalar, callee.vectorSize);
  std::string what = callee.name;
  if (!e.keywords.empty()) {
    sink.error(diag::KeywordArgument, e.keywords.front()->loc, {what + "()", e.keywords.front()->arg});
    return errorValue();
  }
  if (e.args.size() != static_cast<size_t>(type->size)) {
    for (const syntax::Expr* arg : e.args) expr(*arg);
    std::string expected = componentList(type->size);
    sink.error(diag::VectorArgumentCount, e.loc, {what, expected, std::to_string(e.args.size())});
    return errorValue();
  }
  std::vector<TypedExpr*> elements;
  bool failed = false;
  for (size_t i = 0; i < e.args.size(); ++i) {
    Value v = value(*e.args[i]);
    if (v.isError()) {
      failed = true;
      continue;
    }
    if (!v.type()->isScalar() || types::isComplex(v.type()->scalar)) {
      sink.error(diag::VectorElement, e.args[i]->loc, {std::to_string(i + 1), what, describe(v)});
      failed = true;
      continue;
    }
    // Each element is constructed as dtype(arg) would be.
    Value converted = cast(v, type->scalar, e.args[i]->loc);
    if (converted.isError()) {
      failed = true;
      continue;
    }
    elements.push_back(converted.expr);
  }
  if (failed) return errorValue();
  return runtime(make(TypedExprKind::VectorMake, type, e.loc, elements));
}

Value FunctionChecker::vectorAttribute(Value vector, const std::string& attr, SourceLoc loc) {
  const types::Type* type = vector.type();
  if (attr == "size") return weakLiteral(intConstant(type->size), loc);
  if (attr == "dtype") return numberTypeValue(type->scalar);
  for (int i = 0; i < 4; ++i) {
    if (attr != kComponents[i]) continue;
    if (i >= type->size) {
      sink.error(diag::VectorComponent, loc, {types::toString(type), attr, componentList(type->size)});
      return errorValue();
    }
    TypedExpr* element = make(TypedExprKind::VectorElement, types.scalar(type->scalar), loc, {vector.expr});
    element->index = i;
    return runtime(element, types::isUnsigned(type->scalar));
  }
  sink.error(diag::UnknownAttribute, loc, {describe(vector), attr});
  return errorValue();
}

Value FunctionChecker::vectorIndex(Value vector, const syntax::Expr& indexExpr, SourceLoc loc) {
  const types::Type* type = vector.type();
  Value index = value(indexExpr);
  if (index.isError()) return index;
  if (!index.type()->isScalar() ||
      !(types::isInteger(index.type()->scalar) || types::isBool(index.type()->scalar))) {
    sink.error(diag::ArgumentType, indexExpr.loc, {"1", "a vector index", "an integer", describe(index)});
    return errorValue();
  }
  const types::Type* elementType = types.scalar(type->scalar);
  bool nonNegative = types::isUnsigned(type->scalar);
  if (index.constant) {
    // An index beyond int64 is out of range of every vector.
    int64_t i = int64Value(*index.constant).value_or(std::numeric_limits<int64_t>::max());
    if (i < -type->size || i >= type->size) {
      sink.error(diag::VectorIndexRange, indexExpr.loc,
                 {std::to_string(i), types::toString(type), componentList(type->size)});
      return errorValue();
    }
    TypedExpr* element = make(TypedExprKind::VectorElement, elementType, loc, {vector.expr});
    element->index = static_cast<int>(i < 0 ? i + type->size : i);
    return runtime(element, nonNegative);
  }
  if (types::isBool(index.type()->scalar)) index = promoteTo(index, types::ScalarKind::Int32, loc);
  TypedExpr* element = make(TypedExprKind::VectorElement, elementType, loc, {vector.expr, index.expr});
  element->wrapNegative = {types::isSigned(index.type()->scalar) && !index.nonNegative};
  return runtime(element, nonNegative);
}

void FunctionChecker::vectorAssign(const Value& vector, const std::string& what, SourceLoc loc) {
  const types::Type* type = vector.type();
  int changed = -1;
  for (int i = 0; i < type->size; ++i) {
    if (what == kComponents[i]) changed = i;
  }
  std::string target = changed >= 0 ? "component '" + what + "' of " + types::toString(type)
                                    : "an element of " + types::toString(type);
  sink.error(diag::VectorImmutable, loc, {target, rebuildHint(type, changed >= 0 ? changed : 0)});
}

Value FunctionChecker::numberAttribute(Value number, const std::string& attr, SourceLoc loc) {
  types::ScalarKind kind = number.type()->scalar;
  if (attr == "dtype") return numberTypeValue(kind);
  if (attr == "shape") return runtime(make(TypedExprKind::TupleMake, types.tuple({}), loc));
  if (attr == "ndim") return weakLiteral(intConstant(0), loc);
  if (attr == "size") return weakLiteral(intConstant(1), loc);
  if (attr == "real" || attr == "imag") {
    if (number.weak && number.constant) {
      ConstValue part;
      part.kind = ConstValue::Kind::Float;
      part.floatValue = attr == "real" ? number.constant->floatValue : number.constant->imagValue;
      if (number.constant->kind != ConstValue::Kind::Complex) {
        part = attr == "real" ? *number.constant : intConstant(0);
      }
      return weakLiteral(part, loc);
    }
    types::ScalarKind resultKind = types::isBool(kind) ? types::ScalarKind::Int32 : types::realPartOf(kind);
    if (types::isBool(kind)) number = promoteTo(number, resultKind, loc);
    TypedExpr* call = make(TypedExprKind::BuiltinCall, types.scalar(resultKind), loc, {number.expr});
    call->builtin = attr == "real" ? Builtin::RealPart : Builtin::ImagPart;
    return runtime(call, attr == "imag" && !types::isComplex(kind));
  }
  sink.error(diag::UnknownAttribute, loc, {describe(number), attr});
  return errorValue();
}

std::optional<Value> FunctionChecker::numberMethod(const syntax::CallExpr& e) {
  if (e.func->kind != syntax::ExprKind::Attribute) return std::nullopt;
  const auto& attribute = syntax::as<syntax::AttributeExpr>(*e.func);
  if (attribute.attr != "conjugate") return std::nullopt;
  Value base = expr(*attribute.value);
  if (base.isError()) return errorValue();
  if (base.kind == Value::Kind::RunTime && base.type()->isStruct()) {
    Value method = structAttribute(base, attribute.attr, attribute.loc);
    if (method.isError()) return method;
    return methodCall(method, e);
  }
  if (base.kind != Value::Kind::RunTime || !base.type()->isScalar()) {
    sink.error(diag::UnknownAttribute, attribute.loc, {describe(base), attribute.attr});
    return errorValue();
  }
  if (!requireArgs("conjugate()", e, 0, 0)) return errorValue();
  if (base.weak) {
    ConstValue conjugate = *base.constant;
    if (conjugate.kind == ConstValue::Kind::Complex) conjugate.imagValue = -conjugate.imagValue;
    return weakLiteral(conjugate, e.loc);
  }
  types::ScalarKind kind = base.type()->scalar;
  if (types::isBool(kind)) base = promoteTo(base, types::ScalarKind::Int32, e.loc);
  TypedExpr* call = make(TypedExprKind::BuiltinCall, base.type(), e.loc, {base.expr});
  call->builtin = Builtin::Conjugate;
  return runtime(call, base.nonNegative && !types::isComplex(kind));
}

}  // namespace weft::sema
