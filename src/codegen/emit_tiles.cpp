// Tile code (docs/tiles.md) as calls of the tile header (include/weft/tiles.h): element-wise
// work is weft::tiles::map over a lambda whose body is the scalar expression (so tiles compute
// exactly as scalars do), everything else one call per operation.
#include <cmath>

#include "codegen/cuda_emitter.h"
#include "support/check.h"
#include "weft/tiles/sm90/tensor_map_type.h"

namespace weft::codegen {

using sema::TileOp;
using sema::TypedExpr;
using sema::TypedExprKind;
using types::ScalarKind;
using types::Type;

namespace {

std::string shapeName(const std::vector<int64_t>& shape) {
  std::string text = "weft::tiles::shape<";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]) + "u";
  return text + ">";
}

// A load's value outside the array, of element type `element`.
std::string paddingValue(sema::TilePadding padding, const std::string& element) {
  switch (padding) {
    case sema::TilePadding::Zero: return element + "(0)";
    case sema::TilePadding::NegZero: return "weft::cast<" + element + ">(-0.0)";
    case sema::TilePadding::PosInf: return "weft::cast<" + element + ">(weft::inf<float>())";
    case sema::TilePadding::NegInf: return "weft::cast<" + element + ">(-weft::inf<float>())";
    case sema::TilePadding::NaN: return "weft::cast<" + element + ">(weft::nan<float>())";
  }
  WEFT_CHECK(false, "unknown padding");
  return {};
}

const char* reductionName(TileOp op) {
  switch (op) {
    case TileOp::Sum: return "sum";
    case TileOp::Prod: return "prod";
    case TileOp::Max: return "max";
    case TileOp::Min: return "min";
    case TileOp::Argmax: return "argmax";
    case TileOp::Argmin: return "argmin";
    case TileOp::Cumsum: return "cumsum";
    case TileOp::Cumprod: return "cumprod";
    default: break;
  }
  WEFT_CHECK(false, "not a reduction");
  return nullptr;
}

// The integer divisions a TileMap's scalar expression checks (debug=True).
void checkedDivisions(const TypedExpr& e, std::vector<const TypedExpr*>& out) {
  if (e.kind == TypedExprKind::Binary && e.checked) out.push_back(&e);
  for (const TypedExpr* operand : e.operands) checkedDivisions(*operand, out);
}

// The launch facts of a load's or store's array (or partition view) as the header's template
// argument (weft/tiles/span_facts.h); "" where there are none, so that such code is unchanged.
std::string arrayFacts(const Type* arrayOrView) {
  const unsigned facts = arrayOrView->kind == types::TypeKind::TileView ? arrayOrView->elements.at(0)->facts
                                                                         : arrayOrView->facts;
  return facts == 0 ? "" : std::to_string(facts) + "u";
}

}  // namespace

std::string CudaEmitter::tileTypeName(const Type* type) {
  noteScalar(type->scalar);
  usesTiles_ = true;
  return "weft::tiles::tile<" + std::string(types::cxxName(type->scalar)) + ", " + shapeName(type->shape) + ">";
}

std::string CudaEmitter::heldTileTypeName(const Type* type, std::pair<const Type*, const Type*> operands,
                                          sema::MmaLayout layout, bool tma) {
  if (operands.first == nullptr) return typeName(type);
  // An mma's accumulator variable: the tile type in the layout that mma returns (or that a K
  // loop's TMA path keeps); a value computed from one: its type in that layout, or in its row or
  // column layout.
  const std::string mma = std::string(tma ? "weft::tiles::mma_pipeline_accumulator_t<" : "weft::tiles::mma_accumulator_t<") +
                          typeName(operands.first) + ", " + typeName(operands.second) + ">";
  switch (layout) {
    case sema::MmaLayout::Accumulator: return mma;
    case sema::MmaLayout::Elements: return "weft::tiles::accumulator_layout_t<" + typeName(type) + ", " + mma + ">";
    case sema::MmaLayout::Rows: return "weft::tiles::accumulator_rows_t<" + typeName(type) + ", " + mma + ">";
    case sema::MmaLayout::Columns: return "weft::tiles::accumulator_columns_t<" + typeName(type) + ", " + mma + ">";
  }
  WEFT_CHECK(false, "unknown mma layout");
  return {};
}

