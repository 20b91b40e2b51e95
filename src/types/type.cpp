#include "types/type.h"

#include "support/check.h"

namespace weft::types {

namespace {

struct ScalarInfo {
  const char* pythonName;
  const char* attribute;
  const char* cxxName;
  int bytes;
  char category;  // B, S, U, F, C as in scalar_kinds.def
  const char* dtypeModule;
  const char* dtypeName;
  const char* typestr;
  uint8_t dlpackCode;
};

constexpr ScalarInfo kScalars[] = {
#define WEFT_SCALAR(Enum, python_name, attribute, cxx_type, bytes, category, dtype_module, dtype_name, typestr, \
                    dlpack_code)                                                                               \
  {python_name, attribute, cxx_type, bytes, #category[0], dtype_module, dtype_name, typestr, dlpack_code},
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
      return "A" + (type.element != nullptr ? keyOf(*type.element) : std::string(info(type.scalar).pythonName)) + "/" +
             std::to_string(type.ndim) + "/" + std::to_string(static_cast<int>(type.space)) + "/" +
             std::to_string(type.facts);
    case TypeKind::Tuple: {
      std::string key = "T(";
      for (const Type* element : type.elements) key += keyOf(*element) + ",";
      return key + ")";
    }
    case TypeKind::Vector: return "V" + std::string(info(type.scalar).pythonName) + "x" + std::to_string(type.size);
    case TypeKind::Atomic: return "Y" + std::string(info(type.scalar).pythonName) + "@" + std::to_string(type.align);
    case TypeKind::AtomicRef: return "Q" + std::string(info(type.scalar).pythonName);
    case TypeKind::WarpMask: return "M";
    case TypeKind::InlineArray: {
      std::string key = "I" + std::string(info(type.scalar).pythonName);
      for (int64_t extent : type.shape) key += "/" + std::to_string(extent);
      return key;
    }
    case TypeKind::Tile: {
      std::string key = "L" + std::string(info(type.scalar).pythonName);
      for (int64_t extent : type.shape) key += "/" + std::to_string(extent);
      return key;
    }
    case TypeKind::TileView: {
      std::string key = "P" + keyOf(*type.elements[0]) + "@" + std::to_string(type.padding);
      for (int64_t extent : type.shape) key += "/" + std::to_string(extent);
      return key;
    }
    case TypeKind::Struct: {
      std::string key = "R" + type.name + "#" + std::to_string(type.identity) + "@" + std::to_string(type.align) + "(";
      for (size_t i = 0; i < type.elements.size(); ++i) {
        key += type.fieldNames[i] + ":" + keyOf(*type.elements[i]);
        if (type.bytes != 0) key += "+" + std::to_string(type.offsets[i]);
        key += ",";
      }
      return key + ")" + (type.bytes != 0 ? std::to_string(type.bytes) : "");
    }
  }
  return "?";
}

}  // namespace

const char* pythonName(ScalarKind kind) { return info(kind).pythonName; }
const char* attributeName(ScalarKind kind) { return info(kind).attribute; }
const char* cxxName(ScalarKind kind) { return info(kind).cxxName; }
int byteSize(ScalarKind kind) { return info(kind).bytes; }
char category(ScalarKind kind) { return info(kind).category; }
bool isBool(ScalarKind kind) { return info(kind).category == 'B'; }
bool isInteger(ScalarKind kind) { return info(kind).category == 'S' || info(kind).category == 'U'; }
bool isSigned(ScalarKind kind) { return info(kind).category == 'S'; }
bool isUnsigned(ScalarKind kind) { return info(kind).category == 'U'; }
bool isFloating(ScalarKind kind) { return info(kind).category == 'F'; }
bool isComplex(ScalarKind kind) { return info(kind).category == 'C'; }
bool isNarrowFloat(ScalarKind kind) { return isFloating(kind) && info(kind).bytes < 4; }
const char* dtypeModule(ScalarKind kind) { return info(kind).dtypeModule; }
const char* dtypeName(ScalarKind kind) { return info(kind).dtypeName; }
const char* typestr(ScalarKind kind) { return info(kind).typestr; }
bool hasHostType(ScalarKind kind) { return info(kind).dtypeModule[0] != '\0'; }

DLPackType dlpackType(ScalarKind kind) {
  return DLPackType{info(kind).dlpackCode, static_cast<uint8_t>(8 * info(kind).bytes)};
}

