// Expressions: literals, operators with weak-literal promotion, comparisons, `and`/`or`,
// conditions, conversions.
#include <algorithm>
#include <limits>

#include "sema/checker.h"
#include "support/check.h"

namespace weft::sema {

bool conversionKeepsNonNegative(types::ScalarKind from, types::ScalarKind to) {
  if (!types::isSigned(to)) return true;
  if (types::isBool(from)) return true;
  if (types::isSigned(from)) return types::byteSize(to) >= types::byteSize(from);
  if (types::isUnsigned(from)) return types::byteSize(to) > types::byteSize(from);
  return false;  // a float truncates, then wraps: a large one becomes negative
}

const char* symbol(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::TrueDiv: return "/";
    case BinaryOp::FloorDiv: return "//";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Pow: return "**";
    case BinaryOp::LShift: return "<<";
    case BinaryOp::RShift: return ">>";
    case BinaryOp::BitAnd: return "&";
    case BinaryOp::BitOr: return "|";
    case BinaryOp::BitXor: return "^";
  }
  return "?";
}

const char* symbol(CompareOp op) {
  switch (op) {
    case CompareOp::Eq: return "==";
    case CompareOp::NotEq: return "!=";
    case CompareOp::Lt: return "<";
    case CompareOp::LtE: return "<=";
    case CompareOp::Gt: return ">";
    case CompareOp::GtE: return ">=";
  }
  return "?";
}

namespace {

std::optional<BinaryOp> binaryOpOf(syntax::Operator op) {
  switch (op) {
    case syntax::Operator::Add: return BinaryOp::Add;
    case syntax::Operator::Sub: return BinaryOp::Sub;
    case syntax::Operator::Mult: return BinaryOp::Mul;
    case syntax::Operator::MatMult: return std::nullopt;
    case syntax::Operator::Div: return BinaryOp::TrueDiv;
    case syntax::Operator::Mod: return BinaryOp::Mod;
    case syntax::Operator::Pow: return BinaryOp::Pow;
    case syntax::Operator::LShift: return BinaryOp::LShift;
    case syntax::Operator::RShift: return BinaryOp::RShift;
    case syntax::Operator::BitOr: return BinaryOp::BitOr;
    case syntax::Operator::BitXor: return BinaryOp::BitXor;
    case syntax::Operator::BitAnd: return BinaryOp::BitAnd;
    case syntax::Operator::FloorDiv: return BinaryOp::FloorDiv;
  }
  return std::nullopt;
}

bool isNonNegativeConstant(const ConstValue& c) {
  switch (c.kind) {
    case ConstValue::Kind::Bool: return true;
    case ConstValue::Kind::Int: return c.aboveInt64 || c.intValue >= 0;
    case ConstValue::Kind::Float: return c.floatValue >= 0;
    case ConstValue::Kind::None:
    case ConstValue::Kind::Complex:
    case ConstValue::Kind::Str:
    case ConstValue::Kind::Tuple: return false;
  }
  return false;
}

// The number type that holds constant `c` exactly: weft::cast converts a value of it to any
// type as convertConstant converts `c` itself (castTo reads these very types).
types::ScalarKind exactKindOf(const ConstValue& c) {
  switch (c.kind) {
    case ConstValue::Kind::Bool: return types::ScalarKind::Bool;
    case ConstValue::Kind::Int: return c.aboveInt64 ? types::ScalarKind::UInt64 : types::ScalarKind::Int64;
    case ConstValue::Kind::Float: return types::ScalarKind::Float64;
    case ConstValue::Kind::Complex: return types::ScalarKind::Complex128;
    case ConstValue::Kind::None:
    case ConstValue::Kind::Str:
    case ConstValue::Kind::Tuple: break;
  }
  WEFT_CHECK(false, "the exact type of a constant that is not a number");
  return types::ScalarKind::Bool;
}

}  // namespace

Value FunctionChecker::runtime(TypedExpr* e, bool nonNegative) const {
  Value v;
  v.kind = Value::Kind::RunTime;
  v.expr = e;
  v.nonNegative = nonNegative || (e->type->isScalar() && types::isUnsigned(e->type->scalar));
  return v;
}

TypedExpr* FunctionChecker::make(TypedExprKind kind, const types::Type* type, SourceLoc loc, std::vector<TypedExpr*> operands) {
  TypedExpr* e = nodes.makeExpr();
  e->kind = kind;
  e->type = type;
  e->loc = loc;
  e->operands = std::move(operands);
  return e;
}

std::string FunctionChecker::describe(const Value& v) const {
  switch (v.kind) {
    case Value::Kind::Error: return "<error>";
    case Value::Kind::RunTime: return types::toString(v.expr->type);
    case Value::Kind::Constant: return v.constant->kind == ConstValue::Kind::Str ? "str" : "None";
    case Value::Kind::Module: return "module '" + v.name + "'";
    case Value::Kind::Function: return v.name;
    case Value::Kind::NumberType: return "type " + v.name;
    case Value::Kind::Intrinsic: return v.name;
    case Value::Kind::StructType: return v.name;
    case Value::Kind::Method: return "method " + v.name;
    case Value::Kind::PyBuiltin: return "builtin " + v.name + "()";
    case Value::Kind::StaticTuple: return v.name.empty() ? "a tuple of functions or types" : v.name;
  }
  return "?";
}

Value FunctionChecker::weakLiteral(const ConstValue& constant, SourceLoc loc) {
  types::ScalarKind kind = builtinKindOf(constant);
  if (!fitsScalar(constant, kind, false)) {
    sink.error(diag::LiteralOutOfRange, loc, {toString(constant), types::pythonName(kind)});
    return errorValue();
  }
  TypedExpr* e = make(TypedExprKind::Literal, types.scalar(kind), loc);
  e->literal = toLiteral(constant, kind);
  Value v = runtime(e, isNonNegativeConstant(constant));
  v.weak = true;
  v.constant = constant;
  return v;
}

