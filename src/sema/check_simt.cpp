// SIMT intrinsics (shared/spec/SIMT.md): block votes with predicate callables, warp masks
// (WarpMask values and their lanes, mask[i] and mask[i] = b), votes, shuffles and matches, atomics
// (AtomicRef, Atomic arrays, memory orders and thread scopes checked here), threadfence, the numeric
// intrinsics, dynamic shared memory, the order=/align= options of shared and local arrays, and print().
#include <array>
#include <string_view>

#include "sema/checker.h"
#include "support/check.h"

namespace weft::sema {

namespace {

using types::ScalarKind;

// Indexed by atomics.h's MemoryOrder and ThreadScope.
constexpr std::array<std::string_view, 6> kOrders = {"relaxed", "consume", "acquire",
                                                     "release", "acq_rel", "seq_cst"};
constexpr std::array<std::string_view, 4> kScopes = {"thread", "block", "device", "system"};
constexpr int kSeqCst = 5;
constexpr int kSystemScope = 3;

enum class AtomicDtypes : uint8_t { Any, Arithmetic, Integer, Unsigned };

struct AtomicMethodEntry {
  std::string_view name;
  Builtin builtin;
  size_t values;  // value operands before memory= and scope=
  AtomicDtypes dtypes;
  bool hasScope;  // wait and notify take memory= only (wait) or nothing (notify)
  bool classicOnly = false;  // numba's cuda.atomic functions only, not a method of AtomicRef
};

constexpr AtomicMethodEntry kAtomicMethods[] = {
    {"load", Builtin::AtomicLoad, 0, AtomicDtypes::Any, true},
    {"store", Builtin::AtomicStore, 1, AtomicDtypes::Any, true},
    {"exch", Builtin::AtomicExch, 1, AtomicDtypes::Any, true},
    {"cas", Builtin::AtomicCas, 2, AtomicDtypes::Any, true},
    {"add", Builtin::AtomicAdd, 1, AtomicDtypes::Arithmetic, true},
    {"sub", Builtin::AtomicSub, 1, AtomicDtypes::Arithmetic, true},
    {"max", Builtin::AtomicMax, 1, AtomicDtypes::Arithmetic, true},
    {"nanmax", Builtin::AtomicNanmax, 1, AtomicDtypes::Arithmetic, true},
    {"min", Builtin::AtomicMin, 1, AtomicDtypes::Arithmetic, true},
    {"nanmin", Builtin::AtomicNanmin, 1, AtomicDtypes::Arithmetic, true},
    {"and_", Builtin::AtomicAnd, 1, AtomicDtypes::Integer, true},
    {"or_", Builtin::AtomicOr, 1, AtomicDtypes::Integer, true},
    {"xor", Builtin::AtomicXor, 1, AtomicDtypes::Integer, true},
    {"inc", Builtin::AtomicInc, 1, AtomicDtypes::Unsigned, true, true},
    {"dec", Builtin::AtomicDec, 1, AtomicDtypes::Unsigned, true, true},
    {"wait", Builtin::AtomicWait, 1, AtomicDtypes::Any, false},
    {"notify_all", Builtin::AtomicNotify, 0, AtomicDtypes::Any, false},
    {"notify_one", Builtin::AtomicNotify, 0, AtomicDtypes::Any, false},
};

const AtomicMethodEntry* findAtomicMethod(std::string_view name) {
  for (const AtomicMethodEntry& entry : kAtomicMethods) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

bool isWord(ScalarKind kind) {
  return kind == ScalarKind::Int32 || kind == ScalarKind::UInt32 || kind == ScalarKind::Int64 ||
         kind == ScalarKind::UInt64;
}
bool isArithmeticAtomic(ScalarKind kind) {
  return isWord(kind) || kind == ScalarKind::Float32 || kind == ScalarKind::Float64;
}

// printf text: '%' doubled when the format has conversions.
std::string formatText(std::string_view text, bool escapePercent) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '%' && escapePercent) out += '%';
  }
  return out;
}

}  // namespace

