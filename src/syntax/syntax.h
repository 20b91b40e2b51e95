// Entry points of the syntax stage: Python source text -> AST, and AST -> ast.dump text.
#pragma once

#include <memory>
#include <string>

#include "support/diagnostics.h"
#include "syntax/ast.h"

namespace weft::syntax {

// Parses the whole file `fileId` of `diagnostics.sources()` as a Python 3.11 module.
// Syntax errors are reported to `diagnostics`; the result is then partial (may be null).
std::unique_ptr<Module> parse(uint32_t fileId, Diagnostics& diagnostics);

// Renders `module` exactly as CPython 3.11's `ast.dump(ast.parse(source))`.
std::string dumpAst(const Module& module);

// As dumpAst(), and with `includeAttributes` also every node's position, as
// `ast.dump(tree, include_attributes=True)` prints it (for position tests).
std::string dumpAst(const Module& module, bool includeAttributes);

}  // namespace weft::syntax
