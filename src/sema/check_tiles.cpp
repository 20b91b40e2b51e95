// Tile code (docs/tiles.md): the functions of weft.tiles (the seed's face) and weft.cutile
// (cuTile Python's), tile attributes, and operators on tiles. Element-wise work is a TileMap
// whose body is the scalar operation, checked by the scalar rules on placeholders of the
// element types, so tiles compute exactly as scalars do; the faces differ only in how the
// operands' element types meet (tileCommonKind).
#include <algorithm>
#include <cmath>
#include <span>

#include "sema/checker.h"
#include "support/check.h"

namespace weft::sema {

using types::ScalarKind;
using Face = FunctionSource::Face;

namespace {

// Functions both faces have, with the same name.
constexpr std::string_view kCommonFunctions[] = {
    "load", "store", "full", "zeros", "ones", "arange", "bid", "num_blocks", "cdiv", "exp", "exp2", "log", "log2",
    "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "abs", "floor", "ceil", "maximum", "minimum",
    "where", "astype", "broadcast_to", "reshape", "permute", "transpose", "expand_dims", "cat", "extract", "sum",
    "prod", "max", "min", "argmax", "argmin", "cumsum", "cumprod", "mma", "matmul", "gather", "scatter",
    "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor"};
// The seed's own names.
constexpr std::string_view kSeedFunctions[] = {"iota", "add", "sub", "mul", "div", "fma", "atomic_exchange"};
// cuTile Python's own names.
constexpr std::string_view kCuTileFunctions[] = {"num_tiles", "add", "sub", "mul", "truediv", "fma", "atomic_xchg"};

// Memory orders and thread scopes of atomics: the seed's strings (as weft's AtomicRef takes
// them) and cuTile's MemoryOrder / MemoryScope members.
constexpr std::string_view kMemoryOrders[] = {"relaxed", "acquire", "release", "acq_rel"};
constexpr std::string_view kThreadScopes[] = {"block", "device", "system"};
constexpr std::pair<std::string_view, std::string_view> kCuTileOrders[] = {
    {"RELAXED", "relaxed"}, {"ACQUIRE", "acquire"}, {"RELEASE", "release"}, {"ACQ_REL", "acq_rel"}};
constexpr std::pair<std::string_view, std::string_view> kCuTileScopes[] = {
    {"BLOCK", "block"}, {"DEVICE", "device"}, {"SYS", "system"}};

// The seed's modifier tags and padding constants (python/weft/tiles.py takes them from here).
constexpr std::string_view kSeedTags[] = {"round_ties_to_even", "round_toward_zero", "round_toward_negative",
                                          "round_toward_positive", "round_approximate", "round_full",
                                          "round_subnormals_to_zero", "preserve_subnormals", "propagate_nan",
                                          "suppress_nan"};
constexpr std::pair<std::string_view, std::string_view> kSeedPaddings[] = {
    {"padding_zero", "zero"}, {"padding_neg_zero", "-0"}, {"padding_pos_inf", "+inf"}, {"padding_neg_inf", "-inf"},
    {"padding_nan", "nan"}};

// The seed's numeric modifier tags (weft.tiles' constants) and cuTile's RoundingMode members,
// as rounding codes (TileOp::Arith).
constexpr std::pair<std::string_view, int> kRoundingTags[] = {
    {"round_ties_to_even", 0}, {"round_toward_zero", 1}, {"round_toward_negative", 2},
    {"round_toward_positive", 3}, {"round_approximate", 4}, {"round_full", 5}};
constexpr std::pair<std::string_view, std::string_view> kRoundingModes[] = {
    {"RN", "round_ties_to_even"}, {"RZ", "round_toward_zero"}, {"RM", "round_toward_negative"},
    {"RP", "round_toward_positive"}, {"APPROX", "round_approximate"}, {"FULL", "round_full"}};

// cuTile's PaddingMode members and the seed's padding names, as TilePadding.
struct PaddingName {
  std::string_view name;
  TilePadding padding;
};
constexpr PaddingName kPaddings[] = {
    {"zero", TilePadding::Zero},   {"-0", TilePadding::NegZero}, {"+inf", TilePadding::PosInf},
    {"-inf", TilePadding::NegInf}, {"nan", TilePadding::NaN},
};
constexpr std::pair<std::string_view, std::string_view> kPaddingModes[] = {
    {"ZERO", "zero"}, {"NEG_ZERO", "-0"}, {"POS_INF", "+inf"}, {"NEG_INF", "-inf"}, {"NAN", "nan"},
    // UNDETERMINED leaves the value to the implementation: weft gives zero.
    {"UNDETERMINED", "zero"},
};

Face faceOf(std::string_view module) { return module.starts_with("weft.cutile") ? Face::CuTile : Face::Tiles; }

Value strConstant(std::string_view text) {
  Value v;
  v.kind = Value::Kind::Constant;
  v.constant = ConstValue{};
  v.constant->kind = ConstValue::Kind::Str;
  v.constant->strValue = std::string(text);
  return v;
}

bool isPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

// The integer conversion rank order of the seed (C++ without promotion): by width.
int bits(ScalarKind kind) { return types::isBool(kind) ? 1 : 8 * types::byteSize(kind); }

// The floating conversion ranks of the seed: fp8 < {float16, bfloat16} < float32 < float64;
// nullopt where unordered.
std::optional<int> floatRankOrder(ScalarKind a, ScalarKind b) {
  auto rank = [](ScalarKind k) {
    switch (k) {
      case ScalarKind::Float8E4M3:
      case ScalarKind::Float8E5M2: return 0;
      case ScalarKind::Float16:
      case ScalarKind::BFloat16: return 1;
      case ScalarKind::Float32: return 2;
      default: return 3;
    }
  };
  if (a == b) return 0;
  int ra = rank(a), rb = rank(b);
  if (ra == rb) return std::nullopt;  // fp8 e4m3 vs e5m2, float16 vs bfloat16
  return ra < rb ? -1 : 1;
}

// Whether the seed's scalar conversion `from` -> `to` is narrowing ([dcl.init.list]).
bool seedNarrowing(ScalarKind from, ScalarKind to) {
  if (from == to) return false;
  bool fromFloat = types::isFloating(from), toFloat = types::isFloating(to);
  if (fromFloat && !toFloat) return true;
  if (!fromFloat && toFloat) return true;  // int -> float: narrowing (the arithmetic rules allow it)
  if (fromFloat) {
    std::optional<int> order = floatRankOrder(from, to);
    return !order || *order > 0;
  }
  // integers: `to` must hold every value of `from`.
  if (types::isBool(from)) return false;
  if (types::isBool(to)) return true;
  bool fromSigned = types::isSigned(from), toSigned = types::isSigned(to);
  if (fromSigned == toSigned) return bits(to) < bits(from);
  if (fromSigned) return true;  // a negative value has no unsigned image
  return bits(to) <= bits(from);
}

}  // namespace

int64_t tileSize(const types::Type* tile) {
  int64_t size = 1;
  for (int64_t extent : tile->shape) size *= extent;
  return size;
}

int tileThreadsFor(int64_t largestTile, bool usesMma) {
  // Tensor cores: eight warps tile the accumulator. Otherwise about 16 elements per thread, so
  // that a thread's fragments stay in registers and enough loads are in flight.
  if (usesMma) return 256;
  int threads = 128;
  while (threads < 512 && largestTile / threads > 16) threads *= 2;
  return threads;
}

std::vector<std::string> tileFunctionNames(Face face) {
  std::vector<std::string> names(std::begin(kCommonFunctions), std::end(kCommonFunctions));
  if (face == Face::Tiles) names.insert(names.end(), std::begin(kSeedFunctions), std::end(kSeedFunctions));
  if (face == Face::CuTile) names.insert(names.end(), std::begin(kCuTileFunctions), std::end(kCuTileFunctions));
  return names;
}

std::vector<std::pair<std::string, std::string>> tileConstants(Face face) {
  std::vector<std::pair<std::string, std::string>> constants;
  if (face != Face::Tiles) return constants;
  for (std::string_view tag : kSeedTags) constants.emplace_back(tag, tag);
  for (const auto& [name, padding] : kSeedPaddings) constants.emplace_back(name, padding);
  return constants;
}

bool isTileModule(std::string_view module) {
  return module == "weft.tiles" || module == "weft.cutile" || module == "weft.cutile.PaddingMode" ||
         module == "weft.cutile.RoundingMode" || module == "weft.cutile.MemoryOrder" ||
         module == "weft.cutile.MemoryScope";
}

Value resolveTileEntity(std::string_view module, std::string_view member) {
  if (module == "weft.cutile.PaddingMode") {
    for (const auto& [name, padding] : kPaddingModes)
      if (member == name) return strConstant(padding);
    return {};
  }
  if (module == "weft.cutile.RoundingMode") {
    for (const auto& [name, tag] : kRoundingModes)
      if (member == name) return strConstant(tag);
    return {};
  }
  if (module == "weft.cutile.MemoryOrder" || module == "weft.cutile.MemoryScope") {
    using Names = std::span<const std::pair<std::string_view, std::string_view>>;
    for (const auto& [name, value] : module == "weft.cutile.MemoryOrder" ? Names(kCuTileOrders) : Names(kCuTileScopes))
      if (member == name) return strConstant(value);
    return {};
  }
  if (module == "weft.cutile" &&
      (member == "PaddingMode" || member == "RoundingMode" || member == "MemoryOrder" || member == "MemoryScope")) {
    Value v;
    v.kind = Value::Kind::Module;
    v.name = "weft.cutile." + std::string(member);
    return v;
  }
  if (member == "ConstExpr" || (module == "weft.cutile" && member == "Constant")) return resolveEntity("weft.ConstExpr");
  if (module == "weft.tiles") {
    // The seed's tags, constants of python/weft/tiles.py spelled by their names.
    for (std::string_view tag : kSeedTags)
      if (member == tag) return strConstant(tag);
    for (const auto& [name, padding] : kSeedPaddings)
      if (member == name) return strConstant(padding);
  }
  Face face = faceOf(module);
  auto function = [&]() {
    Value v;
    v.kind = Value::Kind::Intrinsic;
    v.intrinsic = Intrinsic::TileFunction;
    v.name = "ct." + std::string(member);
    v.face = face;
    return v;
  };
  for (std::string_view name : kCommonFunctions)
    if (member == name) return function();
  if (member == "tile") return function();  // ct.tile[dtype, shape]: an annotation only
  for (std::string_view name : face == Face::Tiles ? std::span<const std::string_view>(kSeedFunctions)
                                                  : std::span<const std::string_view>(kCuTileFunctions))
    if (member == name) return function();
  // The number types: ct.float32, ct.bool_, ...
  Value number = resolveEntity("weft." + std::string(member));
  if (number.kind == Value::Kind::NumberType && number.vectorSize == 0 && !number.warpMask) {
    number.name = "ct." + std::string(member);
    return number;
  }
  return {};
}

// ---- FunctionChecker: tiles ----

Face FunctionChecker::tileFace() const {
  Face own = program.specialization(specIndex).source->face;
  return own != Face::Simt ? own : program.tileFace;
}

bool FunctionChecker::bindArguments(const std::string& what, const syntax::CallExpr& e,
                                    const std::vector<std::string_view>& params, size_t required,
                                    std::vector<const syntax::Expr*>& out, const syntax::Expr* self) {
  out.assign(params.size(), nullptr);
  size_t next = 0;
  if (self != nullptr) out[next++] = self;
  for (const syntax::Expr* arg : e.args) {
    if (arg->kind == syntax::ExprKind::Starred) {
      sink.error(diag::UnsupportedExpression, arg->loc, {"a starred argument (*args)", "; pass each argument"});
      return false;
    }
    if (next >= params.size()) {
      sink.error(diag::ArgumentCount, e.loc,
                 {what, "at most " + std::to_string(params.size() - (self ? 1 : 0)) + " arguments",
                  std::to_string(e.args.size() + e.keywords.size())});
      return false;
    }
    out[next++] = arg;
  }
  for (const syntax::Keyword* keyword : e.keywords) {
    auto found = std::find(params.begin(), params.end(), keyword->arg);
    if (keyword->arg.empty() || found == params.end()) {
      sink.error(diag::KeywordArgument, keyword->loc, {what, keyword->arg.empty() ? "**" : keyword->arg});
      return false;
    }
    size_t index = static_cast<size_t>(found - params.begin());
    if (out[index] != nullptr) {
      sink.error(diag::DuplicateArgument, keyword->loc, {what, keyword->arg});
      return false;
    }
    out[index] = keyword->value;
  }
  for (size_t i = 0; i < required; ++i) {
    if (out[i] == nullptr) {
      sink.error(diag::MissingArgument, e.loc, {what, std::string(params[i])});
      return false;
    }
  }
  return true;
}

std::optional<std::vector<int64_t>> FunctionChecker::tileShapeArgument(const syntax::Expr& arg, const std::string& what) {
  Value v = expr(arg);
  if (v.isError()) return std::nullopt;
  std::vector<int64_t> shape;
  auto add = [&](const ConstValue& c) {
    std::optional<int64_t> n = int64Value(c);
    if (c.kind != ConstValue::Kind::Int || !n) return false;
    shape.push_back(*n);
    return true;
  };
  bool ok = v.constant.has_value();
  if (ok && v.constant->kind == ConstValue::Kind::Tuple) {
    for (const ConstValue& element : v.constant->elements) ok = ok && add(element);
  } else if (ok) {
    ok = add(*v.constant);
  }
  if (!ok) {
    sink.error(diag::NotConstant, arg.loc, {"the shape of " + what + " (a tuple of int constants)"});
    return std::nullopt;
  }
  if (!checkTileShape(shape, arg.loc)) return std::nullopt;
  return shape;
}

bool FunctionChecker::checkTileShape(const std::vector<int64_t>& shape, SourceLoc loc) {
  int64_t size = 1;
  for (int64_t extent : shape) {
    if (!isPowerOfTwo(extent) || extent > kMaxTileElements) {
      sink.error(diag::TileShape, loc, {shapeText(shape), "every dimension must be a power of 2 (1, 2, 4, ...) up to " +
                                                             std::to_string(kMaxTileElements)});
      return false;
    }
    size *= extent;
    if (size > kMaxTileElements) {
      sink.error(diag::TileShape, loc, {shapeText(shape), "a tile holds at most " + std::to_string(kMaxTileElements) +
                                                             " elements"});
      return false;
    }
  }
  if (shape.size() > 8) {
    sink.error(diag::TileShape, loc, {shapeText(shape), "a tile has at most 8 dimensions"});
    return false;
  }
  return true;
}

std::optional<int64_t> FunctionChecker::tileConstantInt(const syntax::Expr& arg, const std::string& role) {
  Value v = expr(arg);
  if (v.isError()) return std::nullopt;
  if (!v.constant || v.constant->kind != ConstValue::Kind::Int || !int64Value(*v.constant)) {
    sink.error(diag::NotConstant, arg.loc, {role});
    return std::nullopt;
  }
  return *int64Value(*v.constant);
}

std::optional<int> FunctionChecker::tileAxis(const syntax::Expr& arg, int rank, const std::string& what) {
  std::optional<int64_t> axis = tileConstantInt(arg, "the axis of " + what);
  if (!axis) return std::nullopt;
  if (*axis < -rank || *axis >= rank) {
    sink.error(diag::TileAxis, arg.loc, {what, std::to_string(*axis), std::to_string(rank)});
    return std::nullopt;
  }
  return static_cast<int>(*axis < 0 ? *axis + rank : *axis);
}

const types::Type* FunctionChecker::tileDtype(const syntax::Expr& arg, const std::string& what) {
  Value v = expr(arg);
  if (v.isError()) return nullptr;
  if (v.kind != Value::Kind::NumberType || v.vectorSize != 0) {
    sink.error(diag::ArgumentType, arg.loc, {"dtype", what, "a number type (ct.float32, ct.int32, ...)", describe(v)});
    return nullptr;
  }
  if (types::isComplex(v.scalar)) {
    sink.error(diag::TileElementType, arg.loc, {types::pythonName(v.scalar), what});
    return nullptr;
  }
  return types.scalar(v.scalar);
}

Value FunctionChecker::tileArrayArgument(const syntax::Expr& arg, const std::string& what) {
  Value array = value(arg);
  if (array.isError()) return array;
  if (!array.type()->isArray() || array.type()->element != nullptr) {
    sink.error(diag::ArgumentType, arg.loc, {"array", what, "an array of numbers", describe(array)});
    return errorValue();
  }
  return array;
}

Value FunctionChecker::tileValue(const syntax::Expr& arg, const std::string& what) {
  Value v = value(arg);
  if (v.isError()) return v;
  if (!v.type()->isTile()) {
    sink.error(diag::ArgumentType, arg.loc, {"1", what, "a tile", describe(v)});
    return errorValue();
  }
  return v;
}

TypedExpr* FunctionChecker::tileCall(TileOp op, const types::Type* type, SourceLoc loc, std::vector<TypedExpr*> operands,
                                     std::vector<int64_t> ints) {
  program.usesTiles = true;
  program.usesMma = program.usesMma || op == TileOp::Mma;
  if (type->isTile()) program.largestTile = std::max(program.largestTile, tileSize(type));
  TypedExpr* e = make(TypedExprKind::TileCall, type, loc, std::move(operands));
  e->tileOp = op;
  e->ints = std::move(ints);
  // debug=True: tile positions and element indices are checked at run time (docs/tiles.md
  // "Debugging tile kernels"); gather's and scatter's only with check_bounds=False (ints[0] 0),
  // which leaves them undefined; an atomic starts as a Scatter and keeps the mark.
  bool addressed = op == TileOp::Gather || op == TileOp::Scatter;
  e->checked = program.debug && (op == TileOp::Load || op == TileOp::Store || op == TileOp::Extract ||
                                 (addressed && e->ints.at(0) == 0));
  return e;
}

Value FunctionChecker::broadcastTile(Value v, const std::vector<int64_t>& shape, SourceLoc loc) {
  if (!v.type()->isTile() || v.type()->shape == shape) return v;
  const types::Type* type = types.tile(v.type()->scalar, shape);
  // Only new leading dimensions, or ones, added: the same elements in the same order.
  int64_t from = 1, to = 1;
  for (int64_t n : v.type()->shape) from *= n;
  for (int64_t n : shape) to *= n;
  if (from == to) return runtime(tileCall(TileOp::Reshape, type, loc, {v.expr}));
  return runtime(tileCall(TileOp::BroadcastTo, type, loc, {v.expr}));
}

Value FunctionChecker::mapOperand(Value v, const std::vector<int64_t>& shape, SourceLoc loc) {
  if (!v.type()->isTile()) return v;
  int64_t from = 1, to = 1;
  for (int64_t n : v.type()->shape) from *= n;
  for (int64_t n : shape) to *= n;
  // One element spread over a larger tile: the element itself, which map gives every element
  // (every thread holds it: nothing moves between threads).
  if (from == 1 && to > 1) return runtime(tileCall(TileOp::Item, types.scalar(v.type()->scalar), loc, {v.expr}));
  return broadcastTile(v, shape, loc);
}

std::optional<std::vector<int64_t>> FunctionChecker::broadcastShape(const std::vector<int64_t>& a,
                                                                    const std::vector<int64_t>& b, SourceLoc loc,
                                                                    const std::string& what) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1) {
      sink.error(diag::TileBroadcast, loc, {what, shapeText(a), shapeText(b)});
      return std::nullopt;
    }
    result[i] = std::max(x, y);
  }
  if (!checkTileShape(result, loc)) return std::nullopt;
  return result;
}

