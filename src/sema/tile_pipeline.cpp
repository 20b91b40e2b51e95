// Recognizes the K loops of matrix products in tile code, which codegen lowers as one pipelined
// operation (include/weft/tiles/mma_pipeline.h: the operand loads of later steps overlap the
// tensor-core work of the current one). A loop qualifies when reordering its loads cannot be
// observed: its body is
//
//   x = load(a, index_a, (M, K)); y = load(b, index_b, (K, N)); acc = mma(x, y, acc)
//
// (the loads may also be written inside the mma, in any order; b may also be loaded K-major, from
// an N x K array bt as load(bt, index_b, (K, N), order=(1, 0)), or as the transpose of an N x K
// load: MmaPipeline::kMajorB; a with an order is not recognized: an M-major a is rare, GEMMs
// store it M x K, and the staging would need transposed fragments), a and b are 2-D arrays of a
// tensor-core operand type (float16, bfloat16, float8e4m3, float8e5m2, int8, uint8, float64), or
// float32 arrays whose loads x and y are both converted with astype(tfloat32) (inline or through
// locals), loaded with zero padding and without debug=True's checks, the indices are computed
// without effects or traps from the loop variable and values the loop does not assign, the loop
// steps by 1 and has no else, and x, y and the loop variable are read nowhere else (their values
// after the loop are never observed).
//
// A loop of float16 or bfloat16 arrays, or of float8 ones with b K-major (wgmma reads fp8 b
// K-major only), that are parameters of the kernel, which it never assigns, whose tiles fit wgmma
// in the kernel's tile block (sm90::pipeline_tiles_fit, the rule the header applies), may also
// take the sm_90a path (include/weft/tiles/mma_pipeline_tma.h):
// codegen then asks for tensor maps of the two parameters, and the ring is sized for that path's
// stages too.
//
// In a kernel with such a loop, a statement `store(array, index, tile)` may take the sm_90a TMA
// store (include/weft/tiles/store_tma.h) when the 2-D tile is held in the accumulator layout of
// one of those loops (the accumulator, or element-wise code of it: TileLayouts), its shape and
// 16-bit or 32-bit elements fit a store's tensor map (sm90::store_tiles_fit) and its box fits the
// ring, the array is a parameter of the kernel it never assigns (directly or through a partition
// view), and the store has no debug=True checks: codegen then asks for a tensor map of that
// parameter, and the ring is sized for the box too. The header checks the rest at run time (the
// map's validity, block indices that are not negative).
#include <algorithm>
#include <map>

#include "sema/checker.h"
#include "weft/tiles/sm90/tensor_map_type.h"

