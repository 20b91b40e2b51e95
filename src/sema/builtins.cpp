// The registry of names sema knows: modules, number types, Python builtins, weft's
// intrinsics and the math module; and the rows of builtin_kinds.def and intrinsic_kinds.def.
#include <cmath>
#include <iterator>
#include <limits>
#include <numbers>

#include "sema/checker.h"

namespace weft::sema {

namespace {

constexpr BuiltinInfo kBuiltins[] = {
#define WEFT_BUILTIN(Enum, description, header, helper, properties, math, arity) \
  {description, BuiltinHeader::header, helper, [] {                            \
     using namespace builtin_property;                                         \
     return static_cast<uint16_t>(properties);                                 \
   }(),                                                                        \
   math, arity},
#include "sema/builtin_kinds.def"
};

// A math function has a name in the math module and at least one argument; nothing else has.
constexpr bool mathColumnsAgree() {
  for (const BuiltinInfo& info : kBuiltins)
    if (info.math.empty() != (info.arity == 0) || (!info.math.empty() && info.header != BuiltinHeader::Math)) return false;
  return true;
}
static_assert(mathColumnsAgree(), "builtin_kinds.def: a math name needs an arity and the Math header, and only it");

struct IntrinsicEntry {
  Intrinsic intrinsic;
  std::string_view name;
  std::optional<Builtin> builtin;
};

constexpr IntrinsicEntry kIntrinsics[] = {
#define WEFT_INTRINSIC(Enum, name, builtin) {Intrinsic::Enum, name, builtin},
#include "sema/intrinsic_kinds.def"
};

Value numberType(types::ScalarKind kind, std::string name) {
  Value v;
  v.kind = Value::Kind::NumberType;
  v.scalar = kind;
  v.name = std::move(name);
  return v;
}

}  // namespace

Value floatConstant(double x) {
  Value v;
  v.kind = Value::Kind::Constant;
  v.constant = ConstValue{};
  v.constant->kind = ConstValue::Kind::Float;
  v.constant->floatValue = x;
  return v;
}

std::string canonicalModule(std::string_view qualifiedName) {
  if (qualifiedName == "weft" || qualifiedName == "cuda.device") return "weft";
  if (qualifiedName == "math" || qualifiedName == "numpy" || qualifiedName == "cuda" || qualifiedName == "cmath")
    return std::string(qualifiedName);
  if (qualifiedName == "cuda.device.tiles") return "weft.tiles";
  if (isTileModule(qualifiedName)) return std::string(qualifiedName);
  return classicModule(qualifiedName);
}

Value resolveEntity(std::string_view qualifiedName) {
  size_t dot = qualifiedName.rfind('.');
  if (dot == std::string_view::npos) return {};
  std::string module = canonicalModule(qualifiedName.substr(0, dot));
  std::string member(qualifiedName.substr(dot + 1));
  if (!classicModule(module).empty()) return resolveClassicEntity(module, member);
  if (isTileModule(module)) return resolveTileEntity(module, member);
  if (module.empty()) {
    if (qualifiedName.substr(0, dot) == "builtins") return resolvePythonBuiltin(member);
    return {};
  }
  if (module == "cmath") return resolveCmathEntity(member);
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
    if (module == "numpy") return resolveNumpyEntity(member);
    // WarpMask (SIMT.md: an int32 with bit access) is a uint32, bit i = lane i, with mask[i].
    if (member == "tiles" || member == "cutile") {
      Value v;
      v.kind = Value::Kind::Module;
      v.name = "weft." + member;
      return v;
    }
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
  if (member == "frexp" || member == "modf") {
    // Functions of two results (python_builtins.cpp).
    Value v;
    v.kind = Value::Kind::PyBuiltin;
    v.name = "math." + member;
    return v;
  }
  for (size_t i = 0; i < std::size(kBuiltins); ++i) {
    if (!kBuiltins[i].math.empty() && member == kBuiltins[i].math) {
      Value v;
      v.kind = Value::Kind::Intrinsic;
      v.intrinsic = Intrinsic::Math;
      v.math = static_cast<Builtin>(i);
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
  if (Value builtin = resolvePyBuiltin(name); builtin.kind != Value::Kind::Error) return builtin;
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

const BuiltinInfo& builtinInfo(Builtin builtin) { return kBuiltins[static_cast<size_t>(builtin)]; }

std::optional<Builtin> intrinsicBuiltin(Intrinsic intrinsic) { return kIntrinsics[static_cast<size_t>(intrinsic)].builtin; }

namespace {

// What the object `global` bound to `name` means in device code.
GlobalMeaning meaningOf(const GlobalValue& global, const std::string& name) {
  GlobalMeaning meaning;
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
    case GlobalValue::Kind::Array: meaning.array = global.array; return meaning;
    case GlobalValue::Kind::Struct:
      meaning.value.kind = Value::Kind::StructType;
      meaning.value.structSource = global.structClass;
      meaning.value.name = "struct '" + global.structClass->name + "'";
      return meaning;
    case GlobalValue::Kind::Unsupported:
      meaning.status = GlobalMeaning::Status::Unsupported;
      meaning.detail = global.qualifiedName;
      return meaning;
    case GlobalValue::Kind::Tuple:
      // Each element means what a global bound to it would; the tuple is a static value.
      meaning.value.kind = Value::Kind::StaticTuple;
      meaning.value.name = "tuple '" + name + "'";
      for (const GlobalValue& element : global.elements) {
        GlobalMeaning part = meaningOf(element, name);
        if (part.status != GlobalMeaning::Status::Ok) return part;
        meaning.value.elements.push_back(std::move(part.value));
      }
      return meaning;
    case GlobalValue::Kind::Undefined:
      meaning.value = resolvePythonBuiltin(name);
      if (meaning.value.kind == Value::Kind::Error) meaning.status = GlobalMeaning::Status::Undefined;
      return meaning;
  }
  return meaning;
}

}  // namespace

GlobalMeaning resolveGlobal(Environment* environment, const std::string& name) {
  GlobalValue global = environment != nullptr ? environment->lookup(name) : GlobalValue{};
  GlobalMeaning meaning = meaningOf(global, name);
  // A tuple's elements are checked by the tuple's identity (a tuple cannot change in place).
  meaning.byIdentity = global.captured || global.kind == GlobalValue::Kind::Array || global.kind == GlobalValue::Kind::Tuple;
  return meaning;
}

}  // namespace weft::sema
