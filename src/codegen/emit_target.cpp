// Target specialization: `if target(desc):` becomes a preprocessor test on __CUDA_ARCH__, as
// the specification's table shows, so that the host compile (-DWEFT_HOST, where the macro is
// undefined) and each GPU architecture's NVRTC compile keep only their own branch of one
// emitted translation unit.
#include "codegen/cuda_emitter.h"
#include "support/check.h"

namespace weft::codegen {

void CudaEmitter::targetIf(const sema::TypedStmt& stmt, int depth) {
  WEFT_CHECK(stmt.operands.empty(), "a target if has no run-time condition");
  requireFeatures(stmt.targetFeatures);
  body_ += "#if " + stmt.targetCondition + "\n";
  block(stmt.body, depth);
  if (!stmt.orelse.empty()) {
    body_ += "#else\n";
    block(stmt.orelse, depth);
  }
  body_ += "#endif\n";
}

}  // namespace weft::codegen
