// Calls and attributes: user functions (specialized per argument types), number-type
// casts, Python builtins, the math module and weft's intrinsics.
#include <cmath>
#include <limits>

#include "sema/checker.h"
#include "support/check.h"

namespace weft::sema {

namespace {

Builtin dimBuiltin(Intrinsic which, int component) {
  static constexpr Builtin table[4][3] = {
      {Builtin::ThreadIdxX, Builtin::ThreadIdxY, Builtin::ThreadIdxZ},
      {Builtin::BlockIdxX, Builtin::BlockIdxY, Builtin::BlockIdxZ},
      {Builtin::BlockDimX, Builtin::BlockDimY, Builtin::BlockDimZ},
      {Builtin::GridDimX, Builtin::GridDimY, Builtin::GridDimZ},
  };
  int row = which == Intrinsic::ThreadIdx ? 0 : which == Intrinsic::BlockIdx ? 1 : which == Intrinsic::BlockDim ? 2 : 3;
  return table[row][component];
}

std::string plural(size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

}  // namespace

Value FunctionChecker::threadIndex(Intrinsic which, SourceLoc loc) {
  std::vector<TypedExpr*> components;
  const types::Type* u32 = types.scalar(types::ScalarKind::UInt32);
  for (int i = 0; i < 3; ++i) {
    TypedExpr* e = make(TypedExprKind::BuiltinCall, u32, loc);
    e->builtin = dimBuiltin(which, i);
    components.push_back(e);
  }
  // Dim3 is a subclass of uint32x3 (SIMT.md).
  return runtime(make(TypedExprKind::VectorMake, types.vector(types::ScalarKind::UInt32, 3), loc, components));
}

Value FunctionChecker::attribute(const syntax::AttributeExpr& e) {
  Value base = expr(*e.value);
  if (base.isError()) return base;
  switch (base.kind) {
    case Value::Kind::Module: {
      Value entity = resolveEntity(base.name + "." + e.attr);
      if (entity.kind == Value::Kind::Error && base.name == "numpy") {
        sink.error(diag::NumpyUnsupported, e.loc, {e.attr, numpyInstead(e.attr)});
        return errorValue();
      }
      if (entity.kind == Value::Kind::Error) {
        sink.error(diag::UnknownAttribute, e.loc, {"module '" + (base.name == "weft" ? std::string("device") : base.name) + "'", e.attr});
        return errorValue();
      }
      if (entity.kind == Value::Kind::Constant) return constantValue(*entity.constant, e.loc);
      return entity;
    }
    case Value::Kind::Intrinsic:
      if (base.intrinsic == Intrinsic::ThreadIdx || base.intrinsic == Intrinsic::BlockIdx ||
          base.intrinsic == Intrinsic::BlockDim || base.intrinsic == Intrinsic::GridDim) {
        if (simtInTileCode(base, e.loc)) return errorValue();
        int component = e.attr == "x" ? 0 : e.attr == "y" ? 1 : e.attr == "z" ? 2 : -1;
        if (component < 0) break;
        TypedExpr* call = make(TypedExprKind::BuiltinCall, types.scalar(types::ScalarKind::UInt32), e.loc);
        call->builtin = dimBuiltin(base.intrinsic, component);
        if (base.scalar == types::ScalarKind::Int32) {  // the classic front's int32 components
          Value signedComponent = cast(runtime(call, true), types::ScalarKind::Int32, e.loc);
          signedComponent.nonNegative = true;
          return signedComponent;
        }
        return runtime(call, true);
      }
      break;
    case Value::Kind::RunTime:
      if (base.type()->isArray()) return arrayAttribute(base, e.attr, e.loc);
      if (base.type()->kind == types::TypeKind::AtomicRef) return atomicMember(base, e.attr, e.loc);
      if (base.type()->isStruct()) return structAttribute(base, e.attr, e.loc);
      if (base.type()->isVector()) return vectorAttribute(base, e.attr, e.loc);
      if (base.type()->isInlineArray()) return inlineArrayAttribute(base, e.attr, e.loc);
      if (base.type()->isScalar()) return numberAttribute(base, e.attr, e.loc);
      if (base.type()->isTile() || base.type()->kind == types::TypeKind::TileView)
        return tileAttribute(base, e.attr, e.loc);
      break;
    case Value::Kind::Error:
    case Value::Kind::Constant:
    case Value::Kind::Function:
    case Value::Kind::NumberType:
    case Value::Kind::StructType:
    case Value::Kind::Method:
    case Value::Kind::PyBuiltin:
    case Value::Kind::StaticTuple: break;
  }
  sink.error(diag::UnknownAttribute, e.loc, {describe(base), e.attr});
  return errorValue();
}

bool FunctionChecker::requireArgs(const std::string& what, const syntax::CallExpr& e, size_t min, size_t max) {
  if (!e.keywords.empty()) {
    sink.error(diag::KeywordArgument, e.keywords.front()->loc, {what, e.keywords.front()->arg});
    return false;
  }
  if (e.args.size() < min || e.args.size() > max) {
    std::string expected = min == max ? plural(min, "argument") : std::to_string(min) + " to " + plural(max, "argument");
    sink.error(diag::ArgumentCount, e.loc, {what, expected, std::to_string(e.args.size())});
    return false;
  }
  for (const syntax::Expr* arg : e.args) {
    if (arg->kind == syntax::ExprKind::Starred) {
      sink.error(diag::UnsupportedExpression, arg->loc, {"a starred argument (*args)", "; pass each argument"});
      return false;
    }
  }
  return true;
}

Value FunctionChecker::call(const syntax::CallExpr& e) {
  if (std::optional<Value> method = numberMethod(e)) return *method;
  if (std::optional<Value> count = bitCount(e)) return *count;
  Value callee = expr(*e.func);
  if (callee.isError()) {
    for (const syntax::Expr* arg : e.args) expr(*arg);
    return errorValue();
  }
  switch (callee.kind) {
    case Value::Kind::Function: return userCall(callee, e);
    case Value::Kind::NumberType: {
      if (callee.vectorSize > 0) return vectorConstruct(callee, e);
      if (!requireArgs(callee.name + "()", e, 0, types::isComplex(callee.scalar) ? 2 : 1)) return errorValue();
      std::vector<Value> args;
      for (const syntax::Expr* arg : e.args) args.push_back(value(*arg));
      return numberCast(callee, e, std::move(args));
    }
    case Value::Kind::Intrinsic: return intrinsicCall(callee, e);
    case Value::Kind::StructType: return structConstruct(callee, e);
    case Value::Kind::PyBuiltin: return pyBuiltinCall(callee, e);
    case Value::Kind::Method:
      return callee.expr->type->isArray() ? arrayMethodCall(callee, e) : methodCall(callee, e);
    case Value::Kind::Error:
    case Value::Kind::RunTime:
    case Value::Kind::Constant:
    case Value::Kind::Module:
    case Value::Kind::StaticTuple: break;
  }
  sink.error(diag::NotCallable, e.loc, {describe(callee)});
  return errorValue();
}

Value FunctionChecker::numberCast(const Value& callee, const syntax::CallExpr& e, std::vector<Value> args) {
  if (args.size() == 2) {
    // complex(re, im): both parts real numbers, each converted to the result's real type.
    types::ScalarKind real = callee.scalar == types::ScalarKind::Complex64 ? types::ScalarKind::Float32
                                                                           : types::ScalarKind::Float64;
    std::vector<TypedExpr*> parts;
    for (size_t i = 0; i < 2; ++i) {
      if (args[i].isError()) return errorValue();
      if (args[i].kind != Value::Kind::RunTime || !args[i].type()->isScalar() || types::isComplex(args[i].type()->scalar)) {
        sink.error(diag::ArgumentType, e.args[i]->loc, {std::to_string(i + 1), callee.name + "()", "a real number", describe(args[i])});
        return errorValue();
      }
      Value part = cast(args[i], real, e.args[i]->loc);
      if (part.isError()) return errorValue();
      parts.push_back(part.expr);
    }
    TypedExpr* make = this->make(TypedExprKind::BuiltinCall, types.scalar(callee.scalar), e.loc, parts);
    make->builtin = Builtin::MakeComplex;
    return runtime(make);
  }
  Value number;
  if (args.empty()) {
    ConstValue zero;
    zero.kind = ConstValue::Kind::Int;
    number = typedLiteral(zero, callee.scalar, e.loc);
  } else {
    number = cast(args[0], callee.scalar, e.loc);
  }
  if (!callee.warpMask || number.isError()) return number;
  // device.WarpMask(x): the uint32 typed as a mask (the same bits), so that mask[i] works.
  return runtime(make(TypedExprKind::Cast, types.warpMask(), e.loc, {number.expr}));
}

Value FunctionChecker::userCall(const Value& callee, const syntax::CallExpr& e, const Value* self) {
  const FunctionSource& source = *callee.function;
  std::string what = "function '" + source.name + "'";
  if (source.decorator == FunctionSource::Decorator::Kernel) {
    sink.error(diag::KernelCall, e.loc, {source.name});
    return errorValue();
  }
  if (!e.keywords.empty()) {
    sink.error(diag::KeywordArgument, e.keywords.front()->loc, {what, e.keywords.front()->arg});
    return errorValue();
  }
  std::vector<Value> args;
  bool failed = false;
  if (self != nullptr) args.push_back(*self);
  for (const syntax::Expr* arg : e.args) {
    if (arg->kind == syntax::ExprKind::Starred) {
      sink.error(diag::UnsupportedExpression, arg->loc, {"a starred argument (*args)", "; pass each argument"});
      return errorValue();
    }
    // A function, builtin or type passed along is a static argument (python_builtins.cpp).
    Value v = expr(*arg);
    if (!isStaticArgument(v)) v = toRunTime(v, arg->loc);
    if (v.isError()) failed = true;
    args.push_back(v);
  }
  if (failed) return errorValue();
  return userCallWith(callee, std::move(args), e.loc);
}

void appendCaptures(const Value& function, std::vector<Value>& out) {
  if (function.kind == Value::Kind::StaticTuple) {
    for (const Value& element : function.elements) appendCaptures(element, out);
    return;
  }
  if (function.kind != Value::Kind::Function) return;
  for (const Value& captured : function.captures) {
    out.push_back(captured);
    appendCaptures(captured, out);
  }
}

Value FunctionChecker::userCallWith(const Value& callee, std::vector<Value> args, SourceLoc loc) {
  const FunctionSource& source = *callee.function;
  // Hidden trailing arguments: the captured locals of each lambda passed, then the callee's own
  // (ProgramChecker::specialize counts them; FunctionChecker::run binds them).
  std::vector<Value> hidden;
  for (const Value& v : args) appendCaptures(v, hidden);
  appendCaptures(callee, hidden);
  args.insert(args.end(), hidden.begin(), hidden.end());
  std::vector<ArgumentInfo> infos;
  std::vector<std::shared_ptr<const Value>> statics;
  for (const Value& v : args) {
    ArgumentInfo info;
    bool isStatic = isStaticArgument(v);
    statics.push_back(isStatic ? std::make_shared<const Value>(v) : nullptr);
    if (!isStatic) {
      info.type = v.type();
      info.constant = v.constant;
    }
    infos.push_back(info);
  }
  int index = program.specialize(callee.function, infos, sink, loc, statics);
  if (index < 0) return errorValue();
  if (finalPass) spec().calls.emplace_back(index, loc);
  Specialization& target = program.specialization(index);
  const types::Type* returnType = target.declaredReturn;
  if (returnType == nullptr) {
    if (index == specIndex && target.facts.returnType == nullptr) {
      returnType = sawValueReturn_ ? returnJoin_.result(types) : nullptr;
    } else if (target.state == Specialization::State::Done) {
      returnType = target.function.returnType;
    } else {
      returnType = target.facts.returnType != nullptr ? target.facts.returnType : target.runningReturn;
      if (returnType != nullptr && index != specIndex && finalPass) {
        target.recursiveReads.push_back({returnType, loc, specIndex});
      }
    }
  }
  if (returnType == nullptr) {
    if (finalPass) sink.error(diag::RecursiveReturnType, loc, {source.name});
    return errorValue();
  }
  if (returnType->isError()) ++poisonedReads_;  // the callee reported why
  std::vector<TypedExpr*> operands;
  for (size_t i = 0; i < args.size(); ++i) {
    if (target.constParams[i]) continue;
    Value converted = convert(args[i], target.arguments[i].type, loc);
    if (converted.isError()) return errorValue();
    operands.push_back(converted.expr);
  }
  TypedExpr* call = make(TypedExprKind::Call, returnType, loc, operands);
  call->callee = index;
  return runtime(call);
}

Value FunctionChecker::minMax(Builtin lowering, const syntax::CallExpr& e, std::vector<Value> args) {
  bool isMax = lowering == Builtin::Max || lowering == Builtin::NanMaximum || lowering == Builtin::Fmax;
  const char* what = isMax ? "max()" : "min()";
  for (const Value& v : args) {
    if (v.isError()) return errorValue();
  }
  std::optional<types::ScalarKind> common;
  std::optional<types::ScalarKind> weakKind;
  bool allWeak = true;
  for (size_t i = 0; i < args.size(); ++i) {
    const Value& v = args[i];
    if (!v.type()->isScalar() || types::isComplex(v.type()->scalar)) {
      sink.error(diag::ArgumentType, e.args[i]->loc, {std::to_string(i + 1), what, "a real number", describe(v)});
      return errorValue();
    }
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
    size_t best = 0;
    // numpy.minimum and maximum propagate a NaN; fmin and fmax take the other operand.
    auto isNan = [](const ConstValue& c) { return c.kind == ConstValue::Kind::Float && std::isnan(c.floatValue); };
    for (size_t i = 0; i < args.size(); ++i) {
      if (!isNan(*args[i].constant)) continue;
      bool propagates = lowering == Builtin::NanMinimum || lowering == Builtin::NanMaximum;
      if (propagates || (lowering != Builtin::Min && lowering != Builtin::Max && !isNan(*args[1 - i].constant)))
        return weakLiteral(*args[propagates ? i : 1 - i].constant, e.loc);
    }
    for (size_t i = 1; i < args.size(); ++i) {
      Folded better = foldCompare(isMax ? CompareOp::Gt : CompareOp::Lt, *args[i].constant, *args[best].constant);
      if (better.value.boolValue) best = i;
    }
    return weakLiteral(*args[best].constant, e.loc);
  }
  types::ScalarKind kind = weakKind ? combineWeak(*common, *weakKind) : *common;
  Value result;
  bool anyNonNegative = false;
  bool allNonNegative = true;
  for (size_t i = 0; i < args.size(); ++i) {
    Value converted = promoteTo(args[i], kind, e.loc);
    if (converted.isError()) return errorValue();
    anyNonNegative = anyNonNegative || args[i].nonNegative;
    allNonNegative = allNonNegative && args[i].nonNegative;
    if (i == 0) {
      result = converted;
      continue;
    }
    TypedExpr* call = make(TypedExprKind::BuiltinCall, types.scalar(kind), e.loc, {result.expr, converted.expr});
    call->builtin = lowering;
    result = runtime(call);
  }
  result.nonNegative = isMax ? anyNonNegative : allNonNegative;
  return result;
}

Value FunctionChecker::mathCall(const Value& callee, const syntax::CallExpr& e, std::vector<Value> args) {
  const BuiltinInfo& function = builtinInfo(callee.math);
  bool predicate = function.has(builtin_property::Predicate);
  std::optional<types::ScalarKind> common;
  for (size_t i = 0; i < args.size(); ++i) {
    const Value& v = args[i];
    if (v.isError()) return errorValue();
    if (!v.type()->isScalar() || types::isComplex(v.type()->scalar)) {
      sink.error(diag::ArgumentType, e.args[i]->loc, {std::to_string(i + 1), callee.name + "()", "a real number", describe(v)});
      return errorValue();
    }
  }
  if (callee.math == Builtin::Ldexp && (args[1].constant ? args[1].constant->kind != ConstValue::Kind::Int
                                                         : !types::isInteger(args[1].type()->scalar))) {
    sink.error(diag::ArgumentType, e.args[1]->loc, {"2", callee.name + "()", "an integer", describe(args[1])});
    return errorValue();
  }
  // Math computes in floating point: float32 and float64 keep their type; integers take
  // float32, or float64 when 64-bit (the rule of `/`); weak literals adapt to the other
  // argument, and alone are builtin floats (float32), or float64 when one is beyond float32's
  // range (as a float constant alone is: math.isinf(1e300) is False, as in CPython).
  bool fitFloat32 = true;
  for (const Value& v : args) {
    if (v.weak) {
      fitFloat32 = fitFloat32 && fitsScalar(*v.constant, types::ScalarKind::Float32, false);
      continue;
    }
    types::ScalarKind kind = types::floatingFor(v.type()->scalar);
    common = common ? *types::promote(*common, kind) : kind;
  }
  types::ScalarKind kind = common ? *common : fitFloat32 ? types::ScalarKind::Float32 : types::ScalarKind::Float64;
  // An integer or a bool is a finite number (and converts to a finite float): isfinite is
  // True, isnan and isinf are False, known at compile time as CPython's answers are.
  if (predicate && function.arity == 1 && common && !types::isFloating(args[0].type()->scalar)) {
    ConstValue answer;
    answer.kind = ConstValue::Kind::Bool;
    answer.boolValue = callee.math == Builtin::IsFinite;
    return typedLiteral(answer, types::ScalarKind::Bool, e.loc);
  }
  std::vector<TypedExpr*> operands;
  for (const Value& v : args) {
    Value converted = promoteTo(v, kind, e.loc);
    if (converted.isError()) return errorValue();
    operands.push_back(converted.expr);
  }
  const types::Type* resultType = types.scalar(predicate ? types::ScalarKind::Bool : kind);
  TypedExpr* call = make(TypedExprKind::BuiltinCall, resultType, e.loc, operands);
  call->builtin = callee.math;
  return runtime(call, function.has(builtin_property::NonNegative));
}

Value FunctionChecker::isClose(const Value& callee, const syntax::CallExpr& e) {
  std::string what = callee.name + "()";
  if (e.args.size() != 2) {
    sink.error(diag::ArgumentCount, e.loc, {what, "2 positional arguments", std::to_string(e.args.size())});
    return errorValue();
  }
  std::vector<Value> args;
  for (const syntax::Expr* arg : e.args) args.push_back(value(*arg));
  // CPython's defaults: rel_tol=1e-09, abs_tol=0.0.
  ConstValue tolerance;
  tolerance.kind = ConstValue::Kind::Float;
  tolerance.floatValue = 1e-9;
  args.push_back(weakLiteral(tolerance, e.loc));
  tolerance.floatValue = 0.0;
  args.push_back(weakLiteral(tolerance, e.loc));
  // The call as mathCall sees it: four arguments, a default's location the call's first.
  syntax::CallExpr positional = e;
  positional.args = {e.args[0], e.args[1], e.args[0], e.args[0]};
  for (const syntax::Keyword* keyword : e.keywords) {
    size_t slot = keyword->arg == "rel_tol" ? 2 : keyword->arg == "abs_tol" ? 3 : 0;
    if (slot == 0) {
      sink.error(diag::KeywordArgument, keyword->value->loc, {what, keyword->arg});
      return errorValue();
    }
    args[slot] = value(*keyword->value);
    positional.args[slot] = keyword->value;
  }
  return mathCall(callee, positional, std::move(args));
}

Value FunctionChecker::intrinsicCall(const Value& callee, const syntax::CallExpr& e) {
  std::string what = callee.name + (callee.name.ends_with("()") ? "" : "()");
  auto constantInt = [&](const Value& v, const char* role) -> std::optional<int64_t> {
    if (v.isError()) return std::nullopt;
    if (!v.constant || v.constant->kind != ConstValue::Kind::Int) {
      sink.error(diag::NotConstant, e.loc, {std::string("the ") + role + " of " + what});
      return std::nullopt;
    }
    return int64Value(*v.constant).value_or(std::numeric_limits<int64_t>::max());
  };
  if (simtInTileCode(callee, e.loc)) return errorValue();
  switch (callee.intrinsic) {
    case Intrinsic::Abs: {
      if (!requireArgs(what, e, 1, 1)) return errorValue();
      Value v = value(*e.args[0]);
      if (v.isError()) return v;
      if (!v.type()->isScalar()) {
        sink.error(diag::ArgumentType, e.args[0]->loc, {"1", what, "a number", describe(v)});
        return errorValue();
      }
      if (v.weak) {
        const ConstValue& c = *v.constant;
        if (c.kind == ConstValue::Kind::Complex) {
          ConstValue r;
          r.kind = ConstValue::Kind::Float;
          r.floatValue = std::hypot(c.floatValue, c.imagValue);
          return weakLiteral(r, e.loc);
        }
        bool negative = c.kind == ConstValue::Kind::Float
                            ? c.floatValue < 0
                            : (c.kind == ConstValue::Kind::Int && !c.aboveInt64 && c.intValue < 0);
        return negative ? weakLiteral(foldUnary(UnaryOp::Neg, c).value, e.loc) : weakLiteral(foldUnary(UnaryOp::Pos, c).value, e.loc);
      }
      if (types::isBool(v.type()->scalar)) v = promoteTo(v, types::ScalarKind::Int32, e.loc);
      types::ScalarKind resultKind = types::realPartOf(v.type()->scalar);
      TypedExpr* call = make(TypedExprKind::BuiltinCall, types.scalar(resultKind), e.loc, {v.expr});
      call->builtin = Builtin::Abs;
      // abs() of a signed integer's minimum wraps to itself (negative).
      return runtime(call, !types::isSigned(resultKind));
    }
    case Intrinsic::Min:
    case Intrinsic::Max: {
      // numpy.minimum and its kind (resolveNumpyEntity) name their lowering in `math`; they take
      // two operands (a third would be NumPy's `out`).
      bool numpy = callee.math == Builtin::NanMinimum || callee.math == Builtin::NanMaximum ||
                   callee.math == Builtin::Fmin || callee.math == Builtin::Fmax;
      if (!requireArgs(what, e, 2, numpy ? 2 : 64)) return errorValue();
      std::vector<Value> args;
      for (const syntax::Expr* arg : e.args) args.push_back(value(*arg));
      Builtin lowering = numpy ? callee.math : callee.intrinsic == Intrinsic::Max ? Builtin::Max : Builtin::Min;
      return minMax(lowering, e, std::move(args));
    }
    case Intrinsic::Len: {
      if (!requireArgs(what, e, 1, 1)) return errorValue();
      Value raw = expr(*e.args[0]);
      if (raw.kind == Value::Kind::StaticTuple) return weakLiteral(intConstant(static_cast<int64_t>(raw.elements.size())), e.loc);
      Value v = toRunTime(raw, e.args[0]->loc);
      if (v.isError()) return v;
      if (v.type()->isArray()) {
        TypedExpr* shape = make(TypedExprKind::ArrayShape, types.scalar(types::ScalarKind::Int64), e.loc, {v.expr});
        shape->index = 0;
        return runtime(shape, true);
      }
      if (v.type()->kind == types::TypeKind::Tuple || v.type()->isInlineArray()) {
        ConstValue n;
        n.kind = ConstValue::Kind::Int;
        n.intValue =
            v.type()->isInlineArray() ? v.type()->shape[0] : static_cast<int64_t>(v.type()->elements.size());
        return weakLiteral(n, e.loc);
      }
      if (v.type()->isVector()) return vectorAttribute(v, "size", e.loc);
      sink.error(diag::ArgumentType, e.args[0]->loc, {"1", what, "an array or a tuple", describe(v)});
      return errorValue();
    }
    case Intrinsic::Range:
    case Intrinsic::Enumerate:
      sink.error(diag::ForIterable, e.loc, {": " + what + " can only be the iterable of a for loop"});
      return errorValue();
    case Intrinsic::Tid:
    case Intrinsic::GridSize: {
      if (!requireArgs(what, e, 1, 1)) return errorValue();
      auto n = constantInt(value(*e.args[0]), "argument");
      if (!n) return errorValue();
      if (*n < 1 || *n > 3) {
        sink.error(diag::ArgumentType, e.args[0]->loc, {"1", what, "1, 2 or 3", std::to_string(*n)});
        return errorValue();
      }
      bool isTid = callee.intrinsic == Intrinsic::Tid;
      static constexpr Builtin tid[3] = {Builtin::TidX, Builtin::TidY, Builtin::TidZ};
      static constexpr Builtin size[3] = {Builtin::GridSizeX, Builtin::GridSizeY, Builtin::GridSizeZ};
      const types::Type* i32 = types.scalar(types::ScalarKind::Int32);
      std::vector<TypedExpr*> components;
      for (int64_t i = 0; i < *n; ++i) {
        TypedExpr* c = make(TypedExprKind::BuiltinCall, i32, e.loc);
        c->builtin = isTid ? tid[i] : size[i];
        components.push_back(c);
      }
      if (*n == 1) return runtime(components[0], true);
      std::vector<const types::Type*> elementTypes(components.size(), i32);
      return runtime(make(TypedExprKind::TupleMake, types.tuple(elementTypes), e.loc, components));
    }
    case Intrinsic::Syncthreads: {
      if (!requireArgs(what, e, 0, 0)) return errorValue();
      TypedExpr* call = make(TypedExprKind::BuiltinCall, types.none(), e.loc);
      call->builtin = Builtin::Syncthreads;
      return runtime(call);
    }
    case Intrinsic::SharedArray:
    case Intrinsic::LocalArray:
      if (std::optional<Value> dynamic = classicDynamicShared(callee, e)) return *dynamic;
      sink.error(diag::ArrayDeclaration, e.loc, {callee.name});
      return errorValue();
    case Intrinsic::TileFunction: return tileFunctionCall(callee, e);
    case Intrinsic::Math: {
      if (callee.math == Builtin::IsClose) return isClose(callee, e);
      size_t arity = static_cast<size_t>(builtinInfo(callee.math).arity);
      if (!requireArgs(what, e, arity, arity)) return errorValue();
      std::vector<Value> args;
      for (const syntax::Expr* arg : e.args) args.push_back(value(*arg));
      return mathCall(callee, e, std::move(args));
    }
    case Intrinsic::ThreadIdx:
    case Intrinsic::BlockIdx:
    case Intrinsic::BlockDim:
    case Intrinsic::GridDim:
    case Intrinsic::WarpSize:
    case Intrinsic::LaneId:
    case Intrinsic::ConstExpr: break;
    case Intrinsic::Target:
    case Intrinsic::IsExactly:
    case Intrinsic::Provides: return targetSelectorCall(*this, callee, e);
    case Intrinsic::TargetDescription:
    case Intrinsic::SMSelector: break;
    case Intrinsic::ConstArrayLike: return classicConstArrayLike(*this, callee, e);
    case Intrinsic::ClassicAtomic: return classicAtomicCall(*this, callee, e);
    case Intrinsic::ClassicFp16: return classicFp16Call(*this, callee, e);
    case Intrinsic::Print:
    case Intrinsic::DynamicSharedArray:
    case Intrinsic::SyncthreadsCount:
    case Intrinsic::SyncthreadsAnd:
    case Intrinsic::SyncthreadsOr:
    case Intrinsic::ActiveMask:
    case Intrinsic::LanemaskLt:
    case Intrinsic::Syncwarp:
    case Intrinsic::AllSync:
    case Intrinsic::AnySync:
    case Intrinsic::EqSync:
    case Intrinsic::BallotSync:
    case Intrinsic::ShflSync:
    case Intrinsic::ShflUpSync:
    case Intrinsic::ShflDownSync:
    case Intrinsic::ShflXorSync:
    case Intrinsic::MatchAnySync:
    case Intrinsic::MatchAllSync:
    case Intrinsic::Threadfence:
    case Intrinsic::Atomic:
    case Intrinsic::AtomicRef:
    case Intrinsic::AtomicMethod:
    case Intrinsic::Popc:
    case Intrinsic::Brev:
    case Intrinsic::Clz:
    case Intrinsic::Ffs:
    case Intrinsic::Cbrt:
    case Intrinsic::Fma: return simtCall(callee, e);
  }
  sink.error(diag::NotCallable, e.loc, {callee.name});
  return errorValue();
}

}  // namespace weft::sema
