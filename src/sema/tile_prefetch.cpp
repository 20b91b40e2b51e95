// Finds the loads of tile loops that can be issued iterations ahead (LoopPrefetch), so that a
// step's global loads overlap the previous step's work (include/weft/tiles/loop_prefetch.h). A
// range loop of tile code qualifies when it steps by 1 and its body contains no loop, no return
// and nothing that writes memory (no store, scatter or atomic, no call of a function): then no
// iteration can change what a later one loads. A load of it is prefetched when it is evaluated
// in every iteration (it is part of a statement of the loop's own body, not of a nested if), it
// reads a parameter of the kernel that the kernel never rebinds nor writes nor passes to a
// function, with zero padding and without debug=True's checks, at indices computed without
// effects or traps from the loop variable and values the loop does not assign (isPureIndex, the
// rule of the K loops of matrix products). Its stages are laid out one after another in the
// block's dynamic shared memory, as many loads as fit kTileRingBudget. A prefetched load whose
// value reaches only mma operands is passed to mma as its stage (LoopPrefetch::Load::mmaOperand).
//
// Also here, for every range loop of tile code but the K loops: the mma calls whose a-operand is
// a 16-bit tile the loop does not assign (TypedStmt::invariantMmaOperands), whose fragments are
// then loaded once before the loop.
#include <algorithm>
#include <map>

#include "sema/checker.h"

