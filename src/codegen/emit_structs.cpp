// @struct classes as C++ structs, and the layout proofs every emitted aggregate carries: the
// specification's machine representation of a struct or tuple is a standard-layout class
// with one public member per field or element, in order; types::layoutOf computes that ABI
// and the static_asserts make the C++ compiler (NVRTC, nvcc, the host compiler) confirm it.
#include "codegen/cuda_emitter.h"
#include "support/check.h"
#include "support/identifiers.h"
#include "types/layout.h"

namespace weft::codegen {

using types::Type;
using types::TypeKind;

namespace {

// A Python identifier usable as a C++ member or struct name ("weft" would shadow weft's
// namespace inside the struct).
bool plainIdentifier(const std::string& name) { return name != "weft" && isPlainCxxIdentifier(name); }

}  // namespace

std::string CudaEmitter::memberName(const Type* type, int index) const {
  WEFT_CHECK(index >= 0 && static_cast<size_t>(index) < type->elements.size(), "a member index out of range");
  if (type->kind == TypeKind::Tuple) return "f" + std::to_string(index);
  WEFT_CHECK(type->kind == TypeKind::Struct, "members of a type that has none");
  const std::string& name = type->fieldNames[static_cast<size_t>(index)];
  // Members keep their Python names where C++ allows it (readable interop), else get a suffix.
  return plainIdentifier(name) ? name : "field" + std::to_string(index);
}

// NVRTC cannot evaluate offsetof in a constant expression, so the offsets are asserted where
// the unit is compiled by nvcc or the host compiler (the CPU target compiles every unit);
// under NVRTC the size, alignment and standard layout (with each member's own type asserted
// where it is declared) fix the offsets by the ABI's layout rules.
std::string CudaEmitter::layoutAsserts(const std::string& cxxName, const Type* type) {
  types::Layout layout = types::layoutOf(type);
  std::string what = "\"the machine representation of " + types::toString(type) + "\"";
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

// A struct type becomes `weft_structs::Name` (the namespace keeps user names away from every
// other C++ name); two different classes of one name get Name and Name_2.
std::string CudaEmitter::structName(const Type* type) {
  auto found = structs_.find(type);
  if (found != structs_.end()) return found->second;
  std::vector<std::string> fields;
  for (const Type* element : type->elements) fields.push_back(typeName(element));
  std::string base = plainIdentifier(type->name) ? type->name : "record";
  int uses = ++structNameUses_[base];
  std::string name = uses == 1 ? base : base + "_" + std::to_string(uses);
  std::string qualified = "weft_structs::" + name;
  structs_.emplace(type, qualified);
  typeDecls_ += "// @struct " + type->name + "\nnamespace weft_structs {\nstruct ";
  if (type->align > 0) typeDecls_ += "alignas(" + std::to_string(type->align) + ") ";
  typeDecls_ += name + " {";
  for (size_t i = 0; i < fields.size(); ++i) typeDecls_ += " " + fields[i] + " " + memberName(type, static_cast<int>(i)) + ";";
  typeDecls_ += " };\n}  // namespace weft_structs\n";
  typeDecls_ += layoutAsserts(qualified, type);
  return qualified;
}

}  // namespace weft::codegen