Value FunctionChecker::predicate(const syntax::Expr& arg, const std::string& what, size_t position) {
  std::string index = std::to_string(position);
  if (arg.kind == syntax::ExprKind::Lambda) {
    const auto& lambda = syntax::as<syntax::LambdaExpr>(arg);
    const syntax::Arguments& params = *lambda.args;
    if (!params.posonlyargs.empty() || !params.args.empty() || params.vararg != nullptr ||
        !params.kwonlyargs.empty() || params.kwarg != nullptr) {
      sink.error(diag::PredicateExpected, arg.loc, {index, what, "a lambda with parameters"});
      return errorValue();
    }
    // The lambda's body is evaluated in place, so it reads the caller's variables.
    return truth(value(*lambda.body), lambda.body->loc);
  }
  Value callee = expr(arg);
  if (callee.isError()) return errorValue();
  // The classic front (cuda.syncthreads_count, numba-cuda's spelling) also takes the predicate's
  // value itself, as numba does: cuda.syncthreads_count(a[i] > 0). weft's dialect keeps the
  // specification's callables.
  if (what.starts_with("cuda.") && callee.kind == Value::Kind::RunTime && callee.type()->isScalar())
    return truth(callee, arg.loc);
  if (callee.kind == Value::Kind::Function) {
    syntax::CallExpr call;
    call.loc = arg.loc;
    call.func = const_cast<syntax::Expr*>(&arg);
    Value result = userCall(callee, call);
    if (result.isError()) return result;
    return truth(result, arg.loc);
  }
  sink.error(diag::PredicateExpected, arg.loc, {index, what, describe(callee)});
  return errorValue();
}

const types::Type* FunctionChecker::atomicDtype(const syntax::Expr& e, bool& isAtomic) {
  isAtomic = false;
  if (e.kind != syntax::ExprKind::Call) return nullptr;
  const auto& call = syntax::as<syntax::CallExpr>(e);
  Value callee = peekEntity(*call.func);
  if (callee.kind != Value::Kind::Intrinsic || callee.intrinsic != Intrinsic::Atomic) return nullptr;
  isAtomic = true;
  std::string what = callee.name + "()";
  int align = 0;
  for (const syntax::Keyword* keyword : call.keywords) {
    if (keyword->arg != "align") {
      sink.error(diag::KeywordArgument, keyword->loc, {what, keyword->arg});
      return nullptr;
    }
    Value v = expr(*keyword->value);
    if (v.isError()) return nullptr;
    int64_t n =
        v.constant && v.constant->kind == ConstValue::Kind::Int ? int64Value(*v.constant).value_or(-1) : -1;
    if (n < 1 || n > 256 || (n & (n - 1)) != 0) {
      sink.error(diag::ArrayOption, keyword->value->loc,
                 {"align=", what, "a constant power of two from 1 to 256",
                  v.constant ? toString(*v.constant) : describe(v)});
      return nullptr;
    }
    align = static_cast<int>(n);
  }
  if (call.args.size() != 1) {
    sink.error(diag::ArgumentCount, call.loc, {what, "1 argument (dtype)", std::to_string(call.args.size())});
    return nullptr;
  }
  Value dtype = expr(*call.args[0]);
  if (dtype.isError()) return nullptr;
  if (dtype.kind != Value::Kind::NumberType || types::byteSize(dtype.scalar) > 8) {
    sink.error(diag::AtomicDtype, call.args[0]->loc,
               {what, "a number type of at most 8 bytes", describe(dtype)});
    return nullptr;
  }
  return types.atomic(dtype.scalar, align);
}

bool FunctionChecker::arrayLayoutOption(const syntax::Keyword& keyword, const std::string& what,
                                        bool& fortranOrder, int& align) {
  Value v = expr(*keyword.value);
  if (v.isError()) return false;
  std::string shown = v.constant ? toString(*v.constant) : describe(v);
  if (keyword.arg == "order") {
    bool ok = v.constant && v.constant->kind == ConstValue::Kind::Str &&
              (v.constant->strValue == "C" || v.constant->strValue == "F");
    if (!ok) {
      sink.error(diag::ArrayOption, keyword.value->loc, {"order=", what, "'C' or 'F'", shown});
      return false;
    }
    fortranOrder = v.constant->strValue == "F";
    return true;
  }
  WEFT_CHECK(keyword.arg == "align", "an array option other than order= and align=");
  int64_t n =
      v.constant && v.constant->kind == ConstValue::Kind::Int ? int64Value(*v.constant).value_or(-1) : -1;
  if (n < 1 || n > 256 || (n & (n - 1)) != 0) {
    sink.error(diag::ArrayOption, keyword.value->loc,
               {"align=", what, "a constant power of two from 1 to 256", shown});
    return false;
  }
  align = static_cast<int>(n);
  return true;
}

