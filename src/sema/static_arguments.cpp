// Functions and types as values (issue 10, item 3): a device function, lambda, builtin, math
// function, intrinsic, number type or struct class passed to a device function is a static
// argument. It has no run-time form: it specializes the callee, whose parameter then names it
// (as a ConstExpr parameter names its value), so `apply(f, x)` calls `f` by identity.
#include "sema/checker.h"

namespace weft::sema {

bool isStaticArgument(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Function:
    case Value::Kind::NumberType:
    case Value::Kind::StructType:
    case Value::Kind::Module:
    case Value::Kind::PyBuiltin:
    case Value::Kind::StaticTuple: return true;
    case Value::Kind::Intrinsic:
      // warp_size and lane_id are numbers.
      return v.intrinsic != Intrinsic::WarpSize && v.intrinsic != Intrinsic::LaneId;
    case Value::Kind::Error:
    case Value::Kind::RunTime:
    case Value::Kind::Constant:
    case Value::Kind::Method: return false;
  }
  return false;
}

std::string staticArgumentKey(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Function: return "function " + std::to_string(v.function->identity);
    case Value::Kind::NumberType:
      return "type " + std::to_string(static_cast<int>(v.scalar)) + "x" + std::to_string(v.vectorSize) +
             (v.warpMask ? "mask" : "");
    case Value::Kind::StructType:
      return "struct " + std::to_string(v.structSource->identity) + "/" + std::to_string(v.structSource->align);
    case Value::Kind::Module:
    case Value::Kind::PyBuiltin: return v.name;
    case Value::Kind::StaticTuple: {
      // Its elements' keys in order: a constant element by its value.
      std::string key = "tuple(";
      for (const Value& element : v.elements)
        key += (element.kind == Value::Kind::Constant ? "constant " + toString(*element.constant) : staticArgumentKey(element)) + ", ";
      return key + ")";
    }
    case Value::Kind::Intrinsic:
      return "intrinsic " + v.name + " " + std::to_string(static_cast<int>(v.intrinsic)) + " " +
             std::to_string(static_cast<int>(v.math)) + " " + std::to_string(static_cast<int>(v.scalar));
    case Value::Kind::Error:
    case Value::Kind::RunTime:
    case Value::Kind::Constant:
    case Value::Kind::Method: break;
  }
  return "";
}

Value FunctionChecker::lambdaValue(const syntax::LambdaExpr& e) {
  // The lambda is a function of the file it is written in, found again by the position of its
  // body (check_function.cpp: lambdaDefinition); it sees the module's globals, not the locals
  // of the function around it.
  const FunctionSource& around = *spec().source;
  auto source = std::make_shared<FunctionSource>();
  source->file = around.file;
  source->line = e.loc.line;
  source->name = "<lambda>";
  source->bodyLine = e.body->loc.line;
  source->bodyColumn = e.body->loc.column;
  source->identity = around.identity ^ (uint64_t{e.loc.line} << 32 | e.loc.column) ^ 0x9e3779b97f4a7c15ull;
  source->globals = around.globals;
  Value v;
  v.kind = Value::Kind::Function;
  v.function = std::move(source);
  v.name = "lambda";
  return v;
}

}  // namespace weft::sema
