// The typed program: sema's output and codegen's input. Every expression carries its final
// type and every implicit conversion is an explicit Cast, so codegen never infers types.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sema/environment.h"
#include "sema/targets.h"
#include "support/source.h"
#include "types/type.h"

namespace weft::sema {

enum class Builtin : uint16_t {
#define WEFT_BUILTIN(Enum, description, header, helper, properties, math, arity) Enum,
#include "sema/builtin_kinds.def"
};

// The device header whose helper implements a builtin (builtin_kinds.def): codegen includes
// weft/device/math.h, simt.h, atomics.h or print.h only for units that call one of its builtins;
// Runtime is weft/device/runtime.h, which every unit includes.
enum class BuiltinHeader : uint8_t { Runtime, Math, Simt, Atomics, Print };

// The properties of builtins: flags of BuiltinInfo::properties, spelled in builtin_kinds.def.
namespace builtin_property {
inline constexpr uint16_t None = 0;
// Does more than compute its value (a barrier, a warp collective, an atomic, a fence, print):
// it must run exactly once, in program order.
inline constexpr uint16_t Effects = 1 << 0;
// Exists in device code only (thread positions, barriers, warp collectives, atomics, fences):
// the host part of an interoperable function cannot use it.
inline constexpr uint16_t DeviceOnly = 1 << 1;
// Its value is never negative (an index of it needs no wrap-around check).
inline constexpr uint16_t NonNegative = 1 << 2;
// Its helper takes the memory order and thread scope (TypedExpr::index) as template arguments.
inline constexpr uint16_t Ordered = 1 << 3;
// A math function that answers a bool about its operand (math.isnan).
inline constexpr uint16_t Predicate = 1 << 4;
}  // namespace builtin_property

// One row of builtin_kinds.def: everything a stage asks about a builtin.
struct BuiltinInfo {
  std::string_view description;  // for messages, up to the first " ("
  BuiltinHeader header;
  std::string_view helper;  // the helper codegen calls with the operands; empty: codegen writes the code
  uint16_t properties;      // builtin_property flags
  std::string_view math;    // its name in Python's math module; empty when none
  int arity;                // its number of arguments there
  // Whether every flag of `property` is set.
  bool has(uint16_t property) const { return (properties & property) == property; }
};

// The row of `builtin`.
const BuiltinInfo& builtinInfo(Builtin builtin);

// Arithmetic: both operands already have the result type (sema inserted Casts), except
// LShift/RShift whose right operand may be any integer type. Semantics are Python's as
// fixed by DESIGN.md section 3 (floor division, modulo with the divisor's sign, wrapping).
// Tile operations (tile_ops.def).
enum class TileOp : uint8_t {
#define WEFT_TILE_OP(Enum, name) Enum,
#include "sema/tile_ops.def"
};
// The operations of TileOp::Atomic.
enum class TileAtomic : uint8_t { Add, Max, Min, And, Or, Xor, Exchange };
// The operations of TileOp::Arith.
enum class TileArith : uint8_t { Add, Sub, Mul, Div, Fma, Sqrt, Max, Min };
// The facts of TileOp::Assume: x % k == 0, lo <= x <= hi, lo <= x, x <= hi.
enum class TileAssume : uint8_t { Divisible, Bounded, Below, Above };
// What a tile Load gives for elements outside the array (the seed's view padding).
enum class TilePadding : uint8_t { Zero, NegZero, PosInf, NegInf, NaN };

enum class BinaryOp : uint8_t { Add, Sub, Mul, TrueDiv, FloorDiv, Mod, Pow, LShift, RShift, BitAnd, BitOr, BitXor };
enum class UnaryOp : uint8_t { Neg, Pos, Invert, Not };
enum class CompareOp : uint8_t { Eq, NotEq, Lt, LtE, Gt, GtE };

enum class TypedExprKind : uint8_t {
  Literal,       // `literal` of `type`
  ConstantArray, // TypedProgram::constantArrays[index] as an array of `type` (space Constant)
  Local,         // the local variable `local`
  Unary,         // unaryOp operands[0]
  Binary,        // operands[0] binaryOp operands[1]
  CompareChain,  // operands[0] compareOps[0] operands[1] compareOps[1] operands[2] ...; each
                 // operand evaluated at most once, left to right, short-circuit (bool); link i
                 // converts operands i and i+1 to compareTypes[i] (Python compares pairwise)
  And,           // Python `a and b`: operands[0] if it is falsy, else operands[1]; both of `type`
  Or,            // Python `a or b`
  Truth,         // bool(operands[0]) by Python truthiness
  Conditional,   // operands[1] if operands[0] else operands[2]
  Cast,          // operands[0] converted to `type` (Python int()/float() truncation semantics)
  Call,          // functions[callee](operands...)
  BuiltinCall,   // builtin(operands...)
  ArrayElement,  // operands[0] (an array) indexed by operands[1..]; an lvalue; `wrapNegative[i]`
                 // says whether index i may be negative and must wrap (Python semantics)
  ArrayShape,    // operands[0].shape[index] (int64)
  ArrayStride,   // operands[0].strides[index] in bytes (int64)
  ArraySize,     // operands[0].size (int64)
  TupleMake,     // (operands...): a tuple, or a struct (its fields in order)
  TupleGet,      // operands[0][index]: a tuple element or a struct field
  VectorMake,    // a new vector of `type` from its elements (operands, already of its dtype)
  VectorElement, // operands[0][index] of a vector, or operands[0][operands[1]] (a run-time
                 // integer index; `wrapNegative[0]` says whether it may be negative)
  // Views (include/weft/device/array_views.h): a new descriptor of `type` over the elements of
  // the array operands[0], nothing copied. `checked`: a failed run-time precondition raises
  // ValueError (debug=True); unchecked, it gives an empty view.
  ArraySlice,    // operands[0][axes...]: `axes` has one entry per dimension of operands[0];
                 // operands[1..] are the axes' present int64 values in order
  ArrayView,     // operands[0].view(dtype): its elements reinterpreted as `type`'s element type
  ArrayReshape,  // operands[0].reshape(operands[1..]): the new dimensions (int64; negative: inferred)
  ArrayPart,     // operands[0].real (index 0) or .imag (index 1) of a complex array: its parts as
                 // an array of the real type, same shape, twice the strides (NumPy's views)
  // operands[0] (an InlineArray) indexed by operands[1..] (integers, one per dimension,
  // `wrapNegative[i]` as for ArrayElement); a Store's target when operands[0] is a field of an
  // array element (a record in memory).
  InlineElement,
  // Tiles (docs/tiles.md; tile_ops.def). TileMap: the scalar expression operands[0] computed
  // element-wise over the tiles (or scalars, used for every element) operands[1..], which all
  // have `type`'s shape; in operands[0], MapInput `index` i stands for an element of
  // operands[1 + i].
  TileMap,
  MapInput,
  TileCall,      // tileOp(operands...) with the integer parameters `ints`
};

// How ArraySlice selects one dimension: an integer index (one operand; the dimension is
// dropped; `wrap`: a negative value counts from the end), or a slice start:stop:step whose
// start and stop operands are present when `hasStart`/`hasStop` (omitted: Python's None) and
// whose step operand always is (nonzero when constant).
struct ArrayAxis {
  bool isIndex = false;
  bool wrap = true;
  bool hasStart = false;
  bool hasStop = false;
};

// Whether a call of `builtin` must run exactly once, in program order (builtin_property::Effects).
inline bool builtinHasEffects(Builtin builtin) { return builtinInfo(builtin).has(builtin_property::Effects); }
// Whether `builtin` exists in device code only (builtin_property::DeviceOnly).
inline bool builtinIsDeviceOnly(Builtin builtin) { return builtinInfo(builtin).has(builtin_property::DeviceOnly); }

struct Literal {
  bool boolValue = false;
  int64_t intValue = 0;    // signed integers; unsigned values stored bit for bit
  double floatValue = 0;   // floating; complex: real part
  double imagValue = 0;    // complex
};

// How a tile local (Local::mmaLayout) or an iota (TypedExpr::mmaLayout) holds the layout of an
// mma accumulator: the accumulator's own, or a tile of its shape in that layout, of its rows
// ((M, 1) or (M)) in its row layout, or of its columns ((1, N) or (N)) in its column layout.
enum class MmaLayout : uint8_t { Accumulator, Elements, Rows, Columns };

struct TypedExpr {
  TypedExprKind kind = TypedExprKind::Literal;
  const types::Type* type = nullptr;
  SourceLoc loc;
  std::vector<TypedExpr*> operands;
  Literal literal;
  int local = -1;
  UnaryOp unaryOp = UnaryOp::Neg;
  BinaryOp binaryOp = BinaryOp::Add;
  std::vector<CompareOp> compareOps;
  std::vector<const types::Type*> compareTypes;  // CompareChain: the type each link compares in
  int callee = -1;
  Builtin builtin = Builtin::Syncthreads;
  int index = 0;
  std::vector<bool> wrapNegative;
  std::string text;  // BuiltinCall Print: the printf format; AssertFail: the assert's message
  std::vector<ArrayAxis> axes;  // ArraySlice
  // ArraySlice, ArrayView, ArrayReshape: see above. Binary FloorDiv/Mod of integers: a zero
  // divisor raises ZeroDivisionError (debug=True) instead of giving 0. TileCall Load, Store,
  // Gather, Scatter, Atomic, Extract: debug=True checks the positions and indices.
  bool checked = false;
  TileOp tileOp = TileOp::Full;  // TileCall
  std::vector<int64_t> ints;     // TileCall: the operation's integer parameters (tile_ops.def)
  // TileCall Store that may take the sm_90a TMA store (include/weft/tiles/store_tma.h; sema's
  // markTileLayouts decides): the position in TypedFunction::params of the array it stores into,
  // whose tensor map codegen asks for; -1 elsewhere.
  int tmaStoreParameter = -1;
  // TileCall Iota whose users hold it in an accumulator's row or column layout (markTileLayouts
  // decides): the operand types of that accumulator's mma and the layout, so each thread
  // computes its own elements there; {nullptr, nullptr}: the default layout.
  std::pair<const types::Type*, const types::Type*> mmaOperands{nullptr, nullptr};
  MmaLayout mmaLayout = MmaLayout::Accumulator;
};

enum class TypedStmtKind : uint8_t {
  Assign,        // locals[local] = operands[0]
  Store,         // operands[0] (an ArrayElement or InlineElement) = operands[1]
  Evaluate,      // operands[0]; (an expression statement)
  If,            // if operands[0]: body else: orelse; or, when `targetCondition` is set (no
                 // operands), a target specialization decided per lowering by the preprocessor
  While,         // while operands[0]: body else: orelse (orelse runs unless a break left the loop)
  ForRange,      // for locals[local] in range(operands[0], operands[1], operands[2]): body else: orelse
                 // (all three of the loop variable's type; `stepSign` is +1/-1 when known, else 0)
  Break,
  Continue,
  Return,        // return operands[0] (absent for a procedure)
  DeclareArray,  // locals[local] = a new array of `shape` in the local's memory space (Shared/Local)
};

// A range loop of tile code that is the K loop of a matrix product, lowered as one pipelined
// operation (include/weft/tiles/mma_pipeline.h): its body is `acc = mma(a, b, acc)` with a and b
// zero-padded loads of 2-D arrays (or astype(tfloat32) of float32 ones) at indices computed from
// the loop variable and loop-invariant values, and nothing else (src/sema/tile_pipeline.cpp
// decides).
struct MmaPipeline {
  const TypedExpr* loadA = nullptr;  // the TileCall Load of a (M x K tiles)
  // The TileCall Load of b: K x N tiles, or with kMajorB N x K tiles of an array that stores b
  // transposed (N x K), which the loop loads with order=(1, 0) (a Permute of this Load).
  const TypedExpr* loadB = nullptr;
  bool kMajorB = false;
  int accumulator = -1;  // the local acc
  int stages = 0;                    // operand stages in flight (TypedProgram::tileSharedBytes holds them)
  // The element type the tensor cores multiply: the arrays' own, or TFloat32 of float32 arrays.
  types::ScalarKind operand = types::ScalarKind::Bool;
  // Where the loop may take the sm_90a TMA/wgmma path (include/weft/tiles/mma_pipeline_tma.h:
  // float16 or bfloat16 arrays, or float8 ones with kMajorB, that are parameters of the kernel
  // it never assigns): the positions of a and b in TypedFunction::params, whose tensor maps
  // codegen asks for, and the stages of that path's ring; -1 and 0 elsewhere.
  int parameterA = -1, parameterB = -1;
  int tmaStages = 0;

