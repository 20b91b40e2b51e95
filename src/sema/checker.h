// Sema's internal interfaces: the per-compilation ProgramChecker (parsed files,
// specializations, global dependencies) and the per-pass FunctionChecker that types one
// function body and builds its typed statements. Not used outside src/sema.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sema/sema.h"
#include "sema/sema_diagnostics.h"
#include "support/limits.h"
#include "syntax/ast.h"
#include "types/promotion.h"

namespace weft::sema {

enum class Intrinsic : uint8_t {
#define WEFT_INTRINSIC(Enum, name, builtin) Enum,
#include "sema/intrinsic_kinds.def"
};

// What an expression denotes: a run-time value, or a compile-time entity (module,
// function, number type, intrinsic) that only some contexts accept.
struct Value {
  enum class Kind : uint8_t {
    Error,       // an error was reported; flows on silently
    RunTime,     // `expr` computes it
    Constant,    // a constant with no run-time form yet (str, None)
    Module,      // `name` is the canonical module name: "weft", "math", "numpy", "cuda"
    Function,    // a Python function: `function`
    NumberType,  // `scalar`, e.g. device.float32 or builtin int
    Intrinsic,   // `intrinsic` (and `math` for Intrinsic::Math)
    StructType,  // a @struct class: `structSource` (its type is resolved where it is used)
    Method,      // a method bound to the struct value `expr`: `function` (nullptr: `replace`)
    PyBuiltin,   // a Python builtin python_builtins.cpp checks (round, divmod, sum...): `name`
    StaticTuple, // a tuple holding a function, type or module: `elements` (static or Constant)
  } kind = Kind::Error;
  TypedExpr* expr = nullptr;
  bool weak = false;         // a Python literal (folded constant) whose type adapts to typed operands
  bool nonNegative = false;  // provably >= 0 (array indices then skip the wraparound)
  std::optional<ConstValue> constant;  // the value when known at compile time
  std::string name;                    // Module: its name; others: how to name it in messages
  std::shared_ptr<FunctionSource> function;
  // NumberType: the number type. Intrinsic ThreadIdx/BlockIdx/BlockDim/GridDim: Int32 when the
  // components read as int32 (the classic front's cuda.threadIdx, as numba-cuda types them);
  // otherwise they are uint32.
  types::ScalarKind scalar = types::ScalarKind::Bool;
  Intrinsic intrinsic = Intrinsic::Abs;
  Builtin math = Builtin::Sqrt;
  int vectorSize = 0;  // NumberType: a vector type of this many `scalar`s (float32x4); 0: a number
  bool warpMask = false;  // NumberType: device.WarpMask (types::TypeKind::WarpMask, a uint32)
  std::shared_ptr<StructSource> structSource;
  // Intrinsic TileFunction: the face of the module it came from (a bound tile method: Simt,
  // the function's own face decides; its tile is `expr`).
  FunctionSource::Face face = FunctionSource::Face::Simt;
  std::vector<Value> elements;  // StaticTuple
  // Function of a lambda with FunctionSource::capturedLocals: their values, in order (run-time
  // values of the function the lambda is used in).
  std::vector<Value> captures;

