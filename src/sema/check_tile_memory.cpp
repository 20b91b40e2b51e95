// Tile memory access (docs/tiles.md): load and store of array tiles (with cuTile's order=),
// gather and scatter (the seed's pointer tiles), and atomics.
#include <algorithm>
#include <span>

#include "sema/checker.h"
#include "support/check.h"

namespace weft::sema {

using types::ScalarKind;
using Face = FunctionSource::Face;

namespace {

// Memory orders and thread scopes of atomics: the seed's strings (as weft's AtomicRef takes
// them) and cuTile's MemoryOrder / MemoryScope members.
constexpr std::string_view kMemoryOrders[] = {"relaxed", "acquire", "release", "acq_rel"};
constexpr std::string_view kThreadScopes[] = {"block", "device", "system"};
// cuTile's PaddingMode members and the seed's padding names, as TilePadding.
struct PaddingName {
  std::string_view name;
  TilePadding padding;
};
constexpr PaddingName kPaddings[] = {
    {"zero", TilePadding::Zero},   {"-0", TilePadding::NegZero}, {"+inf", TilePadding::PosInf},
    {"-inf", TilePadding::NegInf}, {"nan", TilePadding::NaN},
};

}  // namespace

std::optional<TilePadding> FunctionChecker::tilePadding(const syntax::Expr* arg, const types::Type* array) {
  if (arg == nullptr) return TilePadding::Zero;
  Value p = expr(*arg);
  if (p.isError()) return std::nullopt;
  std::optional<TilePadding> padding;
  if (p.constant && p.constant->kind == ConstValue::Kind::Str)
    for (const PaddingName& known : kPaddings)
      if (p.constant->strValue == known.name) padding = known.padding;
  std::string given = p.constant ? toString(*p.constant) : describe(p);
  if (!padding) {
    sink.error(diag::TilePadding, arg->loc, {given});
    return std::nullopt;
  }
  bool floating = types::isFloating(array->scalar);
  // float8e4m3 (e4m3fn) has no infinity.
  bool infinite = padding == TilePadding::PosInf || padding == TilePadding::NegInf;
  if ((!floating && padding != TilePadding::Zero) || (infinite && array->scalar == ScalarKind::Float8E4M3)) {
    sink.error(diag::TilePadding, arg->loc, {given + " for an array of " + types::pythonName(array->scalar)});
    return std::nullopt;
  }
  return padding;
}

Value FunctionChecker::tileView(bool partition, const syntax::CallExpr& e, const std::string& what) {
  std::vector<const syntax::Expr*> a;
  if (!partition) {
    if (!bindArguments(what, e, {"array"}, 1, a, nullptr)) return errorValue();
    return tileArrayArgument(*a[0], what);
  }
  if (!bindArguments(what, e, {"span", "shape", "padding"}, 2, a, nullptr)) return errorValue();
  Value array = tileArrayArgument(*a[0], what);
  if (array.isError()) return array;
  std::optional<std::vector<int64_t>> shape = tileShapeArgument(*a[1], what);
  if (!shape) return errorValue();
  if (static_cast<int>(shape->size()) != array.type()->ndim) {
    sink.error(diag::TileRank, a[1]->loc, {what, shapeText(*shape), std::to_string(array.type()->ndim)});
    return errorValue();
  }
  std::optional<TilePadding> padding = tilePadding(a[2], array.type());
  if (!padding) return errorValue();
  const types::Type* type = types.tileView(array.type(), *shape, static_cast<int>(*padding));
  return runtime(tileCall(TileOp::PartitionView, type, e.loc, {array.expr}));
}

Value FunctionChecker::tileLoadStore(bool load, const syntax::CallExpr& e, const std::string& what, Face face,
                                     const std::optional<Value>& self) {
  std::vector<const syntax::Expr*> a;
  std::vector<std::string_view> params =
      load ? std::vector<std::string_view>{"array", "index", "shape", face == Face::CuTile ? "padding_mode" : "padding",
                                           "order", "latency", "allow_tma"}
           : std::vector<std::string_view>{"array", "index", "tile", "order", "latency", "allow_tma"};
  syntax::NameExpr selfName;
  selfName.loc = e.loc;
  if (!bindArguments(what, e, params, load ? 2 : 3, a, self ? &selfName : nullptr)) return errorValue();
  size_t hints = load ? 4 : 3;  // order=, latency=, allow_tma=
  // An array, with the tile's shape and padding given here; or a partition view, which has them.
  Value array = self ? *self : value(*a[0]);
  if (array.isError()) return array;
  const types::Type* view = array.type()->kind == types::TypeKind::TileView ? array.type() : nullptr;
  if (view == nullptr) array = tileArrayValue(array, a[0]->loc, what);
  if (array.isError()) return array;
  if (view != nullptr) array = runtime(tileCall(TileOp::PartitionView, view->elements[0], e.loc, {array.expr}));
  if (load && view == nullptr && a[2] == nullptr) {
    sink.error(diag::MissingArgument, e.loc, {what, "shape"});
    return errorValue();
  }
  for (size_t i : {size_t{2}, size_t{3}}) {
    if (load && view != nullptr && a[i] != nullptr) {
      sink.error(diag::DuplicateArgument, a[i]->loc, {what + " of a partition_view (the view has it)", std::string(params[i])});
      return errorValue();
    }
  }
  int rank = array.type()->ndim;
  std::vector<TypedExpr*> index;
  if (!tileIndex(*a[1], rank, what, index)) return errorValue();
  // The tile's shape: the load's (or the view's), or the stored tile's.
  Value tile;
  std::optional<std::vector<int64_t>> shape;
  if (load) {
    shape = view != nullptr ? std::optional(view->shape) : tileShapeArgument(*a[2], what);
  } else {
    tile = tileValue(*a[2], what);
    if (!tile.isError()) shape = tile.type()->shape;
  }
  if (!shape) return errorValue();
  if (static_cast<int>(shape->size()) != rank) {
    sink.error(diag::TileRank, a[2]->loc, {what, shapeText(*shape), std::to_string(rank)});
    return errorValue();
  }
  if (!load && view != nullptr && *shape != view->shape) {
    sink.error(diag::TileViewShape, a[2]->loc, {what, shapeText(*shape), shapeText(view->shape)});
    return errorValue();
  }
  if (!load && tile.type()->scalar != array.type()->scalar) {
    sink.error(diag::TileStoreType, a[2]->loc,
               {types::pythonName(tile.type()->scalar), types::pythonName(array.type()->scalar)});
    return errorValue();
  }
  std::optional<TilePadding> padding = view != nullptr ? std::optional(static_cast<TilePadding>(view->padding))
                                       : load           ? tilePadding(a[3], array.type())
                                                        : std::optional(TilePadding::Zero);
  if (!padding) return errorValue();
  std::optional<std::vector<int64_t>> order = tileOrderAndHints(a[hints], a[hints + 1], a[hints + 2], rank, what);
  if (!order) return errorValue();
  // order[k]: the array axis that tile axis k (and index component k) runs along. The access is
  // the row-major one of the array's tile at the permuted index, whose axes permute() reorders.
  bool identity = true;
  std::vector<int64_t> inverse(static_cast<size_t>(rank));
  std::vector<int64_t> arrayShape(static_cast<size_t>(rank));
  std::vector<TypedExpr*> operands(static_cast<size_t>(rank) + 1);
  operands[0] = array.expr;
  for (size_t k = 0; k < static_cast<size_t>(rank); ++k) {
    size_t axis = static_cast<size_t>((*order)[k]);
    identity = identity && axis == k;
    inverse[axis] = static_cast<int64_t>(k);
    arrayShape[axis] = (*shape)[k];
    operands[axis + 1] = index[k];
  }
  ScalarKind element = array.type()->scalar;
  if (load) {
    TypedExpr* loaded = tileCall(TileOp::Load, types.tile(element, arrayShape), e.loc, std::move(operands),
                                 {static_cast<int64_t>(*padding)});
    if (identity) return runtime(loaded);
    restrictedAllowed_ = true;  // part of the load
    TypedExpr* permuted = tileCall(TileOp::Permute, types.tile(element, *shape), e.loc, {loaded}, *order);
    restrictedAllowed_ = false;
    return runtime(permuted);
  }
  TypedExpr* stored = tile.expr;
  restrictedAllowed_ = true;  // part of the store
  if (!identity) stored = tileCall(TileOp::Permute, types.tile(element, arrayShape), e.loc, {stored}, inverse);
  restrictedAllowed_ = false;
  operands.push_back(stored);
  return runtime(tileCall(TileOp::Store, types.none(), e.loc, std::move(operands)));
}

Value FunctionChecker::tileGatherScatter(bool gather, const syntax::CallExpr& e, const std::string& what) {
  std::vector<const syntax::Expr*> a;
  std::vector<std::string_view> params = gather
      ? std::vector<std::string_view>{"array", "indices", "mask", "padding_value", "check_bounds", "latency"}
      : std::vector<std::string_view>{"array", "indices", "value", "mask", "check_bounds", "latency"};
  if (!bindArguments(what, e, params, gather ? 2 : 3, a, nullptr)) return errorValue();
  if (a[5] != nullptr && !tileConstantInt(*a[5], "latency= of " + what)) return errorValue();
  return gather ? tileGatherScatterOperands(true, a[0], a[1], a[3], a[2], a[4], e, what)
                : tileGatherScatterOperands(false, a[0], a[1], a[2], a[3], a[4], e, what);
}

Value FunctionChecker::tileGatherScatterOperands(bool gather, const syntax::Expr* arrayArg, const syntax::Expr* indicesArg,
                                                 const syntax::Expr* operandArg, const syntax::Expr* maskArg,
                                                 const syntax::Expr* checkArg, const syntax::CallExpr& e,
                                                 const std::string& what) {
  // a[0] the array, a[1] the indices, a[2] the stored value (a gather's padding value, or null).
  const syntax::Expr* a[] = {arrayArg, indicesArg, operandArg, operandArg};
  Value array = tileArrayArgument(*a[0], what);
  if (array.isError()) return array;
  ScalarKind element = array.type()->scalar;
  // The indices: a tuple with one integer tile or number per dimension (a 1-D array's may be alone).
  Value indices = value(*a[1]);
  if (indices.isError()) return indices;
  std::vector<Value> parts;
  if (indices.type()->kind == types::TypeKind::Tuple) {
    if (!tupleElements(indices, what, a[1]->loc, parts)) return errorValue();
  } else {
    parts.push_back(indices);
  }
  if (static_cast<int>(parts.size()) != array.type()->ndim) {
    sink.error(diag::TileRank, a[1]->loc, {what + "'s indices", std::to_string(parts.size()) + " components",
                                           std::to_string(array.type()->ndim)});
    return errorValue();
  }
  std::vector<int64_t> shape;
  for (Value& part : parts) {
    if (part.isError()) return errorValue();
    ScalarKind kind = part.type()->scalar;
    if ((!part.type()->isTile() && !part.type()->isScalar()) || !types::isInteger(kind)) {
      sink.error(diag::ArgumentType, a[1]->loc, {"indices", what, "integer tiles or integers", describe(part)});
      return errorValue();
    }
    if (part.type()->isTile()) {
      std::optional<std::vector<int64_t>> joined = broadcastShape(shape, part.type()->shape, a[1]->loc, what);
      if (!joined) return errorValue();
      shape = *joined;
    }
  }
  Value stored;
  if (!gather) {
    stored = value(*a[2]);
    if (stored.isError()) return stored;
    if (stored.type()->isTile()) {
      if (stored.type()->scalar != element) {
        sink.error(diag::TileStoreType, a[2]->loc, {types::pythonName(stored.type()->scalar), types::pythonName(element)});
        return errorValue();
      }
      std::optional<std::vector<int64_t>> joined = broadcastShape(shape, stored.type()->shape, a[2]->loc, what);
      if (!joined) return errorValue();
      shape = *joined;
    } else if (!stored.type()->isScalar()) {
      sink.error(diag::ArgumentType, a[2]->loc, {"value", what, "a tile or a number", describe(stored)});
      return errorValue();
    }
  }
  ConstValue always;
  always.kind = ConstValue::Kind::Bool;
  always.boolValue = true;
  Value mask = weakLiteral(always, e.loc);
  if (maskArg != nullptr) {
    mask = value(*maskArg);
    if (mask.isError()) return mask;
    if ((!mask.type()->isTile() && !mask.type()->isScalar()) || !types::isBool(mask.type()->scalar)) {
      sink.error(diag::ArgumentType, maskArg->loc, {"mask", what, "a bool tile or a bool", describe(mask)});
      return errorValue();
    }
    if (mask.type()->isTile()) {
      std::optional<std::vector<int64_t>> joined = broadcastShape(shape, mask.type()->shape, maskArg->loc, what);
      if (!joined) return errorValue();
      shape = *joined;
    }
  }
  bool checkBounds = true;
  if (checkArg != nullptr) {
    Value c = expr(*checkArg);
    if (c.isError()) return c;
    if (!c.constant || c.constant->kind != ConstValue::Kind::Bool) {
      sink.error(diag::NotConstant, checkArg->loc, {"check_bounds= of " + what + " (True or False)"});
      return errorValue();
    }
    checkBounds = c.constant->boolValue;
  }
  // Every operand as a tile of the common shape.
  auto asTile = [&](Value v, ScalarKind kind) -> TypedExpr* {
    if (v.type()->isTile()) return broadcastTile(v, shape, e.loc).expr;
    Value converted = v.weak ? promoteTo(v, kind, e.loc) : cast(v, kind, e.loc);
    if (converted.isError()) return nullptr;
    return tileCall(TileOp::Full, types.tile(kind, shape), e.loc, {converted.expr});
  };
  std::vector<TypedExpr*> operands{array.expr};
  if (gather) {
    Value pad = a[3] != nullptr ? value(*a[3]) : weakLiteral(intConstant(0), e.loc);
    if (pad.isError()) return pad;
    if (!pad.type()->isScalar()) {
      sink.error(diag::ArgumentType, a[3]->loc, {"padding_value", what, "a number", describe(pad)});
      return errorValue();
    }
    Value converted = pad.weak ? promoteTo(pad, element, e.loc) : cast(pad, element, e.loc);
    if (converted.isError()) return converted;
    operands.push_back(converted.expr);
  } else {
    operands.push_back(asTile(stored, element));
  }
  operands.push_back(asTile(mask, ScalarKind::Bool));
  for (Value& part : parts) operands.push_back(asTile(part, part.type()->scalar));
  if (std::find(operands.begin(), operands.end(), nullptr) != operands.end()) return errorValue();
  const types::Type* type = gather ? types.tile(element, shape) : types.none();
  return runtime(tileCall(gather ? TileOp::Gather : TileOp::Scatter, type, e.loc, std::move(operands),
                          {checkBounds ? 1 : 0}));
}

Value FunctionChecker::tileAtomic(const std::string& name, const syntax::CallExpr& e, const std::string& what, Face face) {
  static const std::pair<std::string_view, TileAtomic> kOps[] = {
      {"atomic_add", TileAtomic::Add}, {"atomic_max", TileAtomic::Max},          {"atomic_min", TileAtomic::Min},
      {"atomic_and", TileAtomic::And}, {"atomic_or", TileAtomic::Or},            {"atomic_xor", TileAtomic::Xor},
      {"atomic_xchg", TileAtomic::Exchange}, {"atomic_exchange", TileAtomic::Exchange}};
  TileAtomic op = TileAtomic::Add;
  for (const auto& [opName, value] : kOps)
    if (name == opName) op = value;
  bool cutile = face == Face::CuTile;
  std::vector<const syntax::Expr*> a;
  std::vector<std::string_view> params = {"array", "indices", cutile ? "update" : "value", "mask", "check_bounds",
                                          cutile ? "memory_order" : "order", cutile ? "memory_scope" : "scope"};
  if (!bindArguments(what, e, params, 3, a, nullptr)) return errorValue();
  // Defaults: acq_rel; the seed's system scope, cuTile's device scope.
  int order = 3, scope = cutile ? 1 : 2;
  for (size_t i : {size_t{5}, size_t{6}}) {
    if (a[i] == nullptr) continue;
    Value v = expr(*a[i]);
    if (v.isError()) return v;
    std::span<const std::string_view> names = i == 5 ? std::span<const std::string_view>(kMemoryOrders)
                                                     : std::span<const std::string_view>(kThreadScopes);
    int found = -1;
    if (v.constant && v.constant->kind == ConstValue::Kind::Str)
      for (size_t k = 0; k < names.size(); ++k)
        if (v.constant->strValue == names[k]) found = static_cast<int>(k);
    if (found < 0) {
      sink.error(diag::TileAtomicOption, a[i]->loc, {v.constant ? toString(*v.constant) : describe(v), what});
      return errorValue();
    }
    (i == 5 ? order : scope) = found;
  }
  // A read-modify-write reads and writes: relaxed or acq_rel are its orders (acquire and release
  // are the seed's read and write orders).
  if (order == 1 || order == 2) {
    sink.error(diag::TileAtomicOption, a[5]->loc, {std::string(kMemoryOrders[order]), what + " (a read-modify-write: relaxed or acq_rel)"});
    return errorValue();
  }
  // Addressing as scatter's: one index tile per dimension, the update, the mask.
  Value addressed = tileGatherScatterOperands(false, a[0], a[1], a[2], a[3], a[4], e, what);
  if (addressed.isError()) return addressed;
  ScalarKind element = addressed.expr->operands[0]->type->scalar;
  bool integer = element == ScalarKind::Int32 || element == ScalarKind::Int64 || element == ScalarKind::UInt32 ||
                 element == ScalarKind::UInt64;
  bool floating = element == ScalarKind::Float32 || element == ScalarKind::Float64;
  bool bitwise = op == TileAtomic::And || op == TileAtomic::Or || op == TileAtomic::Xor;
  if (!integer && !(floating && !bitwise)) {
    sink.error(diag::TileElementType, e.loc, {types::pythonName(element), what + " (32- and 64-bit integers" +
                                                                              (bitwise ? ")" : ", float32 and float64)")});
    return errorValue();
  }
  TypedExpr* call = addressed.expr;
  call->tileOp = TileOp::Atomic;
  call->type = types.tile(element, call->operands[1]->type->shape);
  call->ints = {static_cast<int64_t>(op), order, scope, call->ints.at(0)};
  return runtime(call);
}

bool FunctionChecker::tileIndex(const syntax::Expr& arg, int rank, const std::string& what,
                                std::vector<TypedExpr*>& operands) {
  Value index = value(arg);
  if (index.isError()) return false;
  std::vector<Value> parts;
  if ((index.type()->kind == types::TypeKind::Tuple)) {
    if (!tupleElements(index, what, arg.loc, parts)) return false;
  } else {
    parts.push_back(index);
  }
  if (static_cast<int>(parts.size()) != rank) {
    sink.error(diag::TileRank, arg.loc, {what + "'s index", std::to_string(parts.size()) + " components", std::to_string(rank)});
    return false;
  }
  for (Value& part : parts) {
    if (part.isError()) return false;
    if (!part.type()->isScalar() || !types::isInteger(part.type()->scalar)) {
      if (!(part.type()->isScalar() && types::isBool(part.type()->scalar))) {
        sink.error(diag::IndexType, arg.loc, {describe(part)});
        return false;
      }
    }
    Value converted = part.weak ? promoteTo(part, ScalarKind::Int64, arg.loc) : cast(part, ScalarKind::Int64, arg.loc);
    if (converted.isError()) return false;
    operands.push_back(converted.expr);
  }
  return true;
}

std::optional<std::vector<int64_t>> FunctionChecker::tileOrderAndHints(const syntax::Expr* order,
                                                                        const syntax::Expr* latency,
                                                                        const syntax::Expr* allowTma, int rank,
                                                                        const std::string& what) {
  // 'C' (row-major: the identity), 'F' (the axes reversed) or a permutation of the axes.
  std::vector<int64_t> axes(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) axes[static_cast<size_t>(i)] = i;
  if (order != nullptr) {
    Value v = expr(*order);
    if (v.isError()) return std::nullopt;
    bool ok = v.constant && v.constant->kind == ConstValue::Kind::Str &&
              (v.constant->strValue == "C" || v.constant->strValue == "F");
    if (ok && v.constant->strValue == "F") std::reverse(axes.begin(), axes.end());
    if (v.constant && v.constant->kind == ConstValue::Kind::Tuple &&
        static_cast<int>(v.constant->elements.size()) == rank) {
      std::vector<bool> seen(static_cast<size_t>(rank));
      ok = true;
      for (size_t i = 0; ok && i < static_cast<size_t>(rank); ++i) {
        std::optional<int64_t> axis = int64Value(v.constant->elements[i]);
        ok = axis && *axis >= 0 && *axis < rank && !seen[static_cast<size_t>(*axis)];
        if (ok) seen[static_cast<size_t>(*axis)] = true, axes[i] = *axis;
      }
    }
    if (!ok) {
      sink.error(diag::TilePermutation, order->loc,
                 {"order=" + (v.constant ? toString(*v.constant) : describe(v)) + " of " + what + " ('C', 'F' or a tuple)",
                  std::to_string(rank)});
      return std::nullopt;
    }
  }
  // Hints: constants, without effect on the result.
  if (latency != nullptr && !tileConstantInt(*latency, "latency= of " + what)) return std::nullopt;
  if (allowTma != nullptr) {
    Value v = expr(*allowTma);
    if (v.isError()) return std::nullopt;
    if (!v.constant || v.constant->kind != ConstValue::Kind::Bool) {
      sink.error(diag::NotConstant, allowTma->loc, {"allow_tma= of " + what + " (True or False)"});
      return std::nullopt;
    }
  }
  return axes;
}

}  // namespace weft::sema