Value FunctionChecker::typedLiteral(const ConstValue& constant, types::ScalarKind kind, SourceLoc loc) {
  ConstValue converted = convertConstant(constant, kind);
  TypedExpr* e = make(TypedExprKind::Literal, types.scalar(kind), loc);
  e->literal = toLiteral(converted, kind);
  Value v = runtime(e, isNonNegativeConstant(converted));
  v.constant = converted;
  return v;
}

Value FunctionChecker::constantValue(const ConstValue& constant, SourceLoc loc) {
  if (isNumber(constant)) return weakLiteral(constant, loc);
  if (constant.kind == ConstValue::Kind::Tuple) {
    std::vector<TypedExpr*> operands;
    std::vector<const types::Type*> elementTypes;
    for (const ConstValue& element : constant.elements) {
      Value v = toRunTime(constantValue(element, loc), loc);
      if (v.isError()) return errorValue();
      operands.push_back(v.expr);
      elementTypes.push_back(v.type());
    }
    Value v = runtime(make(TypedExprKind::TupleMake, types.tuple(elementTypes), loc, operands));
    v.constant = constant;
    return v;
  }
  Value v;
  v.kind = Value::Kind::Constant;
  v.constant = constant;
  return v;
}

Value FunctionChecker::toRunTime(Value v, SourceLoc loc) {
  switch (v.kind) {
    case Value::Kind::Error:
    case Value::Kind::RunTime: return v;
    case Value::Kind::Constant:
      if (v.constant->kind == ConstValue::Kind::Str) {
        sink.error(diag::UnsupportedExpression, loc, {"a string", " (strings may only appear in print())"});
        return errorValue();
      } else {
        // None: a value of NoneType, whose machine representation is a null void*.
        Value none = runtime(make(TypedExprKind::Literal, types.none(), loc));
        none.constant = v.constant;
        return none;
      }
    case Value::Kind::Intrinsic:
      if (v.intrinsic == Intrinsic::ThreadIdx || v.intrinsic == Intrinsic::BlockIdx || v.intrinsic == Intrinsic::BlockDim ||
          v.intrinsic == Intrinsic::GridDim) {
        return threadIndex(v.intrinsic, loc);
      }
      if (v.intrinsic == Intrinsic::WarpSize || v.intrinsic == Intrinsic::LaneId) {
        TypedExpr* e = make(TypedExprKind::BuiltinCall, types.scalar(types::ScalarKind::Int32), loc);
        e->builtin = *intrinsicBuiltin(v.intrinsic);
        return runtime(e, builtinInfo(e->builtin).has(builtin_property::NonNegative));
      }
      sink.error(diag::UnsupportedExpression, loc, {v.name + " used as a value", "; call it"});
      return errorValue();
    case Value::Kind::Function:
      if (v.name == "lambda") {  // static_arguments.cpp: lambdaValue
        sink.error(diag::UnsupportedExpression, loc,
                   {"lambda", " except as an argument of a call; define a function with def instead"});
        return errorValue();
      }
      [[fallthrough]];
    case Value::Kind::Module:
    case Value::Kind::NumberType:
    case Value::Kind::StructType:
    case Value::Kind::StaticTuple:
      sink.error(diag::UnsupportedExpression, loc,
                 {describe(v) + " used as a value", "; index it with a constant (t[0]), loop over it (for f in t), take len(t), or pass it to a function"});
      return errorValue();
    case Value::Kind::Method:
    case Value::Kind::PyBuiltin:
      sink.error(diag::UnsupportedExpression, loc, {describe(v) + " used as a value", ""});
      return errorValue();
  }
  return errorValue();
}

Value FunctionChecker::value(const syntax::Expr& e) { return toRunTime(expr(e), e.loc); }

Value FunctionChecker::tooDeep(SourceLoc loc) {
  if (!reportedTooDeep_) sink.error(diag::TooDeeplyNested, loc, {std::to_string(kMaxNestingDepth)});
  reportedTooDeep_ = true;
  return errorValue();
}

