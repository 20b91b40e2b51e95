// Global NumPy arrays in device code (issue 10, item 2): numba's semantics, the contents when
// the kernel is compiled, carried by the program as read-only data (codegen places it in
// constant memory where it fits). A store into one is a compile error.
#include "sema/checker.h"
#include "support/check.h"

namespace weft::sema {

Value FunctionChecker::constantArray(const std::shared_ptr<const ConstArray>& array, SourceLoc loc) {
  std::optional<types::ScalarKind> kind = types::scalarFromName(array->dtype);
  WEFT_CHECK(kind.has_value() && !array->shape.empty(), "a constant array of a number dtype, at least 1-d");
  // The data travels in the generated source: beyond this, compiling it would take long.
  constexpr size_t kMaxBytes = size_t{4} << 20;
  if (array->bytes.size() > kMaxBytes) {
    sink.error(diag::ConstantArrayTooLarge, loc, {std::to_string(array->bytes.size()), std::to_string(kMaxBytes)});
    return errorValue();
  }
  const types::Type* type = types.array(*kind, static_cast<int>(array->shape.size()), types::MemorySpace::Constant);
  TypedExpr* data = make(TypedExprKind::ConstantArray, type, loc);
  data->index = program.constantArray(array);
  return runtime(data);
}

bool FunctionChecker::writableArray(const Value& array, SourceLoc loc) {
  if (array.isError() || !array.type()->isArray() || array.type()->space != types::MemorySpace::Constant) return true;
  sink.error(diag::ConstantArrayStore, loc, {describe(array)});
  return false;
}

}  // namespace weft::sema