std::optional<ScalarKind> FunctionChecker::tileCommonKind(const Value& a, const Value& b, bool comparison,
                                                          SourceLoc loc, const std::string& what) {
  bool aTile = a.type()->isTile(), bTile = b.type()->isTile();
  ScalarKind ak = a.type()->scalar, bk = b.type()->scalar;
  auto noCommon = [&]() -> std::optional<ScalarKind> {
    sink.error(diag::TileNoCommonType, loc, {what, types::pythonName(ak), types::pythonName(bk)});
    return std::nullopt;
  };
  if (types::isComplex(ak) || types::isComplex(bk)) return noCommon();
  if (tileFace() == Face::CuTile) {
    // cuTile: a literal adapts to the typed operand when its kind is not higher; otherwise the
    // higher kind wins (a float beats an integer); integers of different signedness never mix.
    if (a.weak || b.weak) {
      const Value& typed = a.weak ? b : a;
      const Value& literal = a.weak ? a : b;
      ScalarKind tk = typed.type()->scalar;
      ScalarKind lk = builtinKindOf(*literal.constant);
      if (types::isFloating(lk) && !types::isFloating(tk)) return ScalarKind::Float32;
      return tk;
    }
    if (ak == bk) return ak;
    if (types::isFloating(ak) != types::isFloating(bk)) return types::isFloating(ak) ? ak : bk;
    if (types::isFloating(ak)) {
      std::optional<int> order = floatRankOrder(ak, bk);
      if (!order) return noCommon();
      return *order < 0 ? bk : ak;
    }
    if (types::isBool(ak) || types::isBool(bk)) return types::isBool(ak) ? bk : ak;
    if (types::isSigned(ak) != types::isSigned(bk)) {
      sink.error(diag::TileSignedness, loc, {what, types::pythonName(ak), types::pythonName(bk)});
      return std::nullopt;
    }
    return bits(ak) >= bits(bk) ? ak : bk;
  }
  // The seed: arithmetic tile conversion prefers a tile's element type over a scalar's (not for
  // comparisons); otherwise the arithmetic common type; narrowing is ill-formed except int -> float.
  if (a.weak && b.weak) return builtinKindOf(*a.constant);
  std::optional<ScalarKind> common;
  if (!comparison && aTile != bTile) {
    common = aTile ? ak : bk;
  } else if (a.weak || b.weak) {
    const Value& typed = a.weak ? b : a;
    const Value& literal = a.weak ? a : b;
    ScalarKind lk = builtinKindOf(*literal.constant);
    ScalarKind tk = typed.type()->scalar;
    common = (types::isFloating(lk) && !types::isFloating(tk)) ? lk : tk;
  } else if (types::isFloating(ak) || types::isFloating(bk)) {
    if (types::isFloating(ak) && types::isFloating(bk)) {
      std::optional<int> order = floatRankOrder(ak, bk);
      if (!order) return noCommon();
      common = *order < 0 ? bk : ak;
    } else {
      common = types::isFloating(ak) ? ak : bk;
    }
  } else if (ak == bk) {
    common = ak;
  } else if (types::isSigned(ak) != types::isSigned(bk) && !types::isBool(ak) && !types::isBool(bk)) {
    ScalarKind s = types::isSigned(ak) ? ak : bk, u = types::isSigned(ak) ? bk : ak;
    if (bits(u) > bits(s)) common = u;
    else if (bits(s) > bits(u)) common = s;
    else common = u;  // the unsigned type corresponding to the signed one (same width)
  } else {
    common = bits(ak) >= bits(bk) ? ak : bk;
  }
  for (const Value* v : {&a, &b}) {
    ScalarKind from = v->type()->scalar;
    if (v->weak) {
      if (!fitsScalar(*v->constant, *common, false)) {
        sink.error(diag::TileNarrowing, loc, {what, toString(*v->constant), types::pythonName(*common)});
        return std::nullopt;
      }
      continue;
    }
    bool intToFloat = !types::isFloating(from) && types::isFloating(*common);
    if (seedNarrowing(from, *common) && !intToFloat) {
      sink.error(diag::TileNarrowing, loc, {what, types::pythonName(from), types::pythonName(*common)});
      return std::nullopt;
    }
  }
  return common;
}