Value FunctionChecker::expr(const syntax::Expr& e) {
  using K = syntax::ExprKind;
  NestingLevel level(program.nesting);
  if (level.tooDeep()) return tooDeep(e.loc);
  switch (e.kind) {
    case K::BoolOp: return boolOp(syntax::as<syntax::BoolOpExpr>(e));
    case K::NamedExpr:
      sink.error(diag::UnsupportedExpression, e.loc, {"an assignment expression (:=)", "; assign in a separate statement"});
      return errorValue();
    case K::BinOp: {
      const auto& b = syntax::as<syntax::BinOpExpr>(e);
      Value left = value(*b.left);
      Value right = value(*b.right);
      auto op = binaryOpOf(b.op);
      if (!op) {
        if (!left.isError() && !right.isError() && left.type()->isTile() && right.type()->isTile())
          return tileMatmul(left, right, std::nullopt, e.loc, "'@'");
        if (!left.isError() && !right.isError()) sink.error(diag::InvalidOperands, e.loc, {"@", describe(left), describe(right)});
        return errorValue();
      }
      return binary(*op, left, right, e.loc);
    }
    case K::UnaryOp: return unary(syntax::as<syntax::UnaryOpExpr>(e));
    case K::Lambda: return lambdaValue(syntax::as<syntax::LambdaExpr>(e));
    case K::IfExp: return ifExp(syntax::as<syntax::IfExpExpr>(e));
    case K::Dict:
      sink.error(diag::UnsupportedExpression, e.loc, {"a dict", ""});
      return errorValue();
    case K::Set:
      sink.error(diag::UnsupportedExpression, e.loc, {"a set", ""});
      return errorValue();
    case K::ListComp:
    case K::SetComp:
    case K::DictComp:
    case K::GeneratorExp:
      sink.error(diag::UnsupportedExpression, e.loc, {"a comprehension", "; write a for loop over range(...)"});
      return errorValue();
    case K::Await:
      sink.error(diag::UnsupportedExpression, e.loc, {"await", ""});
      return errorValue();
    case K::Yield:
    case K::YieldFrom:
      sink.error(diag::UnsupportedExpression, e.loc, {"yield (generators)", ""});
      return errorValue();
    case K::Compare: return compare(syntax::as<syntax::CompareExpr>(e));
    case K::Call: return call(syntax::as<syntax::CallExpr>(e));
    case K::FormattedValue:
    case K::JoinedStr:
      sink.error(diag::UnsupportedExpression, e.loc, {"an f-string", ""});
      return errorValue();
    case K::Constant: {
      const syntax::ConstantValue& c = syntax::as<syntax::ConstantExpr>(e).value;
      if (c.kind == syntax::ConstantValue::Kind::Bytes || c.kind == syntax::ConstantValue::Kind::Ellipsis) {
        sink.error(diag::UnsupportedExpression, e.loc,
                   {c.kind == syntax::ConstantValue::Kind::Bytes ? "a bytes literal" : "Ellipsis (...)", ""});
        return errorValue();
      }
      auto constant = fromSyntax(c);
      if (!constant) {
        sink.error(diag::LiteralOutOfRange, e.loc, {c.intDigits, "uint64"});
        return errorValue();
      }
      return constantValue(*constant, e.loc);
    }
    case K::Attribute: return attribute(syntax::as<syntax::AttributeExpr>(e));
    case K::Subscript: return subscript(syntax::as<syntax::SubscriptExpr>(e));
    case K::Starred:
      sink.error(diag::UnsupportedExpression, e.loc, {"a starred expression (*x)", ""});
      return errorValue();
    case K::Name: return name(syntax::as<syntax::NameExpr>(e));
    case K::List:
      sink.error(diag::UnsupportedExpression, e.loc, {"a list", "; use a tuple (a, b) or device.local_array"});
      return errorValue();
    case K::Tuple: return tupleDisplay(syntax::as<syntax::TupleExpr>(e));
    case K::Slice:
      sink.error(diag::UnsupportedExpression, e.loc,
                 {"slicing anything but an array", "; index single elements, e.g. t[0]"});
      return errorValue();
  }
  return errorValue();
}

Value FunctionChecker::tupleDisplay(const syntax::TupleExpr& e) {
  std::vector<TypedExpr*> operands;
  std::vector<const types::Type*> elementTypes;
  ConstValue constant;
  constant.kind = ConstValue::Kind::Tuple;
  bool allConstant = true;
  bool failed = false;
  std::vector<Value> raws;
  for (const syntax::Expr* element : e.elts) raws.push_back(expr(*element));
  if (std::any_of(raws.begin(), raws.end(), [](const Value& v) { return isStaticArgument(v); })) return staticTuple(e, raws);
  for (size_t i = 0; i < e.elts.size(); ++i) {
    const syntax::Expr* element = e.elts[i];
    Value v = toRunTime(raws[i], element->loc);
    if (v.isError() || copiesAtomicStruct(v, "putting it in a tuple", element->loc)) {
      failed = true;
      continue;
    }
    operands.push_back(v.expr);
    elementTypes.push_back(v.type());
    if (v.constant) {
      constant.elements.push_back(*v.constant);
    } else {
      allConstant = false;
    }
  }
  if (failed) return errorValue();
  Value v = runtime(make(TypedExprKind::TupleMake, types.tuple(elementTypes), e.loc, operands));
  if (allConstant) v.constant = constant;
  return v;
}

Value FunctionChecker::staticTuple(const syntax::TupleExpr& e, const std::vector<Value>& raws) {
  Value tuple;
  tuple.kind = Value::Kind::StaticTuple;
  for (size_t i = 0; i < raws.size(); ++i) {
    if (raws[i].isError()) return errorValue();
    if (isStaticArgument(raws[i])) {
      tuple.elements.push_back(raws[i]);
      continue;
    }
    // A constant beside the functions is kept as its value (it is part of the tuple's identity).
    Value v = toRunTime(raws[i], e.elts[i]->loc);
    if (v.isError()) return errorValue();
    if (!v.constant) {
      sink.error(diag::UnsupportedExpression, e.elts[i]->loc,
                 {"a run-time value in a tuple of functions or types", "; pass it separately"});
      return errorValue();
    }
    Value constant;
    constant.kind = Value::Kind::Constant;
    constant.constant = v.constant;
    tuple.elements.push_back(std::move(constant));
  }
  return tuple;
}

Value FunctionChecker::staticTupleElement(const Value& tuple, const syntax::Expr& index, SourceLoc loc) {
  Value at = value(index);
  if (at.isError()) return at;
  if (!at.constant || at.constant->kind != ConstValue::Kind::Int) {
    sink.error(diag::NotConstant, index.loc, {"the index of " + describe(tuple) + " (its elements have no run-time form)"});
    return errorValue();
  }
  int64_t size = static_cast<int64_t>(tuple.elements.size());
  int64_t position = int64Value(*at.constant).value_or(std::numeric_limits<int64_t>::max());
  int64_t normalized = position < 0 ? position + size : position;
  if (normalized < 0 || normalized >= size) {
    sink.error(diag::TupleIndex, loc, {std::to_string(position), describe(tuple)});
    return errorValue();
  }
  const Value& element = tuple.elements[static_cast<size_t>(normalized)];
  return element.kind == Value::Kind::Constant ? constantValue(*element.constant, loc) : element;
}