Value FunctionChecker::atomicElement(Value element, SourceLoc loc) {
  if (element.isError()) return element;
  const types::Type* type = element.type();
  ScalarKind dtype = type->scalar;
  TypedExpr* ref = make(TypedExprKind::BuiltinCall, types.atomicRef(dtype), loc, {element.expr});
  ref->builtin = Builtin::AtomicRefOf;
  return runtime(ref);
}

Value FunctionChecker::atomicMember(Value ref, const std::string& attr, SourceLoc loc, bool classic) {
  if (attr == "dtype") {
    Value v;
    v.kind = Value::Kind::NumberType;
    v.scalar = ref.type()->scalar;
    v.name = std::string("device.") + types::pythonName(v.scalar);
    return v;
  }
  const AtomicMethodEntry* entry = findAtomicMethod(attr);
  if (entry == nullptr || (entry->classicOnly && !classic)) {
    sink.error(diag::UnknownAttribute, loc, {types::toString(ref.type()), attr});
    return errorValue();
  }
  Value method;
  method.kind = Value::Kind::Intrinsic;
  method.intrinsic = Intrinsic::AtomicMethod;
  method.expr = ref.expr;
  method.name = "AtomicRef." + attr;
  return method;
}

std::optional<Value> FunctionChecker::classicDynamicShared(const Value& callee, const syntax::CallExpr& e) {
  if (callee.intrinsic != Intrinsic::SharedArray || callee.name != "cuda.shared.array") return std::nullopt;
  const syntax::Expr* shapeExpr = e.args.empty() ? nullptr : e.args[0];
  const syntax::Expr* dtypeExpr = e.args.size() > 1 ? e.args[1] : nullptr;
  for (const syntax::Keyword* keyword : e.keywords) {
    if (keyword->arg == "shape" && shapeExpr == nullptr) shapeExpr = keyword->value;
    else if (keyword->arg == "dtype" && dtypeExpr == nullptr) dtypeExpr = keyword->value;
    else return std::nullopt;  // declareArray reports the keyword
  }
  if (shapeExpr == nullptr || dtypeExpr == nullptr || e.args.size() > 2) return std::nullopt;
  Value shape = expr(*shapeExpr);
  if (!shape.constant || shape.constant->kind != ConstValue::Kind::Int || shape.constant->intValue != 0)
    return std::nullopt;
  const types::Type* element = dtypeArgument(*dtypeExpr, callee.name + "()");
  if (element == nullptr) return errorValue();
  TypedExpr* raw =
      make(TypedExprKind::BuiltinCall, types.array(ScalarKind::UInt8, 1, types::MemorySpace::Shared), e.loc);
  raw->builtin = Builtin::DynamicSharedArray;
  if (element->kind == types::TypeKind::Scalar && element->scalar == ScalarKind::UInt8) return runtime(raw);
  TypedExpr* view = make(TypedExprKind::ArrayView, types.array(element, 1, types::MemorySpace::Shared), e.loc, {raw});
  view->checked = program.debug;
  return runtime(view);
}