  bool isError() const { return kind == Kind::Error || (kind == Kind::RunTime && expr->type->isError()); }
  const types::Type* type() const { return kind == Kind::RunTime ? expr->type : nullptr; }
};

// One component of an array subscript a[...], evaluated left to right: an integer index, a
// slice start:stop:step (a part omitted or None is absent), or an ellipsis.
struct IndexPart {
  enum class Kind : uint8_t { Index, Slice, Ellipsis } kind = Kind::Index;
  Value index;                             // Index
  std::optional<Value> start, stop, step;  // Slice
  SourceLoc loc;
};

// Whether converting a non-negative value of `from` to `to` gives a non-negative value: a signed
// integer type must hold every non-negative value of `from` (the conversion wraps otherwise).
bool conversionKeepsNonNegative(types::ScalarKind from, types::ScalarKind to);
// The operators as Python spells them, for messages.
const char* symbol(BinaryOp op);
const char* symbol(CompareOp op);

// ---- builtins.cpp: the registry of names sema knows ----

// Canonical module name ("cuda.device" and "weft" are one module); empty when unknown.
std::string canonicalModule(std::string_view qualifiedName);
// The entity of a qualified name ("weft.float32", "cuda.device.tid", "math.sqrt",
// "builtins.abs", "numpy.float32", "math.pi"); Kind::Error (nothing reported) if unknown.
Value resolveEntity(std::string_view qualifiedName);
// A Python builtin by its bare name (`abs`, `int`, `range`...); Kind::Error if none.
Value resolvePythonBuiltin(std::string_view name);
// The builtin a use of `intrinsic` lowers to, when that is one builtin (intrinsic_kinds.def).
std::optional<Builtin> intrinsicBuiltin(Intrinsic intrinsic);

// The meaning of a global name in `environment` (nullptr: no globals), before
// materializing constants. `status` says why resolution failed.
struct GlobalMeaning {
  enum class Status : uint8_t { Ok, Undefined, Unsupported, UnsupportedEntity } status = Status::Ok;
  Value value;
  std::string detail;  // Unsupported: the Python type; UnsupportedEntity: the qualified name
  bool fromEnvironmentConstant = false;
  // A variable of an enclosing function (GlobalValue::captured) or a global array: the program
  // depends on the object the name is bound to (GlobalDependency::byIdentity).
  bool byIdentity = false;
  std::shared_ptr<const ConstArray> array;  // a NumPy array (the value's kind is then Error)
};
GlobalMeaning resolveGlobal(Environment* environment, const std::string& name);

// The compile-time float constant `x` (math.pi, numpy.inf, ...).
Value floatConstant(double x);

// ---- constant.cpp: compile-time evaluation ----

enum class FoldError : uint8_t { None, DivisionByZero, Overflow, Unsupported };
struct Folded {
  ConstValue value;
  FoldError error = FoldError::None;
};
// Python semantics on Python values (ints are exact, and must stay within int64 or uint64).
Folded foldBinary(BinaryOp op, const ConstValue& a, const ConstValue& b);
Folded foldUnary(UnaryOp op, const ConstValue& a);
Folded foldCompare(CompareOp op, const ConstValue& a, const ConstValue& b);
bool truthOf(const ConstValue& value);
// True for Bool/Int/Float/Complex constants.
bool isNumber(const ConstValue& value);
// Whether `value` converts to `kind` without overflow (ints must be in range, floats finite
// in the target's range); `truncate` also allows a fractional float into an integer kind.
// Implicit conversions (a weak literal meeting a typed operand, a store) require it.
bool fitsScalar(const ConstValue& value, types::ScalarKind kind, bool truncate);
// The literal of `kind` holding `value` converted by convertConstant.
Literal toLiteral(const ConstValue& value, types::ScalarKind kind);
// The int value of a Bool or Int constant that int64 holds; nullopt otherwise.
std::optional<int64_t> int64Value(const ConstValue& value);
// The Python value of a syntax constant; nullopt for ints beyond uint64.
std::optional<ConstValue> fromSyntax(const syntax::ConstantValue& value);

// ---- annotations.cpp ----

// The meaning of a parameter or variable annotation.
struct Annotation {
  enum class Kind : uint8_t { Invalid, Type, ConstExpr } kind = Kind::Invalid;
  const types::Type* type = nullptr;  // Type; ConstExpr[T]: T (nullptr for plain ConstExpr)
};
// Resolves `annotation` in `environment` (names, attributes of known modules,
// `T[:]`/`T[:, :]` arrays, `ConstExpr`, `ConstExpr[T]`). Reports nothing.
Annotation resolveAnnotation(const syntax::Expr& annotation, Environment* environment, types::TypeContext& types);
// The type a struct field annotated `device.Atomic(dtype, align=N)` holds (dtype a number type
// of at most 8 bytes, N a constant power of two up to 256); nullptr when `annotation` is not
// such a call. Reports nothing.
const types::Type* resolveAtomicAnnotation(const syntax::Expr& annotation, Environment* environment,
                                           types::TypeContext& types);
// resolveAnnotation inside the definition of a struct nested `depth` deep.
Annotation resolveAnnotationAt(const syntax::Expr& annotation, Environment* environment, types::TypeContext& types,
                               int depth);

// ---- parameters.cpp ----

// The positional parameters of `def` (positional-only first), in order.
std::vector<const syntax::Arg*> positionalParameters(const syntax::FunctionDefStmt& def);
// describeParameters() of a parsed `def` whose globals are `environment`; false after reporting
// to `sink`.
bool describeParameters(const syntax::FunctionDefStmt& def, Environment* environment,
                        types::TypeContext& types, Diagnostics& sink, std::vector<ParameterDescription>& out);
// The type a parameter declared `declared` takes for an argument of type `given` (nullptr: not
// known, as for weftc's interoperable entries): a number converts to the declared number type;
// an array keeps its memory space when its element type and rank are the declared ones; tuples
// element by element; any other type must be the declared one. nullptr when they do not fit.
const types::Type* parameterType(const types::Type* declared, const types::Type* given,
                                 types::TypeContext& types);

// ---- check_function.cpp ----

// Finds the def of `name` at `line` (its first decorator's or its own) anywhere in `body`.
const syntax::FunctionDefStmt* findDef(const std::vector<syntax::Stmt*>& body, const std::string& name,
                                       uint32_t line);
// The def equivalent to the lambda `source` is (found by its body's position in `module`, made
// in `made` on first use: `module` may be shared); nullptr when `source` is no lambda or none is there.
const syntax::FunctionDefStmt* lambdaDefinition(const syntax::Module& module, syntax::Module& made,
                                               const FunctionSource& source);

// ---- check_structs.cpp ----

// What sema keeps of a struct class beyond its fields (types::Type::origin of struct types).
struct StructDefinition {
  std::shared_ptr<StructSource> source;
  struct Method {
    std::string name;
    uint32_t line = 0;  // of its first decorator or `def`
  };
  std::vector<Method> methods;
};
// The FunctionSource of method `method` of the struct type `structType`.
std::shared_ptr<FunctionSource> methodSource(const types::Type* structType, const StructDefinition::Method& method);
// `resolveStruct` with a nesting depth (a struct that contains itself is reported).
const types::Type* resolveStructAt(const std::shared_ptr<StructSource>& source, types::TypeContext& types,
                                   SourceManager& sources, Diagnostics& diagnostics, SourceLoc useLoc, int depth);

// ---- bindings.cpp ----

// Calls `visit` with each name statement `s` binds in its function's scope (Python's rule:
// such a name is local to the function): assignment targets (`repeated` for augmented
// assignments and for loops, which are never single assignments), := targets, and names bound
// inside the statements sema rejects whole (with, try, nested def and class, import). `deep`:
// also the names bound in the bodies of if, while and for.
void forEachBinding(const syntax::Stmt& s, bool deep,
                    const std::function<void(const std::string& name, SourceLoc loc, bool repeated)>& visit);

// ---- check_function.cpp ----

// What one pass learned about a local; passes iterate until these stop changing.
struct LocalFacts {
  const types::Type* type = nullptr;  // nullptr: unknown yet
  bool nonNegative = true;            // optimistic start: every assigned value is >= 0
  std::optional<ConstValue> constant; // assigned exactly once, from a constant
  bool poisoned = false;              // some assignment had an erroneous value
  bool operator==(const LocalFacts&) const = default;
};
struct FunctionFacts {
  std::vector<LocalFacts> locals;
  const types::Type* returnType = nullptr;
  bool operator==(const FunctionFacts&) const = default;
};

// One function specialized for one argument signature.
struct Specialization {
  std::shared_ptr<FunctionSource> source;
  const syntax::FunctionDefStmt* def = nullptr;
  uint32_t file = 0;
  std::vector<ArgumentInfo> arguments;  // per positional parameter
  std::vector<bool> constParams;        // per positional parameter: ConstExpr, or a static argument
  std::vector<std::shared_ptr<const Value>> statics;  // per positional parameter: its static argument
  std::vector<const types::Type*> constParamTypes;  // ConstExpr[T]: T
  std::string key;
  enum class State : uint8_t { Checking, Done } state = State::Checking;
  FunctionFacts facts;  // fixed point (the running facts while Checking)
  const types::Type* declaredReturn = nullptr;  // from a `-> T` annotation
  TypedFunction function;
  std::unique_ptr<Diagnostics> diagnostics;  // collected here, replayed at a reaching call
  bool replayed = false;
  int completion = -1;  // order in which specializations finished
  std::vector<std::pair<int, SourceLoc>> calls;  // final pass: each call's callee and location
  // While Checking: the return type joined so far, for mutually recursive callers, and what
  // they read (re-checked when this specialization is done).
  const types::Type* runningReturn = nullptr;
  struct RecursiveRead {
    const types::Type* type;
    SourceLoc loc;
    int reader;
  };
  std::vector<RecursiveRead> recursiveReads;
};

class ProgramChecker {
 public:
  ProgramChecker(types::TypeContext& types, SourceManager& sources, Diagnostics& diagnostics, bool debug);
  // Checks the request's entry points and everything they call.
  TypedProgram run(const CheckRequest& request);