Value FunctionChecker::promoteTo(Value v, types::ScalarKind kind, SourceLoc loc) {
  if (v.isError()) return v;
  if (v.weak) {
    if (!fitsScalar(*v.constant, kind, false)) {
      sink.error(diag::LiteralOutOfRange, v.expr->loc, {toString(*v.constant), types::pythonName(kind)});
      return errorValue();
    }
    return typedLiteral(*v.constant, kind, v.expr->loc);
  }
  if (v.type() == types.scalar(kind)) return v;  // a WarpMask operand computes as a plain uint32
  Value cast = runtime(make(TypedExprKind::Cast, types.scalar(kind), loc, {v.expr}), v.nonNegative);
  return cast;
}

Value FunctionChecker::cast(Value v, types::ScalarKind kind, SourceLoc loc) {
  if (v.isError()) return v;
  if (!v.type()->isScalar()) {
    sink.error(diag::ArgumentType, loc, {"1", types::pythonName(kind) + std::string("()"), "a number", describe(v)});
    return errorValue();
  }
  if (types::isBool(kind)) return truth(v, loc);
  if (types::isComplex(v.type()->scalar) && !types::isComplex(kind)) {
    sink.error(diag::ArgumentType, loc, {"1", types::pythonName(kind) + std::string("()"), "a real number", describe(v)});
    return errorValue();
  }
  // A constant converts now, by the run-time conversion's rule (convertConstant).
  if (v.constant && isNumber(*v.constant)) return typedLiteral(*v.constant, kind, loc);
  if (v.type() == types.scalar(kind)) return v;
  return runtime(make(TypedExprKind::Cast, types.scalar(kind), loc, {v.expr}),
                 v.nonNegative && conversionKeepsNonNegative(v.type()->scalar, kind));
}

Value FunctionChecker::convert(Value v, const types::Type* target, SourceLoc loc) {
  if (v.isError() || target->isError()) return errorValue();
  const types::Type* source = v.type();
  if (target->isScalar() && source->isScalar()) {
    if (types::isComplex(source->scalar) && !types::isComplex(target->scalar)) {
      sink.error(diag::StoreType, loc, {types::toString(source), types::toString(target)});
      return errorValue();
    }
    if (v.weak) {
      if (!fitsScalar(*v.constant, target->scalar, true)) {
        sink.error(diag::LiteralOutOfRange, loc, {toString(*v.constant), types::toString(target)});
        return errorValue();
      }
      return typedLiteral(*v.constant, target->scalar, v.expr->loc);
    }
    if (source == target) return v;
    return runtime(make(TypedExprKind::Cast, target, loc, {v.expr}), v.nonNegative);
  }
  if (source == target) return v;
  // An array (or a view of one) as one of its type with fewer launch facts (joinTypes): the same
  // value, typed for the variable that holds it.
  if ((source->isArray() || source->kind == types::TypeKind::TileView) && source->kind == target->kind &&
      types.withoutFacts(source) == types.withoutFacts(target) && joinTypes(source, target, types) == target)
    return runtime(make(TypedExprKind::Cast, target, loc, {v.expr}));
  if (target->kind == types::TypeKind::Tuple && source->kind == types::TypeKind::Tuple &&
      target->elements.size() == source->elements.size() &&
      (v.expr->kind == TypedExprKind::TupleMake || v.expr->kind == TypedExprKind::Local)) {
    std::vector<TypedExpr*> operands;
    for (size_t i = 0; i < target->elements.size(); ++i) {
      TypedExpr* element = v.expr->kind == TypedExprKind::TupleMake ? v.expr->operands[i] : nullptr;
      if (element == nullptr) {
        element = make(TypedExprKind::TupleGet, source->elements[i], loc, {v.expr});
        element->index = static_cast<int>(i);
      }
      Value converted = convert(runtime(element), target->elements[i], loc);
      if (converted.isError()) return errorValue();
      operands.push_back(converted.expr);
    }
    return runtime(make(TypedExprKind::TupleMake, target, loc, operands));
  }
  sink.error(diag::StoreType, loc, {types::toString(source), types::toString(target)});
  return errorValue();
}

Value FunctionChecker::truth(Value v, SourceLoc loc) {
  if (!v.isError() && v.kind == Value::Kind::RunTime && v.type()->isTile()) {
    sink.error(diag::TileTruth, loc);
    return errorValue();
  }
  if (v.isError()) return v;
  if (!v.type()->isScalar()) {
    sink.error(diag::ConditionType, loc, {types::toString(v.type())});
    return errorValue();
  }
  if (types::isBool(v.type()->scalar)) return v;
  if (v.constant) {
    ConstValue b;
    b.kind = ConstValue::Kind::Bool;
    b.boolValue = truthOf(*v.constant);
    return v.weak ? weakLiteral(b, loc) : typedLiteral(b, types::ScalarKind::Bool, loc);
  }
  return runtime(make(TypedExprKind::Truth, types.scalar(types::ScalarKind::Bool), loc, {v.expr}));
}

TypedExpr* FunctionChecker::balanced(TypedExprKind kind, const std::vector<TypedExpr*>& operands,
                                     size_t begin, size_t end, const types::Type* type, SourceLoc loc) {
  if (end - begin == 1) return operands[begin];
  size_t middle = begin + (end - begin) / 2;
  return make(
      kind, type, loc,
      {balanced(kind, operands, begin, middle, type, loc), balanced(kind, operands, middle, end, type, loc)});
}

