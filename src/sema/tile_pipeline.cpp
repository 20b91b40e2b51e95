// Recognizes the K loops of matrix products in tile code, which codegen lowers as one pipelined
// operation (include/weft/tiles/mma_pipeline.h: the operand loads of later steps overlap the
// tensor-core work of the current one). A loop qualifies when reordering its loads cannot be
// observed: its body is
//
//   x = load(a, index_a, (M, K)); y = load(b, index_b, (K, N)); acc = mma(x, y, acc)
//
// (the loads may also be written inside the mma, in any order), a and b are 2-D arrays of a
// tensor-core operand type (float16, bfloat16, int8, uint8, float64) loaded with zero padding and
// without debug=True's checks, the indices are computed without effects or traps
// from the loop variable and values the loop does not assign, the loop steps by 1 and has no
// else, and x, y and the loop variable are read nowhere else (their values after the loop are
// never observed).
#include <algorithm>
#include <map>

#include "sema/checker.h"

namespace weft::sema {
namespace {

// The stages of a loop: the most whose ring takes at most kRingTarget bytes, at least 2 (on the
// H100, 128 x 128 x 64 bf16 tiles ran fastest with 2 stages, 128 x 128 x 32 with 4), within
// kRingBudget: with the tile scratch buffer, the dynamic shared memory of every GPU with
// cp.async (sm_80: 163 KiB).
constexpr int64_t kRingTarget = 64 * 1024, kRingBudget = 144 * 1024;
constexpr int kMaxStages = 4;

bool isIntegerScalar(const types::Type* type) { return type->isScalar() && types::isInteger(type->scalar); }

// Bytes of one stage: an a tile and a b tile.
int64_t stageBytes(const TypedExpr& loadA, const TypedExpr& loadB) {
  const std::vector<int64_t>& a = loadA.type->shape;
  const std::vector<int64_t>& b = loadB.type->shape;
  return (a[0] * a[1] + b[0] * b[1]) * types::byteSize(loadA.type->scalar);
}

using Reads = std::map<int, int>;  // local -> times an expression reads it

void countReads(const TypedExpr& e, Reads& reads) {
  if (e.kind == TypedExprKind::Local) ++reads[e.local];
  for (const TypedExpr* operand : e.operands) countReads(*operand, reads);
}

// Whether evaluating `e` (an index of a load) earlier or more than once cannot be observed:
// arithmetic that cannot trap, reading locals the loop does not assign, the block's position.
bool isPureIndex(const TypedExpr& e, const std::vector<int>& assignedInLoop) {
  for (const TypedExpr* operand : e.operands)
    if (!isPureIndex(*operand, assignedInLoop)) return false;
  switch (e.kind) {
    case TypedExprKind::Literal:
    case TypedExprKind::ArrayShape:
    case TypedExprKind::ArraySize:
      return true;
    case TypedExprKind::Cast:
      return isIntegerScalar(e.type) && isIntegerScalar(e.operands[0]->type);
    case TypedExprKind::Local:
      return std::find(assignedInLoop.begin(), assignedInLoop.end(), e.local) == assignedInLoop.end();
    case TypedExprKind::Unary:
      return isIntegerScalar(e.type);
    case TypedExprKind::Binary:
      return isIntegerScalar(e.type) &&
             (e.binaryOp == BinaryOp::Add || e.binaryOp == BinaryOp::Sub || e.binaryOp == BinaryOp::Mul);
    case TypedExprKind::TileCall:
      return e.tileOp == TileOp::Bid || e.tileOp == TileOp::NumBlocks;
    default:
      return false;
  }
}

// The Load that operand `e` of the mma stands for: a Load itself, or a local the body assigns
// from one (`definitions`) and that is read only there.
const TypedExpr* loadOf(const TypedExpr& e, const std::map<int, const TypedExpr*>& definitions, const Reads& reads) {
  const TypedExpr* load = &e;
  if (e.kind == TypedExprKind::Local) {
    auto found = definitions.find(e.local);
    if (found == definitions.end() || reads.at(e.local) != 1) return nullptr;
    load = found->second;
  }
  return load->kind == TypedExprKind::TileCall && load->tileOp == TileOp::Load ? load : nullptr;
}

// The element types of the tensor cores' operands (mma_pipeline.h has a cp.async path for each).
bool pipelinesElement(const types::Type* tile) {
  using types::ScalarKind;
  const ScalarKind k = tile->scalar;
  return k == ScalarKind::Float16 || k == ScalarKind::BFloat16 || k == ScalarKind::Int8 || k == ScalarKind::UInt8 ||
         k == ScalarKind::Float64;
}

// The loop `loop` as a pipelined K loop of `function`, if it is one (see the file comment).
std::optional<MmaPipeline> pipelineOf(const TypedStmt& loop, const Reads& reads) {
  if (loop.kind != TypedStmtKind::ForRange || !loop.orelse.empty() || loop.stepSign <= 0 || loop.body.empty()) return {};
  const TypedExpr* step = loop.operands[2];
  while (step->kind == TypedExprKind::Cast) step = step->operands[0];
  if (step->kind != TypedExprKind::Literal || step->literal.intValue != 1) return {};
  const TypedStmt& last = *loop.body.back();
  if (last.kind != TypedStmtKind::Assign || last.operands[0]->kind != TypedExprKind::TileCall ||
      last.operands[0]->tileOp != TileOp::Mma)
    return {};
  const TypedExpr& mma = *last.operands[0];
  const int acc = last.local;
  if (mma.operands[2]->kind != TypedExprKind::Local || mma.operands[2]->local != acc) return {};
  std::map<int, const TypedExpr*> definitions;
  std::vector<int> assigned{acc};
  for (size_t i = 0; i + 1 < loop.body.size(); ++i) {
    const TypedStmt& s = *loop.body[i];
    if (s.kind != TypedStmtKind::Assign || s.local == acc || definitions.count(s.local)) return {};
    definitions[s.local] = s.operands[0];
    assigned.push_back(s.local);
  }
  const TypedExpr* loads[2] = {loadOf(*mma.operands[0], definitions, reads), loadOf(*mma.operands[1], definitions, reads)};
  if (!loads[0] || !loads[1] || definitions.size() != static_cast<size_t>((mma.operands[0] != loads[0]) + (mma.operands[1] != loads[1])))
    return {};
  // The loop variable is read by the loads' indices only.
  Reads indexReads;
  for (const TypedExpr* load : loads) {
    const TypedExpr& array = *load->operands[0];
    // A checked load (debug=True) keeps its run-time check: the loop stays as written.
    if (array.kind != TypedExprKind::Local || !array.type->isArray() || array.type->ndim != 2 ||
        !pipelinesElement(load->type) || load->ints.at(0) != static_cast<int64_t>(TilePadding::Zero) || load->checked)
      return {};
    for (size_t i = 1; i < load->operands.size(); ++i) {
      if (!isPureIndex(*load->operands[i], assigned)) return {};
      countReads(*load->operands[i], indexReads);
    }
  }
  auto readsOf = [](const Reads& r, int local) {
    auto found = r.find(local);
    return found == r.end() ? 0 : found->second;
  };
  if (readsOf(reads, loop.local) != readsOf(indexReads, loop.local)) return {};
  const int64_t bytes = stageBytes(*loads[0], *loads[1]);
  int stages = kMaxStages;
  while (stages > 2 && stages * bytes > kRingTarget) --stages;
  if (stages * bytes > kRingBudget) return {};
  return MmaPipeline{loads[0], loads[1], acc, stages};
}

void markLoops(const std::vector<TypedStmt*>& body, const Reads& reads, uint32_t& sharedBytes) {
  for (TypedStmt* s : body) {
    s->mmaPipeline = pipelineOf(*s, reads);
    if (s->mmaPipeline) {
      const int64_t bytes = s->mmaPipeline->stages * stageBytes(*s->mmaPipeline->loadA, *s->mmaPipeline->loadB);
      sharedBytes = std::max(sharedBytes, static_cast<uint32_t>(bytes));
      continue;
    }
    markLoops(s->body, reads, sharedBytes);
    markLoops(s->orelse, reads, sharedBytes);
  }
}

}  // namespace

void markMmaPipelines(TypedProgram& program) {
  for (const TypedFunction& function : program.functions) {
    if (!function.tileCode) continue;
    Reads reads;
    forEachExpr(function.body, [&](const TypedExpr& e) {
      if (e.kind == TypedExprKind::Local) ++reads[e.local];
    });
    markLoops(function.body, reads, program.tileSharedBytes);
  }
}

}  // namespace weft::sema
