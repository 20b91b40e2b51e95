// CudaEmitter: prints a typed program as one CUDA C++ translation unit. Private to codegen;
// the entry point is emitCuda() in codegen.h. The emitter only spells what sema decided:
// every type is already final, and Python semantics live in include/weft/device/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/codegen.h"
#include "sema/typed_program.h"
#include "support/source.h"
#include "types/type.h"

namespace weft::codegen {

class CudaEmitter {
 public:
  CudaEmitter(const sema::TypedProgram& program, const SourceManager& sources);
  // Emits the whole unit (call once).
  EmittedUnit emit();

  // Marks the unit as using `features` (EmittedUnit::features): code that emits an
  // architecture- or family-specific instruction or branch calls it.
  void requireFeatures(sema::FeatureSet features) { features_ = std::max(features_, features); }

 private:
  // Where a DeclareArray statement's elements live: a storage variable declared at the top
  // of its function (shared arrays: at `sharedOffset` in the CPU target's shared memory).
  struct ArrayStorage {
    std::string name;
    uint64_t count = 0;
    uint64_t sharedOffset = 0;
  };
  // An enclosing loop; `brokeFlag` is set by `break` when the loop has an `else` clause.
  struct Loop {
    std::string brokeFlag;
  };

  // emit_types.cpp: names, types, literals and conversions.
  std::string typeName(const types::Type* type);
  // A function's or call's result type: NoneType is `void` there.
  std::string returnTypeName(const types::Type* type);
  std::string tupleStructName(const types::Type* type);

  // emit_structs.cpp: @struct classes as standard-layout C++ structs, and the static_asserts
  // that prove each emitted struct's layout is the ABI types::layoutOf computes.
  std::string structName(const types::Type* type);
  // The C++ member name of element `index` of a tuple (f0, f1, ...) or field of a struct.
  std::string memberName(const types::Type* type, int index) const;
  std::string layoutAsserts(const std::string& cxxName, const types::Type* type);
  // Field `index` of struct `type` read from the struct value `base` (a packed record's
  // Unaligned member through weft::load).
  std::string fieldRead(const std::string& base, const types::Type* type, int index);
  // The braced initializer of struct `type` from its fields' values (a record's padding
  // members take {}).
  std::string structInitializer(const types::Type* type, const std::vector<std::string>& values);
  // `r.pos[i]` of a record's sub-array field; and `weft::store(...)` of `value` into one
  // (`target` an InlineElement of a record's field in memory).
  std::string inlineElement(const sema::TypedExpr& expr);
  std::string inlineStore(const sema::TypedExpr& target, const std::string& value);
  std::string localName(int local) const;
  std::string functionName(int function) const;
  std::string literal(const sema::TypedExpr& expr);
  // emit_constant_arrays.cpp: the array of TypedExprKind::ConstantArray `expr`, and the
  // definitions of the program's constant data (TypedProgram::constantArrays).
  std::string constantArray(const sema::TypedExpr& expr);
  std::string constantData() const;
  std::string convert(const std::string& code, const types::Type* from, const types::Type* to);
  std::string convertScalar(const std::string& code, types::ScalarKind from, const types::Type* to);
  std::string freshTemp();

