#include "types/type.h"

#include "support/check.h"

namespace weft::types {

namespace {

struct ScalarInfo {
  const char* pythonName;
  const char* cxxName;
  int bytes;
  char category;  // B, S, U, F, C as in scalar_kinds.def
};

constexpr ScalarInfo kScalars[] = {
#define WEFT_SCALAR(Enum, python_name, cxx_type, bytes, category) {python_name, cxx_type, bytes, #category[0]},
#include "types/scalar_kinds.def"
};

const ScalarInfo& info(ScalarKind kind) { return kScalars[static_cast<size_t>(kind)]; }

// The interning key of a type: equal types have equal keys.
std::string keyOf(const Type& type) {
  switch (type.kind) {
    case TypeKind::Error: return "!";
    case TypeKind::None: return "N";
    case TypeKind::Scalar: return std::string("S") + info(type.scalar).pythonName;
    case TypeKind::Array:
      return "A" + std::string(info(type.scalar).pythonName) + "/" + std::to_string(type.ndim) + "/" +
             std::to_string(static_cast<int>(type.space));
    case TypeKind::Tuple: {
      std::string key = "T(";
      for (const Type* element : type.elements) key += keyOf(*element) + ",";
      return key + ")";
    }
  }
  return "?";
}

}  // namespace

const char* pythonName(ScalarKind kind) { return info(kind).pythonName; }
const char* cxxName(ScalarKind kind) { return info(kind).cxxName; }
int byteSize(ScalarKind kind) { return info(kind).bytes; }
bool isBool(ScalarKind kind) { return info(kind).category == 'B'; }
bool isInteger(ScalarKind kind) { return info(kind).category == 'S' || info(kind).category == 'U'; }
bool isSigned(ScalarKind kind) { return info(kind).category == 'S'; }
bool isUnsigned(ScalarKind kind) { return info(kind).category == 'U'; }
bool isFloating(ScalarKind kind) { return info(kind).category == 'F'; }
bool isComplex(ScalarKind kind) { return info(kind).category == 'C'; }

std::optional<ScalarKind> scalarFromName(const std::string& name) {
  if (name == "int") return ScalarKind::Int32;
  if (name == "float") return ScalarKind::Float32;
  if (name == "complex") return ScalarKind::Complex64;
  if (name == "bool_") return ScalarKind::Bool;
  for (size_t i = 0; i < std::size(kScalars); ++i) {
    if (name == kScalars[i].pythonName) return static_cast<ScalarKind>(i);
  }
  return std::nullopt;
}

TypeContext::TypeContext() {
  error_ = intern(Type{});
  Type none;
  none.kind = TypeKind::None;
  none_ = intern(none);
  for (size_t i = 0; i < std::size(kScalars); ++i) {
    Type scalar;
    scalar.kind = TypeKind::Scalar;
    scalar.scalar = static_cast<ScalarKind>(i);
    scalars_.push_back(intern(scalar));
  }
}

const Type* TypeContext::scalar(ScalarKind kind) const { return scalars_.at(static_cast<size_t>(kind)); }

const Type* TypeContext::array(ScalarKind element, int ndim, MemorySpace space) {
  WEFT_CHECK(ndim >= 0, "array types have a non-negative number of dimensions");
  Type type;
  type.kind = TypeKind::Array;
  type.scalar = element;
  type.ndim = ndim;
  type.space = space;
  return intern(type);
}

const Type* TypeContext::tuple(const std::vector<const Type*>& elements) {
  Type type;
  type.kind = TypeKind::Tuple;
  type.elements = elements;
  return intern(type);
}

const Type* TypeContext::intern(Type type) {
  std::string key = keyOf(type);
  auto found = byKey_.find(key);
  if (found != byKey_.end()) return found->second;
  const Type* stored = &storage_.emplace_back(std::move(type));
  byKey_.emplace(std::move(key), stored);
  return stored;
}

std::string toString(const Type* type) {
  if (type == nullptr) return "<unknown>";
  switch (type->kind) {
    case TypeKind::Error: return "<error>";
    case TypeKind::None: return "None";
    case TypeKind::Scalar: return pythonName(type->scalar);
    case TypeKind::Array: {
      std::string text = "array(" + std::string(pythonName(type->scalar)) + ", " + std::to_string(type->ndim) + "d";
      switch (type->space) {
        case MemorySpace::Global: break;
        case MemorySpace::Shared: text += ", shared"; break;
        case MemorySpace::Local: text += ", local"; break;
      }
      return text + ")";
    }
    case TypeKind::Tuple: {
      std::string text = "tuple(";
      for (size_t i = 0; i < type->elements.size(); ++i) {
        if (i != 0) text += ", ";
        text += toString(type->elements[i]);
      }
      return text + ")";
    }
  }
  return "<unknown>";
}

}  // namespace weft::types