Value FunctionChecker::simtCall(const Value& callee, const syntax::CallExpr& e) {
  std::string what = callee.name + (callee.name.ends_with("()") ? "" : "()");
  const types::Type* u32 = types.scalar(ScalarKind::UInt32);
  const types::Type* maskType = types.warpMask();
  const types::Type* i32 = types.scalar(ScalarKind::Int32);
  const types::Type* boolean = types.scalar(ScalarKind::Bool);
  auto builtinCall = [&](Builtin builtin, const types::Type* type, std::vector<TypedExpr*> operands) {
    TypedExpr* call = make(TypedExprKind::BuiltinCall, type, e.loc, std::move(operands));
    call->builtin = builtin;
    return runtime(call, builtinInfo(builtin).has(builtin_property::NonNegative));
  };
  // The builtin this intrinsic lowers to, for those that lower to one (intrinsic_kinds.def).
  auto lowered = [&] {
    std::optional<Builtin> builtin = intrinsicBuiltin(callee.intrinsic);
    WEFT_CHECK(builtin.has_value(), "an intrinsic without its builtin in intrinsic_kinds.def");
    return *builtin;
  };
  // A warp mask argument: an integer, as uint32 (WarpMask).
  auto maskArg = [&](size_t i) -> TypedExpr* {
    Value v = value(*e.args[i]);
    if (v.isError()) return nullptr;
    if (!v.type()->isScalar() || !types::isInteger(v.type()->scalar)) {
      sink.error(diag::ArgumentType, e.args[i]->loc,
                 {std::to_string(i + 1), what, "an integer mask (WarpMask)", describe(v)});
      return nullptr;
    }
    Value converted = convert(v, u32, e.args[i]->loc);
    return converted.isError() ? nullptr : converted.expr;
  };
  // A value moved between lanes: a number of at most 8 bytes.
  auto warpValue = [&](size_t i) -> TypedExpr* {
    Value v = value(*e.args[i]);
    if (v.isError()) return nullptr;
    if (!v.type()->isScalar() || types::byteSize(v.type()->scalar) > 8) {
      sink.error(diag::WarpValueType, e.args[i]->loc, {what, describe(v)});
      return nullptr;
    }
    return v.expr;
  };
  auto intArg = [&](size_t i, const char* role) -> TypedExpr* {
    Value v = value(*e.args[i]);
    if (v.isError()) return nullptr;
    if (!v.type()->isScalar() || !types::isInteger(v.type()->scalar)) {
      sink.error(diag::ArgumentType, e.args[i]->loc, {std::to_string(i + 1), what, role, describe(v)});
      return nullptr;
    }
    Value converted = convert(v, i32, e.args[i]->loc);
    return converted.isError() ? nullptr : converted.expr;
  };
  auto predicateArg = [&](size_t i) -> TypedExpr* {
    Value v = predicate(*e.args[i], what, i + 1);
    return v.isError() ? nullptr : v.expr;
  };

  Intrinsic k = callee.intrinsic;
  if (k == Intrinsic::DynamicSharedArray) {
    if (!requireArgs(what, e, 0, 0)) return errorValue();
    return builtinCall(Builtin::DynamicSharedArray, types.array(ScalarKind::UInt8, 1, types::MemorySpace::Shared), {});
  }
  if (k == Intrinsic::SyncthreadsCount || k == Intrinsic::SyncthreadsAnd || k == Intrinsic::SyncthreadsOr) {
    if (!requireArgs(what, e, 1, 1)) return errorValue();
    TypedExpr* p = predicateArg(0);
    if (p == nullptr) return errorValue();
    return builtinCall(lowered(), callee.intrinsic == Intrinsic::SyncthreadsCount ? i32 : boolean, {p});
  }
  if (k == Intrinsic::ActiveMask || k == Intrinsic::LanemaskLt) {
    if (!requireArgs(what, e, 0, 0)) return errorValue();
    return builtinCall(lowered(), maskType, {});
  }
  if (k == Intrinsic::Syncwarp) {
    if (!requireArgs(what, e, 0, 1)) return errorValue();
    TypedExpr* mask = nullptr;
    if (e.args.empty()) {
      ConstValue all;
      all.kind = ConstValue::Kind::Int;
      all.intValue = 0xffffffffLL;
      mask = typedLiteral(all, ScalarKind::UInt32, e.loc).expr;
    } else {
      mask = maskArg(0);
    }
    if (mask == nullptr) return errorValue();
    return builtinCall(Builtin::Syncwarp, types.none(), {mask});
  }
  if (k == Intrinsic::AllSync || k == Intrinsic::AnySync || k == Intrinsic::EqSync ||
      k == Intrinsic::BallotSync) {
    if (!requireArgs(what, e, 2, 2)) return errorValue();
    TypedExpr* mask = maskArg(0);
    TypedExpr* p = mask != nullptr ? predicateArg(1) : nullptr;
    if (p == nullptr) return errorValue();
    return builtinCall(lowered(), callee.intrinsic == Intrinsic::BallotSync ? maskType : boolean, {mask, p});
  }
  if (k == Intrinsic::ShflSync || k == Intrinsic::ShflUpSync || k == Intrinsic::ShflDownSync ||
      k == Intrinsic::ShflXorSync) {
    if (!requireArgs(what, e, 3, 3)) return errorValue();
    TypedExpr* mask = maskArg(0);
    TypedExpr* v = mask != nullptr ? warpValue(1) : nullptr;
    const char* role = callee.intrinsic == Intrinsic::ShflSync      ? "an integer lane (src_lane)"
                       : callee.intrinsic == Intrinsic::ShflXorSync ? "an integer lane mask (flag)"
                                                                    : "an integer lane count (delta)";
    TypedExpr* operand = v != nullptr ? intArg(2, role) : nullptr;
    if (operand == nullptr) return errorValue();
    return builtinCall(lowered(), v->type, {mask, v, operand});
  }
  if (k == Intrinsic::MatchAnySync || k == Intrinsic::MatchAllSync) {
    if (!requireArgs(what, e, 2, 2)) return errorValue();
    TypedExpr* mask = maskArg(0);
    TypedExpr* v = mask != nullptr ? warpValue(1) : nullptr;
    if (v == nullptr) return errorValue();
    if (callee.intrinsic == Intrinsic::MatchAnySync) return builtinCall(Builtin::MatchAnySync, maskType, {mask, v});
    return builtinCall(Builtin::MatchAllSync, types.tuple({maskType, boolean}), {mask, v});
  }
  if (k == Intrinsic::Popc || k == Intrinsic::Brev || k == Intrinsic::Clz || k == Intrinsic::Ffs) {
    if (!requireArgs(what, e, 1, 1)) return errorValue();
    Value v = value(*e.args[0]);
    if (v.isError()) return v;
    if (!v.type()->isScalar() || !types::isInteger(v.type()->scalar)) {
      sink.error(diag::ArgumentType, e.args[0]->loc, {"1", what, "an integer", describe(v)});
      return errorValue();
    }
    if (callee.intrinsic == Intrinsic::Brev) {
      Value bits = promoteTo(v, v.type()->scalar, e.args[0]->loc);  // a WarpMask reverses as a plain uint32
      return builtinCall(Builtin::Brev, bits.type(), {bits.expr});
    }
    return builtinCall(lowered(), i32, {v.expr});
  }
  if (k == Intrinsic::Cbrt || k == Intrinsic::Fma) {
    Value math;
    math.kind = Value::Kind::Intrinsic;
    math.intrinsic = Intrinsic::Math;
    math.math = lowered();
    math.name = callee.name;
    size_t arity = static_cast<size_t>(builtinInfo(math.math).arity);
    if (!requireArgs(what, e, arity, arity)) return errorValue();
    std::vector<Value> args;
    for (const syntax::Expr* arg : e.args) args.push_back(value(*arg));
    return mathCall(math, e, std::move(args));
  }
  if (k == Intrinsic::Atomic) {
    for (const syntax::Expr* arg : e.args) expr(*arg);
    sink.error(diag::AtomicTypeUse, e.loc, {""});
    return errorValue();
  }
  if (k == Intrinsic::AtomicRef) {
    if (!requireArgs(what, e, 2, 2)) return errorValue();
    Value array = value(*e.args[0]);
    if (array.isError()) return array;
    if (!array.type()->isArray()) {
      sink.error(diag::ArgumentType, e.args[0]->loc, {"1", what, "an array", describe(array)});
      return errorValue();
    }
    if (!writableArray(array, e.args[0]->loc)) return errorValue();
    const types::Type* element = array.type()->element;
    if (element != nullptr && element->kind != types::TypeKind::Atomic) {
      sink.error(diag::AtomicDtype, e.args[0]->loc,
                 {what, "an array of numbers of at most 8 bytes", describe(array)});
      return errorValue();
    }
    if (element == nullptr && types::byteSize(array.type()->scalar) > 8) {
      sink.error(diag::AtomicDtype, e.args[0]->loc,
                 {what, "an array of numbers of at most 8 bytes", describe(array)});
      return errorValue();
    }
    Value place = arrayIndex(array, *e.args[1], e.loc);
    if (place.isError() || element != nullptr)
      return place;  // an Atomic array's element is already a reference
    return atomicElement(place, e.loc);
  }
  if (k == Intrinsic::AtomicMethod) return atomicMethod(callee, e);
  if (k == Intrinsic::Threadfence) {
    const syntax::Expr* memory = e.args.size() > 0 ? e.args[0] : nullptr;
    const syntax::Expr* scopeExpr = e.args.size() > 1 ? e.args[1] : nullptr;
    if (e.args.size() > 2) {
      sink.error(diag::ArgumentCount, e.loc,
                 {what, "at most 2 arguments (memory, scope)", std::to_string(e.args.size())});
      return errorValue();
    }
    for (const syntax::Keyword* keyword : e.keywords) {
      const syntax::Expr*& slot = keyword->arg == "memory" ? memory : scopeExpr;
      if ((keyword->arg != "memory" && keyword->arg != "scope") || slot != nullptr) {
        sink.error(diag::KeywordArgument, keyword->loc, {what, keyword->arg});
        return errorValue();
      }
      slot = keyword->value;
    }
    int order = kSeqCst;
    int scope = kSystemScope;
    if (!memoryOrderAndScope(memory, scopeExpr, order, scope)) return errorValue();
    TypedExpr* call = make(TypedExprKind::BuiltinCall, types.none(), e.loc);
    call->builtin = Builtin::Threadfence;
    call->index = order * 4 + scope;
    return runtime(call);
  }
  if (k == Intrinsic::Print) return printCall(e);
  WEFT_CHECK(false, "simtCall of an intrinsic it does not handle: " + callee.name);
  return errorValue();
}