std::string CudaEmitter::tileMap(const TypedExpr& e) {
  WEFT_CHECK(e.operands.size() >= 2, "a TileMap without inputs");
  usesTiles_ = true;
  std::string params;
  for (size_t i = 1; i < e.operands.size(); ++i) params += (i > 1 ? ", " : "") + std::string("auto weft_in") + std::to_string(i - 1);
  // The body is a scalar expression of the inputs: it reads nothing else that could change.
  std::string body = expr(*e.operands[0]);
  // An input broadcast to the map's shape is broadcast in the layout the map computes in.
  auto input = [&](size_t i) {
    const TypedExpr& operand = *e.operands[i];
    if (operand.kind == TypedExprKind::TileCall && operand.tileOp == TileOp::BroadcastTo)
      return "weft::tiles::broadcast_lazily<" + shapeName(operand.type->shape) + ">(" + expr(*operand.operands.at(0)) + ")";
    return expr(operand);
  };
  std::vector<const TypedExpr*> divisions;
  checkedDivisions(*e.operands[0], divisions);
  if (divisions.empty()) {
    std::string out = "weft::tiles::map([&](" + params + ") { return " + body + "; }";
    for (size_t i = 1; i < e.operands.size(); ++i) out += ", " + input(i);
    return out + ")";
  }
  // debug=True: each divisor is checked over the whole tile by the whole tile block first
  // (weft::tiles::check_divisors), as Python computes a tile's // on every element; the inputs
  // are evaluated once, into temporaries.
  std::string out = "[&]() { ", inputs;
  for (size_t i = 1; i < e.operands.size(); ++i) {
    std::string temp = freshTemp();
    out += "const auto " + temp + " = " + input(i) + "; ";
    inputs += ", " + temp;
  }
  for (const TypedExpr* division : divisions)
    out += "weft::tiles::check_divisors(" + checkSite(*division) + "u, weft::tiles::map([&](" + params +
           ") { return " + expr(*division->operands[1]) + "; }" + inputs + ")); ";
  return out + "return weft::tiles::map([&](" + params + ") { return " + body + "; }" + inputs + "); }()";
}

