// Views of arrays: each view expression is one call of include/weft/device/array_views.h,
// whose first argument is its check site and whether a failed precondition stops the thread.
#include "codegen/cuda_emitter.h"
#include "support/check.h"

namespace weft::codegen {

using sema::TypedExpr;
using sema::TypedExprKind;

namespace {

const char* boolText(bool value) {
  return value ? "true" : "false";
}

}  // namespace

std::string CudaEmitter::arrayView(const TypedExpr& e) {
  WEFT_CHECK(!e.operands.empty() && e.operands[0]->type->isArray() && e.type->isArray(),
             "a view of a non-array");
  // The site reports an index out of bounds (where the unit's checks run) and, when checked
  // (debug=True), a failed precondition.
  std::string site = "weft::ViewSite<" + std::string(boolText(e.checked)) + ">{" + checkSite(e) + "u}";
  if (e.kind == TypedExprKind::ArrayView) {
    WEFT_CHECK(e.operands.size() == 1 && e.type->ndim == e.operands[0]->type->ndim,
               "view() changes the rank");
    std::string element =
        e.type->element != nullptr ? typeName(e.type->element) : types::cxxName(e.type->scalar);
    if (e.type->element == nullptr) noteScalar(e.type->scalar);
    return "weft::view<" + element + ">(" + site + ", " + expr(*e.operands[0]) + ")";
  }
  if (e.kind == TypedExprKind::ArrayReshape) {
    WEFT_CHECK(e.operands.size() == static_cast<size_t>(e.type->ndim) + 1,
               "reshape() without one operand per dimension");
    return sequenced(e.operands, typeName(e.type), [&](const std::vector<std::string>& codes) {
      std::string out = "weft::reshape(" + site;
      for (const std::string& code : codes) out += ", " + code;
      return out + ")";
    });
  }
  WEFT_CHECK(e.kind == TypedExprKind::ArraySlice, "arrayView of a non-view expression");
  WEFT_CHECK(e.axes.size() == static_cast<size_t>(e.operands[0]->type->ndim),
             "a slice without one axis per dimension");
  return sequenced(e.operands, typeName(e.type), [&](const std::vector<std::string>& codes) {
    std::string out = "weft::slice<" + std::to_string(e.type->ndim) + ">(" + site + ", " + codes[0];
    size_t next = 1;
    for (const sema::ArrayAxis& axis : e.axes) {
      WEFT_CHECK(next < codes.size(), "a slice with too few operands");
      if (axis.isIndex) {
        out += ", weft::IndexAxis<" + std::string(boolText(axis.wrap)) + ">{" + codes[next++] + "}";
        continue;
      }
      std::string start = axis.hasStart ? codes[next++] : "0";
      std::string stop = axis.hasStop ? codes[next++] : "0";
      WEFT_CHECK(next < codes.size(), "a slice without its step");
      out += ", weft::SliceAxis<" + std::string(boolText(axis.hasStart)) + ", " + boolText(axis.hasStop) +
             ">{" + start + ", " + stop + ", " + codes[next++] + "}";
    }
    WEFT_CHECK(next == codes.size(), "a slice with operands left over");
    return out + ")";
  });
}

}  // namespace weft::codegen