bool FunctionChecker::memoryOrderAndScope(const syntax::Expr* memory, const syntax::Expr* scope, int& order,
                                          int& threadScope) {
  order = kSeqCst;
  threadScope = kSystemScope;
  auto read = [&](const syntax::Expr* e, auto names, DiagnosticKind kind, int& out) {
    if (e == nullptr) return true;
    Value v = expr(*e);
    if (v.isError()) return false;
    if (v.constant && v.constant->kind == ConstValue::Kind::Str) {
      for (size_t i = 0; i < names.size(); ++i) {
        if (names[i] == v.constant->strValue) {
          out = static_cast<int>(i);
          return true;
        }
      }
    }
    sink.error(kind, e->loc, {v.constant ? toString(*v.constant) : describe(v)});
    return false;
  };
  bool memoryOk = read(memory, kOrders, diag::MemoryOrder, order);
  return read(scope, kScopes, diag::ThreadScope, threadScope) && memoryOk;
}

Value FunctionChecker::atomicMethod(const Value& callee, const syntax::CallExpr& e) {
  std::string method = callee.name.substr(callee.name.find('.') + 1);
  const AtomicMethodEntry* entry = findAtomicMethod(method);
  WEFT_CHECK(entry != nullptr, "an AtomicRef method sema does not know: " + method);
  std::string what = callee.name + "()";
  TypedExpr* ref = callee.expr;
  ScalarKind dtype = ref->type->scalar;
  const types::Type* valueType = types.scalar(dtype);
  if (entry->dtypes == AtomicDtypes::Arithmetic && !isArithmeticAtomic(dtype)) {
    sink.error(
        diag::AtomicDtype, e.loc,
        {what, "an atomic int32, uint32, int64, uint64, float32 or float64", types::toString(ref->type)});
    return errorValue();
  }
  if (entry->dtypes == AtomicDtypes::Unsigned && dtype != ScalarKind::UInt32 && dtype != ScalarKind::UInt64) {
    sink.error(diag::AtomicDtype, e.loc, {what, "an atomic uint32 or uint64", types::toString(ref->type)});
    return errorValue();
  }
  if (entry->dtypes == AtomicDtypes::Integer && !isWord(dtype)) {
    sink.error(diag::AtomicDtype, e.loc,
               {what, "an atomic int32, uint32, int64 or uint64", types::toString(ref->type)});
    return errorValue();
  }
  // Positional: the values, then memory and scope (where the method takes them).
  size_t options = entry->builtin == Builtin::AtomicNotify ? 0 : entry->hasScope ? 2 : 1;
  std::vector<const syntax::Expr*> values(entry->values, nullptr);
  const syntax::Expr* memory = nullptr;
  const syntax::Expr* scope = nullptr;
  std::string expected = std::to_string(entry->values) + (entry->values == 1 ? " value" : " values") +
                         (options == 2   ? ", memory= and scope="
                          : options == 1 ? " and memory="
                                         : "");
  if (e.args.size() > entry->values + options) {
    sink.error(diag::ArgumentCount, e.loc, {what, expected, std::to_string(e.args.size())});
    return errorValue();
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (e.args[i]->kind == syntax::ExprKind::Starred) {
      sink.error(diag::UnsupportedExpression, e.args[i]->loc,
                 {"a starred argument (*args)", "; pass each argument"});
      return errorValue();
    }
    if (i < entry->values) {
      values[i] = e.args[i];
    } else if (i == entry->values) {
      memory = e.args[i];
    } else {
      scope = e.args[i];
    }
  }
  for (const syntax::Keyword* keyword : e.keywords) {
    const std::string& name = keyword->arg;
    const syntax::Expr** slot = nullptr;
    if (name == "memory" && options >= 1) slot = &memory;
    if (name == "scope" && options == 2) slot = &scope;
    if (name == "val" && entry->values >= 1 && entry->builtin != Builtin::AtomicWait) slot = &values.back();
    if (name == "old" && (entry->builtin == Builtin::AtomicCas || entry->builtin == Builtin::AtomicWait))
      slot = &values.front();
    if (slot == nullptr || *slot != nullptr) {
      sink.error(diag::KeywordArgument, keyword->loc, {what, name});
      return errorValue();
    }
    *slot = keyword->value;
  }
  for (const syntax::Expr* v : values) {
    if (v == nullptr) {
      sink.error(diag::ArgumentCount, e.loc,
                 {what, expected, std::to_string(e.args.size() + e.keywords.size())});
      return errorValue();
    }
  }
  std::vector<TypedExpr*> operands{ref};
  bool failed = false;
  for (const syntax::Expr* v : values) {
    Value converted = convert(value(*v), valueType, v->loc);
    failed = failed || converted.isError();
    if (!converted.isError()) operands.push_back(converted.expr);
  }
  int order = kSeqCst;
  int threadScope = kSystemScope;
  if (!memoryOrderAndScope(memory, scope, order, threadScope) || failed) return errorValue();
  std::string_view orderName = kOrders[static_cast<size_t>(order)];
  bool reads = entry->builtin == Builtin::AtomicLoad || entry->builtin == Builtin::AtomicWait;
  if (reads && (orderName == "release" || orderName == "acq_rel")) {
    sink.error(diag::MemoryOrderInvalid, memory->loc,
               {std::string(orderName), what, "a load has no release part; use 'acquire' or 'seq_cst'"});
    return errorValue();
  }
  if (entry->builtin == Builtin::AtomicStore &&
      (orderName == "consume" || orderName == "acquire" || orderName == "acq_rel")) {
    sink.error(diag::MemoryOrderInvalid, memory->loc,
               {std::string(orderName), what, "a store has no acquire part; use 'release' or 'seq_cst'"});
    return errorValue();
  }
  bool returnsValue = entry->builtin != Builtin::AtomicStore && entry->builtin != Builtin::AtomicWait &&
                      entry->builtin != Builtin::AtomicNotify;
  TypedExpr* call =
      make(TypedExprKind::BuiltinCall, returnsValue ? valueType : types.none(), e.loc, operands);
  call->builtin = entry->builtin;
  call->index = order * 4 + threadScope;
  return runtime(call);
}