  // The specialization of `source` for `arguments`, checked (or being checked, when
  // recursive); -1 after reporting to `sink` at `callLoc`.
  // `statics`: per argument, the static argument it is (a function, a type...: isStaticArgument;
  // it specializes the callee by identity, as a ConstExpr's value does), or nullptr.
  int specialize(const std::shared_ptr<FunctionSource>& source, const std::vector<ArgumentInfo>& arguments,
                 Diagnostics& sink, SourceLoc callLoc, const std::vector<std::shared_ptr<const Value>>& statics = {});
  Specialization& specialization(int index) { return specs_.at(static_cast<size_t>(index)); }
  // check_interop.cpp: replaces the `arguments` of annotated parameters by their declared
  // types (parameterType), and checks that every parameter of an interoperable `source` is
  // annotated with a type that has a machine representation; false after reporting.
  bool annotatedArguments(const FunctionSource& source, const std::vector<const syntax::Arg*>& params,
                          const std::vector<ParameterDescription>& described, SourceLoc where,
                          Diagnostics& sink, std::vector<ArgumentInfo>& arguments);
  // Reports an interoperable function or kernel whose name cannot be its extern "C" symbol.
  void checkInteropName(const FunctionSource& source, const syntax::FunctionDefStmt& def, Diagnostics& sink);
  // Copies a specialization's diagnostics into `sink` once, with a note at the call site.
  void replay(int index, Diagnostics& sink, SourceLoc callLoc);
  // Remembers that the program baked in global `name` = `value` (byIdentity: whatever object
  // the name is bound to; GlobalDependency).
  void recordGlobal(const std::shared_ptr<Environment>& environment, const std::string& name, const ConstValue& value,
                    bool byIdentity);
  // The index of `array` in the program's constant data (TypedProgram::constantArrays).
  int constantArray(const std::shared_ptr<const ConstArray>& array);

  types::TypeContext& types;
  SourceManager& sources;
  Diagnostics& diagnostics;
  const bool debug;
  // Struct types resolved so far, by StructSource (check_structs.cpp: structKey).
  std::map<std::string, const types::Type*> structTypes;
  // How deep the checking nests now: expressions, statements and calls (NestingLevel).
  int nesting = 0;
  // The face whose rules tile code follows where its function does not say (the first entry
  // point's; check_tiles.cpp).
  FunctionSource::Face tileFace = FunctionSource::Face::Simt;
  // Set when any function uses a tile (the unit then includes the tile header); what decides
  // the tile block's threads.
  bool usesTiles = false;
  int64_t largestAccumulator = 0;  // elements of the largest mma result (0: no mma)
  int64_t largestTile = 1;
  int narrowestMemoryElement = 0;  // bytes of the narrowest element a tile load or store moves (0: none)
  int widestMemoryElement = 0;      // and of the widest
  bool memoryWithoutFacts = false;  // a tile load or store moves elements of an array lacking a launch fact

 private:
  const syntax::FunctionDefStmt* findDefinition(const FunctionSource& source, Diagnostics& sink, SourceLoc callLoc,
                                                uint32_t& file);
  void checkSpecialization(int index);
  TypedProgram program_;
  struct ParsedFile {
    std::shared_ptr<const SourceFile> source;
    uint32_t file = 0;
    std::shared_ptr<const syntax::Module> module;  // nullptr after a syntax error; shared (ParseCache)
    syntax::Module made;  // the defs lambdaDefinition makes for the file's lambdas
    // The module's (non-async) defs by the line of their `def` and of their first decorator.
    std::unordered_map<uint32_t, std::vector<const syntax::FunctionDefStmt*>> defsByLine;
  };
  std::multimap<std::string, ParsedFile> files_;
  syntax::ParseCache* parses_ = nullptr;  // the request's
  std::deque<Specialization> specs_;
  std::map<std::string, int> byKey_;
  std::vector<GlobalDependency> globals_;
  std::vector<std::shared_ptr<const ConstArray>> constantArrays_;
  int completed_ = 0;
};

// One level of the program's nesting (ProgramChecker::nesting) while it lives.
class NestingLevel {
 public:
  explicit NestingLevel(int& nesting) : nesting_(nesting) { ++nesting_; }
  ~NestingLevel() { --nesting_; }
  NestingLevel(const NestingLevel&) = delete;
  NestingLevel& operator=(const NestingLevel&) = delete;
  // Beyond kMaxNestingDepth: the checker stops here (after reporting).
  bool tooDeep() const { return nesting_ > kMaxNestingDepth; }

 private:
  int& nesting_;
};

// Joins the types of the values assigned to one variable (or returned by one function).
struct TypeJoin {
  const types::Type* strong = nullptr;  // join of typed values
  SourceLoc strongLoc;
  std::optional<types::ScalarKind> weak;  // join of the builtin kinds of literals
  SourceLoc weakLoc;
  bool sawError = false;
  // The joined type; nullptr when nothing was added.
  const types::Type* result(types::TypeContext& types) const;
};

// The type a weak literal of builtin kind `weak` takes next to a typed `strong` operand
// (DESIGN.md section 3, made precise): a bool literal takes the other type; an int literal
// takes the other type (int32 next to bool), and must fit it; a float literal keeps a
// floating or complex type and gives an integer or bool operand the type `/` would
// (float64 for 64-bit integers, else float32); a complex literal gives the complex type
// of at least the other's precision. Alone, literals have builtin types: int32 (int64 when
// too large), float32, complex64, bool. A variable joins its typed assignments by
// promotion and its literal assignments by these rules.
types::ScalarKind combineWeak(types::ScalarKind strong, types::ScalarKind weak);
// The join of the builtin kinds of two weak literals: the wider of int32 < int64 < uint64
// for two ints (a literal that the result does not hold is reported where it is converted),
// otherwise promotion.
types::ScalarKind joinWeak(types::ScalarKind a, types::ScalarKind b);
// The join of two typed types; nullptr when they do not unify.
const types::Type* joinTypes(const types::Type* a, const types::Type* b, types::TypeContext& types);

// True when control cannot fall off the end of `body` (every path returns).
bool alwaysReturns(const std::vector<syntax::Stmt*>& body);

// check_interop.cpp: marks every function an interoperable function reaches on the host
// (outside `if target(...)` branches the host does not take) hostCallable, and reports the
// device-only operations those functions use there.
void markHostCallable(TypedProgram& program, Diagnostics& diagnostics);

// check_local_memory.cpp: reports kernels whose local arrays on a chain of calls exceed what a
// GPU thread can have (kGpuLocalMemoryBytes) and sets program.localArrayBytes.
void checkLocalMemory(TypedProgram& program, types::TypeContext& types, Diagnostics& diagnostics);
// The local memory of one GPU thread: 512 KiB on every architecture weft targets (the CUDA
// programming guide's technical specifications); a launch that needs more fails.
inline constexpr uint64_t kGpuLocalMemoryBytes = 512 * 1024;
// The bytes of an array of `shape` with elements of `element` (nullptr: of the number type
// `scalar`), saturating at UINT64_MAX.
uint64_t arrayBytes(const std::vector<int64_t>& shape, const types::Type* element,
                    types::ScalarKind scalar = types::ScalarKind::Bool);

// One pass over one function body.
class FunctionChecker {
 public:
  FunctionChecker(ProgramChecker& program, int specIndex, TypedProgram& nodes, Diagnostics& sink, bool finalPass);
  // Runs the pass; fills `out` and returns what it learned.
  FunctionFacts run(TypedFunction& out);

