// @struct classes as C++ structs, and the layout proofs every emitted aggregate carries: the
// specification's machine representation of a struct or tuple is a standard-layout class
// with one public member per field or element, in order; types::layoutOf computes that ABI
// and the static_asserts make the C++ compiler (NVRTC, nvcc, the host compiler) confirm it.
#include "codegen/cuda_emitter.h"
#include "support/check.h"
#include "types/layout.h"

namespace weft::codegen {

using types::Type;
using types::TypeKind;

std::string CudaEmitter::memberName(const Type* type, int index) const {
  WEFT_CHECK(index >= 0 && static_cast<size_t>(index) < type->elements.size(), "a member index out of range");
  if (type->kind == TypeKind::Tuple) return "f" + std::to_string(index);
  WEFT_CHECK(type->kind == TypeKind::Struct, "members of a type that has none");
  return userName(NameKind::Member, type->fieldNames[static_cast<size_t>(index)], static_cast<size_t>(index));
}

// NVRTC cannot evaluate offsetof in a constant expression, so the offsets are asserted where
// the unit is compiled by nvcc or the host compiler (the CPU target compiles every unit);
// under NVRTC the size, alignment and standard layout (with each member's own type asserted
// where it is declared) fix the offsets by the ABI's layout rules.
std::string CudaEmitter::layoutAsserts(const std::string& cxxName, const Type* type) {
  types::Layout layout = types::layoutOf(type);
  std::string what = quoted("the machine representation of " + types::toString(type));
  std::string out = "static_assert(sizeof(" + cxxName + ") == " + std::to_string(layout.size) + " && alignof(" +
                    cxxName + ") == " + std::to_string(layout.align) + " && __is_standard_layout(" + cxxName +
                    "), " + what + ");\n";
  if (type->elements.empty()) return out;
  std::string offsets;
  for (size_t i = 0; i < type->elements.size(); ++i) {
    offsets += std::string(i ? " && " : "") + "__builtin_offsetof(" + cxxName + ", " +
               memberName(type, static_cast<int>(i)) + ") == " + std::to_string(layout.offsets[i]);
  }
  return out + "#if !defined(__CUDACC_RTC__)\nstatic_assert(" + offsets + ", " + what + ");\n#endif\n";
}

// A struct type becomes s_<name>_<n>, n counting the unit's struct types, so that two classes
// of one name (from two modules) stay apart.
std::string CudaEmitter::structName(const Type* type) {
  auto found = structs_.find(type);
  if (found != structs_.end()) return found->second;
  std::vector<std::string> fields;
  for (const Type* element : type->elements) fields.push_back(typeName(element));
  std::string name = userName(NameKind::Struct, type->name, structs_.size());
  structs_.emplace(type, name);
  typeDecls_ += "// @struct " + commentText(type->name) + "\nstruct ";
  if (type->align > 0) typeDecls_ += "alignas(" + std::to_string(type->align) + ") ";
  typeDecls_ += name + " {";
  for (size_t i = 0; i < fields.size(); ++i)
    typeDecls_ += " " + fields[i] + " " + memberName(type, static_cast<int>(i)) + ";";
  typeDecls_ += " };\n";
  typeDecls_ += layoutAsserts(name, type);
  return name;
}

}  // namespace weft::codegen