namespace weft::sema {
namespace {

// Stages of a prefetched loop: each load is issued one iteration ahead (FlashAttention-2's depth
// for its key and value tiles), so its stages are that iteration's and the one being read.
constexpr int kStages = 2;
// Stages start on 1024-byte boundaries of a ring that starts on one (the header's
// kLoopRingAlignment: up to that many bytes of the dynamic shared memory go before it), the period
// of the 128-byte swizzle that wgmma's descriptors read a stage's slabs with on sm_90a.
constexpr uint32_t kStageAlignment = 1024;

// Whether `e` or an operand of it writes memory, or may (a call of a function).
bool writes(const TypedExpr& e) {
  if (e.kind == TypedExprKind::Call) return true;
  if (e.kind == TypedExprKind::BuiltinCall && builtinHasEffects(e.builtin)) return true;
  if (e.kind == TypedExprKind::TileCall &&
      (e.tileOp == TileOp::Store || e.tileOp == TileOp::Scatter || e.tileOp == TileOp::Atomic))
    return true;
  return std::any_of(e.operands.begin(), e.operands.end(), [](const TypedExpr* operand) { return writes(*operand); });
}

// The locals that `body` assigns or loops over, at any depth.
void assignedIn(const std::vector<TypedStmt*>& body, std::vector<int>& assigned) {
  for (const TypedStmt* s : body) {
    if (s->local >= 0) assigned.push_back(s->local);
    assignedIn(s->body, assigned);
    assignedIn(s->orelse, assigned);
  }
}

// Whether the loop body `body` keeps what its loads read unchanged and runs each iteration to its
// end or to a break/continue: no nested loop, no return, no write.
bool isPlainBody(const std::vector<TypedStmt*>& body) {
  for (const TypedStmt* s : body) {
    switch (s->kind) {
      case TypedStmtKind::ForRange:
      case TypedStmtKind::While:
      case TypedStmtKind::Return:
      case TypedStmtKind::Store:
      case TypedStmtKind::DeclareArray:
        return false;
      case TypedStmtKind::Assign:
      case TypedStmtKind::Evaluate:
      case TypedStmtKind::If:
      case TypedStmtKind::Break:
      case TypedStmtKind::Continue:
        break;
    }
    if (std::any_of(s->operands.begin(), s->operands.end(), [](const TypedExpr* e) { return writes(*e); })) return false;
    if (!isPlainBody(s->body) || !isPlainBody(s->orelse)) return false;
  }
  return true;
}

// Whether `function` may write through the array local `local` or rebind it: a store, scatter or
// atomic on it, an element store, a call it is passed to, an assignment of it.
bool mayChange(const TypedFunction& function, int local) {
  bool changes = false;
  const auto reads = [&](const TypedExpr& e) {
    bool found = false;
    const auto visit = [&](const auto& self, const TypedExpr& x) -> void {
      found = found || (x.kind == TypedExprKind::Local && x.local == local);
      for (const TypedExpr* operand : x.operands) self(self, *operand);
    };
    visit(visit, e);
    return found;
  };
  forEachExpr(function.body, [&](const TypedExpr& e) {
    if (e.kind == TypedExprKind::Call)
      changes = changes || std::any_of(e.operands.begin(), e.operands.end(), [&](const TypedExpr* a) { return reads(*a); });
    if (e.kind == TypedExprKind::TileCall &&
        (e.tileOp == TileOp::Store || e.tileOp == TileOp::Scatter || e.tileOp == TileOp::Atomic))
      changes = changes || reads(*e.operands.at(0));
  });
  const auto visitStmts = [&](const auto& self, const std::vector<TypedStmt*>& body) -> void {
    for (const TypedStmt* s : body) {
      changes = changes || s->local == local;
      if (s->kind == TypedStmtKind::Store) changes = changes || reads(*s->operands.at(0));
      self(self, s->body);
      self(self, s->orelse);
    }
  };
  visitStmts(visitStmts, function.body);
  return changes;
}

// Whether `load` (a TileCall Load evaluated in every iteration of a loop assigning `assigned`) may
// be issued ahead.
bool isPrefetchable(const TypedFunction& function, const TypedExpr& load, const std::vector<int>& assigned) {
  const TypedExpr& array = *load.operands.at(0);
  if (load.checked || load.ints.at(0) != static_cast<int64_t>(TilePadding::Zero) || array.kind != TypedExprKind::Local ||
      !array.type->isArray() || !function.isKernel ||
      std::find(function.params.begin(), function.params.end(), array.local) == function.params.end() ||
      mayChange(function, array.local))
    return false;
  for (size_t i = 1; i < load.operands.size(); ++i)
    if (!isPureIndex(*load.operands[i], assigned)) return false;
  return true;
}

// The loads of `e` that may be issued ahead, outermost first.
void collectLoads(const TypedFunction& function, const TypedExpr& e, const std::vector<int>& assigned,
                  std::vector<const TypedExpr*>& loads) {
  if (e.kind == TypedExprKind::TileCall && e.tileOp == TileOp::Load && isPrefetchable(function, e, assigned)) {
    loads.push_back(&e);
    return;
  }
  for (const TypedExpr* operand : e.operands) collectLoads(function, *operand, assigned, loads);
}

// The prefetched loads of `loop` in `function`, if any (see the file comment).
std::optional<LoopPrefetch> prefetchOf(const TypedFunction& function, const TypedStmt& loop) {
  if (loop.kind != TypedStmtKind::ForRange || loop.mmaPipeline || loop.stepSign <= 0) return {};
  const TypedExpr* step = loop.operands.at(2);
  while (step->kind == TypedExprKind::Cast) step = step->operands[0];
  if (step->kind != TypedExprKind::Literal || step->literal.intValue != 1) return {};
  if (!isPlainBody(loop.body)) return {};
  std::vector<int> assigned;
  assignedIn(loop.body, assigned);
  std::vector<const TypedExpr*> loads;
  for (const TypedStmt* s : loop.body) {
    if (s->kind != TypedStmtKind::Assign && s->kind != TypedStmtKind::Evaluate) continue;
    for (const TypedExpr* e : s->operands) collectLoads(function, *e, assigned, loads);
  }
  LoopPrefetch prefetch;
  prefetch.stages = kStages;
  int64_t end = 0;
  for (const TypedExpr* load : loads) {
    const int64_t offset = (end + kStageAlignment - 1) / kStageAlignment * kStageAlignment;
    const int64_t bytes = kStages * tileSize(load->type) * types::byteSize(load->type->scalar);
    if (offset + bytes + kStageAlignment > kTileRingBudget) break;
    prefetch.loads.push_back({load, static_cast<uint32_t>(offset)});
    end = offset + bytes;
  }
  if (prefetch.loads.empty()) return {};
  return prefetch;
}

// The Load that `e` shows through reshapes and permutes, if any.
const TypedExpr* viewedLoad(const TypedExpr& e) {
  const TypedExpr* x = &e;
  while (x->kind == TypedExprKind::TileCall && (x->tileOp == TileOp::Reshape || x->tileOp == TileOp::Permute))
    x = x->operands.at(0);
  return x->kind == TypedExprKind::TileCall && x->tileOp == TileOp::Load ? x : nullptr;
}

// Marks the loads of `prefetch` (of `loop` in `function`) whose values reach nothing but mma
// operands, and the locals that carry them there (Local::stageView): assigned once, from the
// load, in a statement of the loop's body, and read once, by an mma of a later statement.
void markMmaOperands(TypedFunction& function, const TypedStmt& loop, LoopPrefetch& prefetch) {
  std::map<int, int> reads;
  forEachExpr(function.body, [&](const TypedExpr& e) {
    if (e.kind == TypedExprKind::Local) ++reads[e.local];
  });
  std::vector<int> assigned;
  assignedIn(function.body, assigned);
  const auto prefetched = [&](const TypedExpr* load) -> LoopPrefetch::Load* {
    for (LoopPrefetch::Load& l : prefetch.loads)
      if (l.load == load) return &l;
    return nullptr;
  };
  std::map<int, LoopPrefetch::Load*> held;  // local -> the load whose view it holds
  for (TypedStmt* s : loop.body) {
    forEachExpr({s}, [&](const TypedExpr& e) {
      if (e.kind != TypedExprKind::TileCall || e.tileOp != TileOp::Mma) return;
      for (size_t i = 0; i < 2; ++i) {
        const TypedExpr& operand = *e.operands[i];
        if (operand.kind == TypedExprKind::Local && held.count(operand.local)) {
          held[operand.local]->mmaOperand = true;
          function.locals.at(static_cast<size_t>(operand.local)).stageView = true;
        } else if (const TypedExpr* load = viewedLoad(operand); load != nullptr && prefetched(load) != nullptr) {
          prefetched(load)->mmaOperand = true;
        }
      }
    });
    if (s->kind != TypedStmtKind::Assign || s->local < 0 || reads[s->local] != 1 || std::count(assigned.begin(), assigned.end(), s->local) != 1 ||
        std::find(function.params.begin(), function.params.end(), s->local) != function.params.end())
      continue;
    if (const TypedExpr* load = viewedLoad(*s->operands[0]); load != nullptr && prefetched(load) != nullptr)
      held[s->local] = prefetched(load);
  }
}

// The mma calls of `body` (not of loops nested in it) whose a-operand is a 16-bit 2-D tile local
// outside `assigned` and whose accumulator is a full tile or a local.
void collectInvariantOperands(const std::vector<TypedStmt*>& body, const std::vector<int>& assigned,
                              std::vector<const TypedExpr*>& out) {
  const auto visit = [&](const auto& self, const TypedExpr& e) -> void {
    for (const TypedExpr* operand : e.operands) self(self, *operand);
    if (e.kind != TypedExprKind::TileCall || e.tileOp != TileOp::Mma) return;
    const TypedExpr& a = *e.operands[0];
    const TypedExpr& acc = *e.operands[2];
    const bool sixteenBit = a.type->scalar == types::ScalarKind::Float16 || a.type->scalar == types::ScalarKind::BFloat16;
    if (a.kind == TypedExprKind::Local && a.type->isTile() && a.type->shape.size() == 2 && sixteenBit &&
        std::find(assigned.begin(), assigned.end(), a.local) == assigned.end() &&
        (acc.kind == TypedExprKind::Local || (acc.kind == TypedExprKind::TileCall && acc.tileOp == TileOp::Full)))
      out.push_back(&e);
  };
  for (const TypedStmt* s : body) {
    if (s->kind == TypedStmtKind::ForRange || s->kind == TypedStmtKind::While) continue;
    for (const TypedExpr* e : s->operands) visit(visit, *e);
    collectInvariantOperands(s->body, assigned, out);
    collectInvariantOperands(s->orelse, assigned, out);
  }
}

void markLoops(TypedFunction& function, const std::vector<TypedStmt*>& body, uint32_t& sharedBytes) {
  for (TypedStmt* s : body) {
    if (s->kind == TypedStmtKind::ForRange && !s->mmaPipeline) {
      std::vector<int> assigned;
      assignedIn(s->body, assigned);
      collectInvariantOperands(s->body, assigned, s->invariantMmaOperands);
    }
    s->loopPrefetch = prefetchOf(function, *s);
    if (s->loopPrefetch) {
      markMmaOperands(function, *s, *s->loopPrefetch);
      const LoopPrefetch::Load& last = s->loopPrefetch->loads.back();
      const int64_t bytes = kStages * tileSize(last.load->type) * types::byteSize(last.load->type->scalar);
      sharedBytes = std::max(sharedBytes, static_cast<uint32_t>(last.offset + bytes + kStageAlignment));
      continue;  // its body has no loops
    }
    markLoops(function, s->body, sharedBytes);
    markLoops(function, s->orelse, sharedBytes);
  }
}

}  // namespace

void markLoopPrefetches(TypedProgram& program) {
  for (TypedFunction& function : program.functions)
    if (function.tileCode) markLoops(function, function.body, program.tileSharedBytes);
}

}  // namespace weft::sema