Value FunctionChecker::printCall(const syntax::CallExpr& e) {
  std::string separator = " ";
  std::string end = "\n";
  for (const syntax::Keyword* keyword : e.keywords) {
    const std::string& name = keyword->arg;
    if (name != "sep" && name != "end" && name != "flush") {
      sink.error(diag::KeywordArgument, keyword->loc, {"print()", name});
      return errorValue();
    }
    Value v = expr(*keyword->value);
    if (v.isError()) return errorValue();
    if (name == "flush") continue;  // device output is flushed by the runtime (GPU) or always (CPU)
    bool none = v.kind == Value::Kind::Constant && v.constant->kind == ConstValue::Kind::None;
    if (none) continue;
    if (v.kind != Value::Kind::Constant || v.constant->kind != ConstValue::Kind::Str) {
      sink.error(diag::PrintOption, keyword->value->loc,
                 {name, v.constant ? toString(*v.constant) : describe(v)});
      return errorValue();
    }
    (name == "sep" ? separator : end) = v.constant->strValue;
  }
  // Pieces in order: text, or a value operand.
  struct Piece {
    std::string text;
    TypedExpr* value = nullptr;
  };
  std::vector<Piece> pieces;
  bool failed = false;
  for (const syntax::Expr* arg : e.args) {
    if (arg->kind == syntax::ExprKind::Starred) {
      sink.error(diag::UnsupportedExpression, arg->loc,
                 {"a starred argument (*args)", "; pass each argument"});
      return errorValue();
    }
    Value v = expr(*arg);
    if (v.isError()) {
      failed = true;
      continue;
    }
    if (v.kind == Value::Kind::Constant && v.constant->kind == ConstValue::Kind::Str) {
      pieces.push_back({v.constant->strValue, nullptr});
      continue;
    }
    if (v.kind == Value::Kind::Constant && v.constant->kind == ConstValue::Kind::None) {
      pieces.push_back({"None", nullptr});
      continue;
    }
    if (v.kind != Value::Kind::RunTime && v.kind != Value::Kind::Intrinsic) {
      sink.error(diag::PrintArgument, arg->loc, {describe(v)});
      failed = true;
      continue;
    }
    v = toRunTime(v, arg->loc);
    if (v.isError()) {
      failed = true;
      continue;
    }
    if (!v.type()->isScalar()) {
      sink.error(diag::PrintArgument, arg->loc, {describe(v)});
      failed = true;
      continue;
    }
    // Tile code prints from one thread: a value a tile operation computes would make that
    // operation run on one thread only.
    if (tileFace() != FunctionSource::Face::Simt && computesTiles(*v.expr)) {
      sink.error(diag::TilePrint, arg->loc);
      failed = true;
      continue;
    }
    pieces.push_back({{}, v.expr});
  }
  if (failed) return errorValue();
  bool conversions = false;
  for (const Piece& piece : pieces) conversions = conversions || piece.value != nullptr;
  // One printf per print(): the format of each value depends on its type (emit_simt.cpp
  // passes the matching arguments): bool %s, signed %lld, unsigned %llu, real %g%s (".0" for
  // integral values, as Python shows floats), complex (%g%+gj).
  std::string format;
  std::vector<TypedExpr*> operands;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (i) format += formatText(separator, conversions);
    const Piece& piece = pieces[i];
    if (piece.value == nullptr) {
      format += formatText(piece.text, conversions);
      continue;
    }
    ScalarKind kind = piece.value->type->scalar;
    format += types::isBool(kind)       ? "%s"
              : types::isSigned(kind)   ? "%lld"
              : types::isUnsigned(kind) ? "%llu"
              : types::isComplex(kind)  ? "(%g%+gj)"
                                        : "%g%s";
    operands.push_back(piece.value);
  }
  format += formatText(end, conversions);
  TypedExpr* call = make(TypedExprKind::BuiltinCall, types.none(), e.loc, operands);
  call->builtin = Builtin::Print;
  call->text = format;
  return runtime(call);
}

