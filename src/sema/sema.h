// Entry point of sema: a kernel's source and argument types -> a typed program.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "sema/environment.h"
#include "sema/typed_program.h"
#include "support/diagnostics.h"
#include "types/type.h"

namespace weft::sema {

// One argument of a launch as sema sees it: its type, or, for a ConstExpr parameter, its
// value (then `type` is the value's type).
struct ArgumentInfo {
  const types::Type* type = nullptr;
  std::optional<ConstValue> constant;
};

// What to compile: the kernel, and its argument types. The kernel's file is added to
// `diagnostics.sources()` by check() (as are the files of the functions it calls).
struct CheckRequest {
  std::shared_ptr<FunctionSource> kernel;
  std::vector<ArgumentInfo> arguments;
  bool debug = false;  // bounds checks, assert
};

// The struct type of a @struct class (or NumPy record) `source`: its fields' annotations
// resolved in its module. Reports a malformed definition at `useLoc` (or the class) and
// returns nullptr.
const types::Type* resolveStruct(const std::shared_ptr<StructSource>& source, types::TypeContext& types,
                                 SourceManager& sources, Diagnostics& diagnostics, SourceLoc useLoc = {});

// Checks and types the kernel and every function it calls. On error the diagnostics hold
// the messages and the returned program must not be lowered.
TypedProgram check(const CheckRequest& request, types::TypeContext& types, SourceManager& sources,
                   Diagnostics& diagnostics);

}  // namespace weft::sema