  // ---- check_expressions.cpp ----
  Value expr(const syntax::Expr& e);
  // A run-time value (reports modules, functions, strings...); Error stays Error.
  Value value(const syntax::Expr& e);
  Value toRunTime(Value v, SourceLoc loc);
  // A bool for an `if`/`while` test (Python truthiness).
  Value condition(const syntax::Expr& e);
  Value truth(Value v, SourceLoc loc);
  Value constantValue(const ConstValue& constant, SourceLoc loc);
  Value weakLiteral(const ConstValue& constant, SourceLoc loc);
  Value typedLiteral(const ConstValue& constant, types::ScalarKind kind, SourceLoc loc);
  Value binary(BinaryOp op, Value left, Value right, SourceLoc loc);
  // Converts a value for storing into a place of type `target` (assignment, store, argument of
  // a cast): numbers convert, complex never silently becomes real, other types must match.
  Value convert(Value v, const types::Type* target, SourceLoc loc);
  // Converts a weak literal or a typed value to scalar `kind` during promotion (never narrowing).
  Value promoteTo(Value v, types::ScalarKind kind, SourceLoc loc);
  Value cast(Value v, types::ScalarKind kind, SourceLoc loc);
  Value errorValue() const { return Value{}; }
  // Reports (once per function) that the program nests too deeply at `loc`; an error value.
  Value tooDeep(SourceLoc loc);
  Value runtime(TypedExpr* e, bool nonNegative = false) const;
  TypedExpr* make(TypedExprKind kind, const types::Type* type, SourceLoc loc, std::vector<TypedExpr*> operands = {});
  // operands[begin, end) joined by the associative `kind` (And, Or) as a balanced tree.
  TypedExpr* balanced(TypedExprKind kind, const std::vector<TypedExpr*>& operands, size_t begin, size_t end,
                      const types::Type* type, SourceLoc loc);
  std::string describe(const Value& v) const;

  // ---- check_calls.cpp ----
  Value call(const syntax::CallExpr& e);
  Value attribute(const syntax::AttributeExpr& e);

  // ---- check_structs.cpp ----
  // The struct type of a @struct class value; nullptr after reporting.
  const types::Type* structTypeOf(const Value& structClass, SourceLoc loc);
  // `S(a, b, field=c)`: a new struct value.
  Value structConstruct(const Value& callee, const syntax::CallExpr& e);
  // `s.field`, `s.method`, `s.replace`.
  Value structAttribute(Value base, const std::string& attr, SourceLoc loc);
  // `s.method(args)` and `s.replace(field=value, ...)`.
  Value methodCall(const Value& callee, const syntax::CallExpr& e);
  // `x.attr = v` (always an error: structs are immutable, attributes cannot be added).
  void attributeAssign(const syntax::AttributeExpr& target);
  // Reports `how` ("returning it"...) as a copy of `v` when `v` holds atomics (a struct with
  // atomic fields lives in memory and is used in place); true after reporting.
  bool copiesAtomicStruct(const Value& v, const std::string& how, SourceLoc loc);
  // `r.pos[i, j]` of a record's sub-array field (an InlineArray): an element; constant indices
  // are checked against the shape, negative ones count from the end.
  Value inlineArrayIndex(Value array, const syntax::Expr& index, SourceLoc loc);
  // `r.pos.shape`, `.size`, `.ndim` (constants) and `len(r.pos)`.
  Value inlineArrayAttribute(Value array, const std::string& attr, SourceLoc loc);
  // `records[i].pos[k] = v`: a store into the record in its array. A sub-array field of a
  // record that is a value (a variable, an argument) is immutable, as every struct is.
  void inlineArrayAssign(const syntax::SubscriptExpr& target, Value array, Value v, SourceLoc loc);

  // ---- check_vectors.cpp: vectors, and the attributes of numbers ----
  // `float32x4(a, b, c, d)`.
  Value vectorConstruct(const Value& callee, const syntax::CallExpr& e);
  // `v.x`, `v.size`, `v.dtype`...
  Value vectorAttribute(Value vector, const std::string& attr, SourceLoc loc);
  // `v[i]` (a constant index is checked; a negative one counts from the end).
  Value vectorIndex(Value vector, const syntax::Expr& index, SourceLoc loc);
  // `for e in v:` (and, with `counter`, `for i, e in enumerate(v, start):`): a loop over the
  // components of one evaluation of the vector (or homogeneous tuple) `vector`, each assigned
  // to `element`.
  void vectorFor(const syntax::ForStmt& s, Value vector, const syntax::Expr& element,
                 const syntax::Expr* counter, Value start);
  // `for i, e in enumerate(v)` and `enumerate(v, start)` (`v` a vector or a tuple).
  void enumerateFor(const syntax::ForStmt& s);
  // `for f in t` over a StaticTuple: the body unrolled, `f` naming each element in turn.
  void staticTupleFor(const syntax::ForStmt& s, const Value& tuple);
  // `for i in range(...)` whose arguments `arguments` evaluates (nullopt after reporting).
  void rangeFor(const syntax::ForStmt& s, SourceLoc callLoc,
                const std::function<std::optional<std::vector<Value>>()>& arguments);
  // python_builtins.cpp: `for ... in zip(tuples...)`, `reversed(tuple)`, `reversed(range(...))`.
  void pyBuiltinFor(const syntax::ForStmt& s, const syntax::CallExpr& call, const std::string& name);
  // `v.x = ...` or `v[i] = ...` (always an error: vectors are immutable).
  void vectorAssign(const Value& vector, const std::string& what, SourceLoc loc);
  // `x.real`, `x.imag`, `x.dtype`, `x.shape`, `x.ndim`, `x.size` of a number.
  Value numberAttribute(Value number, const std::string& attr, SourceLoc loc);
  // `x.conjugate()`; nullopt when `e` is not a call of a number's method.
  std::optional<Value> numberMethod(const syntax::CallExpr& e);