Value FunctionChecker::condition(const syntax::Expr& e) {
  const types::Type* boolType = types.scalar(types::ScalarKind::Bool);
  auto constant = [&](bool truth) {
    ConstValue b;
    b.kind = ConstValue::Kind::Bool;
    b.boolValue = truth;
    return typedLiteral(b, types::ScalarKind::Bool, e.loc);
  };
  if (e.kind == syntax::ExprKind::BoolOp) {
    // A constant operand that decides the condition (False in an `and`, True in an `or`)
    // makes it constant when no run-time operand comes before it, and Python evaluates no
    // operand after it; other constant operands drop out.
    const auto& b = syntax::as<syntax::BoolOpExpr>(e);
    bool isAnd = b.op == syntax::BoolOperator::And;
    std::vector<TypedExpr*> parts;
    for (const syntax::Expr* operand : b.values) {
      Value part = condition(*operand);
      if (part.isError()) return part;
      if (part.constant && truthOf(*part.constant) == isAnd) continue;
      parts.push_back(part.expr);
      if (part.constant) {
        if (parts.size() == 1) return constant(!isAnd);
        break;
      }
    }
    if (parts.empty()) return constant(isAnd);
    return runtime(
        balanced(isAnd ? TypedExprKind::And : TypedExprKind::Or, parts, 0, parts.size(), boolType, e.loc));
  }
  if (e.kind == syntax::ExprKind::UnaryOp && syntax::as<syntax::UnaryOpExpr>(e).op == syntax::UnaryOperator::Not) {
    Value operand = condition(*syntax::as<syntax::UnaryOpExpr>(e).operand);
    if (operand.isError()) return operand;
    if (operand.constant) return constant(!truthOf(*operand.constant));
    TypedExpr* n = make(TypedExprKind::Unary, boolType, e.loc, {operand.expr});
    n->unaryOp = UnaryOp::Not;
    return runtime(n);
  }
  return truth(value(e), e.loc);
}

Value FunctionChecker::binary(BinaryOp op, Value left, Value right, SourceLoc loc) {
  using types::ScalarKind;
  if (left.isError() || right.isError()) return errorValue();
  const types::Type* lt = left.type();
  const types::Type* rt = right.type();
  if (lt->isTile() || rt->isTile()) return tileBinary(op, left, right, loc);
  if (!lt->isScalar() || !rt->isScalar()) {
    sink.error(diag::InvalidOperands, loc, {symbol(op), describe(left), describe(right)});
    return errorValue();
  }
  if (left.weak && right.weak) {
    Folded folded = foldBinary(op, *left.constant, *right.constant);
    switch (folded.error) {
      case FoldError::None: return weakLiteral(folded.value, loc);
      case FoldError::DivisionByZero: sink.error(diag::DivisionByZero, loc); return errorValue();
      case FoldError::Overflow: sink.error(diag::ConstantOverflow, loc); return errorValue();
      case FoldError::Unsupported:
        sink.error(diag::InvalidOperands, loc, {symbol(op), describe(left), describe(right)});
        return errorValue();
    }
  }
  ScalarKind lk = lt->scalar;
  ScalarKind rk = rt->scalar;
  auto invalid = [&]() {
    sink.error(diag::InvalidOperands, loc, {symbol(op), describe(left), describe(right)});
    return errorValue();
  };
  auto emit = [&](ScalarKind resultKind, ScalarKind operandKind, bool nonNegative) {
    Value l = promoteTo(left, operandKind, loc);
    Value r = promoteTo(right, operandKind, loc);
    if (l.isError() || r.isError()) return errorValue();
    TypedExpr* e = make(TypedExprKind::Binary, types.scalar(resultKind), loc, {l.expr, r.expr});
    e->binaryOp = op;
    return runtime(e, nonNegative);
  };

  if (op == BinaryOp::LShift || op == BinaryOp::RShift) {
    if (types::isFloating(lk) || types::isComplex(lk) || types::isFloating(rk) || types::isComplex(rk)) return invalid();
    ScalarKind resultKind = left.weak ? rk : lk;
    if (types::isBool(resultKind)) resultKind = ScalarKind::Int32;
    Value l = promoteTo(left, resultKind, loc);
    Value r = right.weak ? promoteTo(right, resultKind, loc)
                         : (types::isBool(rk) ? promoteTo(right, ScalarKind::Int32, loc) : right);
    if (l.isError() || r.isError()) return errorValue();
    TypedExpr* e = make(TypedExprKind::Binary, types.scalar(resultKind), loc, {l.expr, r.expr});
    e->binaryOp = op;
    return runtime(e, op == BinaryOp::RShift && left.nonNegative);
  }

  ScalarKind common;
  if (left.weak) {
    common = combineWeak(rk, builtinKindOf(*left.constant));
  } else if (right.weak) {
    common = combineWeak(lk, builtinKindOf(*right.constant));
  } else {
    auto promoted = types::promote(lk, rk);
    if (!promoted) {
      sink.error(diag::NoCommonType, loc, {types::pythonName(lk), types::pythonName(rk), "int64"});
      return errorValue();
    }
    common = *promoted;
  }
  bool bothNonNegative = left.nonNegative && right.nonNegative;
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Mul:
    case BinaryOp::Sub: {
      ScalarKind kind = types::isBool(common) ? ScalarKind::Int32 : common;
      return emit(kind, kind, op != BinaryOp::Sub && bothNonNegative);
    }
    case BinaryOp::TrueDiv: {
      if (types::isComplex(common) || types::isFloating(common)) {
        return emit(common, common, bothNonNegative);
      }
      ScalarKind la = left.weak ? common : lk;
      ScalarKind ra = right.weak ? common : rk;
      ScalarKind kind = (types::byteSize(la) == 8 || types::byteSize(ra) == 8) ? ScalarKind::Float64 : ScalarKind::Float32;
      return emit(kind, kind, bothNonNegative);
    }
    case BinaryOp::FloorDiv:
    case BinaryOp::Mod: {
      if (types::isComplex(common)) return invalid();
      if (right.weak && truthOf(*right.constant) == false) {
        sink.error(diag::DivisionByZero, loc);
        return errorValue();
      }
      ScalarKind kind = types::isBool(common) ? ScalarKind::Int32 : common;
      Value result = emit(kind, kind, op == BinaryOp::Mod ? right.nonNegative : bothNonNegative);
      // debug=True: an integer divisor that may be zero is checked (floats stay IEEE).
      bool nonzero = right.constant && isNumber(*right.constant) && truthOf(*right.constant);
      if (!result.isError() && program.debug && types::isInteger(kind) && !nonzero)
        result.expr->checked = true;
      return result;
    }
    case BinaryOp::Pow: {
      if (types::isComplex(common)) {
        // CPython's algorithm (weft/device/math.h: complex_pow), whatever the exponent.
        Value l = promoteTo(left, common, loc);
        Value r = promoteTo(right, common, loc);
        if (l.isError() || r.isError()) return errorValue();
        TypedExpr* e = make(TypedExprKind::BuiltinCall, types.scalar(common), loc, {l.expr, r.expr});
        e->builtin = Builtin::ComplexPow;
        return runtime(e);
      }
      std::optional<int64_t> exponent = right.weak ? int64Value(*right.constant) : std::nullopt;
      if (exponent && *exponent >= 0 && !left.weak) {
        ScalarKind kind = types::isBool(lk) ? ScalarKind::Int32 : lk;
        return emit(kind, kind, left.nonNegative || *exponent % 2 == 0);
      }
      // Integers to a run-time integer power stay integers, computed exactly (weft::pow_int; a
      // negative exponent gives 1 / x**n truncated toward zero):
      // CPython's int result for a non-negative exponent, where a floating pow would round
      // (CUDA's pow(3.0, 1.0) is 2.9999999999999996).
      if (!exponent && !right.constant && types::isInteger(lk) && types::isInteger(rk) && !left.weak) {
        ScalarKind kind = types::isBool(common) ? ScalarKind::Int32 : common;
        return emit(kind, kind, left.nonNegative);
      }
      ScalarKind kind = types::floatingFor(common);
      Value l = promoteTo(left, kind, loc);
      Value r = promoteTo(right, kind, loc);
      if (l.isError() || r.isError()) return errorValue();
      TypedExpr* e = make(TypedExprKind::BuiltinCall, types.scalar(kind), loc, {l.expr, r.expr});
      e->builtin = Builtin::Pow;
      return runtime(e, left.nonNegative);
    }
    case BinaryOp::BitAnd:
    case BinaryOp::BitOr:
    case BinaryOp::BitXor: {
      if (types::isFloating(common) || types::isComplex(common)) return invalid();
      bool nonNegative = op == BinaryOp::BitAnd ? (left.nonNegative || right.nonNegative) : bothNonNegative;
      return emit(common, common, nonNegative);
    }
    case BinaryOp::LShift:
    case BinaryOp::RShift: break;
  }
  WEFT_CHECK(false, "every binary operator is handled");
  return errorValue();
}

