// Tile code (docs/tiles.md): the functions of weft.tiles (the seed's face) and weft.cutile
// (cuTile Python's), tile attributes, and operators on tiles. Element-wise work is a TileMap
// whose body is the scalar operation, checked by the scalar rules on placeholders of the
// element types, so tiles compute exactly as scalars do; the faces differ only in how the
// operands' element types meet (tileCommonKind).
#include <algorithm>
#include <cmath>
#include <span>

#include "sema/checker.h"
#include "weft/tiles/span_facts.h"
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
    "prod", "max", "min", "argmax", "argmin", "cumsum", "cumprod", "reduce", "scan", "num_tiles", "mma", "matmul", "gather", "scatter",
    "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor"};
// The seed's own names.
constexpr std::string_view kSeedFunctions[] = {"iota", "add", "sub", "mul", "div", "fma", "atomic_exchange",
                                               "assume_divisible", "assume_bounded", "assume_bounded_below",
                                               "assume_bounded_above", "tensor_span", "partition_view"};
// cuTile Python's own names.
constexpr std::string_view kCuTileFunctions[] = {"add", "sub", "mul", "truediv", "fma", "atomic_xchg",
                                                 "assume_divisible_by"};

// cuTile's MemoryOrder / MemoryScope members, as the seed's orders and scopes.
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

}  // namespace

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