  // ---- check_simt.cpp ----
  // A call of a SIMT intrinsic (warp and block collectives, atomics, threadfence, popc...,
  // dynamic_shared_array) or of print().
  Value simtCall(const Value& callee, const syntax::CallExpr& e);
  // numba's dynamic shared array `cuda.shared.array(0, dtype)`: the launch's dynamic shared
  // memory viewed as a 1-d array of dtype (every such array starts at its first byte, as in
  // numba); nullopt when `e` is not of that form.
  std::optional<Value> classicDynamicShared(const Value& callee, const syntax::CallExpr& e);
  // `ref.add`, `ref.dtype`... of an AtomicRef value; `classic`: also numba's cuda.atomic.inc/dec.
  Value atomicMember(Value ref, const std::string& attr, SourceLoc loc, bool classic = false);
  // The dtype argument `Atomic(dtype, align=N)` of shared_array/local_array; nullptr after
  // reporting (or when `e` is not such a call: `isAtomic` false).
  const types::Type* atomicDtype(const syntax::Expr& e, bool& isAtomic);
  // The bool a predicate argument computes: an inline `lambda: cond` or a function called with
  // no arguments, or (the classic front's `cuda.` functions) a value; argument `position` of `what`.
  Value predicate(const syntax::Expr& arg, const std::string& what, size_t position);
  // `ref.add(v, memory=, scope=)` and the other AtomicRef methods (callee: AtomicMethod).
  Value atomicMethod(const Value& callee, const syntax::CallExpr& e);
  // Reads the memory order and thread scope strings (nullptr: the default seq_cst / system)
  // as atomics.h numbers them; false after reporting.
  bool memoryOrderAndScope(const syntax::Expr* memory, const syntax::Expr* scope, int& order, int& threadScope);
  Value printCall(const syntax::CallExpr& e);
  // An element of an array of Atomic(dtype), or an Atomic field of a struct: the AtomicRef to it.
  Value atomicElement(Value element, SourceLoc loc);
  // `mask[lane]` of a WarpMask: whether the lane's bit is set (bool).
  Value warpMaskLane(Value mask, const syntax::Expr& lane, SourceLoc loc);
  // `mask[lane] = bit` (`mask` a WarpMask variable): the variable with the lane's bit set to bool(bit).
  void warpMaskAssign(const syntax::SubscriptExpr& target, Value mask, Value bit, SourceLoc loc);
  // The lane of mask[lane]: an integer (as int64); a constant outside 0..31 is reported.
  Value warpMaskLaneIndex(const syntax::Expr& lane);
  // The order=/align= keywords of shared_array/local_array; false after reporting.
  bool arrayLayoutOption(const syntax::Keyword& keyword, const std::string& what, bool& fortranOrder, int& align);

  // Visits every expression of a statement list, at any nesting (check_function.cpp).
void forEachExpr(const std::vector<TypedStmt*>& body, const std::function<void(const TypedExpr&)>& visit);

// ---- check_tiles.cpp: tile code (docs/tiles.md) ----
  // The face whose rules this function's tile code follows.
  FunctionSource::Face tileFace() const;
  // Reports a SIMT intrinsic (thread positions, barriers, warp collectives, atomics, shared
  // memory) used in tile code, where one logical thread runs the tile block; true then.
  bool simtInTileCode(const Value& intrinsic, SourceLoc loc);
  // A call of a function of weft.tiles / weft.cutile, or of a tile's method.
  Value tileFunctionCall(const Value& callee, const syntax::CallExpr& e);
  // `t.dtype`, `t.shape`, `t.ndim`, `t.size` and the methods (astype, reshape, ...).
  Value tileAttribute(Value tile, const std::string& attr, SourceLoc loc);
  // Operators with a tile operand (element-wise, broadcasting).
  Value tileBinary(BinaryOp op, Value left, Value right, SourceLoc loc);
  Value tileCompare(CompareOp op, Value left, Value right, SourceLoc loc);
  Value tileUnary(UnaryOp op, Value operand, SourceLoc loc);

  // ---- check_arrays.cpp ----
  Value subscript(const syntax::SubscriptExpr& e);
  Value arrayAttribute(Value array, const std::string& attr, SourceLoc loc);
  // `name = shared_array(...)`: emits a DeclareArray for `local` when `call` is one; false if not.
  bool declareArray(int local, const syntax::Expr& value, SourceLoc loc);
  Value tupleElement(Value tuple, int64_t index, SourceLoc loc);
  // True when `e` is provably >= 0 (unsigned, a non-negative literal, a thread position...).
  bool nonNegativeExpr(const TypedExpr& e) const;
  // What a dotted name denotes (modules, intrinsics), without reporting; Error otherwise.
  Value peekEntity(const syntax::Expr& e);
  // The components of the subscript `index`, evaluated in order (a tuple value gives one
  // Index per element); false after reporting.
  bool indexParts(const syntax::Expr& index, std::vector<IndexPart>& parts);
  // The elements of `tuple`, each read once: a variable or a tuple display without calls (a
  // tuple computed by a call is reported, naming `use`); false after reporting.
  bool tupleElements(Value tuple, const std::string& use, SourceLoc loc, std::vector<Value>& out);

  // ---- check_array_views.cpp: views of arrays (docs/arrays.md) ----
  // `array[parts]` with a slice, an ellipsis or fewer indices than dimensions: a view.
  Value arraySlice(Value array, const std::vector<IndexPart>& parts, SourceLoc loc);
  // `a.dtype`: the element type as a callable entity (a number type or a @struct class).
  Value arrayDtype(Value array, SourceLoc loc);
  // `a.view(dtype)`, `a.reshape(shape)`, `a.astype(dtype, copy=False)` (callee: the Method
  // value arrayAttribute returned for them).
  Value arrayMethodCall(const Value& callee, const syntax::CallExpr& e);

  // ---- check_statements.cpp ----
  void block(const std::vector<syntax::Stmt*>& body, std::vector<TypedStmt*>& out);
  void stmt(const syntax::Stmt& s);
  void checkStatement(const syntax::Stmt& s);
  void assign(const syntax::Expr& target, Value v, SourceLoc loc);
  void assignLocal(int local, Value v, SourceLoc loc);
  TypedStmt* emit(TypedStmtKind kind, SourceLoc loc, std::vector<TypedExpr*> operands = {});
  int newTemporary(const types::Type* type, SourceLoc loc);

  // ---- check_function.cpp ----
  Value name(const syntax::NameExpr& e);
  // Reports the use `e` of a local that has no value: never assigned, or assigned only in
  // code a constant condition removed.
  void reportUnbound(const syntax::NameExpr& e);
  const types::Type* localType(int local) const;
  // Records a value returned by the function.
  // Records a value returned by the function; false when it was reported as wrong.
  bool noteReturn(Value v, SourceLoc loc, bool bare);

  ProgramChecker& program;
  int specIndex;
  types::TypeContext& types;
  TypedProgram& nodes;
  Diagnostics& sink;
  const bool finalPass;