// A pipelined K loop (sema::MmaPipeline): the bounds evaluated once, in order, as forRange does,
// then one mma_pipeline call whose index functions give each step's block indices of a and b
// (of b's K x N tiles: a K-major b's load indexes its N x K array in the other order). The loop
// variable, and the locals that held the loads, are never read after the loop (sema checked), so
// they are not assigned.
void CudaEmitter::mmaPipelineLoop(const sema::TypedStmt& stmt, int depth) {
  usesTiles_ = true;
  const sema::MmaPipeline& pipeline = *stmt.mmaPipeline;
  const Type* type = function_->locals.at(stmt.local).type;
  const std::string cxx = typeName(type), variable = localName(stmt.local);
  const std::string start = freshTemp(), stop = freshTemp(), acc = localName(pipeline.accumulator);
  auto indexFunction = [&](const TypedExpr& load, bool transposed) {
    const std::string first = expr(*load.operands[1]), second = expr(*load.operands[2]);
    return "[&](" + cxx + " " + variable + ") { return weft::tiles::block_index<2>{{" +
           (transposed ? second + ", " + first : first + ", " + second) + "}}; }";
  };
  const TypedExpr& a = *pipeline.loadA;
  const TypedExpr& b = *pipeline.loadB;
  const std::string shapes = shapeName(a.type->shape) + ", " + shapeName(pipeline.tileShapeB()) + ", " +
                             std::to_string(pipeline.stages);
  // The Operand argument where the products' type is not the arrays' (tfloat32 of float32), else
  // void before a K-major b's KMajorB argument (given only for one).
  const bool converts = pipeline.operand != a.type->scalar;
  const std::string kMajor = pipeline.kMajorB ? ", true" : "";
  std::string operand = converts ? std::string(", ") + types::cxxName(pipeline.operand) : "";
  if (pipeline.kMajorB) operand = (converts ? operand : ", void") + kMajor;
  line(depth, "{");
  line(depth + 1, cxx + " " + start + " = " + convert(expr(*stmt.operands[0]), stmt.operands[0]->type, type) + ";");
  line(depth + 1, cxx + " " + stop + " = " + convert(expr(*stmt.operands[1]), stmt.operands[1]->type, type) + ";");
  const std::string arguments = acc + ", " + expr(*a.operands[0]) + ", " + expr(*b.operands[0]) + ", " + start + ", " +
                                stop + ", " + indexFunction(a, false) + ", " + indexFunction(b, pipeline.kMajorB);
  auto maps = tmaMaps_.find(&stmt);
  if (maps == tmaMaps_.end()) {
    line(depth + 1, acc + " = weft::tiles::mma_pipeline_arrays<" + shapes + operand + ">(" + arguments + ");");
  } else {
    // The kernel's maps of a and b on the GPU (tensorMapParameters); none on the CPU target.
    const std::string tma = freshTemp(), first = std::to_string(maps->second), second = std::to_string(maps->second + 1);
    line(0, "#if defined(WEFT_TARGET_HOST)");
    line(depth + 1, "const weft::tiles::tma_operands " + tma + "{};");
    line(0, "#else");
    line(depth + 1, "const weft::tiles::tma_operands " + tma + "{&weft_map" + first + ", &weft_map" + second +
                        ", (weft_map_mask >> " + first + " & 3u) == 3u};");
    line(0, "#endif");
    line(depth + 1, acc + " = weft::tiles::mma_pipeline_tma_arrays<" + shapes + ", " + std::to_string(pipeline.tmaStages) +
                        kMajor + ">(" + arguments + ", " + tma + ");");
  }
  line(depth, "}");
}

void CudaEmitter::loopPrefetchStart(const sema::TypedStmt& stmt, int depth, const std::string& start,
                                    const std::string& stop, const std::string& counter) {
  usesLoopTiles_ = true;
  const sema::LoopPrefetch& prefetch = *stmt.loopPrefetch;
  const Type* type = function_->locals.at(stmt.local).type;
  const std::string cxx = typeName(type), variable = localName(stmt.local);
  std::string objects;
  for (const sema::LoopPrefetch::Load& load : prefetch.loads) {
    const TypedExpr& e = *load.load;
    // The block index of each step, from the loop value (the lambda's parameter stands for the
    // loop variable, which the loop does not assign).
    std::string index = "[&](" + cxx + " " + variable + ") { return weft::tiles::block_index<" +
                        std::to_string(e.operands.size() - 1) + ">{{";
    for (size_t i = 1; i < e.operands.size(); ++i) index += (i > 1 ? ", " : "") + expr(*e.operands[i]);
    index += "}}; }";
    const std::string object = freshTemp();
    line(depth, "auto " + object + " = weft::tiles::prefetch_load<" + shapeName(e.type->shape) + ", " +
                    std::to_string(prefetch.stages) + ", " + std::to_string(load.offset) + "u>(" + expr(*e.operands[0]) +
                    ", " + index + ");");
    objects += (objects.empty() ? "" : ", ") + object;
    // A value only mma reads is the stage itself (the header's stage_view), else the tile.
    prefetched_[&e] = object + (load.mmaOperand ? ".view(" : ".read(") + counter + ")";
  }
  prefetchObjects_[&stmt] = objects;
  line(depth, "weft::tiles::prefetch_start(" + start + ", " + stop + ", " + objects + ");");
}

void CudaEmitter::loopPrefetchNext(const sema::TypedStmt& stmt, int depth, const std::string& counter) {
  line(depth, "weft::tiles::prefetch_next(" + counter + ", " + prefetchObjects_.at(&stmt) + ");");
}

