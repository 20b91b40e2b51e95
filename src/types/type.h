// Types of run-time values in device code. Types are interned by a TypeContext, so two
// equal types are the same pointer and compare with ==.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace weft::types {

enum class ScalarKind : uint8_t {
#define WEFT_SCALAR(Enum, python_name, cxx_type, bytes, category) Enum,
#include "types/scalar_kinds.def"
};

enum class TypeKind : uint8_t {
  Error,   // after a reported error; flows on silently
  None,    // NoneType (the return type of procedures)
  Scalar,  // a number type
  Array,   // a strided view: element type, ndim
  Tuple,   // a heterogeneous tuple of values
};

// Where an array's storage lives; local and shared arrays are created in device code.
enum class MemorySpace : uint8_t { Global, Shared, Local };

struct Type {
  TypeKind kind = TypeKind::Error;
  ScalarKind scalar = ScalarKind::Bool;      // Scalar; Array: the element type
  int ndim = 0;                              // Array
  MemorySpace space = MemorySpace::Global;   // Array
  std::vector<const Type*> elements;         // Tuple

  bool isError() const { return kind == TypeKind::Error; }
  bool isScalar() const { return kind == TypeKind::Scalar; }
  bool isArray() const { return kind == TypeKind::Array; }
};

// Properties of scalar kinds.
const char* pythonName(ScalarKind kind);   // "float32"
const char* cxxName(ScalarKind kind);      // "float"
int byteSize(ScalarKind kind);
bool isBool(ScalarKind kind);
bool isInteger(ScalarKind kind);           // signed or unsigned, not bool
bool isSigned(ScalarKind kind);            // signed integers
bool isUnsigned(ScalarKind kind);
bool isFloating(ScalarKind kind);          // real floating
bool isComplex(ScalarKind kind);
// Parses a dtype name ("float32", "int", "float", "bool", "complex"); nullopt if unknown.
std::optional<ScalarKind> scalarFromName(const std::string& name);

// Interns types; owns them for the lifetime of the context.
class TypeContext {
 public:
  TypeContext();
  const Type* error() const { return error_; }
  const Type* none() const { return none_; }
  const Type* scalar(ScalarKind kind) const;
  const Type* array(ScalarKind element, int ndim, MemorySpace space = MemorySpace::Global);
  const Type* tuple(const std::vector<const Type*>& elements);

 private:
  const Type* intern(Type type);
  std::deque<Type> storage_;
  std::map<std::string, const Type*> byKey_;
  const Type* error_;
  const Type* none_;
  std::vector<const Type*> scalars_;
};

// Renders a type as the user writes it: "float32", "array(float32, 2d)", "tuple(int32, float32)".
std::string toString(const Type* type);

}  // namespace weft::types
