// Entry point of sema: kernels' (and interoperable functions') sources and argument types ->
// a typed program.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sema/environment.h"
#include "sema/typed_program.h"
#include "support/diagnostics.h"
#include "syntax/parse_cache.h"
#include "types/type.h"

namespace weft::sema {

// One argument of a launch as sema sees it: its type, or, for a ConstExpr parameter, its
// value (then `type` is the value's type).
struct ArgumentInfo {
  const types::Type* type = nullptr;
  std::optional<ConstValue> constant;
};

// An entry point of a program: a kernel, or an interoperable function (@func(interop=True)),
// with its argument types (an interoperable function's come from its annotations).
struct CheckEntry {
  std::shared_ptr<FunctionSource> function;
  std::vector<ArgumentInfo> arguments;
};

// What to compile: the entry points of one translation unit. A launch compiles one kernel;
// weftc compiles every annotated kernel and interoperable function of a file together. The
// entries' files are added to `diagnostics.sources()` by check() (as are the files of the
// functions they call).
struct CheckRequest {
  std::vector<CheckEntry> entries;
  // debug=True: asserts, integer division by zero and views' preconditions are checked at run
  // time (array bounds are a lowering's choice: codegen gives every access a check site).
  bool debug = false;
  // Where files are parsed (the Compiler's, shared by its programs); null: parsed afresh.
  syntax::ParseCache* parses = nullptr;
  // The kernel's stages option (2 to 8): the most stages of the ring of a pipelined mma K loop,
  // within the shared memory budget; 0: sema picks (tile_pipeline.cpp).
  int pipelineStages = 0;
};

// What the annotation of one positional parameter declares.
struct ParameterDescription {
  enum class Kind : uint8_t {
    Unannotated,  // no annotation: the parameter takes its argument's type (one specialization per type)
    Typed,      // `p: T`: the parameter has type `type`; a number argument converts to it, others must match
    ConstExpr,  // `p: ConstExpr` or `p: ConstExpr[T]` (then `type` is T): a compile-time constant
  };
  std::string name;
  Kind kind = Kind::Unannotated;
  const types::Type* type = nullptr;
};

// The positional parameters of `source` (found by name and line in its file), each annotation
// resolved once in its globals, as sema resolves it when checking the function: aliases
// (`CE = device.ConstExpr`), quoted annotations and `from __future__ import annotations` alike.
// Reports a definition that cannot be found, *args/**kwargs/keyword-only parameters and an
// annotation that names no device type, and returns nullopt. `parses`: as CheckRequest::parses.
std::optional<std::vector<ParameterDescription>> describeParameters(const FunctionSource& source,
                                                                    types::TypeContext& types,
                                                                    SourceManager& sources,
                                                                    Diagnostics& diagnostics,
                                                                    syntax::ParseCache* parses = nullptr);

// The struct type of a @struct class (or NumPy record) `source`: its fields' annotations
// resolved in its module. Reports a malformed definition at `useLoc` (or the class) and
// returns nullptr.
const types::Type* resolveStruct(const std::shared_ptr<StructSource>& source, types::TypeContext& types,
                                 SourceManager& sources, Diagnostics& diagnostics, SourceLoc useLoc = {});

// The type a Python number constant has on its own (a literal, a global, a ConstExpr
// argument): bool, int32 (int64, then uint64, when it does not fit), float32 (float64 beyond
// float32's range), complex64 (complex128 beyond it).
types::ScalarKind builtinKindOf(const ConstValue& value);

// `value` (a number; a complex only for a complex `kind`) converted to `kind` exactly as the
// run-time conversion does (weft::cast of the device headers): bool() is truthiness; an
// integer type takes the float truncated toward zero (nan and inf give 0), then wraps; a
// floating type rounds to nearest even (float16 and bfloat16 overflow to inf, the fp8 types
// saturate). The number types' constructors use it on constants, in device code and on the
// host.
ConstValue convertConstant(const ConstValue& value, types::ScalarKind kind);

// The device functions of a tile face (weft.tiles: Tiles, weft.cutile: CuTile), and its
// constants by name (the seed's modifier tags and paddings): the Python modules take theirs
// from here.
std::vector<std::string> tileFunctionNames(FunctionSource::Face face);
std::vector<std::pair<std::string, std::string>> tileConstants(FunctionSource::Face face);

// Checks and types the entry points and every function they call. On error the diagnostics
// hold the messages and the returned program must not be lowered.
TypedProgram check(const CheckRequest& request, types::TypeContext& types, SourceManager& sources,
                   Diagnostics& diagnostics);

}  // namespace weft::sema
