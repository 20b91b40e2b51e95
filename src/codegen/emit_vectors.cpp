// Vectors (include/weft/device/vector.h), the parts of numbers (x.real, x.imag,
// x.conjugate()), and the headers that narrow floats and vectors need: a unit includes
// CUDA's fp16/bf16/fp8 headers only when it uses those types (DESIGN.md section 5).
#include "codegen/cuda_emitter.h"
#include "support/check.h"
#include "types/promotion.h"

namespace weft::codegen {

using sema::TypedExpr;
using types::ScalarKind;

void CudaEmitter::noteScalar(ScalarKind kind) {
  usesFloat16_ = usesFloat16_ || kind == ScalarKind::Float16;
  usesBFloat16_ = usesBFloat16_ || kind == ScalarKind::BFloat16;
  usesFloat8_ = usesFloat8_ || kind == ScalarKind::Float8E4M3 || kind == ScalarKind::Float8E5M2;
}

std::string CudaEmitter::typeHeaders() const {
  std::string out;
  // cuda_fp8.h includes the float16 and bfloat16 headers, so fp8 defines all three.
  if (usesFloat16_ || usesFloat8_) out += "#define WEFT_FLOAT16 1\n";
  if (usesBFloat16_ || usesFloat8_) out += "#define WEFT_BFLOAT16 1\n";
  if (usesFloat8_) out += "#define WEFT_FLOAT8 1\n";
  if (usesFloat16_ || usesBFloat16_ || usesFloat8_) out += "#include <weft/device/fp16.h>\n";
  if (usesVectors_) out += "#include <weft/device/vector.h>\n";
  return out;
}

std::string CudaEmitter::vectorMake(const TypedExpr& e) {
  WEFT_CHECK(e.type->isVector() && e.operands.size() == static_cast<size_t>(e.type->size),
             "a vector made of the wrong number of elements");
  std::string type = typeName(e.type);
  return sequenced(e.operands, type, [&](const std::vector<std::string>& codes) {
    std::string out = type + "{{";
    for (size_t i = 0; i < codes.size(); ++i) {
      if (i) out += ", ";
      WEFT_CHECK(e.operands[i]->type->isScalar() && e.operands[i]->type->scalar == e.type->scalar,
                 "a vector element of another type than the vector's dtype");
      out += codes[i];
    }
    return out + "}}";
  });
}

std::string CudaEmitter::vectorElement(const TypedExpr& e) {
  WEFT_CHECK(!e.operands.empty() && e.operands[0]->type->isVector(), "an element of a non-vector");
  const types::Type* vector = e.operands[0]->type;
  WEFT_CHECK(e.type->isScalar() && e.type->scalar == vector->scalar, "a vector element of the wrong type");
  if (e.operands.size() == 1) {
    WEFT_CHECK(e.index >= 0 && e.index < vector->size, "a vector component out of range");
    return "(" + expr(*e.operands[0]) + ").v[" + std::to_string(e.index) + "]";
  }
  WEFT_CHECK(e.operands.size() == 2 && e.operands[1]->type->isScalar(),
             "a vector index that is not a number");
  return sequenced(e.operands, typeName(e.type), [&](const std::vector<std::string>& codes) {
    return "weft::vector_get(" + codes[0] + ", " + codes[1] + ")";
  });
}

std::string CudaEmitter::complexPart(const TypedExpr& e) {
  WEFT_CHECK(e.operands.size() == 1 && e.operands[0]->type->isScalar(), "a part of a non-number");
  ScalarKind kind = e.operands[0]->type->scalar;
  std::string operand = expr(*e.operands[0]);
  if (!types::isComplex(kind)) {
    // A real number is its own real part and conjugate; its imaginary part is 0 of its type.
    if (e.builtin == sema::Builtin::ImagPart) return "weft::cast<" + typeName(e.type) + ">(0)";
    return convertScalar(operand, kind, e.type);
  }
  if (e.builtin == sema::Builtin::Conjugate) return "weft::conjugate(" + operand + ")";
  WEFT_CHECK(e.builtin == sema::Builtin::RealPart || e.builtin == sema::Builtin::ImagPart,
             "complexPart of another builtin");
  std::string part = e.builtin == sema::Builtin::RealPart ? ").re" : ").im";
  return convertScalar("(" + operand + part, types::realPartOf(kind), e.type);
}

}  // namespace weft::codegen