 private:
  struct LocalState {
    std::string name;
    SourceLoc loc;
    bool isParam = false;
    bool declared = false;  // its type is fixed (a parameter, an annotation, an array declaration)
    const types::Type* fixed = nullptr;
    int assignments = 0;     // assignment sites (prescan); 1 allows a constant local
    TypeJoin join;
    bool nonNegative = true;
    std::optional<ConstValue> constant;
    bool constantSeen = false;
    std::pair<const types::Type*, const types::Type*> mmaOperands{nullptr, nullptr};  // Local::mmaOperands
  };
  Specialization& spec() { return program.specialization(specIndex); }
  // The prescan: every name the body binds is a local (counting its assignment sites).
  void scan(const std::vector<syntax::Stmt*>& body);
  void noteAnnotation(const syntax::AnnAssignStmt& s);
  int addLocal(const std::string& name, SourceLoc loc);
  void checkAssert(const syntax::AssertStmt& s);
  void forStmt(const syntax::ForStmt& s);
  // Checks a for loop's body (one loop deeper) into `body` and its else clause into `orelse`.
  void loopBodies(const syntax::ForStmt& s, std::vector<TypedStmt*>& body, std::vector<TypedStmt*>& orelse);
  void augAssign(const syntax::AugAssignStmt& s);
  void returnStmt(const syntax::ReturnStmt& s);
  // `self`: the struct value a method is called on (its first argument).
  Value userCall(const Value& callee, const syntax::CallExpr& e, const Value* self = nullptr);
  // A call of the Python function `callee` with the evaluated arguments `args` at `loc`.
  Value userCallWith(const Value& callee, std::vector<Value> args, SourceLoc loc);
  Value intrinsicCall(const Value& callee, const syntax::CallExpr& e);
  Value mathCall(const Value& callee, const syntax::CallExpr& e, std::vector<Value> args);
  // math.isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0).
  Value isClose(const Value& callee, const syntax::CallExpr& e);

  // ---- python_builtins.cpp ----
  // A call of PyBuiltin `callee`.
  Value pyBuiltinCall(const Value& callee, const syntax::CallExpr& e);
  // `v` evaluated once: itself when repeating it costs nothing, else a temporary holding it.
  Value evaluatedOnce(Value v, SourceLoc loc);
  // The elements of tuple `tuple` (evaluated once), or of a vector; nullopt after reporting
  // that `what` needs a tuple.
  std::optional<std::vector<Value>> elementsOf(Value tuple, const std::string& what, const syntax::Expr& where);
  // tuple[index] with a run-time integer `index`: the tuple's elements must share one type.
  Value tupleAt(Value tuple, Value index, SourceLoc loc);
  // static_arguments.cpp: a lambda written in device code, as a function value.
  Value lambdaValue(const syntax::LambdaExpr& e);
  // A global NumPy array read in device code: its contents as constant data.
  Value constantArray(const std::shared_ptr<const ConstArray>& array, SourceLoc loc);
  // Reports a store through `array` (an array value) when it is constant data; false then.
  bool writableArray(const Value& array, SourceLoc loc);
  // cmath_names.cpp: a call of cmath function `callee`.
  Value cmathCall(const Value& callee, const syntax::CallExpr& e);
  // x.bit_count() of an integer.
  std::optional<Value> bitCount(const syntax::CallExpr& e);
  Value numberCast(const Value& callee, const syntax::CallExpr& e, std::vector<Value> args);
  Value minMax(Builtin lowering, const syntax::CallExpr& e, std::vector<Value> args);
  Value compare(const syntax::CompareExpr& e);
  Value isNone(const syntax::CompareExpr& e);
  Value boolOp(const syntax::BoolOpExpr& e);
  Value unary(const syntax::UnaryOpExpr& e);
  Value ifExp(const syntax::IfExpExpr& e);
  Value tupleDisplay(const syntax::TupleExpr& e);
  // A tuple display holding a function or type (`raws`: its elements' values): a StaticTuple.
  Value staticTuple(const syntax::TupleExpr& e, const std::vector<Value>& raws);
  // tuple[index] of a StaticTuple: `index` must be a constant integer.
  Value staticTupleElement(const Value& tuple, const syntax::Expr& index, SourceLoc loc);
  Value threadIndex(Intrinsic which, SourceLoc loc);
  Value arrayIndex(Value array, const syntax::Expr& index, SourceLoc loc);
  // check_array_views.cpp: the dtype argument of view()/astype(): an element type (a number or
  // struct type); nullptr after reporting.
  const types::Type* dtypeArgument(const syntax::Expr& e, const std::string& what);
  Value arrayView(Value array, const syntax::CallExpr& e);
  Value arrayReshape(Value array, const syntax::CallExpr& e);
  Value arrayAstype(Value array, const syntax::CallExpr& e);
  std::optional<std::vector<int64_t>> constantShape(const Value& shape);
  bool requireArgs(const std::string& what, const syntax::CallExpr& e, size_t min, size_t max);

