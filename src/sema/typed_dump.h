// A readable rendering of a typed program (`weftc --dump-types`, sema tests).
#pragma once

#include <string>

#include "sema/typed_program.h"

namespace weft::sema {

// Renders every function: its signature, locals with their types, and statements with
// each expression's type, e.g. `c[i: int64 wrap] = (a[i] + b[i]): float32`.
std::string dumpTypedProgram(const TypedProgram& program);

// Renders one expression as dumpTypedProgram does.
std::string dumpTypedExpr(const TypedFunction& function, const TypedExpr& e);

}  // namespace weft::sema
