// The typed program: sema's output and codegen's input. Every expression carries its final
// type and every implicit conversion is an explicit Cast, so codegen never infers types.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sema/environment.h"
#include "support/source.h"
#include "types/type.h"

namespace weft::sema {

enum class Builtin : uint16_t {
#define WEFT_BUILTIN(Enum, description) Enum,
#include "sema/builtin_kinds.def"
};

// Arithmetic: both operands already have the result type (sema inserted Casts), except
// LShift/RShift whose right operand may be any integer type. Semantics are Python's as
// fixed by DESIGN.md section 3 (floor division, modulo with the divisor's sign, wrapping).
enum class BinaryOp : uint8_t { Add, Sub, Mul, TrueDiv, FloorDiv, Mod, Pow, LShift, RShift, BitAnd, BitOr, BitXor };
enum class UnaryOp : uint8_t { Neg, Pos, Invert, Not };
enum class CompareOp : uint8_t { Eq, NotEq, Lt, LtE, Gt, GtE };

enum class TypedExprKind : uint8_t {
  Literal,       // `literal` of `type`
  Local,         // the local variable `local`
  Unary,         // unaryOp operands[0]
  Binary,        // operands[0] binaryOp operands[1]
  CompareChain,  // operands[0] compareOps[0] operands[1] compareOps[1] operands[2] ...; each
                 // operand evaluated at most once, left to right, short-circuit (bool)
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
  // the array operands[0], nothing copied. `checked`: run-time preconditions stop the kernel
  // when they fail (debug=True); unchecked, a failure gives an empty view.
  ArraySlice,    // operands[0][axes...]: `axes` has one entry per dimension of operands[0];
                 // operands[1..] are the axes' present int64 values in order
  ArrayView,     // operands[0].view(dtype): its elements reinterpreted as `type`'s element type
  ArrayReshape,  // operands[0].reshape(operands[1..]): the new dimensions (int64; negative: inferred)
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

// Whether a call of `builtin` does more than compute its value (a barrier, a warp collective,
// an atomic, a fence, print): it must run exactly once, in program order.
bool builtinHasEffects(Builtin builtin);
// Whether `builtin` exists in device code only (thread positions, barriers, warp
// collectives, atomics, fences): the host part of an interoperable function cannot use it.
bool builtinIsDeviceOnly(Builtin builtin);

struct Literal {
  bool boolValue = false;
  int64_t intValue = 0;    // signed integers; unsigned values stored bit for bit
  double floatValue = 0;   // floating; complex: real part
  double imagValue = 0;    // complex
};

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
  int callee = -1;
  Builtin builtin = Builtin::Syncthreads;
  int index = 0;
  std::vector<bool> wrapNegative;
  std::string text;  // BuiltinCall Print: the printf format
  std::vector<ArrayAxis> axes;  // ArraySlice
  bool checked = false;         // ArraySlice, ArrayView, ArrayReshape
};

enum class TypedStmtKind : uint8_t {
  Assign,        // locals[local] = operands[0]
  Store,         // operands[0] (an ArrayElement) = operands[1]
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
};

struct Local {
  std::string name;  // the Python name; temporaries made by sema start with '$'
  // nullptr: no compiled code assigns it (only branches a constant condition removed do), and
  // nothing reads it; it has no storage.
  const types::Type* type = nullptr;
  SourceLoc loc;     // first assignment (or the parameter)
};

struct TypedFunction {
  std::string name;        // unique C++ identifier within the program
  std::string pythonName;  // for messages
  SourceLoc loc;           // the `def`
  bool isKernel = false;
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

// A global constant whose value the program baked in: the runtime re-checks it at launch.
struct GlobalDependency {
  std::shared_ptr<Environment> environment;
  std::string name;
  ConstValue value;
};

struct TypedProgram {
  std::vector<TypedFunction> functions;  // callees before callers where possible
  std::vector<int> entries;              // the request's entries, in order: indices into `functions`
  int kernel = -1;                       // the first entry that is a kernel (a launch's kernel), or -1
  // For each positional argument of `kernel`: the index into the kernel's `params`, or -1
  // when the argument was a ConstExpr baked into the program.
  std::vector<int> argumentToParam;
  std::vector<GlobalDependency> globals;
  // Some function calls syncthreads or another collective (needsFibers): the CPU runner
  // must run each block's threads as fibers.
  bool usesBarrier = false;
  // Node storage.
  std::deque<TypedExpr> exprs;
  std::deque<TypedStmt> stmts;
  TypedExpr* makeExpr() { return &exprs.emplace_back(); }
  TypedStmt* makeStmt() { return &stmts.emplace_back(); }
};

}  // namespace weft::sema