Value FunctionChecker::mapInput(int index, ScalarKind kind, SourceLoc loc) {
  TypedExpr* e = make(TypedExprKind::MapInput, types.scalar(kind), loc);
  e->index = index;
  return runtime(e);
}

Value FunctionChecker::tileMap(Value body, const std::vector<Value>& inputs, const std::vector<int64_t>& shape,
                               SourceLoc loc) {
  if (body.isError()) return errorValue();
  program.usesTiles = true;
  program.largestTile = std::max(program.largestTile, std::max<int64_t>(1, [&] {
                                   int64_t size = 1;
                                   for (int64_t extent : shape) size *= extent;
                                   return size;
                                 }()));
  std::vector<TypedExpr*> operands{body.expr};
  for (const Value& input : inputs) operands.push_back(input.expr);
  return runtime(make(TypedExprKind::TileMap, types.tile(body.type()->scalar, shape), loc, std::move(operands)));
}

Value FunctionChecker::tileBinary(BinaryOp op, Value left, Value right, SourceLoc loc) {
  std::string what = std::string("'") + symbol(op) + "'";
  for (const Value* v : {&left, &right}) {
    if (!v->type()->isTile() && !v->type()->isScalar()) {
      sink.error(diag::InvalidOperands, loc, {symbol(op), describe(left), describe(right)});
      return errorValue();
    }
  }
  std::vector<int64_t> ls = left.type()->isTile() ? left.type()->shape : std::vector<int64_t>{};
  std::vector<int64_t> rs = right.type()->isTile() ? right.type()->shape : std::vector<int64_t>{};
  std::optional<std::vector<int64_t>> shape = broadcastShape(ls, rs, loc, what);
  if (!shape) return errorValue();
  bool shift = op == BinaryOp::LShift || op == BinaryOp::RShift;
  std::optional<ScalarKind> common = shift ? std::optional(left.type()->scalar)
                                           : tileCommonKind(left, right, false, loc, what);
  if (!common) return errorValue();
  if (types::isBool(*common) && op != BinaryOp::BitAnd && op != BinaryOp::BitOr && op != BinaryOp::BitXor) {
    sink.error(diag::TileBoolArithmetic, loc, {what});
    return errorValue();
  }
  std::vector<Value> inputs;
  auto placeholder = [&](Value v) -> Value {
    if (v.weak) return v;  // a literal is folded into the body, converted there
    v = mapOperand(v, *shape, loc);
    int index = static_cast<int>(inputs.size());
    inputs.push_back(v);
    return mapInput(index, v.type()->scalar, loc);
  };
  Value l = placeholder(left), r = placeholder(right);
  l = promoteTo(l, *common, loc);
  if (!shift) r = promoteTo(r, *common, loc);
  if (l.isError() || r.isError()) return errorValue();
  l.weak = r.weak = false;
  l.constant.reset();
  r.constant.reset();
  return tileMap(binary(op, l, r, loc), inputs, *shape, loc);
}