std::optional<ScalarKind> scalarFromName(const std::string& name) {
  if (name == "int") return ScalarKind::Int32;
  if (name == "float") return ScalarKind::Float32;
  if (name == "complex") return ScalarKind::Complex64;
  for (size_t i = 0; i < std::size(kScalars); ++i) {
    const ScalarInfo& scalar = kScalars[i];
    if (!hasHostType(static_cast<ScalarKind>(i))) continue;  // tile code names it (check_tiles.cpp)
    if (name == scalar.pythonName || name == scalar.attribute || name == scalar.dtypeName)
      return static_cast<ScalarKind>(i);
  }
  return std::nullopt;
}

std::optional<ScalarKind> scalarFromDtypeName(std::string_view name) {
  for (size_t i = 0; i < std::size(kScalars); ++i) {
    if (hasHostType(static_cast<ScalarKind>(i)) && name == kScalars[i].dtypeName) return static_cast<ScalarKind>(i);
  }
  return std::nullopt;
}

std::optional<ScalarKind> scalarFromTypestr(std::string_view typestr) {
  // Every supported host is little-endian: '=' (native) and '|' (no byte order) read as '<'.
  if (typestr.size() < 3 || (typestr[0] != '<' && typestr[0] != '|' && typestr[0] != '=')) return std::nullopt;
  for (size_t i = 0; i < std::size(kScalars); ++i) {
    std::string_view known = kScalars[i].typestr;
    if (!known.empty() && typestr.substr(1) == known.substr(1)) return static_cast<ScalarKind>(i);
  }
  return std::nullopt;
}

std::optional<ScalarKind> scalarFromDLPack(DLPackType type) {
  for (size_t i = 0; i < std::size(kScalars); ++i) {
    if (dlpackType(static_cast<ScalarKind>(i)) == type) return static_cast<ScalarKind>(i);
  }
  return std::nullopt;
}

std::optional<std::pair<ScalarKind, int>> vectorFromName(const std::string& name) {
  size_t x = name.rfind('x');
  if (x == std::string::npos || x + 2 != name.size() || name[x + 1] < '1' || name[x + 1] > '4') return std::nullopt;
  std::string element = name.substr(0, x);
  // Every fixed-format real type CUDA has vectors of: not bool, not complex, no builtin names.
  if (element == "int" || element == "float" || element == "bool" || element.find('_') != std::string::npos) {
    return std::nullopt;
  }
  std::optional<ScalarKind> kind = scalarFromName(element);
  if (!kind || isComplex(*kind)) return std::nullopt;
  return std::make_pair(*kind, name[x + 1] - '0');
}