Value FunctionChecker::warpMaskLaneIndex(const syntax::Expr& lane) {
  Value v = value(lane);
  if (v.isError()) return v;
  if (!v.type()->isScalar() || !(types::isInteger(v.type()->scalar) || types::isBool(v.type()->scalar))) {
    sink.error(diag::ArgumentType, lane.loc, {"1", "WarpMask[]", "an integer lane", describe(v)});
    return errorValue();
  }
  if (v.constant) {
    int64_t n = int64Value(*v.constant).value_or(-1);
    if (n < 0 || n > 31) {
      sink.error(diag::WarpMaskLane, lane.loc, {toString(*v.constant)});
      return errorValue();
    }
  }
  return promoteTo(v, ScalarKind::Int64, lane.loc);
}

Value FunctionChecker::warpMaskLane(Value mask, const syntax::Expr& lane, SourceLoc loc) {
  Value index = warpMaskLaneIndex(lane);
  if (index.isError()) return index;
  TypedExpr* bit =
      make(TypedExprKind::BuiltinCall, types.scalar(ScalarKind::Bool), loc, {mask.expr, index.expr});
  bit->builtin = Builtin::LaneBit;
  return runtime(bit);
}

void FunctionChecker::warpMaskAssign(const syntax::SubscriptExpr& target, Value mask, Value bit,
                                     SourceLoc loc) {
  auto local = target.value->kind == syntax::ExprKind::Name
                   ? localByName_.find(syntax::as<syntax::NameExpr>(*target.value).id)
                   : localByName_.end();
  if (local == localByName_.end()) {
    sink.error(
        diag::AssignTarget, target.loc,
        {"a lane of a WarpMask that is not in a variable; copy it into one first (m = ...; m[i] = True)"});
    return;
  }
  Value index = warpMaskLaneIndex(*target.slice);
  Value set = truth(bit, loc);
  if (index.isError() || set.isError()) return;
  // Python evaluates the value before the target: one with effects goes to a temporary first.
  if (set.expr->kind != TypedExprKind::Literal && set.expr->kind != TypedExprKind::Local) {
    int temporary = newTemporary(set.type(), loc);
    assignLocal(temporary, set, loc);
    TypedExpr* ref = make(TypedExprKind::Local, set.type(), loc);
    ref->local = temporary;
    set = runtime(ref);
  }
  TypedExpr* updated =
      make(TypedExprKind::BuiltinCall, types.warpMask(), loc, {mask.expr, index.expr, set.expr});
  updated->builtin = Builtin::WithLaneBit;
  assignLocal(local->second, runtime(updated), loc);
}

}  // namespace weft::sema