Value FunctionChecker::tileCompare(CompareOp op, Value left, Value right, SourceLoc loc) {
  std::string what = std::string("'") + symbol(op) + "'";
  std::vector<int64_t> ls = left.type()->isTile() ? left.type()->shape : std::vector<int64_t>{};
  std::vector<int64_t> rs = right.type()->isTile() ? right.type()->shape : std::vector<int64_t>{};
  std::optional<std::vector<int64_t>> shape = broadcastShape(ls, rs, loc, what);
  if (!shape) return errorValue();
  std::optional<ScalarKind> common = tileCommonKind(left, right, true, loc, what);
  if (!common) return errorValue();
  std::vector<Value> inputs;
  auto placeholder = [&](Value v) -> TypedExpr* {
    Value converted = v;
    if (!v.weak) {
      v = mapOperand(v, *shape, loc);
      int index = static_cast<int>(inputs.size());
      inputs.push_back(v);
      converted = mapInput(index, v.type()->scalar, loc);
    }
    converted = promoteTo(converted, *common, loc);
    return converted.isError() ? nullptr : converted.expr;
  };
  TypedExpr* l = placeholder(left);
  TypedExpr* r = placeholder(right);
  if (l == nullptr || r == nullptr) return errorValue();
  TypedExpr* link = make(TypedExprKind::CompareChain, types.scalar(ScalarKind::Bool), loc, {l, r});
  link->compareOps = {op};
  link->compareTypes = {types.scalar(*common)};
  return tileMap(runtime(link), inputs, *shape, loc);
}

Value FunctionChecker::tileUnary(UnaryOp op, Value operand, SourceLoc loc) {
  ScalarKind kind = operand.type()->scalar;
  const char* name = op == UnaryOp::Neg ? "unary -" : op == UnaryOp::Pos ? "unary +" : "~";
  if (op == UnaryOp::Not || (op == UnaryOp::Invert && types::isFloating(kind)) ||
      (op != UnaryOp::Invert && types::isBool(kind))) {
    sink.error(diag::InvalidOperand, loc, {op == UnaryOp::Not ? "not" : name, describe(operand)});
    return errorValue();
  }
  if (op == UnaryOp::Pos) return operand;
  Value element = mapInput(0, kind, loc);
  TypedExpr* n = make(TypedExprKind::Unary, types.scalar(kind), loc, {element.expr});
  n->unaryOp = types::isBool(kind) ? UnaryOp::Not : op;  // ~ of a bool tile is logical not
  return tileMap(runtime(n), {operand}, operand.type()->shape, loc);
}

Value FunctionChecker::tileAttribute(Value tile, const std::string& attr, SourceLoc loc) {
  const types::Type* type = tile.type();
  if (attr == "dtype") {
    Value v = resolveEntity("weft." + std::string(types::attributeName(type->scalar)));
    v.name = "ct." + std::string(types::attributeName(type->scalar));
    return v;
  }
  if (attr == "ndim") return constantValue(intConstant(static_cast<int64_t>(type->shape.size())), loc);
  if (attr == "size" || attr == "shape") {
    ConstValue shape;
    shape.kind = ConstValue::Kind::Tuple;
    int64_t size = 1;
    for (int64_t extent : type->shape) {
      shape.elements.push_back(intConstant(extent));
      size *= extent;
    }
    return constantValue(attr == "size" ? intConstant(size) : shape, loc);
  }
  for (std::string_view method : {"astype", "reshape", "permute", "transpose", "item", "expand_dims", "broadcast_to"}) {
    if (attr != method) continue;
    Value v = resolveTileEntity(tileFace() == Face::CuTile ? "weft.cutile" : "weft.tiles", attr == "item" ? "sum" : attr);
    v.name = "tile." + attr;
    v.expr = tile.expr;  // bound: the tile is the first argument
    return v;
  }
  sink.error(diag::UnknownAttribute, loc, {describe(tile), attr});
  return errorValue();
}

bool computesTiles(const TypedExpr& e) {
  // The block's position is no tile operation: every thread reads it alone.
  bool position = e.kind == TypedExprKind::TileCall && (e.tileOp == TileOp::Bid || e.tileOp == TileOp::NumBlocks);
  if (e.kind == TypedExprKind::TileMap || (e.kind == TypedExprKind::TileCall && !position)) return true;
  return std::any_of(e.operands.begin(), e.operands.end(), [](const TypedExpr* operand) { return computesTiles(*operand); });
}

bool FunctionChecker::simtInTileCode(const Value& intrinsic, SourceLoc loc) {
  if (tileFace() == Face::Simt) return false;
  switch (intrinsic.intrinsic) {
    case Intrinsic::ThreadIdx:
    case Intrinsic::BlockIdx:
    case Intrinsic::BlockDim:
    case Intrinsic::GridDim:
    case Intrinsic::Tid:
    case Intrinsic::GridSize:
    case Intrinsic::WarpSize:
    case Intrinsic::LaneId:
    case Intrinsic::Syncthreads:
    case Intrinsic::SharedArray:
    case Intrinsic::DynamicSharedArray:
    case Intrinsic::SyncthreadsCount:
    case Intrinsic::SyncthreadsAnd:
    case Intrinsic::SyncthreadsOr:
    case Intrinsic::ActiveMask:
    case Intrinsic::LanemaskLt:
    case Intrinsic::Syncwarp:
    case Intrinsic::AllSync:
    case Intrinsic::AnySync:
    case Intrinsic::EqSync:
    case Intrinsic::BallotSync:
    case Intrinsic::ShflSync:
    case Intrinsic::ShflUpSync:
    case Intrinsic::ShflDownSync:
    case Intrinsic::ShflXorSync:
    case Intrinsic::MatchAnySync:
    case Intrinsic::MatchAllSync:
    case Intrinsic::Threadfence:
    case Intrinsic::AtomicRef:
    case Intrinsic::AtomicMethod:
    case Intrinsic::ClassicAtomic:
      sink.error(diag::SimtInTileKernel, loc, {intrinsic.name});
      return true;
    case Intrinsic::Abs:
    case Intrinsic::Min:
    case Intrinsic::Max:
    case Intrinsic::Len:
    case Intrinsic::Range:
    case Intrinsic::Enumerate:
    case Intrinsic::Print:
    case Intrinsic::LocalArray:
    case Intrinsic::Atomic:
    case Intrinsic::Popc:
    case Intrinsic::Brev:
    case Intrinsic::Clz:
    case Intrinsic::Ffs:
    case Intrinsic::Cbrt:
    case Intrinsic::Fma:
    case Intrinsic::ConstExpr:
    case Intrinsic::Target:
    case Intrinsic::IsExactly:
    case Intrinsic::Provides:
    case Intrinsic::TargetDescription:
    case Intrinsic::SMSelector:
    case Intrinsic::ConstArrayLike:
    case Intrinsic::Math:
    case Intrinsic::TileFunction: return false;
  }
  return false;
}