  // emit_expressions.cpp
  std::string expr(const sema::TypedExpr& expr);
  std::string unary(const sema::TypedExpr& expr);
  std::string binary(const sema::TypedExpr& expr);
  std::string compareChain(const sema::TypedExpr& expr);
  std::string andOr(const sema::TypedExpr& expr);
  // `condition ? whenTrue : whenFalse` of `type`, self-delimiting. NVRTC and nvcc's front end
  // (CUDA 13.0) crash with SIGSEGV on `T{c ? C{x, 1} : C{2, 3}}`: a conditional of an aggregate
  // type initializing an aggregate's member, one operand a braced temporary with a member that is
  // not constant. A conditional of a complex, tuple, struct or vector type is therefore returned
  // from an immediately invoked lambda, a call that NVRTC compiles correctly there.
  std::string select(const std::string& condition, const std::string& whenTrue, const std::string& whenFalse,
                     const types::Type* type);
  std::string arrayElement(const sema::TypedExpr& expr);
  // A new entry of the unit's check sites for `expr` (in the function being emitted), as the
  // number the device code passes.
  std::string checkSite(const sema::TypedExpr& expr);
  // emit_array_views.cpp: slices, view(dtype) and reshape as calls of array_views.h.
  std::string arrayView(const sema::TypedExpr& expr);
  std::string tupleMake(const sema::TypedExpr& expr);
  // emit_vectors.cpp: vectors, and the headers narrow floats and vectors need.
  std::string vectorMake(const sema::TypedExpr& expr);
  std::string vectorElement(const sema::TypedExpr& expr);
  // x.real, x.imag, x.conjugate() of a number.
  std::string complexPart(const sema::TypedExpr& expr);
  // Records that the unit spells a value of `kind` (narrow floats need their header).
  void noteScalar(types::ScalarKind kind);
  // The #defines and #includes for the narrow floats and vectors the unit used.
  std::string typeHeaders() const;
  // emit_tiles.cpp: tiles as calls of include/weft/tiles.h.
  std::string tileTypeName(const types::Type* type);
  // `type` held in a layout of the accumulator of an mma of tiles `operands` (Local::mmaLayout,
  // TypedExpr::mmaLayout; `tma`: the accumulator of a K loop's TMA path); `type` without operands.
  std::string heldTileTypeName(const types::Type* type, std::pair<const types::Type*, const types::Type*> operands,
                               sema::MmaLayout layout, bool tma);
  std::string tileMap(const sema::TypedExpr& expr);
  std::string tileCall(const sema::TypedExpr& expr);
  // The combining function of a Reduce or Scan tile call as a C++ lambda of two elements.
  std::string tileCombiner(const sema::TypedExpr& expr);
  // emit_builtins.cpp: a builtin call as its helper (builtin_kinds.def) applied to the operands.
  std::string builtinCall(const sema::TypedExpr& expr);
  // emit_simt.cpp: warp and block collectives, atomics, print, dynamic shared memory.
  std::string simtCall(const sema::TypedExpr& expr);
  std::string printCall(const sema::TypedExpr& expr);
  // Records that the unit calls a helper of `header`, which it then includes.
  void useHeader(sema::BuiltinHeader header);
  // The #includes of the headers the unit's builtins need (and the static shared size that
  // dynamic shared memory starts after).
  std::string builtinHeaders() const;
  // A math function: `helper` on the operands converted to the computing precision.
  std::string mathCall(const sema::TypedExpr& expr, std::string_view helper);
  // Evaluates `operands` in Python's left-to-right order and combines their codes with
  // `combine`; when C++ would leave the order unspecified and it matters (two operands read
  // memory or call functions), the operands go to temporaries in an immediately invoked
  // lambda returning `resultType`.
  std::string sequenced(const std::vector<sema::TypedExpr*>& operands, const std::string& resultType,
                        const std::function<std::string(const std::vector<std::string>&)>& combine);

  // emit_statements.cpp
  void block(const std::vector<sema::TypedStmt*>& statements, int depth);
  void statement(const sema::TypedStmt& stmt, int depth);
  void forRange(const sema::TypedStmt& stmt, int depth);
  void mmaPipelineLoop(const sema::TypedStmt& stmt, int depth);
  // emit_tiles.cpp: a loop's prefetched loads (sema::LoopPrefetch) around forRange's loop over
  // [start, stop) with counter `counter`: their objects and first copies before it, the wait and
  // next copies at the top of each step, the drain after it.
  void loopPrefetchStart(const sema::TypedStmt& stmt, int depth, const std::string& start, const std::string& stop,
                         const std::string& counter);
  void loopPrefetchNext(const sema::TypedStmt& stmt, int depth, const std::string& counter);
  void loopPrefetchFinish(const sema::TypedStmt& stmt, int depth);
  // emit_tiles.cpp: the fragments of a loop's invariant mma operands (TypedStmt::
  // invariantMmaOperands), before the loop; and the accumulator tile type of an mma call whose
  // accumulator is a full tile (the type mma returns) or a local.
  void invariantMmaOperands(const sema::TypedStmt& stmt, int depth);
  std::string mmaAccumulatorType(const sema::TypedExpr& mma);
  // emit_tiles.cpp: the tensor maps of the launched kernel's K loops that may take the TMA path
  // (sema::MmaPipeline::parameterA) and of its TMA stores (sema::TypedExpr::tmaStoreParameter),
  // into tensorMaps_, tmaMaps_ and tmaStoreMaps_; and the kernel parameters that receive them on
  // the GPU (empty without maps).
  void collectTensorMaps(const std::vector<sema::TypedStmt*>& body);
  std::string tensorMapParameters() const;
  void whileLoop(const sema::TypedStmt& stmt, int depth);
  // emit_target.cpp: `if target(...)` as #if/#else/#endif, decided by each lowering.
  void targetIf(const sema::TypedStmt& stmt, int depth);
  void lineDirective(SourceLoc loc);
  void line(int depth, const std::string& text);