void CudaEmitter::loopPrefetchFinish(const sema::TypedStmt& stmt, int depth) {
  line(depth, "weft::tiles::prefetch_finish(" + prefetchObjects_.at(&stmt) + ");");
}

std::string CudaEmitter::mmaAccumulatorType(const TypedExpr& mma) {
  const TypedExpr& acc = *mma.operands.at(2);
  if (acc.kind == TypedExprKind::Local) return "decltype(" + localName(acc.local) + ")";
  return "weft::tiles::mma_accumulator_t<" + typeName(mma.operands[0]->type) + ", " + typeName(mma.operands[1]->type) + ">";
}

void CudaEmitter::invariantMmaOperands(const sema::TypedStmt& stmt, int depth) {
  usesLoopTiles_ = true;
  for (const TypedExpr* mma : stmt.invariantMmaOperands) {
    const std::string fragments = freshTemp();
    line(depth, "const auto " + fragments + " = weft::tiles::mma_a_operand<" + mmaAccumulatorType(*mma) + ">(" +
                    expr(*mma->operands[0]) + ");");
    invariantOperands_[mma] = fragments;
  }
}

void CudaEmitter::collectTensorMaps(const std::vector<sema::TypedStmt*>& body) {
  constexpr uint8_t kL2Promotion128B = 2;  // cuda.h's CUtensorMapL2promotion
  using weft::tiles::sm90::kPipelineSwizzle;
  using weft::tiles::sm90::kStoreSlabBytes, weft::tiles::sm90::kStoreSwizzle;
  for (const sema::TypedStmt* stmt : body) {
    if (stmt->mmaPipeline && stmt->mmaPipeline->parameterA >= 0) {
      const sema::MmaPipeline& pipeline = *stmt->mmaPipeline;
      // The boxes the header's stages are made of (weft/tiles/sm90/tensor_map_type.h), by the
      // rows of the tiles as their arrays store them: a's M, b's K (K x N) or N (N x K).
      const auto rows = [](const sema::TypedExpr& load) { return static_cast<uint32_t>(load.type->shape.at(0)); };
      const uint32_t columns =
          weft::tiles::sm90::pipeline_box_columns(static_cast<uint32_t>(types::byteSize(pipeline.loadA->type->scalar)));
      tmaMaps_[stmt] = tensorMaps_.size();
      tensorMaps_.push_back(
          {pipeline.parameterA, {rows(*pipeline.loadA), columns}, {}, 0, kPipelineSwizzle, kL2Promotion128B, 0});
      tensorMaps_.push_back(
          {pipeline.parameterB, {rows(*pipeline.loadB), columns}, {}, 0, kPipelineSwizzle, kL2Promotion128B, 0});
      requireFeatures(sema::FeatureSet::Specific);
      continue;
    }
    if (stmt->kind == sema::TypedStmtKind::Evaluate && stmt->operands[0]->tmaStoreParameter >= 0) {
      // A TMA store's box (weft/tiles/sm90/tensor_map_type.h): the tile's rows by one 128-byte slab.
      const sema::TypedExpr& store = *stmt->operands[0];
      const Type* tile = store.operands.back()->type;
      const auto columns = static_cast<uint32_t>(kStoreSlabBytes / types::byteSize(tile->scalar));
      tmaStoreMaps_[&store] = tensorMaps_.size();
      tensorMaps_.push_back(
          {store.tmaStoreParameter, {static_cast<uint32_t>(tile->shape.at(0)), columns}, {}, 0, kStoreSwizzle, 0, 0});
      requireFeatures(sema::FeatureSet::Specific);
      continue;
    }
    collectTensorMaps(stmt->body);
    collectTensorMaps(stmt->orelse);
  }
}

std::string CudaEmitter::tensorMapParameters() const {
  if (tensorMaps_.empty()) return "";
  std::string out = "\n#if !defined(WEFT_TARGET_HOST)\n";
  for (size_t i = 0; i < tensorMaps_.size(); ++i)
    out += ", const __grid_constant__ weft::tiles::sm90::tensor_map weft_map" + std::to_string(i);
  return out + ", const unsigned weft_map_mask\n#endif\n";
}