Value FunctionChecker::tileFunctionCall(const Value& callee, const syntax::CallExpr& e) {
  std::string what = callee.name + "()";
  std::string name = callee.name.substr(callee.name.find('.') + 1);
  if (tileFace() == Face::Simt) {
    sink.error(diag::TileInSimtKernel, e.loc, {what});
    for (const syntax::Expr* arg : e.args) expr(*arg);
    return errorValue();
  }
  Face face = callee.face == Face::Simt ? tileFace() : callee.face;
  // A bound method (tile.astype(...)) gets its tile as the first argument.
  syntax::NameExpr selfName;
  const syntax::Expr* self = nullptr;
  std::optional<Value> boundSelf;
  if (callee.expr != nullptr) {
    boundSelf = runtime(callee.expr);
    self = &selfName;
    selfName.loc = e.loc;
  }
  auto argValue = [&](const syntax::Expr* arg) { return arg == self ? *boundSelf : value(*arg); };
  auto argTile = [&](const syntax::Expr* arg) {
    if (arg == self) return *boundSelf;
    return tileValue(*arg, what);
  };
  std::vector<const syntax::Expr*> a;
  auto bind = [&](std::vector<std::string_view> params, size_t required) {
    return bindArguments(what, e, params, required, a, self);
  };
  if (callee.name == "tile.item") {
    if (!bind({"self"}, 1)) return errorValue();
    if (boundSelf->type()->shape.size() != 0 &&
        std::any_of(boundSelf->type()->shape.begin(), boundSelf->type()->shape.end(), [](int64_t n) { return n != 1; })) {
      sink.error(diag::TileShape, e.loc, {shapeText(boundSelf->type()->shape), "item() needs a tile of one element"});
      return errorValue();
    }
    return runtime(tileCall(TileOp::Item, types.scalar(boundSelf->type()->scalar), e.loc, {boundSelf->expr}));
  }

  if (name == "load") {
    if (!bind({"array", "index", "shape", face == Face::CuTile ? "padding_mode" : "padding", "order", "latency",
               "allow_tma"},
              3))
      return errorValue();
    Value array = tileArrayArgument(*a[0], what);
    if (array.isError()) return array;
    std::vector<TypedExpr*> operands{array.expr};
    if (!tileIndex(*a[1], array.type()->ndim, what, operands)) return errorValue();
    std::optional<std::vector<int64_t>> shape = tileShapeArgument(*a[2], what);
    if (!shape) return errorValue();
    if (static_cast<int>(shape->size()) != array.type()->ndim) {
      sink.error(diag::TileRank, a[2]->loc, {what, shapeText(*shape), std::to_string(array.type()->ndim)});
      return errorValue();
    }
    TilePadding padding = TilePadding::Zero;
    if (a[3] != nullptr) {
      Value p = expr(*a[3]);
      if (p.isError()) return p;
      bool found = false;
      if (p.constant && p.constant->kind == ConstValue::Kind::Str)
        for (const PaddingName& known : kPaddings)
          if (p.constant->strValue == known.name) padding = known.padding, found = true;
      std::string given = p.constant ? toString(*p.constant) : describe(p);
      if (!found) {
        sink.error(diag::TilePadding, a[3]->loc, {given});
        return errorValue();
      }
      bool floating = types::isFloating(array.type()->scalar);
      if (!floating && padding != TilePadding::Zero) {
        sink.error(diag::TilePadding, a[3]->loc, {given + " for an array of " + types::pythonName(array.type()->scalar)});
        return errorValue();
      }
    }
    if (!tileOrderAndHints(a[4], a[5], a[6], array.type()->ndim, what)) return errorValue();
    return runtime(tileCall(TileOp::Load, types.tile(array.type()->scalar, *shape), e.loc, std::move(operands),
                            {static_cast<int64_t>(padding)}));
  }
  if (name == "store") {
    if (!bind({"array", "index", "tile", "order", "latency", "allow_tma"}, 3)) return errorValue();
    Value array = tileArrayArgument(*a[0], what);
    if (array.isError()) return array;
    std::vector<TypedExpr*> operands{array.expr};
    if (!tileIndex(*a[1], array.type()->ndim, what, operands)) return errorValue();
    Value tile = tileValue(*a[2], what);
    if (tile.isError()) return tile;
    if (static_cast<int>(tile.type()->shape.size()) != array.type()->ndim) {
      sink.error(diag::TileRank, a[2]->loc, {what, shapeText(tile.type()->shape), std::to_string(array.type()->ndim)});
      return errorValue();
    }
    if (tile.type()->scalar != array.type()->scalar) {
      sink.error(diag::TileStoreType, a[2]->loc,
                 {types::pythonName(tile.type()->scalar), types::pythonName(array.type()->scalar)});
      return errorValue();
    }
    if (!tileOrderAndHints(a[3], a[4], a[5], array.type()->ndim, what)) return errorValue();
    operands.push_back(tile.expr);
    return runtime(tileCall(TileOp::Store, types.none(), e.loc, std::move(operands)));
  }
  if (name == "gather" || name == "scatter") return tileGatherScatter(name == "gather", e, what);
  if (name.starts_with("atomic_")) return tileAtomic(name, e, what, face);
  if (name == "add" || name == "sub" || name == "mul" || name == "div" || name == "truediv" || name == "fma" ||
      (name == "sqrt" && (e.args.size() > 1 || !e.keywords.empty())) ||
      ((name == "maximum" || name == "minimum") && (e.args.size() > 2 || !e.keywords.empty())))
    return tileArith(name, e, what, face);
  if (name == "full" || name == "zeros" || name == "ones") {
    bool full = name == "full";
    std::vector<std::string_view> params = full ? std::vector<std::string_view>{"shape", "fill_value", "dtype"}
                                                : std::vector<std::string_view>{"shape", "dtype"};
    if (!bind(params, face == Face::CuTile ? params.size() : (full ? 2 : 1))) return errorValue();
    std::optional<std::vector<int64_t>> shape = tileShapeArgument(*a[0], what);
    if (!shape) return errorValue();
    const syntax::Expr* dtypeArg = a[full ? 2 : 1];
    Value fill = full ? value(*a[1]) : weakLiteral(intConstant(name == "ones" ? 1 : 0), e.loc);
    if (fill.isError()) return fill;
    if (!fill.type()->isScalar()) {
      sink.error(diag::ArgumentType, a[1]->loc, {"fill_value", what, "a number", describe(fill)});
      return errorValue();
    }
    const types::Type* dtype = dtypeArg ? tileDtype(*dtypeArg, what)
                                        : types.scalar(fill.weak && !full ? ScalarKind::Float32 : fill.type()->scalar);
    if (dtype == nullptr) return errorValue();
    Value converted = fill.weak ? promoteTo(fill, dtype->scalar, e.loc) : cast(fill, dtype->scalar, e.loc);
    if (converted.isError()) return converted;
    return runtime(tileCall(TileOp::Full, types.tile(dtype->scalar, *shape), e.loc, {converted.expr}));
  }
  if (name == "iota" || name == "arange") {
    if (!bind({name == "iota" ? "shape" : "size", "dtype"}, 1)) return errorValue();
    std::optional<std::vector<int64_t>> shape = tileShapeArgument(*a[0], what);
    if (!shape) return errorValue();
    if (name == "arange" && shape->size() != 1) {
      sink.error(diag::TileRank, a[0]->loc, {what, shapeText(*shape), "1"});
      return errorValue();
    }
    const types::Type* dtype = a[1] ? tileDtype(*a[1], what) : types.scalar(ScalarKind::Int32);
    if (dtype == nullptr) return errorValue();
    return runtime(tileCall(TileOp::Iota, types.tile(dtype->scalar, *shape), e.loc));
  }
  if (name == "bid" || name == "num_blocks") {
    TileOp op = name == "bid" ? TileOp::Bid : TileOp::NumBlocks;
    if (face == Face::Tiles && e.args.empty() && e.keywords.empty()) {
      // The seed's bid() and num_blocks(): all three axes, uint32 components .x .y .z.
      std::vector<TypedExpr*> components;
      for (int64_t axis = 0; axis < 3; ++axis)
        components.push_back(cast(runtime(tileCall(op, types.scalar(ScalarKind::Int32), e.loc, {}, {axis}), true),
                                  ScalarKind::UInt32, e.loc).expr);
      return runtime(make(TypedExprKind::VectorMake, types.vector(ScalarKind::UInt32, 3), e.loc, components));
    }
    if (!bind({"axis"}, 1)) return errorValue();
    std::optional<int64_t> axis = tileConstantInt(*a[0], "the axis of " + what);
    if (!axis) return errorValue();
    if (*axis < 0 || *axis > 2) {
      sink.error(diag::TileAxis, a[0]->loc, {what, std::to_string(*axis), "3"});
      return errorValue();
    }
    return runtime(tileCall(name == "bid" ? TileOp::Bid : TileOp::NumBlocks, types.scalar(ScalarKind::Int32), e.loc,
                            {}, {*axis}),
                   true);
  }
  if (name == "cdiv") {
    if (!bind({"x", "y"}, 2)) return errorValue();
    Value x = value(*a[0]), y = value(*a[1]);
    if (x.isError() || y.isError()) return errorValue();
    // ceil(x / y) of integers: (x + y - 1) // y in the operands' type.
    Value one = weakLiteral(intConstant(1), e.loc);
    return binary(BinaryOp::FloorDiv, binary(BinaryOp::Add, x, binary(BinaryOp::Sub, y, one, e.loc), e.loc), y, e.loc);
  }
  if (name == "num_tiles") {
    if (!bind({"array", "axis", "shape"}, 3)) return errorValue();
    Value array = value(*a[0]);
    if (array.isError()) return array;
    if (!array.type()->isArray()) {
      sink.error(diag::ArgumentType, a[0]->loc, {"array", what, "an array", describe(array)});
      return errorValue();
    }
    std::optional<int> axis = tileAxis(*a[1], array.type()->ndim, what);
    std::optional<std::vector<int64_t>> shape = tileShapeArgument(*a[2], what);
    if (!axis || !shape) return errorValue();
    if (static_cast<int>(shape->size()) != array.type()->ndim) {
      sink.error(diag::TileRank, a[2]->loc, {what, shapeText(*shape), std::to_string(array.type()->ndim)});
      return errorValue();
    }
    TypedExpr* extent = make(TypedExprKind::ArrayShape, types.scalar(ScalarKind::Int64), e.loc, {array.expr});
    extent->index = *axis;
    Value tileExtent = weakLiteral(intConstant((*shape)[static_cast<size_t>(*axis)]), e.loc);
    Value count = binary(BinaryOp::FloorDiv,
                         binary(BinaryOp::Add, runtime(extent, true),
                                weakLiteral(intConstant((*shape)[static_cast<size_t>(*axis)] - 1), e.loc), e.loc),
                         tileExtent, e.loc);
    return cast(count, ScalarKind::Int32, e.loc);
  }
  // Element-wise math of one tile (or number).
  static const std::pair<std::string_view, std::string_view> kMath[] = {
      {"exp", "exp"},   {"exp2", "exp2"}, {"log", "log"},     {"log2", "log2"}, {"sqrt", "sqrt"},
      {"sin", "sin"},   {"cos", "cos"},   {"tan", "tan"},     {"tanh", "tanh"}, {"sinh", "sinh"},
      {"cosh", "cosh"}, {"floor", "floor"}, {"ceil", "ceil"}, {"rsqrt", "sqrt"}};
  for (const auto& [tileName, mathName] : kMath) {
    if (name != tileName) continue;
    if (!bind({"x"}, 1)) return errorValue();
    Value x = argTile(a[0]);
    if (x.isError()) return x;
    ScalarKind kind = x.type()->scalar;
    if (!types::isFloating(kind)) {
      sink.error(diag::TileElementType, a[0]->loc, {types::pythonName(kind), what + " (it needs a floating-point tile)"});
      return errorValue();
    }
    Value mathFunction = resolveEntity("math." + std::string(mathName));
    if (mathFunction.kind == Value::Kind::Error) {
      sink.error(diag::UnknownAttribute, e.loc, {"module 'math'", std::string(mathName)});
      return errorValue();
    }
    Value element = mapInput(0, kind, e.loc);
    Value body = mathCall(mathFunction, e, {element});
    if (name == "rsqrt") body = binary(BinaryOp::TrueDiv, weakLiteral(intConstant(1), e.loc), body, e.loc);
    if (name == "floor" || name == "ceil") body = cast(body, types::floatingFor(kind), e.loc);
    return tileMap(cast(body, kind, e.loc), {x}, x.type()->shape, e.loc);
  }
  if (name == "abs") {
    if (!bind({"x"}, 1)) return errorValue();
    Value x = argTile(a[0]);
    if (x.isError()) return x;
    TypedExpr* call = make(TypedExprKind::BuiltinCall, types.scalar(x.type()->scalar), e.loc,
                           {mapInput(0, x.type()->scalar, e.loc).expr});
    call->builtin = Builtin::Abs;
    return tileMap(runtime(call), {x}, x.type()->shape, e.loc);
  }
  if (name == "maximum" || name == "minimum") {
    if (!bind({"x", "y"}, 2)) return errorValue();
    Value x = argValue(a[0]), y = argValue(a[1]);
    if (x.isError() || y.isError()) return errorValue();
    if (!x.type()->isTile() && !y.type()->isTile()) {
      sink.error(diag::ArgumentType, a[0]->loc, {"1", what, "a tile", describe(x)});
      return errorValue();
    }
    // max(x, y) element-wise: where(x < y, y, x) in the common type (NaN: suppressed for the
    // first operand as Python's max does).
    std::vector<int64_t> xs = x.type()->isTile() ? x.type()->shape : std::vector<int64_t>{};
    std::vector<int64_t> ys = y.type()->isTile() ? y.type()->shape : std::vector<int64_t>{};
    std::optional<std::vector<int64_t>> shape = broadcastShape(xs, ys, e.loc, what);
    std::optional<ScalarKind> common = shape ? tileCommonKind(x, y, false, e.loc, what) : std::nullopt;
    if (!common) return errorValue();
    std::vector<Value> inputs;
    auto placeholder = [&](Value v) {
      if (v.weak) return promoteTo(v, *common, e.loc);
      v = mapOperand(v, *shape, e.loc);
      int index = static_cast<int>(inputs.size());
      inputs.push_back(v);
      return promoteTo(mapInput(index, v.type()->scalar, e.loc), *common, e.loc);
    };
    Value px = placeholder(x), py = placeholder(y);
    if (px.isError() || py.isError()) return errorValue();
    TypedExpr* call = make(TypedExprKind::BuiltinCall, types.scalar(*common), e.loc, {px.expr, py.expr});
    call->builtin = name == "maximum" ? Builtin::Max : Builtin::Min;
    return tileMap(runtime(call), inputs, *shape, e.loc);
  }
  if (name == "where") {
    if (!bind({"cond", "x", "y"}, 3)) return errorValue();
    Value cond = argValue(a[0]), x = argValue(a[1]), y = argValue(a[2]);
    if (cond.isError() || x.isError() || y.isError()) return errorValue();
    for (auto [v, arg] : {std::pair{&cond, a[0]}, std::pair{&x, a[1]}, std::pair{&y, a[2]}}) {
      if (!v->type()->isTile() && !v->type()->isScalar()) {
        sink.error(diag::ArgumentType, arg->loc, {"1", what, "a tile or a number", describe(*v)});
        return errorValue();
      }
    }
    std::vector<int64_t> cs = cond.type()->isTile() ? cond.type()->shape : std::vector<int64_t>{};
    std::vector<int64_t> xs = x.type()->isTile() ? x.type()->shape : std::vector<int64_t>{};
    std::vector<int64_t> ys = y.type()->isTile() ? y.type()->shape : std::vector<int64_t>{};
    std::optional<std::vector<int64_t>> shape = broadcastShape(cs, xs, e.loc, what);
    if (shape) shape = broadcastShape(*shape, ys, e.loc, what);
    std::optional<ScalarKind> common = shape ? tileCommonKind(x, y, false, e.loc, what) : std::nullopt;
    if (!common) return errorValue();
    std::vector<Value> inputs;
    auto placeholder = [&](Value v, ScalarKind kind) {
      if (v.weak) return promoteTo(v, kind, e.loc);
      v = mapOperand(v, *shape, e.loc);
      int index = static_cast<int>(inputs.size());
      inputs.push_back(v);
      Value element = mapInput(index, v.type()->scalar, e.loc);
      return kind == ScalarKind::Bool ? truth(element, e.loc) : promoteTo(element, kind, e.loc);
    };
    Value pc = placeholder(cond, ScalarKind::Bool);
    Value px = placeholder(x, *common), py = placeholder(y, *common);
    if (pc.isError() || px.isError() || py.isError()) return errorValue();
    TypedExpr* select = make(TypedExprKind::Conditional, types.scalar(*common), e.loc, {pc.expr, px.expr, py.expr});
    return tileMap(runtime(select), inputs, *shape, e.loc);
  }
  if (name == "astype") {
    if (!bind({"x", "dtype"}, 2)) return errorValue();
    Value x = argTile(a[0]);
    if (x.isError()) return x;
    const types::Type* dtype = tileDtype(*a[1], what);
    if (dtype == nullptr) return errorValue();
    if (dtype->scalar == x.type()->scalar) return x;
    return tileMap(cast(mapInput(0, x.type()->scalar, e.loc), dtype->scalar, e.loc), {x}, x.type()->shape, e.loc);
  }
  if (name == "broadcast_to") {
    if (!bind({"x", "shape"}, 2)) return errorValue();
    Value x = argValue(a[0]);
    if (x.isError()) return x;
    std::optional<std::vector<int64_t>> shape = tileShapeArgument(*a[1], what);
    if (!shape) return errorValue();
    if (x.type()->isScalar()) {
      Value element = x.weak ? promoteTo(x, builtinKindOf(*x.constant), e.loc) : x;
      return runtime(tileCall(TileOp::Full, types.tile(element.type()->scalar, *shape), e.loc, {element.expr}));
    }
    if (!x.type()->isTile()) {
      sink.error(diag::ArgumentType, a[0]->loc, {"1", what, "a tile or a number", describe(x)});
      return errorValue();
    }
    const std::vector<int64_t>& from = x.type()->shape;
    bool fits = from.size() <= shape->size();
    for (size_t i = 0; fits && i < from.size(); ++i) {
      int64_t target = (*shape)[i + shape->size() - from.size()];
      fits = from[i] == target || from[i] == 1;
    }
    if (!fits) {
      sink.error(diag::TileBroadcast, e.loc, {what, shapeText(from), shapeText(*shape)});
      return errorValue();
    }
    return broadcastTile(x, *shape, e.loc);
  }
  if (name == "reshape") {
    if (!bind({"x", "shape"}, 2)) return errorValue();
    Value x = argTile(a[0]);
    if (x.isError()) return x;
    std::optional<std::vector<int64_t>> shape = tileShapeArgument(*a[1], what);
    if (!shape) return errorValue();
    int64_t from = 1, to = 1;
    for (int64_t n : x.type()->shape) from *= n;
    for (int64_t n : *shape) to *= n;
    if (from != to) {
      sink.error(diag::TileReshape, e.loc, {shapeText(x.type()->shape), shapeText(*shape)});
      return errorValue();
    }
    return runtime(tileCall(TileOp::Reshape, types.tile(x.type()->scalar, *shape), e.loc, {x.expr}));
  }
  if (name == "permute" || name == "transpose") {
    bool transpose = name == "transpose";
    if (!bind(transpose ? std::vector<std::string_view>{"x", "axis0", "axis1"} : std::vector<std::string_view>{"x", "axes"},
              transpose ? 1 : 2))
      return errorValue();
    Value x = argTile(a[0]);
    if (x.isError()) return x;
    int rank = static_cast<int>(x.type()->shape.size());
    std::vector<int64_t> axes(static_cast<size_t>(rank));
    for (int i = 0; i < rank; ++i) axes[static_cast<size_t>(i)] = i;
    if (transpose) {
      int first = rank - 2, second = rank - 1;
      if (a[1] != nullptr) {
        std::optional<int> axis = tileAxis(*a[1], rank, what);
        if (!axis) return errorValue();
        first = *axis;
      }
      if (a[2] != nullptr) {
        std::optional<int> axis = tileAxis(*a[2], rank, what);
        if (!axis) return errorValue();
        second = *axis;
      }
      if (rank < 2 && a[1] == nullptr) {
        sink.error(diag::TileRank, e.loc, {what, shapeText(x.type()->shape), "at least 2"});
        return errorValue();
      }
      std::swap(axes[static_cast<size_t>(first)], axes[static_cast<size_t>(second)]);
    } else {
      Value p = expr(*a[1]);
      if (p.isError()) return p;
      std::vector<bool> seen(static_cast<size_t>(rank));
      bool ok = p.constant && p.constant->kind == ConstValue::Kind::Tuple &&
                static_cast<int>(p.constant->elements.size()) == rank;
      for (int i = 0; ok && i < rank; ++i) {
        std::optional<int64_t> axis = int64Value(p.constant->elements[static_cast<size_t>(i)]);
        ok = axis && *axis >= 0 && *axis < rank && !seen[static_cast<size_t>(*axis)];
        if (ok) seen[static_cast<size_t>(*axis)] = true, axes[static_cast<size_t>(i)] = *axis;
      }
      if (!ok) {
        sink.error(diag::TilePermutation, a[1]->loc, {describe(p), std::to_string(rank)});
        return errorValue();
      }
    }
    std::vector<int64_t> shape;
    for (int64_t axis : axes) shape.push_back(x.type()->shape[static_cast<size_t>(axis)]);
    return runtime(tileCall(TileOp::Permute, types.tile(x.type()->scalar, shape), e.loc, {x.expr}, axes));
  }
  if (name == "expand_dims") {
    if (!bind({"x", "axis"}, 2)) return errorValue();
    Value x = argTile(a[0]);
    if (x.isError()) return x;
    std::optional<int> axis = tileAxis(*a[1], static_cast<int>(x.type()->shape.size()) + 1, what);
    if (!axis) return errorValue();
    std::vector<int64_t> shape = x.type()->shape;
    shape.insert(shape.begin() + *axis, 1);
    if (!checkTileShape(shape, e.loc)) return errorValue();
    return runtime(tileCall(TileOp::Reshape, types.tile(x.type()->scalar, shape), e.loc, {x.expr}));
  }
  if (name == "cat") {
    if (!bind({"tiles", "axis"}, 2)) return errorValue();
    Value pair = value(*a[0]);
    if (pair.isError()) return pair;
    std::vector<Value> parts;
    if (!(pair.type()->kind == types::TypeKind::Tuple) || !tupleElements(pair, what, a[0]->loc, parts) || parts.size() != 2 ||
        !parts[0].type()->isTile() || !parts[1].type()->isTile()) {
      sink.error(diag::ArgumentType, a[0]->loc, {"tiles", what, "a tuple of two tiles", describe(pair)});
      return errorValue();
    }
    const types::Type* x = parts[0].type();
    const types::Type* y = parts[1].type();
    std::optional<int> axis = tileAxis(*a[1], static_cast<int>(x->shape.size()), what);
    if (!axis) return errorValue();
    bool fits = x->scalar == y->scalar && x->shape.size() == y->shape.size();
    for (size_t i = 0; fits && i < x->shape.size(); ++i) fits = static_cast<int>(i) == *axis || x->shape[i] == y->shape[i];
    std::vector<int64_t> shape = x->shape;
    if (fits) shape[static_cast<size_t>(*axis)] += y->shape[static_cast<size_t>(*axis)];
    if (!fits || !isPowerOfTwo(shape[static_cast<size_t>(*axis)])) {
      sink.error(diag::TileCat, e.loc, {types::toString(x), types::toString(y), std::to_string(*axis)});
      return errorValue();
    }
    if (!checkTileShape(shape, e.loc)) return errorValue();
    return runtime(tileCall(TileOp::Cat, types.tile(x->scalar, shape), e.loc, {parts[0].expr, parts[1].expr}, {*axis}));
  }
  if (name == "extract") {
    if (!bind({"x", "index", "shape"}, 3)) return errorValue();
    Value x = argTile(a[0]);
    if (x.isError()) return x;
    std::vector<TypedExpr*> operands{x.expr};
    int rank = static_cast<int>(x.type()->shape.size());
    if (!tileIndex(*a[1], rank, what, operands)) return errorValue();
    std::optional<std::vector<int64_t>> shape = tileShapeArgument(*a[2], what);
    if (!shape) return errorValue();
    bool fits = static_cast<int>(shape->size()) == rank;
    for (int i = 0; fits && i < rank; ++i) fits = (*shape)[static_cast<size_t>(i)] <= x.type()->shape[static_cast<size_t>(i)];
    if (!fits) {
      sink.error(diag::TileBroadcast, e.loc, {what, shapeText(x.type()->shape), shapeText(*shape)});
      return errorValue();
    }
    return runtime(tileCall(TileOp::Extract, types.tile(x.type()->scalar, *shape), e.loc, std::move(operands)));
  }
  static const std::pair<std::string_view, TileOp> kReductions[] = {
      {"sum", TileOp::Sum},       {"prod", TileOp::Prod},     {"max", TileOp::Max},
      {"min", TileOp::Min},       {"argmax", TileOp::Argmax}, {"argmin", TileOp::Argmin},
      {"cumsum", TileOp::Cumsum}, {"cumprod", TileOp::Cumprod}};
  for (const auto& [reductionName, op] : kReductions) {
    if (name != reductionName) continue;
    bool scan = op == TileOp::Cumsum || op == TileOp::Cumprod;
    if (!bind(scan ? std::vector<std::string_view>{"x", "axis"} : std::vector<std::string_view>{"x", "axis", "keepdims"},
              1))
      return errorValue();
    Value x = argTile(a[0]);
    if (x.isError()) return x;
    ScalarKind kind = x.type()->scalar;
    if (types::isBool(kind) || (!types::isFloating(kind) && !types::isInteger(kind))) {
      sink.error(diag::TileElementType, a[0]->loc, {types::pythonName(kind), what});
      return errorValue();
    }
    int rank = static_cast<int>(x.type()->shape.size());
    int axis = -1;
    if (a[1] != nullptr) {
      Value axisValue = expr(*a[1]);
      if (axisValue.isError()) return axisValue;
      if (!(axisValue.constant && axisValue.constant->kind == ConstValue::Kind::None)) {
        std::optional<int> given = tileAxis(*a[1], rank, what);
        if (!given) return errorValue();
        axis = *given;
      }
    }
    if (scan) {
      if (axis < 0) axis = 0;
      if (rank == 0) {
        sink.error(diag::TileRank, e.loc, {what, "()", "at least 1"});
        return errorValue();
      }
      return runtime(tileCall(op, x.type(), e.loc, {x.expr}, {axis}));
    }
    bool keepdims = false;
    if (a[2] != nullptr) {
      Value k = expr(*a[2]);
      if (k.isError()) return k;
      if (!k.constant || k.constant->kind != ConstValue::Kind::Bool) {
        sink.error(diag::NotConstant, a[2]->loc, {"keepdims of " + what + " (True or False)"});
        return errorValue();
      }
      keepdims = k.constant->boolValue;
    }
    std::vector<int64_t> shape;
    for (int i = 0; i < rank; ++i) {
      if (axis < 0 || i == axis) {
        if (keepdims) shape.push_back(1);
      } else {
        shape.push_back(x.type()->shape[static_cast<size_t>(i)]);
      }
    }
    ScalarKind result = (op == TileOp::Argmax || op == TileOp::Argmin) ? ScalarKind::Int32 : kind;
    return runtime(tileCall(op, types.tile(result, shape), e.loc, {x.expr}, {axis, keepdims ? 1 : 0}));
  }
  if (name == "mma" || name == "matmul") {
    bool mma = name == "mma";
    if (!bind(mma ? std::vector<std::string_view>{"x", "y", "acc"} : std::vector<std::string_view>{"x", "y"},
              mma ? 3 : 2))
      return errorValue();
    Value x = argTile(a[0]);
    Value y = x.isError() ? x : tileValue(*a[1], what);
    if (x.isError() || y.isError()) return errorValue();
    return tileMatmul(x, y, mma ? std::optional<const syntax::Expr*>(a[2]) : std::nullopt, e.loc, what);
  }
  sink.error(diag::UnsupportedEntity, e.loc, {callee.name});
  return errorValue();
}