  // check_tiles.cpp helpers.
  // Binds a call's positional and keyword arguments to `params` (Python's rules; `self`, when
  // given, is the first); false after reporting.
  bool bindArguments(const std::string& what, const syntax::CallExpr& e, const std::vector<std::string_view>& params,
                     size_t required, std::vector<const syntax::Expr*>& out, const syntax::Expr* self);
  std::optional<std::vector<int64_t>> tileShapeArgument(const syntax::Expr& arg, const std::string& what);
  bool checkTileShape(const std::vector<int64_t>& shape, SourceLoc loc);
  std::optional<int64_t> tileConstantInt(const syntax::Expr& arg, const std::string& role);
  std::optional<int> tileAxis(const syntax::Expr& arg, int rank, const std::string& what);
  const types::Type* tileDtype(const syntax::Expr& arg, const std::string& what);
  Value tileValue(const syntax::Expr& arg, const std::string& what);
  // The array of numbers `arg` names (an ArgumentType error otherwise).
  Value tileArrayArgument(const syntax::Expr& arg, const std::string& what);
  // `array` if it is an array of numbers (else reported at `loc`).
  Value tileArrayValue(Value array, SourceLoc loc, const std::string& what);
  // The padding= of a load from `array` (absent: zero); nullopt after an error.
  std::optional<TilePadding> tilePadding(const syntax::Expr* arg, const types::Type* array);
  TypedExpr* tileCall(TileOp op, const types::Type* type, SourceLoc loc, std::vector<TypedExpr*> operands = {},
                      std::vector<int64_t> ints = {});
  // `v` (a tile or a number) as a tile of `shape` (a reshape where only ones are added).
  Value broadcastTile(Value v, const std::vector<int64_t>& shape, SourceLoc loc);
  // `v` as an input of a TileMap of `shape`: a one-element tile as its element, else broadcastTile.
  Value mapOperand(Value v, const std::vector<int64_t>& shape, SourceLoc loc);
  std::optional<std::vector<int64_t>> broadcastShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                                     SourceLoc loc, const std::string& what);
  std::optional<types::ScalarKind> tileCommonKind(const Value& a, const Value& b, bool comparison, SourceLoc loc,
                                                  const std::string& what);
  Value mapInput(int index, types::ScalarKind kind, SourceLoc loc);
  Value tileMap(Value body, const std::vector<Value>& inputs, const std::vector<int64_t>& shape, SourceLoc loc);
  // Reports a restricted element type (fp8: load, store, astype and mma only) among `result` and
  // `inputs` of the tile operation `what` at `loc`; true then.
  bool restrictedTileUse(const types::Type* result, const std::vector<const types::Type*>& inputs, SourceLoc loc,
                         std::string_view what);
  // check_tile_memory.cpp: load (load) or store of an array tile.
  // `self`: the partition view whose load/store method this is (nullptr: ct.load/ct.store).
  Value tileLoadStore(bool load, const syntax::CallExpr& e, const std::string& what, FunctionSource::Face face,
                      const std::optional<Value>& self);
  // tensor_span(array) (the array, which knows its extents and strides) or
  // partition_view(span, shape, padding='zero').
  Value tileView(bool partition, const syntax::CallExpr& e, const std::string& what);
  // check_tile_hints.cpp: an assume_* hint.
  Value tileAssumption(const std::string& name, const syntax::CallExpr& e, const std::string& what);
  // check_tile_reductions.cpp: a named reduction or scan, or reduce()/scan() with a function.
  Value tileReduction(const std::string& name, const syntax::CallExpr& e, const std::string& what);
  // The combining function `arg` of reduce()/scan() (a lambda or a Python function of two
  // elements of `kind`) applied to MapInput 0 and 1, as a scalar of `kind`.
  Value tileCombiner(const syntax::Expr& arg, types::ScalarKind kind, const std::string& what);
  Value tileMatmul(Value x, Value y, std::optional<const syntax::Expr*> accArg, SourceLoc loc, const std::string& what);
  Value tileArith(const std::string& name, const syntax::CallExpr& e, const std::string& what,
                  FunctionSource::Face face);
  Value tileGatherScatter(bool gather, const syntax::CallExpr& e, const std::string& what);
  // The array, index tiles, operand (a scatter's value or a gather's padding), mask and bounds
  // check of gather/scatter/atomics as a Gather or Scatter TileCall.
  Value tileGatherScatterOperands(bool gather, const syntax::Expr* arrayArg, const syntax::Expr* indicesArg,
                                  const syntax::Expr* operandArg, const syntax::Expr* maskArg,
                                  const syntax::Expr* checkArg, const syntax::CallExpr& e, const std::string& what);
  Value tileAtomic(const std::string& name, const syntax::CallExpr& e, const std::string& what,
                   FunctionSource::Face face);
  bool tileIndex(const syntax::Expr& arg, int rank, const std::string& what, std::vector<TypedExpr*>& operands);
  // The axis order of a load or store (order=: 'C', 'F' or a permutation; the identity when
  // absent), after checking the hints latency= and allow_tma=; nullopt after an error.
  std::optional<std::vector<int64_t>> tileOrderAndHints(const syntax::Expr* order, const syntax::Expr* latency,
                                                        const syntax::Expr* allowTma, int rank, const std::string& what);

  std::vector<LocalState> locals_;
  std::map<std::string, int> localByName_;
  std::map<std::string, Value> constParams_;
  // The parameters of a lambda whose body is being checked in place (a tile reduction's
  // combining function, check_tile_reductions.cpp): they hide every other name.
  std::map<std::string, Value> lambdaParams_;
  // Set while building a conversion (astype) or the axis permutation of a load or store: the
  // only tile operations besides load, store and mma that take restricted element types.
  bool restrictedAllowed_ = false;
  std::vector<TypedStmt*>* out_ = nullptr;
  int loopDepth_ = 0;
  int temporaries_ = 0;
  TypeJoin returnJoin_;
  SourceLoc bareReturnLoc_;
  bool sawBareReturn_ = false;
  // The rest of the current block cannot run (after the `if` at unreachableAfter_, whose
  // condition is constant and whose taken branch always returns): block() stops checking it.
  bool unreachable_ = false;
  SourceLoc unreachableAfter_;
  // Code a constant condition removed (never checked): a variable assigned only there is
  // reported as such where it is used.
  struct RemovedCode {
    std::vector<const syntax::Stmt*> stmts;
    SourceLoc ifLoc;  // the `if` whose condition decided it
    enum class Reason : uint8_t { AlwaysTrue, AlwaysFalse, AfterReturn } reason;
  };
  std::vector<RemovedCode> removed_;
  std::vector<const syntax::NameExpr*> unboundUses_;  // final pass: uses of locals without a value
  bool reportedTooDeep_ = false;
  bool sawValueReturn_ = false;
  SourceLoc valueReturnLoc_;
  // An error value stands for a reported error when, since the statement began, a
  // diagnostic was reported or a poisoned variable was read.
  size_t diagnosticsBeforeStatement_ = 0;
  size_t poisonedReads_ = 0;
  size_t poisonedReadsBeforeStatement_ = 0;
  FunctionFacts assumed_;
};

// The mangled C++ name of a specialization: `name__f32_a1f32`.
std::string mangle(const std::string& name, const std::vector<ArgumentInfo>& arguments, const std::vector<bool>& constParams);

// Visits every expression of a statement list, at any nesting (check_function.cpp).
void forEachExpr(const std::vector<TypedStmt*>& body, const std::function<void(const TypedExpr&)>& visit);

// ---- check_tiles.cpp: tile code (docs/tiles.md) ----

// The elements of a tile type.
int64_t tileSize(const types::Type* tile);
// The tile block on the GPU for a program whose largest tile has `largestTile` elements, whose
// largest mma result has `largestAccumulator` (0: none) and whose narrowest element loaded or
// stored by a tile access has `narrowestMemoryElement` bytes (0: none) and the widest
// `widestMemoryElement`; `memoryWithoutFacts`: some access is of an array lacking a launch fact
// (it keeps an element-by-element path). Threads: 128 to 512 by the tiles' size; with mma, 128
// or 256 by the accumulator's. Vector: 4 to 8 elements.
TileBlock tileBlockFor(int64_t largestTile, int64_t largestAccumulator, int narrowestMemoryElement,
                       int widestMemoryElement, bool memoryWithoutFacts);