  // emit_interop.cpp: static_asserts of the interoperable signatures' arrays and complex
  // numbers against cuda::interoperable_array_descriptor and cuda::std::complex.
  std::string interopAsserts();

  // emit_program.cpp
  void collectArrayStorage(const std::vector<sema::TypedStmt*>& statements);
  void functionBody(int index);
  std::string signature(int index, const std::string& name);
  std::string symbolOf(int index) const;
  std::string hostEntry(int index);
  std::vector<bool> recursiveFunctions() const;

  const sema::TypedProgram& program_;
  const SourceManager& sources_;
  std::string typeDecls_;                             // tuple structs, in dependency order
  std::map<const types::Type*, std::string> tuples_;  // tuple type -> struct name
  std::map<const types::Type*, std::string> structs_;  // struct type -> C++ name
  std::string body_;                                  // the functions being emitted
  const sema::TypedFunction* function_ = nullptr;     // the function being emitted
  std::map<const sema::TypedStmt*, ArrayStorage> storage_;
  std::vector<EmittedUnit::CheckSite> checkSites_;
  std::vector<const sema::TypedStmt*> functionStorage_;  // the current function's DeclareArrays
  std::vector<bool> recursive_;                          // per function: calls itself
  std::vector<Loop> loops_;
  uint64_t sharedBytes_ = 0;
  int temps_ = 0;
  bool usesFloat16_ = false, usesBFloat16_ = false, usesFloat8_ = false, usesVectors_ = false;
  std::set<sema::BuiltinHeader> headers_;  // the headers of the builtins the unit calls
  bool usesDynamicShared_ = false;
  bool usesTiles_ = false;
  sema::FeatureSet features_ = sema::FeatureSet::Baseline;  // EmittedUnit::features
  std::vector<EmittedUnit::TensorMap> tensorMaps_;           // EmittedUnit::tensorMaps
  std::map<const sema::TypedStmt*, size_t> tmaMaps_;         // K loop -> its map of a (b's follows)
  std::map<const sema::TypedExpr*, size_t> tmaStoreMaps_;    // TMA store -> the map of its array
  std::map<const sema::TypedExpr*, std::string> prefetched_;  // prefetched Load -> its value in the loop
  std::map<const sema::TypedStmt*, std::string> prefetchObjects_;  // loop -> its loads' objects, ", "-separated
  std::map<const sema::TypedExpr*, std::string> invariantOperands_;  // mma call -> its a-operand's fragments
  bool usesLoopTiles_ = false;  // the unit includes weft/tiles/loop_prefetch.h (prefetched loads, mma operands)
};

// What a user-chosen name names in the emitted C++; each kind has its own prefix.
enum class NameKind : uint8_t { Local, Function, Struct, Member, Kernel };
// The C++ spelling of the Python name `pythonName` of the entity numbered `unique` among those
// of `kind` in its C++ scope (emit_names.cpp): `<prefix>_<readable ASCII>_<unique>`, never a
// C++ keyword, a macro, one of weft's names or another entity's name. Every user-chosen name
// the unit prints goes through it, interoperable symbols aside (sema validates those).
std::string userName(NameKind kind, std::string_view pythonName, size_t unique);
// `text` made safe in a // comment (no control characters, no line-splicing backslash).
std::string commentText(std::string_view text);

// True when the subtree reads array memory or calls a function, so that evaluating it
// before or after another such subtree can change the result.
bool hasMemoryEffects(const sema::TypedExpr& expr);
// `text` as a C++ string literal (file names in #line directives and messages).
std::string quoted(const std::string& text);
// True when the subtree calls a user function.
bool hasCall(const sema::TypedExpr& expr);

}  // namespace weft::codegen