TypeContext::TypeContext() {
  error_ = intern(Type{});
  Type none;
  none.kind = TypeKind::None;
  none_ = intern(none);
  Type mask;
  mask.kind = TypeKind::WarpMask;
  mask.scalar = ScalarKind::UInt32;
  warpMask_ = intern(mask);
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

const Type* TypeContext::withFacts(const Type* array, unsigned facts) {
  WEFT_CHECK(array->isArray() && array->element == nullptr && array->space == MemorySpace::Global,
             "launch facts are of arrays of numbers in global memory");
  Type type = *array;
  type.facts = facts;
  return intern(type);
}

const Type* TypeContext::withoutFacts(const Type* type) {
  switch (type->kind) {
    case TypeKind::Array: return type->facts == 0 ? type : withFacts(type, 0);
    case TypeKind::Tuple: {
      std::vector<const Type*> elements;
      for (const Type* element : type->elements) elements.push_back(withoutFacts(element));
      return tuple(elements);
    }
    case TypeKind::TileView: return tileView(withoutFacts(type->elements[0]), type->shape, type->padding);
    case TypeKind::Error:
    case TypeKind::None:
    case TypeKind::Scalar:
    case TypeKind::Struct:
    case TypeKind::Vector:
    case TypeKind::Atomic:
    case TypeKind::AtomicRef:
    case TypeKind::WarpMask:
    case TypeKind::InlineArray:
    case TypeKind::Tile: return type;
  }
  return type;
}

const Type* TypeContext::tuple(const std::vector<const Type*>& elements) {
  Type type;
  type.kind = TypeKind::Tuple;
  type.elements = elements;
  return intern(type);
}

const Type* TypeContext::array(const Type* element, int ndim, MemorySpace space) {
  if (element->isScalar()) return array(element->scalar, ndim, space);
  WEFT_CHECK(ndim >= 0, "array types have a non-negative number of dimensions");
  Type type;
  type.kind = TypeKind::Array;
  type.element = element;
  type.ndim = ndim;
  type.space = space;
  return intern(type);
}

const Type* TypeContext::structType(Type fields) {
  WEFT_CHECK(fields.kind == TypeKind::Struct && fields.fieldNames.size() == fields.elements.size(),
             "a struct type names each field");
  WEFT_CHECK(fields.bytes == 0 ? fields.offsets.empty()
                               : fields.offsets.size() == fields.elements.size() && fields.align > 0,
             "a record type places each field and has an alignment");
  return intern(std::move(fields));
}

const Type* TypeContext::vector(ScalarKind element, int size) {
  WEFT_CHECK(size >= 1 && size <= 4 && !isBool(element) && !isComplex(element), "a vector of 1 to 4 real numbers");
  Type type;
  type.kind = TypeKind::Vector;
  type.scalar = element;
  type.size = size;
  return intern(type);
}

const Type* TypeContext::atomic(ScalarKind element, int align) {
  WEFT_CHECK(align >= 0, "an atomic's alignment is not negative");
  Type type;
  type.kind = TypeKind::Atomic;
  type.scalar = element;
  type.align = align;
  return intern(type);
}

const Type* TypeContext::inlineArray(ScalarKind element, const std::vector<int64_t>& shape) {
  WEFT_CHECK(!shape.empty() && shape.size() <= 8, "an inline array has 1 to 8 dimensions");
  for (int64_t extent : shape) WEFT_CHECK(extent > 0, "an inline array's extents are positive");
  Type type;
  type.kind = TypeKind::InlineArray;
  type.scalar = element;
  type.ndim = static_cast<int>(shape.size());
  type.shape = shape;
  return intern(type);
}

const Type* TypeContext::tile(ScalarKind element, const std::vector<int64_t>& shape) {
  WEFT_CHECK(shape.size() <= 8, "a tile has at most 8 dimensions");
  for (int64_t extent : shape) WEFT_CHECK(extent > 0 && (extent & (extent - 1)) == 0, "a tile's extents are powers of 2");
  Type type;
  type.kind = TypeKind::Tile;
  type.scalar = element;
  type.ndim = static_cast<int>(shape.size());
  type.shape = shape;
  return intern(type);
}

const Type* TypeContext::tileView(const Type* array, const std::vector<int64_t>& shape, int padding) {
  WEFT_CHECK(array->isArray() && array->element == nullptr && array->ndim == static_cast<int>(shape.size()),
             "a partition view is of an array of numbers, with a tile shape of its rank");
  Type type;
  type.kind = TypeKind::TileView;
  type.scalar = array->scalar;
  type.ndim = array->ndim;
  type.elements = {array};
  type.shape = shape;
  type.padding = padding;
  return intern(type);
}

const Type* TypeContext::atomicRef(ScalarKind element) {
  Type type;
  type.kind = TypeKind::AtomicRef;
  type.scalar = element;
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
      std::string element = type->element != nullptr ? toString(type->element) : pythonName(type->scalar);
      std::string text = "array(" + element + ", " + std::to_string(type->ndim) + "d";
      switch (type->space) {
        case MemorySpace::Global: break;
        case MemorySpace::Shared: text += ", shared"; break;
        case MemorySpace::Local: text += ", local"; break;
        case MemorySpace::Constant: text += ", constant"; break;
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
    case TypeKind::Struct: return type->name;
    case TypeKind::Vector: return pythonName(type->scalar) + std::string("x") + std::to_string(type->size);
    case TypeKind::Atomic:
      return "Atomic(" + std::string(pythonName(type->scalar)) +
             (type->align != 0 ? ", align=" + std::to_string(type->align) : std::string()) + ")";
    case TypeKind::AtomicRef: return "AtomicRef(" + std::string(pythonName(type->scalar)) + ")";
    case TypeKind::WarpMask: return "WarpMask";
    case TypeKind::InlineArray: {
      std::string text = pythonName(type->scalar) + std::string("[");
      for (size_t d = 0; d < type->shape.size(); ++d)
        text += (d ? ", " : "") + std::to_string(type->shape[d]);
      return text + "]";
    }
    case TypeKind::Tile:
    case TypeKind::TileView: {
      std::string text = type->kind == TypeKind::Tile ? "tile(" + std::string(pythonName(type->scalar)) + ", ("
                                                      : "partition_view(" + toString(type->elements[0]) + ", (";
      for (size_t d = 0; d < type->shape.size(); ++d)
        text += (d ? ", " : "") + std::to_string(type->shape[d]);
      return text + (type->shape.size() == 1 ? ",))" : "))");
    }
  }
  return "<unknown>";
}

bool holdsAtomic(const Type* type) {
  if (type->kind == TypeKind::Atomic) return true;
  if (type->kind != TypeKind::Struct && type->kind != TypeKind::Tuple) return false;
  for (const Type* element : type->elements) {
    if (holdsAtomic(element)) return true;
  }
  return false;
}

}  // namespace weft::types