// Gives the tile block of a program whose tile code reduces the rows of an mma accumulator
// (a Local::mmaLayout Rows local, or an axis-1 reduction of a local in an accumulator's layout)
// and has no pipelined K loop warps that own whole accumulator rows
// (TileBlock::mmaWholeRows), one for each 16 rows of the tallest such accumulator (up to 8), where
// that is at least the tile block's warps.
// Runs after markTileLayouts.
void markWholeRowWarps(TypedProgram& program);
// The largest number of elements a tile may have, and the largest extent of one dimension.
inline constexpr int64_t kMaxTileElements = int64_t{1} << 20;
// Whether the expression `e` computes a tile operation (a collective one) anywhere in it.
bool computesTiles(const TypedExpr& e);
// Whether `name` is a reduction or scan of the tile modules (check_tile_reductions.cpp).
bool isTileReduction(std::string_view name);
// A tile shape as Python spells it: "(16,)", "(4, 8)".
std::string shapeText(const std::vector<int64_t>& shape);
// Whether `name` is an assume_* hint of the tile modules (check_tile_hints.cpp).
bool isTileAssumption(std::string_view name);
// Whether `module` is a tile module ("weft.tiles", "weft.cutile" and their namespaces).
bool isTileModule(std::string_view module);
// Member `member` of the tile module `module`; Kind::Error if unknown.
Value resolveTileEntity(std::string_view module, std::string_view member);

// ---- tile_pipeline.cpp ----

// Marks the range loops of the program's tile code that are K loops of matrix products
// (MmaPipeline) and sets program.tileSharedBytes to the stages they need. `pipelineStages`:
// CheckRequest::pipelineStages.
void markMmaPipelines(TypedProgram& program, int pipelineStages);

// Whether evaluating `e` (an index of a tile load in a loop) earlier or more than once cannot be
// observed: arithmetic that cannot trap, reading locals other than `assignedInLoop`, the block's
// position.
bool isPureIndex(const TypedExpr& e, const std::vector<int>& assignedInLoop);

// The dynamic shared memory a tile kernel's stages may take: with the tile scratch buffer, what
// every GPU with cp.async has (sm_80: 163 KiB).
inline constexpr int64_t kTileRingBudget = 144 * 1024;

// ---- tile_prefetch.cpp ----

// Marks the range loops of the program's tile code whose loads are issued ahead (LoopPrefetch)
// and raises program.tileSharedBytes to their stages, and the mma calls in loops whose
// a-operand the loop does not change (TypedStmt::invariantMmaOperands). Runs after
// markMmaPipelines.
void markLoopPrefetches(TypedProgram& program);

// Gives the tile locals of the program's tile code whose values are computed element-wise from
// an mma's accumulator, or reduce its rows, that accumulator's layout or row layout
// (Local::mmaLayout), so that assigning them converts nothing; then marks the launched kernel's
// stores of tiles in a TMA K loop's accumulator layout that may take the TMA store
// (TypedExpr::tmaStoreParameter; after markMmaPipelines, whose TMA loops it reads).
void markTileLayouts(TypedProgram& program);

// ---- check_target.cpp: target specialization ----

// The target entity `member` of module weft (is_host, is_device, any_target, no_target, the
// selectors smXY[a|f] of knownTargets(), and `<targets ...>`, the name the host gives a computed
// TargetDescription); Kind::Error if none.
Value resolveTargetEntity(std::string_view member);
// A call of device.target, is_exactly or provides outside an if condition (target: an error).
Value targetSelectorCall(FunctionChecker& checker, const Value& callee, const syntax::CallExpr& e);
// Checks `if test:` when `test` calls device.target (then returns true, having emitted the If
// with its preprocessor condition); false for an ordinary if, which the caller checks.
bool checkTargetIf(FunctionChecker& checker, const syntax::IfStmt& s);

// check_arrays.cpp: true when evaluating `e` has no effect but its value (so it may be
// skipped or repeated).
bool isPure(const TypedExpr& e);

// ---- python_builtins.cpp: Python builtins over numbers and tuples ----

// The PyBuiltin `name` (round, divmod, pow, sum, any, all, isinstance, zip, reversed);
// Kind::Error if it is none of them.
Value resolvePyBuiltin(std::string_view name);
// Appends the captured values of lambda `function` (Value::captures) and, after each that is a
// lambda itself, its own, depth first (of a StaticTuple: its elements' in order): the hidden
// arguments a call passes for it.
void appendCaptures(const Value& function, std::vector<Value>& out);
// Whether `v` passed to a device function is a static argument (ArgumentInfo::staticValue): a
// function, lambda, builtin, math function, intrinsic, number type, struct class or module.
bool isStaticArgument(const Value& v);
// What tells static argument `v` apart from every other in a specialization key.
std::string staticArgumentKey(const Value& v);

// ---- cmath_names.cpp: the cmath module ----

// Member `member` of module cmath (a function as a PyBuiltin named "cmath.<member>", or a
// constant); Kind::Error if device code cannot use it.
Value resolveCmathEntity(std::string_view member);

// ---- numpy_names.cpp: NumPy's scalar functions and constants in device code ----

// Member `member` of module numpy other than its number types (np.exp, np.pi, np.minimum...);
// Kind::Error if device code cannot use it.
Value resolveNumpyEntity(std::string_view member);
// What to write instead of numpy.`member`, which device code cannot use.
std::string numpyInstead(std::string_view member);

// ---- classic_names.cpp: the classic front (weft.cuda, numba-cuda's names) ----

// "weft.cuda" or one of its namespaces ("weft.cuda.shared", ...) by qualified name; empty if none.
std::string classicModule(std::string_view qualifiedName);
// Member `member` of classic module `module` (see classicModule); Kind::Error if unknown.
Value resolveClassicEntity(std::string_view module, std::string_view member);
// `cuda.const.array_like(a)`: the array argument `a` itself.
Value classicConstArrayLike(FunctionChecker& checker, const Value& callee, const syntax::CallExpr& e);
// `cuda.atomic.add(array, index, value)` (and sub, max, min, exch, and_, or_, xor, nanmax, nanmin;
// `cuda.atomic.cas(array, index, old, value)`): AtomicRef(array, index).add(value), the old value.
Value classicAtomicCall(FunctionChecker& checker, const Value& callee, const syntax::CallExpr& e);

// ---- classic_fp16.cpp: numba-cuda's cuda.fp16 functions ----

// Whether `member` names one of numba-cuda's cuda.fp16 functions (hadd, hsqrt, heq, ...).
bool isClassicFp16Function(std::string_view member);
// `cuda.fp16.hadd(a, b)` and the others on float16 values: weft's operator, comparison or
// math function of the same meaning, of float16 (bool for the comparisons).
Value classicFp16Call(FunctionChecker& checker, const Value& callee, const syntax::CallExpr& e);

}  // namespace weft::sema