Value FunctionChecker::unary(const syntax::UnaryOpExpr& e) {
  if (e.op == syntax::UnaryOperator::Not) {
    Value operand = truth(value(*e.operand), e.operand->loc);
    if (operand.isError()) return operand;
    if (operand.constant) {
      Folded folded = foldUnary(UnaryOp::Not, *operand.constant);
      return operand.weak ? weakLiteral(folded.value, e.loc) : typedLiteral(folded.value, types::ScalarKind::Bool, e.loc);
    }
    TypedExpr* n = make(TypedExprKind::Unary, types.scalar(types::ScalarKind::Bool), e.loc, {operand.expr});
    n->unaryOp = UnaryOp::Not;
    return runtime(n);
  }
  UnaryOp op = e.op == syntax::UnaryOperator::USub ? UnaryOp::Neg
               : e.op == syntax::UnaryOperator::UAdd ? UnaryOp::Pos
                                                     : UnaryOp::Invert;
  const char* name = op == UnaryOp::Neg ? "unary -" : op == UnaryOp::Pos ? "unary +" : "~";
  Value operand = value(*e.operand);
  if (operand.isError()) return operand;
  const types::Type* type = operand.type();
  if (type->isTile()) return tileUnary(op, operand, e.loc);
  if (!type->isScalar() || (op == UnaryOp::Invert && (types::isFloating(type->scalar) || types::isComplex(type->scalar)))) {
    sink.error(diag::InvalidOperand, e.loc, {name, describe(operand)});
    return errorValue();
  }
  if (operand.weak) {
    Folded folded = foldUnary(op, *operand.constant);
    if (folded.error == FoldError::Overflow) {
      sink.error(diag::ConstantOverflow, e.loc);
      return errorValue();
    }
    return weakLiteral(folded.value, e.loc);
  }
  // bool computes as int32, a WarpMask as a plain uint32 (as int's operators on a subclass return int).
  operand = promoteTo(operand, types::isBool(type->scalar) ? types::ScalarKind::Int32 : type->scalar, e.loc);
  if (op == UnaryOp::Pos) return operand;
  TypedExpr* n = make(TypedExprKind::Unary, operand.type(), e.loc, {operand.expr});
  n->unaryOp = op;
  return runtime(n);
}