namespace weft::sema {
namespace {

// The stages of a loop: without the kernel's stages option, the most up to kMaxStages whose ring
// takes at most kRingTarget bytes, at least 2 (on the H100, 128 x 128 x 64 bf16 tiles ran fastest
// with 2 stages, 128 x 128 x 32 with 4); with it (CheckRequest::pipelineStages), the most up to
// the option's (the user measured them, e.g. by autotuning). Either within kRingBudget: with the
// tile scratch buffer, the dynamic shared memory of every GPU with cp.async (sm_80: 163 KiB).
constexpr int64_t kRingTarget = 64 * 1024, kRingBudget = kTileRingBudget;
constexpr int kMaxStages = 4;

// The TMA/wgmma path's stages: at most kMaxTmaStages (on the H100, 128 x 256 x 64 bf16 tiles ran
// fastest with 4), within kTmaRingBudget with the 1024 bytes of alignment its swizzled stages
// need: next to the tile scratch buffer, in the sm_90 limit of 227 KiB a block.
constexpr int64_t kTmaRingBudget = 200 * 1024, kTmaAlignment = 1024;
constexpr int kMaxTmaStages = 4;
// K loops of one kernel that take tensor maps (two each): the runtime passes at most 32 maps.
constexpr int kMaxTmaLoops = 16;
// The maps the runtime passes a kernel: its TMA loops' and then its TMA stores' (one each).
constexpr int kMaxTensorMaps = 2 * kMaxTmaLoops;

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

}  // namespace

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

namespace {

// The local that `e` reads, if the body assigns it (`definitions`) and reads it only there: its
// definition; otherwise null.
const TypedExpr* definitionOf(const TypedExpr& e, const std::map<int, const TypedExpr*>& definitions,
                              const Reads& reads) {
  if (e.kind != TypedExprKind::Local) return nullptr;
  auto found = definitions.find(e.local);
  return found == definitions.end() || reads.at(e.local) != 1 ? nullptr : found->second;
}

// An mma operand the pipeline computes: `load`, transposed where `transposed`, converted
// element-wise to `operand` (tfloat32 of a float32 load; otherwise the load's own element type),
// through `locals` locals of the body.
struct PipelinedOperand {
  const TypedExpr* load = nullptr;
  types::ScalarKind operand = types::ScalarKind::Bool;
  size_t locals = 0;
  bool transposed = false;
};

// Whether `map` is astype(tfloat32) of a float32 tile: the TileMap of the tfloat32 Cast of its
// one input (check_tiles.cpp builds astype so).
bool isTf32Conversion(const TypedExpr& map) {
  if (map.kind != TypedExprKind::TileMap || map.operands.size() != 2 || map.type->scalar != types::ScalarKind::TFloat32 ||
      map.operands[1]->type->scalar != types::ScalarKind::Float32)
    return false;
  const TypedExpr& body = *map.operands[0];
  return body.kind == TypedExprKind::Cast && body.operands[0]->kind == TypedExprKind::MapInput &&
         body.operands[0]->index == 0;
}

// The Load that operand `e` of the mma stands for: a Load, or its 2-D transpose (a load with
// order=(1, 0), or permute/transpose of a load), or astype(tfloat32) of either, each part written
// inline or through a local the body assigns from it and reads only there.
std::optional<PipelinedOperand> operandOf(const TypedExpr& e, const std::map<int, const TypedExpr*>& definitions,
                                          const Reads& reads) {
  PipelinedOperand result;
  const TypedExpr* part = &e;
  auto skipLocal = [&]() {
    if (part->kind != TypedExprKind::Local) return true;
    part = definitionOf(*part, definitions, reads);
    ++result.locals;
    return part != nullptr;
  };
  if (!skipLocal()) return {};
  if (isTf32Conversion(*part)) {
    part = part->operands[1];
    if (!skipLocal()) return {};
  }
  if (part->kind == TypedExprKind::TileCall && part->tileOp == TileOp::Permute &&
      part->ints == std::vector<int64_t>{1, 0}) {
    part = part->operands[0];
    result.transposed = true;
    if (!skipLocal()) return {};
  }
  if (part->kind != TypedExprKind::TileCall || part->tileOp != TileOp::Load) return {};
  result.load = part;
  result.operand = e.type->scalar;
  return result;
}

// The element types of the tensor cores' operands (mma_pipeline.h has a cp.async path for each),
// `operand`, loaded from arrays of `stored`.
bool pipelinesElement(types::ScalarKind operand, types::ScalarKind stored) {
  using types::ScalarKind;
  if (operand == ScalarKind::TFloat32) return stored == ScalarKind::Float32;
  return operand == stored && (operand == ScalarKind::Float16 || operand == ScalarKind::BFloat16 ||
                               operand == ScalarKind::Float8E4M3 || operand == ScalarKind::Float8E5M2 ||
                               operand == ScalarKind::Int8 || operand == ScalarKind::UInt8 || operand == ScalarKind::Float64);
}

// The loop `loop` as a pipelined K loop of `function`, if it is one (see the file comment).
std::optional<MmaPipeline> pipelineOf(const TypedStmt& loop, const Reads& reads, int pipelineStages) {
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
  const std::optional<PipelinedOperand> operands[2] = {operandOf(*mma.operands[0], definitions, reads),
                                                       operandOf(*mma.operands[1], definitions, reads)};
  // A transposed a is not pipelined (the file comment says why).
  if (!operands[0] || !operands[1] || operands[0]->transposed || operands[0]->operand != operands[1]->operand ||
      definitions.size() != operands[0]->locals + operands[1]->locals)
    return {};
  const TypedExpr* loads[2] = {operands[0]->load, operands[1]->load};
  // The loop variable is read by the loads' indices only.
  Reads indexReads;
  for (const TypedExpr* load : loads) {
    const TypedExpr& array = *load->operands[0];
    // A checked load (debug=True) keeps its run-time check: the loop stays as written.
    if (array.kind != TypedExprKind::Local || !array.type->isArray() || array.type->ndim != 2 ||
        !pipelinesElement(operands[0]->operand, load->type->scalar) || load->ints.at(0) != static_cast<int64_t>(TilePadding::Zero) || load->checked)
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
  int stages = pipelineStages != 0 ? pipelineStages : kMaxStages;
  const int64_t target = pipelineStages != 0 ? kRingBudget : kRingTarget;
  while (stages > 2 && stages * bytes > target) --stages;
  if (stages * bytes > kRingBudget) return {};
  return MmaPipeline{loads[0], loads[1], operands[1]->transposed, acc, stages, operands[0]->operand};
}

// Whether statement `s` or one nested in it binds `local` (assigns it, or is a loop over it).
bool binds(const TypedStmt& s, int local) {
  if (s.local == local) return true;
  auto anyBinds = [&](const std::vector<TypedStmt*>& body) {
    return std::any_of(body.begin(), body.end(), [&](const TypedStmt* t) { return binds(*t, local); });
  };
  return anyBinds(s.body) || anyBinds(s.orelse);
}

// The position of `local` in the parameters of `function`, if it is a parameter of a kernel that
// `function` never rebinds (so that it holds the launch's argument); -1 otherwise.
int parameterPosition(const TypedFunction& function, int local) {
  auto found = std::find(function.params.begin(), function.params.end(), local);
  if (!function.isKernel || found == function.params.end()) return -1;
  for (const TypedStmt* s : function.body)
    if (binds(*s, local)) return -1;
  return static_cast<int>(found - function.params.begin());
}

// The position in the parameters of `function` of the array the load `load` reads, if it is a
// parameter of a kernel that `function` never rebinds (so that the launch's argument is what the
// loop reads); -1 otherwise.
int kernelParameterOf(const TypedFunction& function, const TypedExpr& load) {
  return parameterPosition(function, load.operands[0]->local);
}

// Sets up the TMA/wgmma path of `pipeline` in `function` where it may take it (file comment),
// with at most `pipelineStages` stages where the kernel's option gives them (else
// kMaxTmaStages); `tmaLoops` counts the function's loops that took it.
void markTmaPath(TypedFunction& function, MmaPipeline& pipeline, int threads, int pipelineStages, int& tmaLoops) {
  using types::ScalarKind;
  // wgmma reads b N-major (as stored K x N) for 16-bit operands only; fp8 needs it K-major.
  const bool sixteenBit = pipeline.operand == ScalarKind::Float16 || pipeline.operand == ScalarKind::BFloat16;
  const bool fp8 = pipeline.operand == ScalarKind::Float8E4M3 || pipeline.operand == ScalarKind::Float8E5M2;
  if (!(sixteenBit || (fp8 && pipeline.kMajorB)) || tmaLoops == kMaxTmaLoops) return;
  const std::vector<int64_t>& a0 = pipeline.loadA->type->shape;
  const std::vector<int64_t> b0 = pipeline.tileShapeB();
  if (!tiles::sm90::pipeline_tiles_fit(static_cast<uint32_t>(threads), static_cast<uint32_t>(a0[0]),
                                       static_cast<uint32_t>(a0[1]), static_cast<uint32_t>(b0[1]),
                                       static_cast<uint32_t>(types::byteSize(pipeline.operand))))
    return;
  const int a = kernelParameterOf(function, *pipeline.loadA), b = kernelParameterOf(function, *pipeline.loadB);
  const int64_t bytes = stageBytes(*pipeline.loadA, *pipeline.loadB);
  int stages = pipelineStages != 0 ? pipelineStages : kMaxTmaStages;
  while (stages > 2 && stages * bytes + kTmaAlignment > kTmaRingBudget) --stages;
  if (a < 0 || b < 0 || stages * bytes + kTmaAlignment > kTmaRingBudget) return;
  pipeline.parameterA = a;
  pipeline.parameterB = b;
  pipeline.tmaStages = stages;
  function.locals.at(pipeline.accumulator).tmaAccumulator = true;
  ++tmaLoops;
}

// `tmaLoops`: null unless `function` is the kernel the program's launch runs (which alone
// receives tensor maps), else its count of loops with maps; `threads`: its tile block's.
void markLoops(TypedFunction& function, int* tmaLoops, int threads, const std::vector<TypedStmt*>& body,
               const Reads& reads, int pipelineStages, uint32_t& sharedBytes) {
  for (TypedStmt* s : body) {
    s->mmaPipeline = pipelineOf(*s, reads, pipelineStages);
    if (s->mmaPipeline) {
      MmaPipeline& pipeline = *s->mmaPipeline;
      if (tmaLoops != nullptr) markTmaPath(function, pipeline, threads, pipelineStages, *tmaLoops);
      const int64_t bytes = stageBytes(*pipeline.loadA, *pipeline.loadB);
      const int64_t ring = std::max(pipeline.stages * bytes, pipeline.tmaStages > 0 ? pipeline.tmaStages * bytes + kTmaAlignment : 0);
      sharedBytes = std::max(sharedBytes, static_cast<uint32_t>(ring));
      continue;
    }
    markLoops(function, tmaLoops, threads, s->body, reads, pipelineStages, sharedBytes);
    markLoops(function, tmaLoops, threads, s->orelse, reads, pipelineStages, sharedBytes);
  }
}

// The layout a tile value is held in, as far as markTileLayouts follows it: not known yet (a
// full tile, which is made in whatever layout its variable has, or a local not assigned yet),
// the default one, or an mma accumulator's (of the mma of tiles a x b), its row layout or its
// column layout.
struct HeldLayout {
  enum Kind : uint8_t { Unknown, Default, Elements, Rows, Columns } kind = Unknown;
  const types::Type* a = nullptr;
  const types::Type* b = nullptr;
  bool operator==(const HeldLayout&) const = default;
  // One of an accumulator's layouts.
  bool placed() const { return kind == Elements || kind == Rows || kind == Columns; }
  // The accumulator's shape (M, N).
  std::vector<int64_t> accumulatorShape() const {
    if (a == nullptr || a->shape.size() != 2 || b->shape.size() != 2) return {};
    return {a->shape[0], b->shape[1]};
  }
  // Whether a tile of `shape` fits this row or column layout: (M) or (M, 1) for the rows, (N) or
  // (1, N) for the columns.
  bool fits(const std::vector<int64_t>& shape) const {
    const std::vector<int64_t> acc = accumulatorShape();
    if (acc.empty() || (kind != Rows && kind != Columns)) return false;
    const int64_t n = kind == Rows ? acc[0] : acc[1];
    return shape == std::vector<int64_t>{n} ||
           shape == (kind == Rows ? std::vector<int64_t>{n, 1} : std::vector<int64_t>{1, n});
  }
};

// The layouts of one tile function's locals, found by iterating its assignments to a fixed point.
// Two directions: a value takes the layout of what it is computed from (an mma result, element-wise
// code of one, reductions of its rows), and a local computed element-wise from iotas, scalars and
// other such locals takes the row or column layout in which its uses broadcast it against an
// accumulator (demands: see pinDemanded), as do iotas in such expressions.
class TileLayouts {
 public:
  explicit TileLayouts(TypedFunction& function)
      : function_(function), held_(function.locals.size()), pinned_(function.locals.size()),
        values_(function.locals.size()) {
    for (int param : function.params) held_[static_cast<size_t>(param)].kind = HeldLayout::Default;
    for (size_t i = 0; i < function.locals.size(); ++i) {
      const Local& local = function.locals[i];
      if (local.mmaOperands.first != nullptr) held_[i] = {HeldLayout::Elements, local.mmaOperands.first, local.mmaOperands.second};
    }
    collectValues(function.body);
  }

  // Joins the layouts of every assignment until none changes, pins the locals and iotas whose
  // uses demand a row or column layout, and again until nothing changes; then records the locals
  // and iotas that hold an accumulator's layout.
  void run() {
    for (bool pinned = true; pinned;) {
      for (bool changed = true; changed;) {
        changed = false;
        visit(function_.body, changed);
      }
      pinned = pinDemanded();
    }
    for (size_t i = 0; i < held_.size(); ++i) {
      Local& local = function_.locals[i];
      const HeldLayout& h = held_[i];
      if (local.mmaOperands.first != nullptr || local.type == nullptr || !local.type->isTile() || !h.placed()) continue;
      local.mmaOperands = {h.a, h.b};
      local.mmaLayout = h.kind == HeldLayout::Rows      ? MmaLayout::Rows
                        : h.kind == HeldLayout::Columns ? MmaLayout::Columns
                                                        : MmaLayout::Elements;
      local.demandedLayout = pinned_[i];
    }
    recordIotas(function_.body);
  }

 private:
  void collectValues(const std::vector<TypedStmt*>& body) {
    for (const TypedStmt* s : body) {
      if (s->local >= 0)
        values_[static_cast<size_t>(s->local)].push_back(s->kind == TypedStmtKind::Assign ? s->operands[0] : nullptr);
      collectValues(s->body);
      collectValues(s->orelse);
    }
  }

  void visit(const std::vector<TypedStmt*>& body, bool& changed) {
    for (const TypedStmt* s : body) {
      if (s->kind == TypedStmtKind::Assign && s->local >= 0) {
        HeldLayout value = layoutOf(*s->operands[0]);
        HeldLayout& held = held_[static_cast<size_t>(s->local)];
        // A local of a direct mma result keeps its accumulator type (Local::mmaOperands), a
        // pinned one the layout its uses demand.
        const bool fixed = function_.locals[static_cast<size_t>(s->local)].mmaOperands.first != nullptr ||
                           pinned_[static_cast<size_t>(s->local)];
        // The join: unknown < any layout < the default one (two different layouts).
        if (!fixed && value.kind != HeldLayout::Unknown && held.kind != HeldLayout::Default && held != value) {
          held = held.kind == HeldLayout::Unknown ? value : HeldLayout{HeldLayout::Default};
          changed = true;
        }
      }
      visit(s->body, changed);
      visit(s->orelse, changed);
    }
  }

  // ---- demands ----
  //
  // An element-wise operation computed in an accumulator's layout demands that layout of its
  // operands of its shape and, of an operand it broadcasts, the accumulator's row layout ((M, 1))
  // or column layout ((1, N) or (N)); an element-wise operand not held in any accumulator layout
  // passes the demand on to its own operands, a reshape between (K) and (K, 1) or (1, K) passes
  // on a row or column demand, an iota takes it (each thread computes its own elements there),
  // and a local takes it when every value assigned to it is computed element-wise from iotas,
  // scalars, full tiles (assigned directly) and locals that take it too, and no use demands
  // another layout. Everything else keeps its layout: a demand only saves conversions, and a
  // guess that is wrong costs one (the tile types convert), never a value.

  // Pins the locals (and marks the iotas) that demands ask for; whether anything changed.
  bool pinDemanded() {
    demands_.assign(held_.size(), {});
    conflicts_.assign(held_.size(), false);
    bool changed = false;
    forEachExpr(function_.body, [&](const TypedExpr& e) {
      if (elementwiseFirst(e) < 0) return;
      const HeldLayout held = layoutOf(e);
      if (held.placed()) changed = demandOfOperands(e, held) || changed;
    });
    for (size_t i = 0; i < held_.size(); ++i) {
      if (!pinned_[i]) continue;
      for (const TypedExpr* value : values_[i]) changed = demand(*value, held_[i]) || changed;
    }
    for (size_t i = 0; i < held_.size(); ++i) {
      if (conflicts_[i] || !demands_[i].placed()) continue;
      std::vector<int> chain;
      if (!pinnable(static_cast<int>(i), demands_[i]) || !computable(static_cast<int>(i), demands_[i], chain)) continue;
      for (int local : chain) {
        pinned_[static_cast<size_t>(local)] = true;
        held_[static_cast<size_t>(local)] = demands_[i];
      }
      changed = true;
    }
    return changed;
  }

  // The first operand of element-wise operation `e` (-1: `e` is not one).
  static int elementwiseFirst(const TypedExpr& e) {
    if (e.type == nullptr || !e.type->isTile()) return -1;
    if (e.kind == TypedExprKind::TileMap) return 1;
    return e.kind == TypedExprKind::TileCall && e.tileOp == TileOp::Arith ? 0 : -1;
  }

  // What a broadcast of a tile of shape `from` in element-wise code held in `held` demands of it.
  static HeldLayout spreadDemand(const HeldLayout& held, const std::vector<int64_t>& from) {
    if (held.kind != HeldLayout::Elements) return {};
    HeldLayout rows{HeldLayout::Rows, held.a, held.b}, columns{HeldLayout::Columns, held.a, held.b};
    if (from.size() == 2 && rows.fits(from)) return rows;
    if (columns.fits(from)) return columns;
    return {};
  }

  // Passes demand `want` (the layout of element-wise operation `e`) on to its operands; whether
  // an iota took a layout.
  bool demandOfOperands(const TypedExpr& e, const HeldLayout& want) {
    bool changed = false;
    for (size_t i = static_cast<size_t>(elementwiseFirst(e)); i < e.operands.size(); ++i) {
      const TypedExpr& operand = *e.operands[i];
      if (operand.type == nullptr || !operand.type->isTile()) continue;
      if (operand.kind == TypedExprKind::TileCall && operand.tileOp == TileOp::BroadcastTo) {
        const TypedExpr& source = *operand.operands.at(0);
        if (source.type->isTile()) changed = demand(source, spreadDemand(want, source.type->shape)) || changed;
      } else {
        changed = demand(operand, operand.type->shape == e.type->shape ? want : spreadDemand(want, operand.type->shape)) ||
                  changed;
      }
    }
    return changed;
  }

  // Demand `want` of `e`'s value; whether an iota took a layout.
  bool demand(const TypedExpr& e, const HeldLayout& want) {
    if (!want.placed() || e.type == nullptr || !e.type->isTile() || layoutOf(e) == want) return false;
    if (e.kind == TypedExprKind::Local) {
      const size_t local = static_cast<size_t>(e.local);
      if (demands_[local].placed() && demands_[local] != want) conflicts_[local] = true;
      demands_[local] = want;
      return false;
    }
    if (e.kind == TypedExprKind::TileCall && e.tileOp == TileOp::Iota) return iotas_.emplace(&e, want).second;
    if (e.kind == TypedExprKind::TileCall && e.tileOp == TileOp::Reshape) {
      const TypedExpr& operand = *e.operands.at(0);
      return want.fits(e.type->shape) && want.fits(operand.type->shape) && demand(operand, want);
    }
    if (elementwiseFirst(e) >= 0 && !layoutOf(e).placed()) return demandOfOperands(e, want);
    return false;
  }

  // Whether `local` may take a demanded layout: a tile local of neither an mma result nor a
  // parameter, not pinned, that nothing holds in an accumulator's layout yet.
  bool pinnable(int local, const HeldLayout& want) const {
    const size_t i = static_cast<size_t>(local);
    const Local& l = function_.locals[i];
    const bool parameter = std::find(function_.params.begin(), function_.params.end(), local) != function_.params.end();
    return l.type != nullptr && l.type->isTile() && l.mmaOperands.first == nullptr && !parameter && !pinned_[i] &&
           !held_[i].placed() &&
           (want.kind == HeldLayout::Elements ? l.type->shape == want.accumulatorShape() : want.fits(l.type->shape));
  }

  // Whether every value assigned to `local` computes in `want` without communication; `chain`
  // gathers the locals that must take `want` with it (`local` first).
  bool computable(int local, const HeldLayout& want, std::vector<int>& chain) const {
    chain.push_back(local);
    for (const TypedExpr* value : values_[static_cast<size_t>(local)]) {
      if (value == nullptr) return false;
      const bool full = value->kind == TypedExprKind::TileCall && value->tileOp == TileOp::Full;
      if (!full && !computedIn(*value, want, chain)) return false;
    }
    return true;
  }
  bool computedIn(const TypedExpr& e, const HeldLayout& want, std::vector<int>& chain) const {
    if (e.type == nullptr || !e.type->isTile()) return true;
    switch (e.kind) {
      case TypedExprKind::Local: {
        if (std::find(chain.begin(), chain.end(), e.local) != chain.end()) return true;
        const size_t local = static_cast<size_t>(e.local);
        if (pinned_[local]) return held_[local] == want;
        // A local no use demands another layout of.
        return pinnable(e.local, want) && !conflicts_[local] && (!demands_[local].placed() || demands_[local] == want) &&
               computable(e.local, want, chain);
      }
      case TypedExprKind::TileCall:
        if (e.tileOp == TileOp::Iota) return true;
        if (e.tileOp == TileOp::Reshape) return want.fits(e.type->shape) && computedIn(*e.operands.at(0), want, chain);
        if (e.tileOp != TileOp::Arith) return false;
        [[fallthrough]];
      case TypedExprKind::TileMap:
        for (size_t i = static_cast<size_t>(elementwiseFirst(e)); i < e.operands.size(); ++i) {
          const TypedExpr& operand = *e.operands[i];
          if (operand.type != nullptr && operand.type->isTile() &&
              (operand.type->shape != e.type->shape || !computedIn(operand, want, chain)))
            return false;
        }
        return true;
      default: return false;
    }
  }

  void recordIotas(std::vector<TypedStmt*>& body) {
    const auto walk = [&](const auto& self, TypedExpr& e) -> void {
      if (auto it = iotas_.find(&e); it != iotas_.end()) {
        e.mmaOperands = {it->second.a, it->second.b};
        e.mmaLayout = it->second.kind == HeldLayout::Rows      ? MmaLayout::Rows
                      : it->second.kind == HeldLayout::Columns ? MmaLayout::Columns
                                                               : MmaLayout::Elements;
      }
      for (TypedExpr* operand : e.operands) self(self, *operand);
    };
    for (TypedStmt* s : body) {
      for (TypedExpr* operand : s->operands) walk(walk, *operand);
      recordIotas(s->body);
      recordIotas(s->orelse);
    }
  }

 public:
  // The layout the tile header gives `e`'s value (element-wise operations compute in their first
  // operand held in an mma layout, else where a broadcast operand spreads without an exchange; a
  // broadcast operand takes that layout): final after run().
  HeldLayout layoutOf(const TypedExpr& e) const {
    if (e.type == nullptr || !e.type->isTile()) return {HeldLayout::Default};
    if (e.kind == TypedExprKind::Local) return held_[static_cast<size_t>(e.local)];
    if (e.kind == TypedExprKind::TileMap) return elementwise(e, 1);
    if (e.kind != TypedExprKind::TileCall) return {HeldLayout::Default};
    switch (e.tileOp) {
      case TileOp::Full: return {};
      case TileOp::Arith: return elementwise(e, 0);
      case TileOp::Iota: {
        auto it = iotas_.find(&e);
        return it != iotas_.end() ? it->second : HeldLayout{HeldLayout::Default};
      }
      case TileOp::Reshape: {
        // The header's reshape keeps the layout: a row or column tile stays one.
        HeldLayout held = layoutOf(*e.operands.at(0));
        return held.kind == HeldLayout::Rows || held.kind == HeldLayout::Columns || held.kind == HeldLayout::Unknown
                   ? held
                   : HeldLayout{HeldLayout::Default};
      }
      case TileOp::Mma: {
        HeldLayout acc = layoutOf(*e.operands[2]);
        if (acc.kind == HeldLayout::Elements) return acc;
        return {HeldLayout::Elements, e.operands[0]->type, e.operands[1]->type};
      }
      case TileOp::Sum:
      case TileOp::Prod:
      case TileOp::Max:
      case TileOp::Min:
      case TileOp::Reduce: {
        const TypedExpr& operand = *e.operands[0];
        HeldLayout rows = layoutOf(operand);
        if (operand.type->shape.size() != 2 || e.ints.at(0) != 1 || rows.kind == HeldLayout::Unknown) {
          return {rows.kind == HeldLayout::Unknown ? HeldLayout::Unknown : HeldLayout::Default};
        }
        if (rows.kind != HeldLayout::Elements) return {HeldLayout::Default};
        rows.kind = HeldLayout::Rows;
        return rows;
      }
      default: return {HeldLayout::Default};
    }
  }

 private:
  // The layout of an element-wise operation on operands[first..]: that of the first tile operand
  // of the result's shape held in an accumulator's layout, row layout or column layout; else the
  // accumulator's layout where the first operand broadcast from one of its row or column layouts
  // has the accumulator's shape (header: broadcast_home); the default one where none is (unknown
  // while an operand is).
  HeldLayout elementwise(const TypedExpr& e, size_t first) const {
    bool unknown = false;
    std::vector<const TypedExpr*> broadcasts;
    for (size_t i = first; i < e.operands.size(); ++i) {
      const TypedExpr& operand = *e.operands[i];
      if (operand.type == nullptr || !operand.type->isTile()) continue;
      if (operand.kind == TypedExprKind::TileCall && operand.tileOp == TileOp::BroadcastTo) {
        broadcasts.push_back(operand.operands.at(0));
        continue;
      }
      if (operand.type->shape != e.type->shape) {
        broadcasts.push_back(&operand);
        continue;
      }
      HeldLayout held = layoutOf(operand);
      if (held.placed()) return held;
      unknown = unknown || held.kind == HeldLayout::Unknown;
    }
    if (unknown) return {};
    for (const TypedExpr* source : broadcasts) {
      if (!source->type->isTile()) continue;
      HeldLayout held = layoutOf(*source);
      if (held.kind == HeldLayout::Unknown) return {};
      if ((held.kind == HeldLayout::Rows || held.kind == HeldLayout::Columns) && held.accumulatorShape() == e.type->shape) {
        held.kind = HeldLayout::Elements;
        return held;
      }
    }
    return {HeldLayout::Default};
  }

  TypedFunction& function_;
  std::vector<HeldLayout> held_;
  std::vector<bool> pinned_;  // held_ is the layout the local's uses demand
  std::vector<std::vector<const TypedExpr*>> values_;  // each local's bindings (null: not an assignment)
  std::vector<HeldLayout> demands_;  // pinDemanded's, per local
  std::vector<bool> conflicts_;      // two uses demand different layouts
  std::map<const TypedExpr*, HeldLayout> iotas_;  // iotas in the layout demanded of them
};

// ---- TMA stores (the file comment's last paragraph) ----

// The operand types of an mma (Local::mmaOperands): they name its accumulator layout.
using MmaOperands = std::pair<const types::Type*, const types::Type*>;

// Counts the statements of `body` (nested ones included) that bind `local`, and keeps the value
// the last of them assigns (null where it is a loop or a declaration).
void bindingsOf(const std::vector<TypedStmt*>& body, int local, int& count, const TypedExpr*& value) {
  for (const TypedStmt* s : body) {
    if (s->local == local) {
      ++count;
      value = s->kind == TypedStmtKind::Assign ? s->operands[0] : nullptr;
    }
    bindingsOf(s->body, local, count, value);
    bindingsOf(s->orelse, local, count, value);
  }
}

// The position in the parameters of `function` of the array that `array` (a store's operand 0)
// is at run time, if that is a parameter of the kernel it never rebinds: the parameter itself, or
// a partition view of it (a view is its array at run time), inline or through a view local the
// function assigns once; -1 otherwise (an alias of the array in a local too, as for K loops).
// `depth` bounds the view locals followed.
int storedParameterOf(const TypedFunction& function, const TypedExpr& array, int depth = 8) {
  const TypedExpr* e = &array;
  while (e->kind == TypedExprKind::TileCall && e->tileOp == TileOp::PartitionView) e = e->operands[0];
  if (e->kind != TypedExprKind::Local) return -1;
  if (e->type->isArray()) return parameterPosition(function, e->local);
  if (e->type->kind != types::TypeKind::TileView || depth == 0) return -1;
  int count = 0;
  const TypedExpr* value = nullptr;
  bindingsOf(function.body, e->local, count, value);
  return count == 1 && value != nullptr ? storedParameterOf(function, *value, depth - 1) : -1;
}

// The accumulators' operand types of the K loops in `body` that took the TMA path.
void collectTmaLoops(const TypedFunction& function, const std::vector<TypedStmt*>& body,
                     std::vector<MmaOperands>& out) {
  for (const TypedStmt* s : body) {
    if (s->mmaPipeline && s->mmaPipeline->parameterA >= 0)
      out.push_back(function.locals.at(s->mmaPipeline->accumulator).mmaOperands);
    collectTmaLoops(function, s->body, out);
    collectTmaLoops(function, s->orelse, out);
  }
}

// Marks the stores in `body` of the launched kernel `function` that may take the TMA store (the
// file comment): `accumulators` are its TMA loops' (`layouts` says which tiles are held in their
// layouts), `maps` counts the kernel's tensor maps so far; `sharedBytes` grows to hold each box.
void markTmaStores(TypedFunction& function, const TileLayouts& layouts, const std::vector<MmaOperands>& accumulators,
                   const std::vector<TypedStmt*>& body, int& maps, uint32_t& sharedBytes) {
  for (TypedStmt* s : body) {
    markTmaStores(function, layouts, accumulators, s->body, maps, sharedBytes);
    markTmaStores(function, layouts, accumulators, s->orelse, maps, sharedBytes);
    if (s->kind != TypedStmtKind::Evaluate || maps == kMaxTensorMaps) continue;
    TypedExpr& store = *s->operands[0];
    // debug=True checks the position first: such a store keeps the generic path.
    if (store.kind != TypedExprKind::TileCall || store.tileOp != TileOp::Store || store.checked) continue;
    const TypedExpr& tile = *store.operands.back();
    const std::vector<int64_t>& shape = tile.type->shape;
    if (shape.size() != 2) continue;
    const int64_t elementBytes = types::byteSize(tile.type->scalar), bytes = shape[0] * shape[1] * elementBytes;
    if (!tiles::sm90::store_tiles_fit(static_cast<uint32_t>(shape[0]), static_cast<uint32_t>(shape[1]),
                                      static_cast<uint32_t>(elementBytes)) ||
        bytes + kTmaAlignment > kTmaRingBudget)
      continue;
    const HeldLayout held = layouts.layoutOf(tile);
    if (held.kind != HeldLayout::Elements ||
        std::find(accumulators.begin(), accumulators.end(), MmaOperands{held.a, held.b}) == accumulators.end())
      continue;
    const int parameter = storedParameterOf(function, *store.operands[0]);
    if (parameter < 0) continue;
    store.tmaStoreParameter = parameter;
    ++maps;
    sharedBytes = std::max(sharedBytes, static_cast<uint32_t>(bytes + kTmaAlignment));
  }
}

}  // namespace

void markTileLayouts(TypedProgram& program) {
  for (size_t i = 0; i < program.functions.size(); ++i) {
    TypedFunction& function = program.functions[i];
    if (!function.tileCode) continue;
    TileLayouts layouts(function);
    layouts.run();
    // Only the launched kernel receives tensor maps, and only its loops took the TMA path.
    std::vector<MmaOperands> accumulators;
    if (static_cast<int>(i) == program.kernel) collectTmaLoops(function, function.body, accumulators);
    int maps = 2 * static_cast<int>(accumulators.size());
    if (maps > 0) markTmaStores(function, layouts, accumulators, function.body, maps, program.tileSharedBytes);
  }
}

void markMmaPipelines(TypedProgram& program, int pipelineStages) {
  for (size_t i = 0; i < program.functions.size(); ++i) {
    TypedFunction& function = program.functions[i];
    if (!function.tileCode) continue;
    Reads reads;
    forEachExpr(function.body, [&](const TypedExpr& e) {
      if (e.kind == TypedExprKind::Local) ++reads[e.local];
    });
    int tmaLoops = 0;
    markLoops(function, static_cast<int>(i) == program.kernel ? &tmaLoops : nullptr, program.tileBlock.threads,
              function.body, reads, pipelineStages, program.tileSharedBytes);
  }
  // A pipelined K loop (it asked for stages): neighbouring blocks share operand panels, so they
  // run in groups of rows. 16 rows of 128 x 256 bf16 tiles measured best on the H100 (8192^3:
  // 0.99 of cuBLAS against 0.93 in grid order; 4096^3 unchanged).
  if (program.tileSharedBytes > 0 && program.tileBlock.threads > 0) program.tileBlock.groupRows = 16;
}

}  // namespace weft::sema
