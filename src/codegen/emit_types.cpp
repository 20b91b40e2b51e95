// Spelling types, names, literals and conversions in C++.
#include <charconv>
#include <cmath>
#include <limits>

#include "codegen/cuda_emitter.h"
#include "support/check.h"

namespace weft::codegen {

using types::ScalarKind;
using types::Type;
using types::TypeKind;

namespace {

// Shortest round-trip decimal (as Python's repr), made a C++ floating literal.
template <class F>
std::string floatingLiteral(F value, const char* suffix) {
  if (std::isnan(value)) return std::string("weft::nan<") + (sizeof(F) == 4 ? "float" : "double") + ">()";
  if (std::isinf(value)) {
    std::string inf = std::string("weft::inf<") + (sizeof(F) == 4 ? "float" : "double") + ">()";
    return value < 0 ? "(-" + inf + ")" : inf;
  }
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  WEFT_CHECK(result.ec == std::errc(), "to_chars failed on a floating literal");
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  text += suffix;
  return text[0] == '-' ? "(" + text + ")" : text;
}

}  // namespace

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      // Control characters never appear in the unit (the kernel symbol placeholder uses one).
      out += '?';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string CudaEmitter::typeName(const Type* type) {
  WEFT_CHECK(type != nullptr, "an expression without a type reached codegen");
  switch (type->kind) {
    case TypeKind::Error: WEFT_CHECK(false, "an Error type reached codegen"); return {};
    case TypeKind::None: return "void*";  // a value of NoneType: nullptr (returnTypeName: void)
    case TypeKind::Scalar:
    case TypeKind::WarpMask: noteScalar(type->scalar); return types::cxxName(type->scalar);
    case TypeKind::Array:
      WEFT_CHECK(type->ndim >= 1, "an array type with no dimensions reached codegen");
      if (type->element != nullptr)
        return "weft::Array<" + typeName(type->element) + ", " + std::to_string(type->ndim) + ">";
      noteScalar(type->scalar);
      return "weft::Array<" + std::string(types::cxxName(type->scalar)) + ", " + std::to_string(type->ndim) +
             ">";
    case TypeKind::Tuple: return tupleStructName(type);
    case TypeKind::Struct: return structName(type);
    case TypeKind::Atomic:
      // Spelled in struct members even where no atomic operation brings in the header.
      useHeader(sema::BuiltinHeader::Atomics);
      return "weft::Atomic<" + std::string(types::cxxName(type->scalar)) + ", " + std::to_string(type->align) + ">";
    case TypeKind::AtomicRef:
      useHeader(sema::BuiltinHeader::Atomics);
      return "weft::AtomicRef<" + std::string(types::cxxName(type->scalar)) + ">";
    case TypeKind::Vector:
      noteScalar(type->scalar);
      usesVectors_ = true;
      return "weft::Vector<" + std::string(types::cxxName(type->scalar)) + ", " + std::to_string(type->size) + ">";
    case TypeKind::InlineArray: {
      noteScalar(type->scalar);
      std::string name = "weft::InlineArray<" + std::string(types::cxxName(type->scalar));
      for (int64_t extent : type->shape) name += ", " + std::to_string(extent);
      return name + ">";
    }
    case TypeKind::Tile: return tileTypeName(type);
    case TypeKind::TileView: return typeName(type->elements[0]);  // a view is its array at run time
  }
  WEFT_CHECK(false, "unknown type kind");
  return {};
}

// Tuples become one struct per tuple type (fields f0, f1, ...), declared after the structs
// of their element types.
std::string CudaEmitter::tupleStructName(const Type* type) {
  auto found = tuples_.find(type);
  if (found != tuples_.end()) return found->second;
  std::vector<std::string> fields;
  for (const Type* element : type->elements) fields.push_back(typeName(element));
  std::string name = "weft_tuple_" + std::to_string(tuples_.size());
  tuples_.emplace(type, name);
  typeDecls_ += "// " + commentText(types::toString(type)) + "\nstruct " + name + " {";
  for (size_t i = 0; i < fields.size(); ++i) typeDecls_ += " " + fields[i] + " f" + std::to_string(i) + ";";
  typeDecls_ += " };\n";
  typeDecls_ += layoutAsserts(name, type);
  return name;
}

std::string CudaEmitter::localName(int local) const {
  WEFT_CHECK(function_ != nullptr && local >= 0 && static_cast<size_t>(local) < function_->locals.size(),
             "a local index out of range");
  return userName(NameKind::Local, function_->locals[local].name, static_cast<size_t>(local));
}

std::string CudaEmitter::functionName(int function) const {
  WEFT_CHECK(function >= 0 && static_cast<size_t>(function) < program_.functions.size(),
             "a callee index out of range");
  const sema::TypedFunction& callee = program_.functions[function];
  // An interoperable function is its extern "C" symbol (sema checked the name).
  if (callee.interop) return callee.pythonName;
  return userName(NameKind::Function, callee.name, static_cast<size_t>(function));
}

std::string CudaEmitter::freshTemp() {
  return "w_" + std::to_string(temps_++);
}

std::string CudaEmitter::returnTypeName(const Type* type) {
  return type->kind == TypeKind::None ? "void" : typeName(type);
}

std::string CudaEmitter::literal(const sema::TypedExpr& expr) {
  const Type* type = expr.type;
  if (type->kind == TypeKind::None) return "static_cast<void*>(nullptr)";
  WEFT_CHECK(type != nullptr && type->isScalar(), "a literal that is not a number");
  const sema::Literal& value = expr.literal;
  std::string cxx = typeName(type);
  switch (type->scalar) {
    case ScalarKind::Bool: return value.boolValue ? "true" : "false";
    case ScalarKind::Int32:
      // INT32_MIN has no literal: 2147483648 does not fit int.
      if (value.intValue == std::numeric_limits<int32_t>::min()) return "(-2147483647 - 1)";
      if (value.intValue >= std::numeric_limits<int32_t>::min() &&
          value.intValue <= std::numeric_limits<int32_t>::max()) {
        return value.intValue < 0 ? "(" + std::to_string(value.intValue) + ")"
                                  : std::to_string(value.intValue);
      }
      return "static_cast<int32_t>(" + std::to_string(value.intValue) + "LL)";
    case ScalarKind::Int8:
    case ScalarKind::Int16:
    case ScalarKind::Int64:
      if (value.intValue == std::numeric_limits<int64_t>::min())
        return "static_cast<" + cxx + ">(-9223372036854775807LL - 1)";
      return "static_cast<" + cxx + ">(" + std::to_string(value.intValue) + "LL)";
    case ScalarKind::UInt32:
      return std::to_string(static_cast<uint32_t>(static_cast<uint64_t>(value.intValue))) + "u";
    case ScalarKind::UInt8:
    case ScalarKind::UInt16:
    case ScalarKind::UInt64:
      return "static_cast<" + cxx + ">(" + std::to_string(static_cast<uint64_t>(value.intValue)) + "ULL)";
    case ScalarKind::Float16:
    case ScalarKind::BFloat16:
    case ScalarKind::Float8E4M3:
    case ScalarKind::Float8E5M2:
      // Converted from the double literal with one correct rounding on both targets.
      return "weft::cast<" + cxx + ">(" + floatingLiteral(value.floatValue, "") + ")";
    case ScalarKind::Float32: return floatingLiteral(static_cast<float>(value.floatValue), "f");
    case ScalarKind::Float64: return floatingLiteral(value.floatValue, "");
    case ScalarKind::Complex64:
      return "weft::complex64{" + floatingLiteral(static_cast<float>(value.floatValue), "f") + ", " +
             floatingLiteral(static_cast<float>(value.imagValue), "f") + "}";
    case ScalarKind::Complex128:
      return "weft::complex128{" + floatingLiteral(value.floatValue, "") + ", " +
             floatingLiteral(value.imagValue, "") + "}";
    case ScalarKind::TFloat32: break;  // a tile element type only: there are no tfloat32 scalars
  }
  WEFT_CHECK(false, "no literal of this scalar kind");
  return {};
}

std::string CudaEmitter::convertScalar(const std::string& code, ScalarKind from, const Type* to) {
  WEFT_CHECK(to->isScalar(), "a scalar converted to a non-scalar type");
  if (from == to->scalar) return code;
  // tfloat32, a tile element type only, converts by the tile header's rules (traits.h).
  if (from == ScalarKind::TFloat32 || to->scalar == ScalarKind::TFloat32)
    return "weft::tiles::convert<" + typeName(to) + ">(" + code + ")";
  return "weft::cast<" + typeName(to) + ">(" + code + ")";
}

// `code` (of type `from`) as a value of type `to`. Sema makes conversions explicit, so this
// only bridges types that C++ spells differently or that sema unified (tuples elementwise).
std::string CudaEmitter::convert(const std::string& code, const Type* from, const Type* to) {
  if (from == to) return code;
  WEFT_CHECK(from != nullptr && to != nullptr, "a conversion without types");
  if (from->isScalar() && to->isScalar()) return convertScalar(code, from->scalar, to);
  if ((from->isArray() && to->isArray()) || (from->kind == TypeKind::TileView && to->kind == TypeKind::TileView)) {
    // Memory spaces and launch facts differ only to sema; the descriptor is the same C++ type
    // (a partition view is its array).
    WEFT_CHECK(from->scalar == to->scalar && from->ndim == to->ndim,
               "an array converted to another element type or rank: " + types::toString(from) + " -> " +
                   types::toString(to));
    return code;
  }
  if (from->kind == TypeKind::Tuple && to->kind == TypeKind::Tuple) {
    WEFT_CHECK(from->elements.size() == to->elements.size(), "a tuple converted to another length");
    std::string temp = freshTemp();
    std::string target = typeName(to);
    std::string out = "[&]() -> " + target + " { " + typeName(from) + " " + temp + " = " + code +
                      "; return " + target + "{";
    for (size_t i = 0; i < to->elements.size(); ++i) {
      if (i) out += ", ";
      out += convert(temp + ".f" + std::to_string(i), from->elements[i], to->elements[i]);
    }
    return out + "}; }()";
  }
  if (to->kind == TypeKind::None) return code;
  WEFT_CHECK(false, "no conversion from " + types::toString(from) + " to " + types::toString(to));
  return {};
}

}  // namespace weft::codegen