Value FunctionChecker::compare(const syntax::CompareExpr& e) {
  std::vector<Value> operands{value(*e.left)};
  for (const syntax::Expr* comparator : e.comparators) operands.push_back(value(*comparator));
  std::vector<CompareOp> ops;
  for (syntax::CmpOperator op : e.ops) {
    switch (op) {
      case syntax::CmpOperator::Eq: ops.push_back(CompareOp::Eq); break;
      case syntax::CmpOperator::NotEq: ops.push_back(CompareOp::NotEq); break;
      case syntax::CmpOperator::Lt: ops.push_back(CompareOp::Lt); break;
      case syntax::CmpOperator::LtE: ops.push_back(CompareOp::LtE); break;
      case syntax::CmpOperator::Gt: ops.push_back(CompareOp::Gt); break;
      case syntax::CmpOperator::GtE: ops.push_back(CompareOp::GtE); break;
      case syntax::CmpOperator::Is:
      case syntax::CmpOperator::IsNot: return isNone(e);
      case syntax::CmpOperator::In:
      case syntax::CmpOperator::NotIn:
        sink.error(diag::UnsupportedExpression, e.loc, {"the 'in' operator", "; compare with == in a loop"});
        return errorValue();
    }
  }
  for (const Value& v : operands) {
    if (v.isError()) return errorValue();
  }
  if (std::any_of(operands.begin(), operands.end(), [](const Value& v) { return v.type()->isTile(); })) {
    if (ops.size() == 1) return tileCompare(ops[0], operands[0], operands[1], e.loc);
    sink.error(diag::UnsupportedExpression, e.loc, {"a comparison chain of tiles", "; compare pairwise and combine with &"});
    return errorValue();
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!operands[i].type()->isScalar() || !operands[i + 1].type()->isScalar()) {
      sink.error(diag::InvalidOperands, e.loc, {symbol(ops[i]), describe(operands[i]), describe(operands[i + 1])});
      return errorValue();
    }
  }
  // Python compares pairwise: `a < b < c` is `a < b and b < c` with `b` evaluated once, each
  // link in its own operands' promotion. A link of two constants folds (as Python computes it);
  // `folded[i]` holds its answer, `linkKinds[i]` the type every other link compares in.
  const types::Type* boolType = types.scalar(types::ScalarKind::Bool);
  std::vector<std::optional<bool>> folded(ops.size());
  std::vector<types::ScalarKind> linkKinds(ops.size(), types::ScalarKind::Bool);
  for (size_t i = 0; i < ops.size(); ++i) {
    const Value& a = operands[i];
    const Value& b = operands[i + 1];
    if (a.weak && b.weak) {
      Folded answer = foldCompare(ops[i], *a.constant, *b.constant);
      if (answer.error != FoldError::None) {
        sink.error(diag::InvalidOperands, e.loc, {symbol(ops[i]), describe(a), describe(b)});
        return errorValue();
      }
      folded[i] = answer.value.boolValue;
      continue;
    }
    if (a.weak || b.weak) {
      const Value& typed = a.weak ? b : a;
      linkKinds[i] = combineWeak(typed.type()->scalar, builtinKindOf(*(a.weak ? a : b).constant));
    } else if (auto promoted = types::promote(a.type()->scalar, b.type()->scalar)) {
      linkKinds[i] = *promoted;
    } else {
      sink.error(diag::NoCommonType, e.loc, {types::pythonName(a.type()->scalar), types::pythonName(b.type()->scalar), "int64"});
      return errorValue();
    }
    if (types::isComplex(linkKinds[i]) && ops[i] != CompareOp::Eq && ops[i] != CompareOp::NotEq) {
      sink.error(diag::InvalidOperands, e.loc, {symbol(ops[i]), describe(a), describe(b)});
      return errorValue();
    }
  }
  // The run-time chain of operands [first, last] (links first..last-1, none folded). An operand
  // whose links compare in one type is converted to it; one between links of two types keeps
  // its own type (a constant: its exact value's, from which each link converts it as it would
  // the constant) and each link converts it (TypedExpr::compareTypes).
  auto chain = [&](size_t first, size_t last) -> TypedExpr* {
    std::vector<TypedExpr*> typed;
    for (size_t k = first; k <= last; ++k) {
      const Value& v = operands[k];
      types::ScalarKind kind = linkKinds[k == last ? k - 1 : k];
      bool between = k > first && k < last && linkKinds[k - 1] != linkKinds[k];
      if (!between) {
        Value converted = promoteTo(v, kind, e.loc);
        if (converted.isError()) return nullptr;
        typed.push_back(converted.expr);
        continue;
      }
      if (!v.weak) {
        typed.push_back(v.expr);
        continue;
      }
      if (promoteTo(v, linkKinds[k - 1], e.loc).isError() || promoteTo(v, linkKinds[k], e.loc).isError()) return nullptr;
      typed.push_back(typedLiteral(*v.constant, exactKindOf(*v.constant), v.expr->loc).expr);
    }
    TypedExpr* link = make(TypedExprKind::CompareChain, boolType, e.loc, typed);
    link->compareOps.assign(ops.begin() + static_cast<std::ptrdiff_t>(first), ops.begin() + static_cast<std::ptrdiff_t>(last));
    for (size_t i = first; i < last; ++i) link->compareTypes.push_back(types.scalar(linkKinds[i]));
    return link;
  };
  // Folded links split the chain into run-time parts joined by `and`; a false one ends it
  // (Python evaluates nothing after it).
  std::vector<TypedExpr*> parts;
  size_t first = 0;
  bool answer = true;
  for (size_t i = 0; i <= ops.size() && answer; ++i) {
    if (i < ops.size() && !folded[i]) continue;
    if (i > first) {
      TypedExpr* part = chain(first, i);
      if (part == nullptr) return errorValue();
      parts.push_back(part);
    }
    answer = i == ops.size() || *folded[i];
    first = i + 1;
  }
  ConstValue constant;
  constant.kind = ConstValue::Kind::Bool;
  constant.boolValue = answer;
  if (std::all_of(operands.begin(), operands.end(), [](const Value& v) { return v.weak; }))
    return weakLiteral(constant, e.loc);
  if (parts.empty()) return typedLiteral(constant, types::ScalarKind::Bool, e.loc);
  if (!answer) parts.push_back(typedLiteral(constant, types::ScalarKind::Bool, e.loc).expr);
  return runtime(balanced(TypedExprKind::And, parts, 0, parts.size(), boolType, e.loc));
}