namespace {

// The integer conversion rank order of the seed (C++ without promotion): by width.
int bits(ScalarKind kind) { return types::isBool(kind) ? 1 : 8 * types::byteSize(kind); }

// The floating conversion ranks of the seed: fp8 < {float16, bfloat16} < tfloat32 < float32 <
// float64; nullopt where unordered.
std::optional<int> floatRankOrder(ScalarKind a, ScalarKind b) {
  auto rank = [](ScalarKind k) {
    switch (k) {
      case ScalarKind::Float8E4M3:
      case ScalarKind::Float8E5M2: return 0;
      case ScalarKind::Float16:
      case ScalarKind::BFloat16: return 1;
      case ScalarKind::TFloat32: return 2;
      case ScalarKind::Float32: return 3;
      default: return 4;
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

// The tile operations' names in messages (tile_ops.def).
constexpr std::string_view kTileOpNames[] = {
#define WEFT_TILE_OP(Enum, name) name,
#include "sema/tile_ops.def"
};

}  // namespace

int64_t tileSize(const types::Type* tile) {
  int64_t size = 1;
  for (int64_t extent : tile->shape) size *= extent;
  return size;
}

TileBlock tileBlockFor(int64_t largestTile, int64_t largestAccumulator, int narrowestMemoryElement,
                       int widestMemoryElement, bool memoryWithoutFacts) {
  TileBlock block;
  if (largestAccumulator > 0) {
    // Tensor cores: a warp for each 64 x 64 part of the largest accumulator (4 to 8 warps), which
    // keeps it and the operand fragments in registers with two tile blocks on an SM.
    block.threads = static_cast<int>(std::clamp<int64_t>(32 * (largestAccumulator / 4096), 128, 256));
    block.minBlocks = 1;
  } else {
    // About 16 elements per thread, so that a thread's fragments stay in registers and enough
    // loads are in flight; at most 64 registers a thread (half the SM's threads resident): left
    // free, ptxas gave a bf16 layernorm 84 and a quarter of them, at 0.57 of Triton's bandwidth.
    // Where no element moved is wider than 16 bits and every access is of an array with every
    // launch fact (vectors only, no element path), at most 40 (three quarters resident): the
    // bf16 layernorm then fits in 40 registers without spilling (47 at 64, 0.86 of Triton's
    // bandwidth; 1.00 at 40), where the float32 one needs 64 and spills at 40 (0.93 of Triton),
    // and so does the bf16 one with its element path (104 bytes).
    block.threads = 128;
    while (block.threads < 512 && largestTile / block.threads > 16) block.threads *= 2;
    block.minBlocks = (widestMemoryElement <= 2 && !memoryWithoutFacts ? 1536 : 1024) / block.threads;
  }
  // 16-byte accesses of the narrowest element moved, but never fewer than 4 elements per vector
  // (float64 moves in two 16-byte accesses) nor more than 8 (wider kept more registers live than
  // the loads gained: float32 softmax slowed down).
  block.vector = narrowestMemoryElement <= 0 ? 4 : std::clamp(16 / narrowestMemoryElement, 4, 8);
  return block;
}

void markWholeRowWarps(TypedProgram& program) {
  if (program.kernel < 0 || !program.functions[static_cast<size_t>(program.kernel)].isTileKernel) return;
  int64_t rows = 0;
  bool pipelined = false;
  for (const TypedFunction& function : program.functions) {
    if (!function.tileCode) continue;
    // A local holding an accumulator's row reduction (not row indices its uses demand), or a
    // reduction along axis 1 of a local held in an accumulator's layout.
    for (const Local& local : function.locals) {
      if (local.mmaOperands.first != nullptr && local.mmaLayout == MmaLayout::Rows && !local.demandedLayout &&
          local.type != nullptr)
        rows = std::max(rows, local.type->shape.at(0));
    }
    forEachExpr(function.body, [&](const TypedExpr& e) {
      if (e.kind != TypedExprKind::TileCall || e.ints.empty() || e.ints[0] != 1 ||
          (e.tileOp != TileOp::Sum && e.tileOp != TileOp::Prod && e.tileOp != TileOp::Max && e.tileOp != TileOp::Min &&
           e.tileOp != TileOp::Reduce))
        return;
      const TypedExpr& operand = *e.operands.at(0);
      if (operand.kind == TypedExprKind::Local && operand.type->shape.size() == 2 &&
          function.locals.at(static_cast<size_t>(operand.local)).mmaOperands.first != nullptr)
        rows = std::max(rows, operand.type->shape[0]);
    });
    const auto visit = [&](const auto& self, const std::vector<TypedStmt*>& body) -> void {
      for (const TypedStmt* s : body) {
        pipelined = pipelined || s->mmaPipeline.has_value();
        self(self, s->body);
        self(self, s->orelse);
      }
    };
    visit(visit, function.body);
  }
  // A warp for each 16 rows, as FlashAttention-2 and Triton's attention: 4 at 64 rows, 8 at 128
  // and more. Not where that leaves the block fewer warps than it has (they would hold replicas:
  // fewer than 64 rows), nor with a pipelined K loop, which keeps its warps' squarest parts
  // (fewest operand fragments per product).
  const int threads = static_cast<int>(32 * std::min<int64_t>(rows / 16, 8));
  if (pipelined || threads < program.tileBlock.threads) return;
  program.tileBlock.mmaWholeRows = true;
  program.tileBlock.threads = threads;
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
  // The number types: ct.float32, ct.bool_, ...; cuTile also spells the fp8 types by their
  // host dtype names (ct.float8_e4m3fn, ct.float8_e5m2).
  // tfloat32, a tile element type only (no weft.tfloat32 outside tile code).
  if (member == types::attributeName(ScalarKind::TFloat32)) {
    Value v;
    v.kind = Value::Kind::NumberType;
    v.scalar = ScalarKind::TFloat32;
    v.name = "ct." + std::string(member);
    return v;
  }
  std::string numberName(member);
  if (std::optional<ScalarKind> byDtype = types::scalarFromDtypeName(member); byDtype && face == Face::CuTile)
    numberName = types::attributeName(*byDtype);
  Value number = resolveEntity("weft." + numberName);
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
  return tileArrayValue(value(arg), arg.loc, what);
}

Value FunctionChecker::tileArrayValue(Value array, SourceLoc loc, const std::string& what) {
  if (array.isError()) return array;
  if (!array.type()->isArray() || array.type()->element != nullptr) {
    sink.error(diag::ArgumentType, loc, {"array", what, "an array of numbers", describe(array)});
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

namespace {
// The seed's restricted floating-point element types (fp8, tf32).
bool isRestrictedTile(const types::Type* type) {
  return type->isTile() && (type->scalar == ScalarKind::Float8E4M3 || type->scalar == ScalarKind::Float8E5M2 ||
                            type->scalar == ScalarKind::TFloat32);
}
}  // namespace

bool FunctionChecker::restrictedTileUse(const types::Type* result, const std::vector<const types::Type*>& inputs,
                                        SourceLoc loc, std::string_view what) {
  if (restrictedAllowed_) return false;
  const types::Type* restricted = isRestrictedTile(result) ? result : nullptr;
  for (const types::Type* input : inputs)
    if (restricted == nullptr && isRestrictedTile(input)) restricted = input;
  if (restricted == nullptr) return false;
  sink.error(diag::TileRestrictedType, loc, {types::pythonName(restricted->scalar), std::string(what)});
  return true;
}

TypedExpr* FunctionChecker::tileCall(TileOp op, const types::Type* type, SourceLoc loc, std::vector<TypedExpr*> operands,
                                     std::vector<int64_t> ints) {
  // Loads, stores and mma take the restricted element types (astype() is a TileMap).
  if (op != TileOp::Load && op != TileOp::Store && op != TileOp::Mma) {
    std::vector<const types::Type*> inputs;
    for (const TypedExpr* operand : operands) inputs.push_back(operand->type);
    if (restrictedTileUse(type, inputs, loc, std::string(kTileOpNames[static_cast<size_t>(op)]) + "()"))
      return make(TypedExprKind::TileCall, types.error(), loc);
  }
  program.usesTiles = true;
  if (op == TileOp::Mma) program.largestAccumulator = std::max(program.largestAccumulator, tileSize(type));
  if (type->isTile()) program.largestTile = std::max(program.largestTile, tileSize(type));
  if ((op == TileOp::Load || op == TileOp::Store) && !operands.empty()) {
    int bytes = types::byteSize(operands.front()->type->scalar);  // the array's (or view's) element
    if (program.narrowestMemoryElement == 0 || bytes < program.narrowestMemoryElement)
      program.narrowestMemoryElement = bytes;
    program.widestMemoryElement = std::max(program.widestMemoryElement, bytes);
    program.memoryWithoutFacts = program.memoryWithoutFacts || operands.front()->type->facts != tiles::all_span_facts;
  }
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
  std::vector<const types::Type*> inputTypes;
  for (const Value& input : inputs) inputTypes.push_back(input.type());
  if (restrictedTileUse(types.tile(body.type()->scalar, shape), inputTypes, loc, "element-wise operations"))
    return errorValue();
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
  if (type->kind == types::TypeKind::TileView) {
    // A partition view's methods: load(index), store(index, tile), num_tiles(axis).
    for (std::string_view method : {"load", "store", "num_tiles"}) {
      if (attr != method) continue;
      Value v = resolveTileEntity("weft.tiles", attr);
      v.name = "view." + attr;
      v.expr = tile.expr;
      return v;
    }
    sink.error(diag::UnknownAttribute, loc, {describe(tile), attr});
    return errorValue();
  }
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
    case Intrinsic::ClassicFp16:
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

  if (name == "load" || name == "store") return tileLoadStore(name == "load", e, what, face, boundSelf);
  if (name == "tensor_span" || name == "partition_view") return tileView(name == "partition_view", e, what);
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
    // cuTile's num_tiles(array, axis, shape); the seed's num_tiles(view, axis) (view.num_tiles(axis)).
    if (!bind({"array", "axis", "shape"}, 2)) return errorValue();
    Value array = argValue(a[0]);
    if (array.isError()) return array;
    bool view = array.type()->kind == types::TypeKind::TileView;
    if ((!array.type()->isArray() && !view) || (view && a[2] != nullptr) || (!view && a[2] == nullptr)) {
      sink.error(diag::ArgumentType, a[0]->loc,
                 {"array", what, "an array and a tile shape, or a partition_view", describe(array)});
      return errorValue();
    }
    std::optional<int> axis = tileAxis(*a[1], array.type()->ndim, what);
    std::optional<std::vector<int64_t>> shape = view ? array.type()->shape : tileShapeArgument(*a[2], what);
    if (!axis || !shape) return errorValue();
    if (view) array = runtime(tileCall(TileOp::PartitionView, array.type()->elements[0], e.loc, {array.expr}));
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
    // max(x, y) element-wise in the common type; a NaN operand gives the other one (the seed's
    // default suppress-NaN rule, and cuTile's propagate_nan=False).
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
    call->builtin = name == "maximum" ? Builtin::Fmax : Builtin::Fmin;
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
    // The conversion is what the restricted types are for.
    restrictedAllowed_ = true;
    Value converted = tileMap(cast(mapInput(0, x.type()->scalar, e.loc), dtype->scalar, e.loc), {x}, x.type()->shape, e.loc);
    restrictedAllowed_ = false;
    return converted;
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
  if (isTileReduction(name)) return tileReduction(name, e, what);
  if (isTileAssumption(name)) return tileAssumption(name, e, what);
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
  // The accumulator types the tensor cores have: fp16/bf16/fp8/tf32 -> float32, int8 -> int32.
  ScalarKind in = xt->scalar;
  ScalarKind accKind;
  switch (in) {
    case ScalarKind::Float16:
    case ScalarKind::BFloat16:
    case ScalarKind::Float8E4M3:
    case ScalarKind::Float8E5M2:
    case ScalarKind::TFloat32:
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
    // The tensor cores' accumulator only: a float16 accumulator of float16 products would round
    // at steps the hardware does not have.
    if (acc.type()->scalar != accKind) {
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

}  // namespace weft::sema