std::string CudaEmitter::tileCombiner(const TypedExpr& e) {
  // operands[1]: the combined value of two elements (MapInput 0 and 1), a scalar expression.
  std::string element = types::cxxName(e.operands.at(0)->type->scalar);
  return "[&](" + element + " weft_in0, " + element + " weft_in1) -> " + element + " { return " +
         expr(*e.operands.at(1)) + "; }";
}

std::string CudaEmitter::tileCall(const TypedExpr& e) {
  usesTiles_ = true;
  auto operand = [&](size_t i) { return expr(*e.operands.at(i)); };
  auto indices = [&](size_t from, size_t to) {
    std::string text;
    for (size_t i = from; i < to; ++i) text += ", " + operand(i);
    return text;
  };
  // debug=True: the checked overload's leading check site (include/weft/tiles/arrays.h).
  auto checkedAt = [&]() {
    return e.checked ? "weft::tiles::checked_at{" + checkSite(e) + "u}, " : std::string();
  };
  // gather_array, scatter_array, array_access_mask: the checked overload, else check_bounds's form.
  auto addressing = [&](bool checkBounds) {
    return e.checked ? "(" + checkedAt() : std::string(checkBounds ? "<true>(" : "<false>(");
  };
  switch (e.tileOp) {
    case TileOp::Full: return "weft::tiles::full<" + typeName(e.type) + ">(" + operand(0) + ")";
    case TileOp::Iota: return "weft::tiles::iota<" + heldTileTypeName(e.type, e.mmaOperands, e.mmaLayout, false) + ">()";
    case TileOp::Load: {
      if (auto prefetched = prefetched_.find(&e); prefetched != prefetched_.end()) return prefetched->second;
      std::string element = types::cxxName(e.type->scalar);
      const std::string facts = arrayFacts(e.operands.at(0)->type);
      return "weft::tiles::load_array<" + shapeName(e.type->shape) + (facts.empty() ? "" : ", " + facts) + ">(" +
             checkedAt() + operand(0) + ", " +
             paddingValue(static_cast<sema::TilePadding>(e.ints.at(0)), element) +
             indices(1, e.operands.size()) + ")";
    }
    case TileOp::Store: {
      const std::string stored = operand(0) + ", " + operand(e.operands.size() - 1) + indices(1, e.operands.size() - 1);
      auto map = tmaStoreMaps_.find(&e);
      if (map == tmaStoreMaps_.end()) {
        const std::string facts = arrayFacts(e.operands.at(0)->type);
        return "weft::tiles::store_array" + (facts.empty() ? "" : "<" + facts + ">") + "(" + checkedAt() + stored + ")";
      }
      // The kernel's map of the array on the GPU (tensorMapParameters); none on the CPU target.
      const std::string i = std::to_string(map->second);
      return "weft::tiles::store_array_tma(\n#if defined(WEFT_TARGET_HOST)\nweft::tiles::tma_store_map{}\n#else\n"
             "weft::tiles::tma_store_map{&weft_map" + i + ", (weft_map_mask >> " + i + " & 1u) != 0u}\n#endif\n, " +
             stored + ")";
    }
    case TileOp::Gather:
    case TileOp::Scatter:
      return std::string("weft::tiles::") + (e.tileOp == TileOp::Gather ? "gather_array" : "scatter_array") +
             addressing(e.ints.at(0) != 0) + operand(0) + ", " + operand(1) + ", " + operand(2) +
             indices(3, e.operands.size()) + ")";
    case TileOp::Arith: {
      static constexpr const char* kNames[] = {"add", "sub", "mul", "div", "fma", "sqrt", "max", "min"};
      static constexpr const char* kRounding[] = {"round_ties_to_even_t", "round_toward_zero_t",
                                                  "round_toward_negative_t", "round_toward_positive_t",
                                                  "round_approximate_t", "round_full_t"};
      std::string out = std::string("weft::tiles::") + kNames[e.ints.at(0)] + "(";
      for (size_t i = 0; i < e.operands.size(); ++i) out += (i ? ", " : "") + operand(i);
      auto op = static_cast<sema::TileArith>(e.ints.at(0));
      if (op == sema::TileArith::Max || op == sema::TileArith::Min)
        return out + (e.ints.at(3) ? ", weft::tiles::propagate_nan_t{})" : ")");
      if (e.ints.at(1) >= 0 || e.ints.at(2)) {
        // A subnormal mode follows a rounding mode: the default rounding is spelled out then.
        out += std::string(", weft::tiles::") + kRounding[e.ints.at(1) >= 0 ? e.ints.at(1) : 0] + "{}";
        if (e.ints.at(2)) out += ", weft::tiles::round_subnormals_to_zero_t{}";
      }
      return out + ")";
    }
    case TileOp::Atomic: {
      static constexpr const char* kNames[] = {"atomic_add", "atomic_max", "atomic_min", "atomic_and",
                                               "atomic_or",  "atomic_xor", "atomic_exchange"};
      static constexpr const char* kOrders[] = {"memory_order_relaxed_t", "memory_order_acquire_t",
                                                "memory_order_release_t", "memory_order_acq_rel_t"};
      static constexpr const char* kScopes[] = {"thread_scope_block_t", "thread_scope_device_t", "thread_scope_system_t"};
      std::string indexList = indices(3, e.operands.size());
      return std::string("weft::tiles::") + kNames[e.ints.at(0)] + "(weft::tiles::array_pointers(" +
             operand(0) + indexList + "), " + operand(1) + ", weft::tiles::array_access_mask" +
             addressing(e.ints.at(3) != 0) + operand(0) + ", " + operand(2) + indexList +
             "), weft::tiles::" + kOrders[e.ints.at(1)] + "{}, weft::tiles::" + kScopes[e.ints.at(2)] + "{})";
    }
    case TileOp::PartitionView: return operand(0);  // the view is its array at run time
    case TileOp::BroadcastTo: return "weft::tiles::broadcast_to<" + shapeName(e.type->shape) + ">(" + operand(0) + ")";
    case TileOp::Reshape: return "weft::tiles::reshape<" + shapeName(e.type->shape) + ">(" + operand(0) + ")";
    case TileOp::Permute: {
      std::string dims;
      for (size_t i = 0; i < e.ints.size(); ++i) dims += (i ? ", " : "") + std::to_string(e.ints[i]);
      return "weft::tiles::permute<" + dims + ">(" + operand(0) + ")";
    }
    case TileOp::Cat:
      return "weft::tiles::cat<" + std::to_string(e.ints.at(0)) + ">(" + operand(0) + ", " + operand(1) + ")";
    case TileOp::Extract:
      return "weft::tiles::extract_wrapped<" + shapeName(e.type->shape) + ">(" + checkedAt() + operand(0) +
             indices(1, e.operands.size()) + ")";
    case TileOp::Sum:
    case TileOp::Prod:
    case TileOp::Max:
    case TileOp::Min:
    case TileOp::Argmax:
    case TileOp::Argmin:
    case TileOp::Reduce: {
      int64_t axis = e.ints.at(0);
      bool keepdims = e.ints.at(1) != 0;
      std::string reduced;
      if (e.tileOp == TileOp::Reduce) {
        // The header's reduction along one axis; all elements: along the flattened tile.
        int64_t size = 1;
        for (int64_t extent : e.operands.at(0)->type->shape) size *= extent;
        std::string source = axis < 0 ? "weft::tiles::reshape<" + shapeName({size}) + ">(" + operand(0) + ")" : operand(0);
        reduced = "weft::tiles::reduce<" + std::to_string(axis < 0 ? 0 : axis) + ", " +
                  (keepdims && axis >= 0 ? "true" : "false") + ">(" + source + ", " + tileCombiner(e) + ", " +
                  operand(2) + ")";
      } else {
        std::string name = std::string("weft::tiles::") + reductionName(e.tileOp);
        reduced = axis < 0 ? name + "(" + operand(0) + ")"
                           : name + "<" + std::to_string(axis) + ", " + (keepdims ? "true" : "false") + ">(" +
                                 operand(0) + ")";
      }
      // A full reduction is a rank-0 tile: keepdims gives it the operand's rank in ones.
      if (axis < 0 && keepdims) return "weft::tiles::reshape<" + shapeName(e.type->shape) + ">(" + reduced + ")";
      return reduced;
    }
    case TileOp::Cumsum:
    case TileOp::Cumprod:
      return std::string("weft::tiles::") + reductionName(e.tileOp) + "<" + std::to_string(e.ints.at(0)) + ">(" +
             operand(0) + ")";
    case TileOp::Scan:
      return std::string("weft::tiles::") + (e.ints.at(1) ? "reverse_scan<" : "scan<") + std::to_string(e.ints.at(0)) +
             ">(" + operand(0) + ", " + tileCombiner(e) + ")";
    case TileOp::Assume: {
      // The header's hints; checked (debug=True): the fact tested on the value, computed once.
      static constexpr const char* kHints[] = {"assume_divisible", "assume_bounded", "assume_bounded", "assume_bounded"};
      auto fact = static_cast<sema::TileAssume>(e.ints.at(0));
      std::string type = types::cxxName(e.type->scalar);
      std::string bounds;
      switch (fact) {
        case sema::TileAssume::Divisible: bounds = operand(1); break;
        case sema::TileAssume::Bounded: bounds = operand(1) + ", " + operand(2); break;
        // One bound: the value itself is the other.
        case sema::TileAssume::Below: bounds = operand(1) + ", weft_v"; break;
        case sema::TileAssume::Above: bounds = "weft_v, " + operand(1); break;
      }
      std::string hinted = std::string("weft::tiles::") + kHints[e.ints.at(0)] + "(weft_v, " + bounds + ")";
      std::string holds;
      switch (fact) {
        case sema::TileAssume::Divisible: holds = "weft_v % " + operand(1) + " == 0"; break;
        case sema::TileAssume::Bounded: holds = operand(1) + " <= weft_v && weft_v <= " + operand(2); break;
        case sema::TileAssume::Below: holds = operand(1) + " <= weft_v"; break;
        case sema::TileAssume::Above: holds = "weft_v <= " + operand(1); break;
      }
      std::string check = e.ints.at(1) ? "if (!(" + holds + ")) " + operand(e.operands.size() - 1) + "; " : "";
      return "[&](" + type + " weft_v) -> " + type + " { " + check + "return " + hinted + "; }(" + operand(0) + ")";
    }
    case TileOp::Mma: {
      // A full accumulator (mma(a, b, zeros(...))) is made in the layout mma returns: a
      // conversion from the default layout would exchange every element through shared memory.
      const TypedExpr& acc = *e.operands.at(2);
      std::string accumulator = operand(2);
      if (acc.kind == TypedExprKind::TileCall && acc.tileOp == TileOp::Full)
        accumulator = "weft::tiles::full<" + mmaAccumulatorType(e) + ">(" + expr(*acc.operands.at(0)) + ")";
      // A loop-invariant a-operand: its fragments, loaded before the loop.
      auto invariant = invariantOperands_.find(&e);
      const std::string a = invariant != invariantOperands_.end() ? invariant->second : operand(0);
      return "weft::tiles::mma(" + a + ", " + operand(1) + ", " + accumulator + ")";
    }
    case TileOp::Item:
      return "static_cast<" + std::string(types::cxxName(e.type->scalar)) + ">(weft::tiles::reshape<weft::tiles::shape<>>(" +
             operand(0) + "))";
    case TileOp::Bid:
    case TileOp::NumBlocks: {
      const char* component = e.ints.at(0) == 0 ? "x" : e.ints.at(0) == 1 ? "y" : "z";
      return std::string("static_cast<int32_t>(weft::tiles::") + (e.tileOp == TileOp::Bid ? "bid" : "num_blocks") +
             "()." + component + ")";
    }
  }
  WEFT_CHECK(false, "unknown tile operation");
  return {};
}

}  // namespace weft::codegen