Value FunctionChecker::boolOp(const syntax::BoolOpExpr& e) {
  std::vector<Value> operands;
  for (const syntax::Expr* operand : e.values) operands.push_back(value(*operand));
  for (const Value& v : operands) {
    if (v.isError()) return errorValue();
    if (!v.type()->isScalar()) {
      sink.error(diag::InvalidOperands, e.loc, {e.op == syntax::BoolOperator::And ? "and" : "or", describe(operands[0]),
                                                describe(operands.back())});
      return errorValue();
    }
  }
  bool isAnd = e.op == syntax::BoolOperator::And;
  bool allWeak = true;
  std::optional<types::ScalarKind> common;
  std::optional<types::ScalarKind> weakKind;
  for (const Value& v : operands) {
    if (v.weak) {
      types::ScalarKind kind = builtinKindOf(*v.constant);
      weakKind = weakKind ? joinWeak(*weakKind, kind) : kind;
      continue;
    }
    allWeak = false;
    auto promoted = common ? types::promote(*common, v.type()->scalar) : v.type()->scalar;
    if (!promoted) {
      sink.error(diag::NoCommonType, e.loc, {types::pythonName(*common), types::pythonName(v.type()->scalar), "int64"});
      return errorValue();
    }
    common = promoted;
  }
  if (allWeak) {
    // Python: `a and b` is a if a is falsy, else b (and `or` the reverse).
    size_t chosen = operands.size() - 1;
    for (size_t i = 0; i + 1 < operands.size(); ++i) {
      if (truthOf(*operands[i].constant) != isAnd) {
        chosen = i;
        break;
      }
    }
    return weakLiteral(*operands[chosen].constant, e.loc);
  }
  types::ScalarKind kind = weakKind ? combineWeak(*common, *weakKind) : *common;
  std::vector<TypedExpr*> typed;
  bool nonNegative = true;
  for (const Value& operand : operands) {
    Value converted = promoteTo(operand, kind, e.loc);
    if (converted.isError()) return errorValue();
    nonNegative = nonNegative && operand.nonNegative;
    typed.push_back(converted.expr);
  }
  // `and` and `or` are associative (each gives the first operand that decides it), so a
  // balanced tree computes the chain with a depth of log2 of its length.
  TypedExpr* chain = balanced(isAnd ? TypedExprKind::And : TypedExprKind::Or, typed, 0, typed.size(),
                              types.scalar(kind), e.loc);
  return runtime(chain, nonNegative);
}

Value FunctionChecker::ifExp(const syntax::IfExpExpr& e) {
  Value test = condition(*e.test);
  Value body = value(*e.body);
  Value orelse = value(*e.orelse);
  if (test.isError() || body.isError() || orelse.isError()) return errorValue();
  if (copiesAtomicStruct(body, "a conditional expression (x if c else y)", e.loc)) return errorValue();
  const types::Type* type = nullptr;
  if (body.type()->isScalar() && orelse.type()->isScalar()) {
    if (body.weak && orelse.weak) {
      if (test.constant) return truthOf(*test.constant) ? body : orelse;
      type = types.scalar(joinWeak(builtinKindOf(*body.constant), builtinKindOf(*orelse.constant)));
    } else if (body.weak) {
      type = types.scalar(combineWeak(orelse.type()->scalar, builtinKindOf(*body.constant)));
    } else if (orelse.weak) {
      type = types.scalar(combineWeak(body.type()->scalar, builtinKindOf(*orelse.constant)));
    } else {
      type = joinTypes(body.type(), orelse.type(), types);
    }
  } else {
    type = joinTypes(body.type(), orelse.type(), types);
  }
  if (type == nullptr) {
    sink.error(diag::NoCommonType, e.loc, {describe(body), describe(orelse), "int64"});
    return errorValue();
  }
  Value a = type->isScalar() ? promoteTo(body, type->scalar, e.loc) : convert(body, type, e.loc);
  Value b = type->isScalar() ? promoteTo(orelse, type->scalar, e.loc) : convert(orelse, type, e.loc);
  if (a.isError() || b.isError()) return errorValue();
  return runtime(make(TypedExprKind::Conditional, type, e.loc, {test.expr, a.expr, b.expr}),
                 body.nonNegative && orelse.nonNegative);
}

}  // namespace weft::sema

namespace weft::sema {

// `x is None`, `x is not None` (either side may be None): the answer follows from the types,
// since None is the only value of NoneType; `is` between other values has no device meaning.
Value FunctionChecker::isNone(const syntax::CompareExpr& e) {
  bool negated = e.ops.front() == syntax::CmpOperator::IsNot;
  if (e.ops.size() != 1) {
    sink.error(diag::UnsupportedExpression, e.loc, {"a comparison chain with 'is'", "; compare with None on its own"});
    return errorValue();
  }
  Value left = value(*e.left);
  Value right = value(*e.comparators.front());
  if (left.isError() || right.isError()) return errorValue();
  bool leftNone = left.type()->kind == types::TypeKind::None;
  bool rightNone = right.type()->kind == types::TypeKind::None;
  if (!leftNone && !rightNone) {
    sink.error(diag::UnsupportedExpression, e.loc, {"'is' between two values that are not None", "; compare numbers with == or !="});
    return errorValue();
  }
  for (const Value* side : {&left, &right}) {
    TypedExprKind kind = side->expr->kind;
    if (kind != TypedExprKind::Literal && kind != TypedExprKind::Local && kind != TypedExprKind::TupleGet) {
      sink.error(diag::UnsupportedExpression, e.loc, {"'is None' of a computed value", "; assign it to a variable first"});
      return errorValue();
    }
  }
  ConstValue answer;
  answer.kind = ConstValue::Kind::Bool;
  answer.boolValue = (leftNone && rightNone) != negated;
  return typedLiteral(answer, types::ScalarKind::Bool, e.loc);
}

}  // namespace weft::sema
