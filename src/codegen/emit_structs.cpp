// @struct classes as C++ structs, and the layout proofs every emitted aggregate carries: the
// specification's machine representation of a struct or tuple is a standard-layout class
// with one public member per field or element, in order; types::layoutOf computes that ABI
// and the static_asserts make the C++ compiler (NVRTC, nvcc, the host compiler) confirm it.
//
// A NumPy record places its fields itself: gaps become byte-array members, and in a packed
// record (alignment 1) a field that needs more alignment is a weft::Unaligned member, read with
// weft::load and written by byte copies (include/weft/device/array.h), never by an aligned
// access. Its sub-array fields are weft::InlineArray members.
#include "codegen/cuda_emitter.h"
#include "support/check.h"
#include "types/layout.h"

namespace weft::codegen {

using types::Type;
using types::TypeKind;

namespace {

// Whether field `index` of `type` is a weft::Unaligned member: a record aligned less than it.
bool unalignedMember(const Type* type, int index) {
  return type->isRecord() && types::layoutOf(type->elements[static_cast<size_t>(index)]).align >
                                 static_cast<uint64_t>(type->align);
}

}  // namespace

std::string CudaEmitter::fieldRead(const std::string& base, const Type* type, int index) {
  std::string access = "(" + base + ")." + memberName(type, index);
  return unalignedMember(type, index) ? "weft::load(" + access + ")" : access;
}

std::string CudaEmitter::structInitializer(const Type* type, const std::vector<std::string>& values) {
  WEFT_CHECK(values.size() == type->elements.size(), "a struct initializer with the wrong number of values");
  std::string out = "{";
  uint64_t end = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    // A record's padding members (before this field) take {} in the braced initializer.
    if (type->isRecord() && type->offsets[i] > end) out += "{}, ";
    out += values[i] + (i + 1 < values.size() ? ", " : "");
    if (type->isRecord()) end = type->offsets[i] + types::layoutOf(type->elements[i]).size;
  }
  return out + "}";
}

std::string CudaEmitter::memberName(const Type* type, int index) const {
  WEFT_CHECK(index >= 0 && static_cast<size_t>(index) < type->elements.size(), "a member index out of range");
  if (type->kind == TypeKind::Tuple) return "f" + std::to_string(index);
  WEFT_CHECK(type->kind == TypeKind::Struct, "members of a type that has none");
  return userName(NameKind::Member, type->fieldNames[static_cast<size_t>(index)], static_cast<size_t>(index));
}

std::string CudaEmitter::inlineElement(const sema::TypedExpr& e) {
  WEFT_CHECK(!e.operands.empty() && e.operands[0]->type->isInlineArray() &&
                 e.operands.size() == e.operands[0]->type->shape.size() + 1 &&
                 e.wrapNegative.size() == e.operands.size() - 1,
             "an inline array indexed with the wrong number of indices");
  std::string wraps;
  for (size_t i = 0; i < e.wrapNegative.size(); ++i)
    wraps += std::string(i ? ", " : "") + (e.wrapNegative[i] ? "true" : "false");
  return sequenced(e.operands, typeName(e.type), [&](const std::vector<std::string>& codes) {
    std::string out = "weft::get<" + wraps + ">(" + codes[0];
    for (size_t i = 1; i < codes.size(); ++i) out += ", " + codes[i];
    return out + ")";
  });
}

std::string CudaEmitter::inlineStore(const sema::TypedExpr& target, const std::string& value) {
  const sema::TypedExpr& field = *target.operands[0];
  WEFT_CHECK(field.kind == sema::TypedExprKind::TupleGet && field.operands[0]->type->isStruct(),
             "a store into an inline array that is not a record's field");
  std::string wraps;
  for (size_t i = 0; i < target.wrapNegative.size(); ++i)
    wraps += std::string(i ? ", " : "") + (target.wrapNegative[i] ? "true" : "false");
  // The member itself (an Unaligned one too), not a loaded copy.
  std::string out = "weft::store<" + wraps + ">((" + expr(*field.operands[0]) + ")." +
                    memberName(field.operands[0]->type, field.index) + ", " + value;
  for (size_t i = 1; i < target.operands.size(); ++i) out += ", " + expr(*target.operands[i]);
  return out + ")";
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
  uint64_t end = 0;
  int pads = 0;
  auto pad = [&](uint64_t until) {
    if (until > end)
      typeDecls_ +=
          " unsigned char weft_pad" + std::to_string(pads++) + "[" + std::to_string(until - end) + "];";
  };
  for (size_t i = 0; i < fields.size(); ++i) {
    int index = static_cast<int>(i);
    if (type->isRecord()) {
      pad(type->offsets[i]);
      end = type->offsets[i] + types::layoutOf(type->elements[i]).size;
    }
    std::string member = unalignedMember(type, index) ? "weft::Unaligned<" + fields[i] + ">" : fields[i];
    typeDecls_ += " " + member + " " + memberName(type, index) + ";";
  }
  if (type->isRecord()) pad(type->bytes);
  typeDecls_ += " };\n";
  typeDecls_ += layoutAsserts(name, type);
  return name;
}

}  // namespace weft::codegen
