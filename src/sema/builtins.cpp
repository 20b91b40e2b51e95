// The registry of names sema knows: modules, number types, Python builtins, weft's
// intrinsics and the math module.
#include <cmath>
#include <limits>
#include <numbers>

#include "sema/checker.h"

namespace weft::sema {

namespace {

struct MathEntry {
  const char* name;
  Builtin builtin;
  int arity;
  bool predicate;
};

// The math functions of numbapro-cuda-python-spec.md (plus log2, and erf ... fma of issue 4),
// with CUDA semantics.
constexpr MathEntry kMath[] = {
    {"acos", Builtin::Acos, 1, false},   {"asin", Builtin::Asin, 1, false},   {"atan", Builtin::Atan, 1, false},
    {"acosh", Builtin::Acosh, 1, false}, {"asinh", Builtin::Asinh, 1, false}, {"atanh", Builtin::Atanh, 1, false},
    {"cos", Builtin::Cos, 1, false},     {"sin", Builtin::Sin, 1, false},     {"tan", Builtin::Tan, 1, false},
    {"cosh", Builtin::Cosh, 1, false},   {"sinh", Builtin::Sinh, 1, false},   {"tanh", Builtin::Tanh, 1, false},
    {"atan2", Builtin::Atan2, 2, false}, {"exp", Builtin::Exp, 1, false},     {"expm1", Builtin::Expm1, 1, false},
    {"fabs", Builtin::Fabs, 1, false},   {"log", Builtin::Log, 1, false},     {"log10", Builtin::Log10, 1, false},
    {"log1p", Builtin::Log1p, 1, false}, {"log2", Builtin::Log2, 1, false},   {"sqrt", Builtin::Sqrt, 1, false},
    {"pow", Builtin::Pow, 2, false},     {"ceil", Builtin::Ceil, 1, false},   {"floor", Builtin::Floor, 1, false},
    {"copysign", Builtin::Copysign, 2, false}, {"fmod", Builtin::Fmod, 2, false},
    {"isnan", Builtin::IsNan, 1, true},  {"isinf", Builtin::IsInf, 1, true},
    {"isfinite", Builtin::IsFinite, 1, true}, {"erf", Builtin::Erf, 1, false}, {"erfc", Builtin::Erfc, 1, false},
    {"gamma", Builtin::Gamma, 1, false}, {"lgamma", Builtin::Lgamma, 1, false}, {"trunc", Builtin::Trunc, 1, false},
    {"cbrt", Builtin::Cbrt, 1, false}, {"hypot", Builtin::Hypot, 2, false}, {"remainder", Builtin::Remainder, 2, false},
    {"fma", Builtin::Fma, 3, false},
};

struct IntrinsicEntry {
  Intrinsic intrinsic;
  std::string_view name;
};

constexpr IntrinsicEntry kIntrinsics[] = {
#define WEFT_INTRINSIC(Enum, name) {Intrinsic::Enum, name},
#include "sema/intrinsic_kinds.def"
};

Value numberType(types::ScalarKind kind, std::string name) {
  Value v;
  v.kind = Value::Kind::NumberType;
  v.scalar = kind;
  v.name = std::move(name);
  return v;
}

Value floatConstant(double x) {
  Value v;
  v.kind = Value::Kind::Constant;
  v.constant = ConstValue{};
  v.constant->kind = ConstValue::Kind::Float;
  v.constant->floatValue = x;
  return v;
}

}  // namespace

std::string canonicalModule(std::string_view qualifiedName) {
  if (qualifiedName == "weft" || qualifiedName == "cuda.device") return "weft";
  if (qualifiedName == "math" || qualifiedName == "numpy" || qualifiedName == "cuda") return std::string(qualifiedName);
  return classicModule(qualifiedName);
}

Value resolveEntity(std::string_view qualifiedName) {
  size_t dot = qualifiedName.rfind('.');
  if (dot == std::string_view::npos) return {};
  std::string module = canonicalModule(qualifiedName.substr(0, dot));
  std::string member(qualifiedName.substr(dot + 1));
  if (!classicModule(module).empty()) return resolveClassicEntity(module, member);
  if (module.empty()) {
    if (qualifiedName.substr(0, dot) == "builtins") return resolvePythonBuiltin(member);
    return {};
  }
  if (module == "cuda") {
    if (member == "device") {
      Value v;
      v.kind = Value::Kind::Module;
      v.name = "weft";
      return v;
    }
    return {};
  }
  if (module == "weft" || module == "numpy") {
    std::string typeName = member;
    if (typeName == "bool_") typeName = "bool";
    if (module == "weft" || typeName != "bool") {
      auto kind = types::scalarFromName(typeName);
      if (kind && typeName != "int" && typeName != "float" && typeName != "complex") {
        return numberType(*kind, module == "weft" ? "device." + member : "numpy." + member);
      }
    }
    if (module == "numpy" && member == "bool_") return numberType(types::ScalarKind::Bool, "numpy.bool_");
    if (auto vector = types::vectorFromName(member); vector && module == "weft") {
      Value v = numberType(vector->first, "device." + member);
      v.vectorSize = vector->second;
      return v;
    }
    if (module == "numpy") return {};
    // WarpMask (SIMT.md: an int32 with bit access) is a uint32, bit i = lane i, with mask[i].
    if (member == "WarpMask") {
      Value v = numberType(types::ScalarKind::UInt32, "device.WarpMask");
      v.warpMask = true;
      return v;
    }
    if (Value target = resolveTargetEntity(member); target.kind != Value::Kind::Error) return target;
    for (const IntrinsicEntry& entry : kIntrinsics) {
      if (entry.name == "weft." + member) {
        Value v;
        v.kind = Value::Kind::Intrinsic;
        v.intrinsic = entry.intrinsic;
        v.name = "device." + member;
        return v;
      }
    }
    return {};
  }
  // math
  if (member == "pi") return floatConstant(std::numbers::pi);
  if (member == "e") return floatConstant(std::numbers::e);
  if (member == "tau") return floatConstant(2 * std::numbers::pi);
  if (member == "inf") return floatConstant(std::numeric_limits<double>::infinity());
  if (member == "nan") return floatConstant(std::numeric_limits<double>::quiet_NaN());
  for (const MathEntry& entry : kMath) {
    if (member == entry.name) {
      Value v;
      v.kind = Value::Kind::Intrinsic;
      v.intrinsic = Intrinsic::Math;
      v.math = entry.builtin;
      v.name = "math." + member;
      return v;
    }
  }
  return {};
}

Value resolvePythonBuiltin(std::string_view name) {
  if (name == "int") return numberType(types::ScalarKind::Int32, "int");
  if (name == "float") return numberType(types::ScalarKind::Float32, "float");
  if (name == "bool") return numberType(types::ScalarKind::Bool, "bool");
  if (name == "complex") return numberType(types::ScalarKind::Complex64, "complex");
  for (const IntrinsicEntry& entry : kIntrinsics) {
    if (entry.name.starts_with("builtins.") && entry.name.substr(9) == name) {
      Value v;
      v.kind = Value::Kind::Intrinsic;
      v.intrinsic = entry.intrinsic;
      v.name = std::string(name) + "()";
      return v;
    }
  }
  return {};
}

MathFunction mathFunction(Builtin builtin) {
  for (const MathEntry& entry : kMath) {
    if (entry.builtin == builtin) return {entry.builtin, entry.arity, entry.predicate};
  }
  return {builtin, 1, false};
}

GlobalMeaning resolveGlobal(Environment* environment, const std::string& name) {
  GlobalMeaning meaning;
  GlobalValue global = environment != nullptr ? environment->lookup(name) : GlobalValue{};
  switch (global.kind) {
    case GlobalValue::Kind::Constant:
      meaning.value.kind = Value::Kind::Constant;
      meaning.value.constant = global.constant;
      meaning.fromEnvironmentConstant = true;
      return meaning;
    case GlobalValue::Kind::Function:
      meaning.value.kind = Value::Kind::Function;
      meaning.value.function = global.function;
      meaning.value.name = "function '" + name + "'";
      return meaning;
    case GlobalValue::Kind::Module: {
      std::string module = canonicalModule(global.qualifiedName);
      if (module.empty()) {
        meaning.status = GlobalMeaning::Status::UnsupportedEntity;
        meaning.detail = global.qualifiedName;
        return meaning;
      }
      meaning.value.kind = Value::Kind::Module;
      meaning.value.name = module;
      return meaning;
    }
    case GlobalValue::Kind::Entity:
      meaning.value = resolveEntity(global.qualifiedName);
      if (meaning.value.kind == Value::Kind::Error) {
        meaning.status = GlobalMeaning::Status::UnsupportedEntity;
        meaning.detail = global.qualifiedName;
      }
      return meaning;
    case GlobalValue::Kind::Struct:
      meaning.value.kind = Value::Kind::StructType;
      meaning.value.structSource = global.structClass;
      meaning.value.name = "struct '" + global.structClass->name + "'";
      return meaning;
    case GlobalValue::Kind::Unsupported:
      meaning.status = GlobalMeaning::Status::Unsupported;
      meaning.detail = global.qualifiedName;
      return meaning;
    case GlobalValue::Kind::Undefined:
      meaning.value = resolvePythonBuiltin(name);
      if (meaning.value.kind == Value::Kind::Error) meaning.status = GlobalMeaning::Status::Undefined;
      return meaning;
  }
  return meaning;
}

}  // namespace weft::sema