  // The K x N shape of b's tiles (the mma's operand).
  std::vector<int64_t> tileShapeB() const {
    const std::vector<int64_t>& shape = loadB->type->shape;
    return kMajorB ? std::vector<int64_t>{shape[1], shape[0]} : shape;
  }
};

// A range loop of tile code whose loads of kernel parameters the kernel never writes, at indices
// computed without effects from the loop variable and values the loop does not assign, are
// issued `stages - 1` iterations ahead into stages in the block's dynamic shared memory
// (include/weft/tiles/loop_prefetch.h; src/sema/tile_prefetch.cpp decides).
struct LoopPrefetch {
  struct Load {
    const TypedExpr* load = nullptr;  // the TileCall Load, evaluated once per iteration
    uint32_t offset = 0;              // the byte offset of its stages (TypedProgram::tileSharedBytes holds them)
    // Its value reaches nothing but an operand of mma (through reshapes, permutes and at most one
    // local, Local::stageView): it is emitted as a view of its stage, which mma reads in place.
    bool mmaOperand = false;
  };
  std::vector<Load> loads;
  int stages = 0;
};

struct TypedStmt {
  TypedStmtKind kind = TypedStmtKind::Evaluate;
  SourceLoc loc;
  std::vector<TypedExpr*> operands;
  std::vector<TypedStmt*> body, orelse;
  int local = -1;
  int stepSign = 0;
  std::vector<int64_t> shape;
  bool fortranOrder = false;  // DeclareArray: order='F' (the first dimension is contiguous)
  int align = 0;              // DeclareArray: align= in bytes (0: the element's alignment)
  // If: a preprocessor condition on __CUDA_ARCH__ (`if target(...)`); empty for ordinary ifs.
  std::string targetCondition;
  bool targetIncludesHost = false;  // the condition holds on the host: the host runs `body`
  FeatureSet targetFeatures = FeatureSet::Baseline;  // TargetSet::distinguishedFeatures of it
  std::optional<MmaPipeline> mmaPipeline;  // ForRange: lowered as a pipelined K loop
  std::optional<LoopPrefetch> loopPrefetch;  // ForRange: its loads issued ahead
  // ForRange: the mma calls of its body whose a-operand is a local the loop does not assign (a
  // 16-bit 2-D tile) and whose accumulator is a full tile or a local: the operand's fragments are
  // loaded once before the loop (weft::tiles::mma_a_operand; src/sema/tile_prefetch.cpp decides).
  std::vector<const TypedExpr*> invariantMmaOperands;
};

struct Local {
  std::string name;  // the Python name; temporaries made by sema start with '$'
  // nullptr: no compiled code assigns it (only branches a constant condition removed do), and
  // nothing reads it; it has no storage.
  const types::Type* type = nullptr;
  SourceLoc loc;     // first assignment (or the parameter)
  // A tile variable that receives the result of an mma of tiles of these types: it holds its
  // value in that mma's accumulator layout (no conversion in a K loop); nullptr: the default.
  std::pair<const types::Type*, const types::Type*> mmaOperands{nullptr, nullptr};
  // With mmaOperands: the accumulator type itself, or a tile of the local's type in that
  // accumulator's layout (values computed element-wise from it), row layout (reductions of its
  // rows) or column layout (iotas broadcast against it), as markTileLayouts decides.
  MmaLayout mmaLayout = MmaLayout::Accumulator;
  // mmaLayout is the one the local's uses demand of it (an iota's row or column indices), not one
  // its values come in (an accumulator, its reductions).
  bool demandedLayout = false;
  // The accumulator of a K loop that may take the TMA/wgmma path (MmaPipeline::parameterA): it
  // is declared in that path's layout (mma_pipeline_accumulator_t).
  bool tmaAccumulator = false;
  // Holds a view of a prefetched load's stage (LoopPrefetch::Load::mmaOperand) from its one
  // assignment, in its loop's body, to its one read, an mma operand later in that body: declared
  // at that assignment, with the view's type.
  bool stageView = false;
};

// A tile kernel's tile block on the GPU (include/weft/tiles/config.h and tile.h read these as
// WEFT_TILE_THREADS, WEFT_TILE_MIN_BLOCKS and WEFT_TILE_MAX_VECTOR).
struct TileBlock {
  int threads = 0;    // threads of the CTA
  int minBlocks = 0;  // CTAs per SM the registers must allow (__launch_bounds__'s second argument)
  int vector = 0;     // the blocked layout's vector, in elements
  // Rows of the grid (values of bid().x) whose blocks the GPU runs together (block.h's bid(),
  // WEFT_TILE_GROUP_ROWS): a kernel with a pipelined K loop; 0: the grid's own order.
  int groupRows = 0;
  // Every mma accumulator's warps own whole rows (WEFT_TILE_MMA_WHOLE_ROWS): the kernel reduces
  // an accumulator's rows and has no pipelined K loop (sema: markWholeRowWarps).
  bool mmaWholeRows = false;
};

struct TypedFunction {
  std::string name;        // unique C++ identifier within the program
  std::string pythonName;  // for messages
  SourceLoc loc;           // the `def`
  bool isKernel = false;
  // A tile kernel (docs/tiles.md): the program of one tile block, run by the TileBlock's
  // threads of a CTA together.
  bool isTileKernel = false;
  // Tile code (a tile kernel or a function of a tile program): its scalar stores and print()
  // happen once per tile block.
  bool tileCode = false;
  // @func(interop=True) or @kernel(interop=True): emitted as extern "C" `pythonName` with
  // each parameter's machine representation (a kernel: __global__; a function: __host__
  // __device__).
  bool interop = false;
  // Compiled for the host as well as the device: an interoperable function, or a function
  // one calls outside `if target(...)` branches that exclude the host.
  bool hostCallable = false;
  std::vector<int> params;  // indices into locals, in order (ConstExpr parameters excluded)
  std::vector<Local> locals;
  const types::Type* returnType = nullptr;  // none() for procedures
  std::vector<TypedStmt*> body;
};

// A global constant whose value the program baked in, or a captured variable (a closure's
// cell) whatever it holds: the runtime re-checks it at launch.
struct GlobalDependency {
  std::shared_ptr<Environment> environment;
  std::string name;
  ConstValue value;
  // A captured function, module, class...: `value` is unused and any rebinding counts as a change.
  bool byIdentity = false;
};

struct TypedProgram {
  std::vector<TypedFunction> functions;  // callees before callers where possible
  std::vector<int> entries;              // the request's entries, in order: indices into `functions`
  int kernel = -1;                       // the first entry that is a kernel (a launch's kernel), or -1
  // For each positional argument of `kernel`: the index into the kernel's `params`, or -1
  // when the argument was a ConstExpr baked into the program.
  std::vector<int> argumentToParam;
  std::vector<GlobalDependency> globals;
  // The constant data the program reads (global NumPy arrays), once each.
  std::vector<std::shared_ptr<const ConstArray>> constantArrays;
  // The bytes of local arrays one thread of `kernel` may hold at once: its own and, for every
  // call site, the callee's (a recursive call's once). An upper bound on any of its frames and
  // on its chain of frames; the CPU target sizes each thread's stack from it.
  uint64_t localArrayBytes = 0;
  // How the tile block of `kernel` runs on the GPU when it is a tile kernel (sema: tileBlockFor);
  // all zero for a SIMT kernel.
  TileBlock tileBlock;
  // Dynamic shared memory the tile kernel asks for: the stages of its pipelined K loops and of its
  // loops' prefetched loads.
  uint32_t tileSharedBytes = 0;
  // Whether any function uses tiles (codegen then includes weft/tiles.h).
  bool usesTiles = false;
  // Node storage.
  std::deque<TypedExpr> exprs;
  std::deque<TypedStmt> stmts;
  TypedExpr* makeExpr() { return &exprs.emplace_back(); }
  TypedStmt* makeStmt() { return &stmts.emplace_back(); }
};

}  // namespace weft::sema
