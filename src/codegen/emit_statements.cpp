// Statements, each preceded by a #line directive that points at its Python line.
#include "codegen/cuda_emitter.h"
#include "support/check.h"

namespace weft::codegen {

using sema::TypedStmt;
using sema::TypedStmtKind;
using types::ScalarKind;
using types::Type;

namespace {

bool isLiteralOne(const sema::TypedExpr& expr, int sign) {
  const sema::TypedExpr* e = &expr;
  while (e->kind == sema::TypedExprKind::Cast) e = e->operands[0];
  if (e->kind != sema::TypedExprKind::Literal || !e->type->isScalar() || !types::isInteger(e->type->scalar))
    return false;
  return e->literal.intValue == sign && (sign > 0 || types::isSigned(e->type->scalar));
}

// Python truthiness of `code` as a C++ condition.
std::string truthCode(const std::string& code, const Type* type) {
  return type->isScalar() && type->scalar == ScalarKind::Bool ? code : "weft::truth(" + code + ")";
}

}  // namespace

void CudaEmitter::lineDirective(SourceLoc loc) {
  if (loc.line == 0 || loc.file >= sources_.size()) return;
  body_ += "#line " + std::to_string(loc.line) + " " + quoted(sources_.file(loc.file).name()) + "\n";
}

void CudaEmitter::line(int depth, const std::string& text) {
  body_.append(static_cast<size_t>(depth) * 2, ' ');
  body_ += text;
  body_ += '\n';
}

void CudaEmitter::block(const std::vector<TypedStmt*>& statements, int depth) {
  for (const TypedStmt* stmt : statements) statement(*stmt, depth);
}

void CudaEmitter::statement(const TypedStmt& stmt, int depth) {
  lineDirective(stmt.loc);
  auto condition = [&](const sema::TypedExpr& e) { return truthCode(expr(e), e.type); };
  switch (stmt.kind) {
    case TypedStmtKind::Assign: {
      WEFT_CHECK(stmt.operands.size() == 1, "Assign takes one operand");
      const Type* target = function_->locals.at(stmt.local).type;
      const sema::TypedExpr& value = *stmt.operands[0];
      const std::string name = localName(stmt.local);
      if (function_->locals.at(stmt.local).stageView) {
        line(depth, "const auto " + name + " = " + expr(value) + ";");
        return;
      }
      // A full tile (zeros(...)) for an mma accumulator is made in the accumulator's layout: a
      // conversion from the default layout would exchange every element through shared memory
      // (about 40 us of each 128 x 256 GEMM tile block on the H100).
      if (function_->locals.at(stmt.local).mmaOperands.first != nullptr && value.kind == sema::TypedExprKind::TileCall &&
          value.tileOp == sema::TileOp::Full && value.type == target) {
        usesTiles_ = true;
        line(depth, name + " = weft::tiles::full<decltype(" + name + ")>(" + expr(*value.operands.at(0)) + ");");
        return;
      }
      line(depth, name + " = " + convert(expr(value), value.type, target) + ";");
      return;
    }
    case TypedStmtKind::Store: {
      WEFT_CHECK(stmt.operands.size() == 2 && (stmt.operands[0]->kind == sema::TypedExprKind::ArrayElement ||
                                               stmt.operands[0]->kind == sema::TypedExprKind::InlineElement),
                 "Store needs an array element and a value");
      if (stmt.operands[0]->kind == sema::TypedExprKind::InlineElement) {
        // The value first, as Python evaluates it, then the place.
        std::string value = freshTemp();
        line(depth, "{ " + typeName(stmt.operands[0]->type) + " " + value + " = " +
                        convert(expr(*stmt.operands[1]), stmt.operands[1]->type, stmt.operands[0]->type) +
                        "; " + inlineStore(*stmt.operands[0], value) + "; }");
        return;
      }
      if (function_->tileCode) {
        // One store per tile block, of the value every thread computed (tile operations in it
        // are collective).
        std::string value = freshTemp();
        line(depth, "{ " + typeName(stmt.operands[0]->type) + " " + value + " = " +
                        convert(expr(*stmt.operands[1]), stmt.operands[1]->type, stmt.operands[0]->type) + ";");
        line(depth + 1, "if (weft::tiles::detail::thread_rank() == 0) " + expr(*stmt.operands[0]) + " = " + value + ";");
        line(depth, "}");
        return;
      }
      // C++17 evaluates the right operand of = first, as Python evaluates the value first.
      line(depth, expr(*stmt.operands[0]) + " = " +
                      convert(expr(*stmt.operands[1]), stmt.operands[1]->type, stmt.operands[0]->type) + ";");
      return;
    }
    case TypedStmtKind::Evaluate: {
      WEFT_CHECK(stmt.operands.size() == 1, "Evaluate takes one operand");
      const sema::TypedExpr& e = *stmt.operands[0];
      // print() in tile code: once per tile block (sema keeps tile operations out of it).
      bool once = function_->tileCode && e.kind == sema::TypedExprKind::BuiltinCall && e.builtin == sema::Builtin::Print;
      line(depth, std::string(once ? "if (weft::tiles::detail::thread_rank() == 0) " : "") + "static_cast<void>(" +
                      expr(e) + ");");
      return;
    }
    case TypedStmtKind::If:
      if (!stmt.targetCondition.empty()) {
        targetIf(stmt, depth);
        return;
      }
      WEFT_CHECK(stmt.operands.size() == 1, "If takes one condition");
      line(depth, "if (" + condition(*stmt.operands[0]) + ") {");
      block(stmt.body, depth + 1);
      if (!stmt.orelse.empty()) {
        line(depth, "} else {");
        block(stmt.orelse, depth + 1);
      }
      line(depth, "}");
      return;
    case TypedStmtKind::While: whileLoop(stmt, depth); return;
    case TypedStmtKind::ForRange:
      if (stmt.mmaPipeline) {
        mmaPipelineLoop(stmt, depth);
      } else {
        forRange(stmt, depth);
      }
      return;
    case TypedStmtKind::Break:
      WEFT_CHECK(!loops_.empty(), "break outside a loop");
      if (loops_.back().brokeFlag.empty()) {
        line(depth, "break;");
      } else {
        line(depth, "{ " + loops_.back().brokeFlag + " = true; break; }");
      }
      return;
    case TypedStmtKind::Continue:
      WEFT_CHECK(!loops_.empty(), "continue outside a loop");
      line(depth, "continue;");
      return;
    case TypedStmtKind::Return:
      if (stmt.operands.empty() || function_->isKernel) {
        WEFT_CHECK(stmt.operands.empty() || stmt.operands[0]->type->kind == types::TypeKind::None,
                   "a kernel returns a value");
        line(depth, "return;");
      } else {
        line(depth, "return " +
                        convert(expr(*stmt.operands[0]), stmt.operands[0]->type, function_->returnType) +
                        ";");
      }
      return;
    case TypedStmtKind::DeclareArray: {
      const Type* type = function_->locals.at(stmt.local).type;
      WEFT_CHECK(type->isArray() && stmt.shape.size() == static_cast<size_t>(type->ndim),
                 "DeclareArray of a local that is not an array of its rank");
      const ArrayStorage& storage = storage_.at(&stmt);
      // C order: the last dimension is contiguous; Fortran order (order='F'): the first.
      std::vector<uint64_t> strides(stmt.shape.size());
      uint64_t stride = 1;
      for (size_t k = 0; k < stmt.shape.size(); ++k) {
        size_t d = stmt.fortranOrder ? k : stmt.shape.size() - 1 - k;
        strides[d] = stride;
        stride *= static_cast<uint64_t>(stmt.shape[d]);
      }
      std::string shape, stridesText;
      for (size_t d = 0; d < stmt.shape.size(); ++d) {
        shape += (d ? ", " : "") + std::to_string(stmt.shape[d]) + "ull";
        stridesText += (d ? ", " : "") + std::to_string(strides[d]) + "ull";
      }
      line(depth, localName(stmt.local) + " = " + typeName(type) + "{" + storage.name + ", {" + shape +
                      "}, {" + stridesText + "}};");
      return;
    }
  }
  WEFT_CHECK(false, "unknown statement kind");
}

// while c: body else: orelse. The else clause runs when the condition ends the loop. Every
// iteration, `continue` included, passes the CPU target's checkpoint (WEFT_LOOP_CHECKPOINT,
// nothing on the GPU), so that no loop can keep a launch from being cancelled.
void CudaEmitter::whileLoop(const TypedStmt& stmt, int depth) {
  WEFT_CHECK(stmt.operands.size() == 1, "While takes one condition");
  std::string flag = stmt.orelse.empty() ? std::string() : freshTemp();
  std::string ticks = freshTemp();
  line(depth, "{");
  if (!flag.empty()) line(depth + 1, "bool " + flag + " = false;");
  line(depth + 1, "WEFT_LOOP_TICKS(" + ticks + ");");
  line(depth + 1, "while (" + truthCode(expr(*stmt.operands[0]), stmt.operands[0]->type) + ") {");
  line(depth + 2, "WEFT_LOOP_CHECKPOINT(" + ticks + ");");
  loops_.push_back(Loop{flag});
  block(stmt.body, depth + 2);
  loops_.pop_back();
  line(depth + 1, "}");
  if (!flag.empty()) {
    line(depth + 1, "if (!" + flag + ") {");
    block(stmt.orelse, depth + 2);
    line(depth + 1, "}");
  }
  line(depth, "}");
}

// for v in range(start, stop, step): the bounds are evaluated once, in order; a separate
// counter drives the loop, so assigning v in the body does not change the iteration and v
// keeps the last value it was given after the loop, as in Python. The counter never steps
// past `stop`, so it cannot overflow.
void CudaEmitter::forRange(const TypedStmt& stmt, int depth) {
  WEFT_CHECK(stmt.operands.size() == 3, "ForRange takes start, stop and step");
  const Type* type = function_->locals.at(stmt.local).type;
  WEFT_CHECK(type->isScalar() && types::isInteger(type->scalar),
             "a range loop variable that is not an integer");
  std::string cxx = typeName(type);
  std::string start = freshTemp(), stop = freshTemp(), step = freshTemp(), counter = freshTemp();
  std::string flag = stmt.orelse.empty() ? std::string() : freshTemp();
  line(depth, "{");
  line(depth + 1,
       cxx + " " + start + " = " + convert(expr(*stmt.operands[0]), stmt.operands[0]->type, type) + ";");
  line(depth + 1,
       cxx + " " + stop + " = " + convert(expr(*stmt.operands[1]), stmt.operands[1]->type, type) + ";");
  // A literal step of +-1 needs no variable: the counter steps with ++/-- and cannot pass
  // `stop` (it is < stop, resp. > stop, before the step).
  bool unitStep = (stmt.stepSign > 0 && isLiteralOne(*stmt.operands[2], 1)) ||
                  (stmt.stepSign < 0 && isLiteralOne(*stmt.operands[2], -1));
  if (!unitStep) {
    line(depth + 1,
         cxx + " " + step + " = " + convert(expr(*stmt.operands[2]), stmt.operands[2]->type, type) + ";");
  }
  if (!flag.empty()) line(depth + 1, "bool " + flag + " = false;");
  std::string test, next;
  if (unitStep) {
    test = counter + (stmt.stepSign > 0 ? " < " : " > ") + stop;
    next = (stmt.stepSign > 0 ? "++" : "--") + counter;
  } else {
    test = stmt.stepSign > 0   ? counter + " < " + stop
           : stmt.stepSign < 0 ? counter + " > " + stop
                               : "weft::range_continues(" + counter + ", " + stop + ", " + step + ")";
    next = counter + " = weft::range_next(" + counter + ", " + stop + ", " + step + ")";
  }
  std::string ticks = freshTemp();
  line(depth + 1, "WEFT_LOOP_TICKS(" + ticks + ");");
  if (!stmt.invariantMmaOperands.empty()) invariantMmaOperands(stmt, depth + 1);
  if (stmt.loopPrefetch) loopPrefetchStart(stmt, depth + 1, start, stop, counter);
  line(depth + 1, "for (" + cxx + " " + counter + " = " + start + "; " + test + "; " + next + ") {");
  line(depth + 2, "WEFT_LOOP_CHECKPOINT(" + ticks + ");");
  if (stmt.loopPrefetch) loopPrefetchNext(stmt, depth + 2, counter);
  line(depth + 2, localName(stmt.local) + " = " + counter + ";");
  loops_.push_back(Loop{flag});
  block(stmt.body, depth + 2);
  loops_.pop_back();
  line(depth + 1, "}");
  if (stmt.loopPrefetch) loopPrefetchFinish(stmt, depth + 1);
  if (!flag.empty()) {
    line(depth + 1, "if (!" + flag + ") {");
    block(stmt.orelse, depth + 2);
    line(depth + 1, "}");
  }
  line(depth, "}");
}

}  // namespace weft::codegen