Value FunctionChecker::tileMatmul(Value x, Value y, std::optional<const syntax::Expr*> accArg, SourceLoc loc,
                                  const std::string& what) {
  const types::Type* xt = x.type();
  const types::Type* yt = y.type();
  if (xt->shape.size() != 2 || yt->shape.size() != 2 || xt->shape[1] != yt->shape[0]) {
    sink.error(diag::TileMatmulShape, loc, {what, shapeText(xt->shape), shapeText(yt->shape)});
    return errorValue();
  }
  if (xt->scalar != yt->scalar) {
    sink.error(diag::TileNoCommonType, loc, {what, types::pythonName(xt->scalar), types::pythonName(yt->scalar)});
    return errorValue();
  }
  // The accumulator types the tensor cores have: fp16/bf16/fp8 -> float32, int8 -> int32.
  ScalarKind in = xt->scalar;
  ScalarKind accKind;
  switch (in) {
    case ScalarKind::Float16:
    case ScalarKind::BFloat16:
    case ScalarKind::Float8E4M3:
    case ScalarKind::Float8E5M2:
    case ScalarKind::Float32: accKind = ScalarKind::Float32; break;
    case ScalarKind::Float64: accKind = ScalarKind::Float64; break;
    case ScalarKind::Int8:
    case ScalarKind::UInt8: accKind = ScalarKind::Int32; break;
    default:
      sink.error(diag::TileElementType, loc, {types::pythonName(in), what});
      return errorValue();
  }
  std::vector<int64_t> shape{xt->shape[0], yt->shape[1]};
  Value acc;
  if (accArg) {
    acc = tileValue(**accArg, what);
    if (acc.isError()) return acc;
    if (acc.type()->shape != shape) {
      sink.error(diag::TileMatmulShape, (*accArg)->loc, {what + " accumulator", shapeText(acc.type()->shape), shapeText(shape)});
      return errorValue();
    }
    bool allowed = acc.type()->scalar == accKind || (accKind == ScalarKind::Float32 && acc.type()->scalar == in);
    if (!allowed) {
      sink.error(diag::TileElementType, (*accArg)->loc,
                 {types::pythonName(acc.type()->scalar), what + " accumulating " + types::pythonName(in) +
                                                             " products (use " + types::pythonName(accKind) + ")"});
      return errorValue();
    }
  } else {
    acc = runtime(tileCall(TileOp::Full, types.tile(accKind, shape), loc,
                           {typedLiteral(intConstant(0), accKind, loc).expr}));
  }
  return runtime(tileCall(TileOp::Mma, acc.type(), loc, {x.expr, y.expr, acc.expr}));
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

Value FunctionChecker::tileArith(const std::string& name, const syntax::CallExpr& e, const std::string& what, Face face) {
  TileArith op = name == "add"       ? TileArith::Add
                 : name == "sub"     ? TileArith::Sub
                 : name == "mul"     ? TileArith::Mul
                 : name == "fma"     ? TileArith::Fma
                 : name == "sqrt"    ? TileArith::Sqrt
                 : name == "maximum" ? TileArith::Max
                 : name == "minimum" ? TileArith::Min
                                     : TileArith::Div;
  size_t operands = op == TileArith::Fma ? 3 : op == TileArith::Sqrt ? 1 : 2;
  bool minMax = op == TileArith::Max || op == TileArith::Min;
  // The modifiers: the seed's tags after the operands; cuTile's keywords.
  std::vector<std::string_view> params = {"x", "y", "z"};
  params.resize(operands);
  if (face == Face::CuTile) {
    if (minMax) params.push_back("propagate_nan");
    else params.insert(params.end(), {"rounding_mode", "flush_to_zero"});
  } else {
    params.insert(params.end(), {"modifier", "modifier2"});
  }
  std::vector<const syntax::Expr*> a;
  if (!bindArguments(what, e, params, operands, a, nullptr)) return errorValue();
  int rounding = -1, flush = 0, propagate = 0;
  auto constantOf = [&](const syntax::Expr* arg) -> std::optional<ConstValue> {
    Value v = expr(*arg);
    if (v.isError()) return std::nullopt;
    if (!v.constant) {
      sink.error(diag::NotConstant, arg->loc, {"a numeric modifier of " + what});
      return std::nullopt;
    }
    return v.constant;
  };
  for (size_t i = operands; i < a.size(); ++i) {
    if (a[i] == nullptr) continue;
    std::optional<ConstValue> c = constantOf(a[i]);
    if (!c) return errorValue();
    std::string_view param = params[i];
    bool ok = false;
    if (param == "flush_to_zero" || param == "propagate_nan") {
      ok = c->kind == ConstValue::Kind::Bool;
      (param == "flush_to_zero" ? flush : propagate) = c->boolValue ? 1 : 0;
    } else if (c->kind == ConstValue::Kind::Str) {
      for (const auto& [tag, code] : kRoundingTags)
        if (c->strValue == tag && !minMax) ok = true, rounding = code;
      if (face != Face::CuTile && !minMax && c->strValue == "round_subnormals_to_zero") ok = true, flush = 1;
      if (face != Face::CuTile && !minMax && c->strValue == "preserve_subnormals") ok = true, flush = 0;
      if (face != Face::CuTile && minMax && c->strValue == "propagate_nan") ok = true, propagate = 1;
      if (face != Face::CuTile && minMax && c->strValue == "suppress_nan") ok = true, propagate = 0;
    } else if (c->kind == ConstValue::Kind::None && param == "rounding_mode") {
      ok = true;
    }
    if (!ok) {
      sink.error(diag::TileModifier, a[i]->loc, {toString(*c), what});
      return errorValue();
    }
  }
  bool precise = op == TileArith::Div || op == TileArith::Sqrt;
  if ((rounding >= 4 && !precise) || (rounding == 5 && op == TileArith::Sqrt)) {
    sink.error(diag::TileModifier, e.loc, {std::string(kRoundingTags[rounding].first), what});
    return errorValue();
  }
  // The operands: one shape and one floating type (integers take the type `/` gives them).
  std::vector<Value> values;
  std::vector<int64_t> shape;
  for (size_t i = 0; i < operands; ++i) {
    Value v = value(*a[i]);
    if (v.isError()) return v;
    if (!v.type()->isTile() && !v.type()->isScalar()) {
      sink.error(diag::ArgumentType, a[i]->loc, {std::to_string(i + 1), what, "a tile or a number", describe(v)});
      return errorValue();
    }
    if (v.type()->isTile()) {
      std::optional<std::vector<int64_t>> joined = broadcastShape(shape, v.type()->shape, a[i]->loc, what);
      if (!joined) return errorValue();
      shape = *joined;
    }
    values.push_back(v);
  }
  if (std::none_of(values.begin(), values.end(), [](const Value& v) { return v.type()->isTile(); })) {
    sink.error(diag::ArgumentType, a[0]->loc, {"1", what, "a tile", describe(values[0])});
    return errorValue();
  }
  std::optional<ScalarKind> common = values[0].weak && values.size() > 1 ? values[1].type()->scalar : values[0].type()->scalar;
  for (size_t i = 1; i < values.size() && common; ++i) {
    Value typed = values[0];
    if (typed.weak) typed = promoteTo(typed, *common, e.loc);
    common = tileCommonKind(i == 1 ? values[0] : typed, values[i], false, e.loc, what);
  }
  if (!common) return errorValue();
  if (!types::isFloating(*common) && !minMax) {
    if (op != TileArith::Div && rounding < 0 && !flush) {
      // Integer add/sub/mul/fma without modifiers: the operators' wrapping arithmetic.
    } else {
      bool wide = std::any_of(values.begin(), values.end(),
                              [](const Value& v) { return !v.weak && types::byteSize(v.type()->scalar) == 8; });
      common = wide ? ScalarKind::Float64 : ScalarKind::Float32;
    }
  }
  if ((rounding >= 0 || flush) && !types::isFloating(*common)) {
    sink.error(diag::TileModifier, e.loc, {"a rounding or subnormal mode", what + " of " + types::pythonName(*common)});
    return errorValue();
  }
  if (op == TileArith::Fma && !types::isFloating(*common)) {
    sink.error(diag::TileElementType, e.loc, {types::pythonName(*common), what});
    return errorValue();
  }
  std::vector<TypedExpr*> exprs;
  for (Value& v : values) {
    Value converted = v;
    if (v.type()->isTile()) {
      if (v.type()->scalar != *common)
        converted = tileMap(cast(mapInput(0, v.type()->scalar, e.loc), *common, e.loc), {v}, v.type()->shape, e.loc);
      converted = broadcastTile(converted, shape, e.loc);
    } else {
      converted = v.weak ? promoteTo(v, *common, e.loc) : cast(v, *common, e.loc);
      if (converted.isError()) return converted;
      converted = runtime(tileCall(TileOp::Full, types.tile(*common, shape), e.loc, {converted.expr}));
    }
    if (converted.isError()) return converted;
    exprs.push_back(converted.expr);
  }
  return runtime(tileCall(TileOp::Arith, types.tile(*common, shape), e.loc, std::move(exprs),
                          {static_cast<int64_t>(op), rounding, flush, propagate}));
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

bool FunctionChecker::tileOrderAndHints(const syntax::Expr* order, const syntax::Expr* latency,
                                        const syntax::Expr* allowTma, int rank, const std::string& what) {
  if (order != nullptr) {
    Value v = expr(*order);
    if (v.isError()) return false;
    bool rowMajor = v.constant && v.constant->kind == ConstValue::Kind::Str && v.constant->strValue == "C";
    if (v.constant && v.constant->kind == ConstValue::Kind::Tuple) {
      rowMajor = static_cast<int>(v.constant->elements.size()) == rank;
      for (int i = 0; rowMajor && i < rank; ++i) rowMajor = int64Value(v.constant->elements[static_cast<size_t>(i)]) == i;
    }
    if (!rowMajor) {
      sink.error(diag::UnsupportedExpression, order->loc,
                 {"order= other than 'C' in " + what, "; load the tile and permute() it"});
      return false;
    }
  }
  // Hints: constants, without effect on the result.
  if (latency != nullptr && !tileConstantInt(*latency, "latency= of " + what)) return false;
  if (allowTma != nullptr) {
    Value v = expr(*allowTma);
    if (v.isError()) return false;
    if (!v.constant || v.constant->kind != ConstValue::Kind::Bool) {
      sink.error(diag::NotConstant, allowTma->loc, {"allow_tma= of " + what + " (True or False)"});
      return false;
    }
  }
  return true;
}

}  // namespace weft::sema
