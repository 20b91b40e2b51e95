// A file's globals resolved without running Python, for `weftc` and tests: imports of the
// modules sema knows, module-level constants, and top-level function definitions.
#pragma once

#include <memory>
#include <vector>

#include "sema/environment.h"
#include "sema/sema.h"
#include "support/diagnostics.h"
#include "syntax/ast.h"
#include "types/type.h"

namespace weft::sema {

// The globals of `module` (the parse of `file`): `import math`, `import weft`,
// `from cuda import device`, `from weft import tid`, `NAME = <constant expression>`, and
// each top-level `def` (its decorator kind detected from `@device.kernel`, `@weft.func`,
// `@kernel`...). Names bound to anything else are Unsupported. The module must outlive it.
std::shared_ptr<Environment> makeStaticEnvironment(const syntax::Module& module, const SourceFile& file);

// The argument types a kernel's annotations declare (`a: device.float32[:, :]`,
// `n: device.int32`, `x: float`); a ConstExpr parameter takes its default value. Reports
// a missing or unusable annotation to `diagnostics`.
std::vector<ArgumentInfo> argumentsFromAnnotations(const syntax::FunctionDefStmt& def, Environment& environment,
                                                   types::TypeContext& types, Diagnostics& diagnostics);

// The top-level functions of `module` that can be entry points of a translation unit, in file
// order: every @kernel, and every @func(interop=True).
std::vector<const syntax::FunctionDefStmt*> listEntryPoints(const syntax::Module& module);

// Whether `def` is decorated @kernel (else @func); whether it is interoperable.
bool isKernelDefinition(const syntax::FunctionDefStmt& def);
bool isInteropDefinition(const syntax::FunctionDefStmt& def);

// The entry of top-level function `def` of `environment`: a kernel's argument types come
// from its annotations (argumentsFromAnnotations); an interoperable function's or kernel's
// are left unknown, since sema reads their annotations itself.
CheckEntry entryFromAnnotations(const syntax::FunctionDefStmt& def, Environment& environment,
                                types::TypeContext& types, Diagnostics& diagnostics);

// The FunctionSource of top-level function `name` of `environment` (made by
// makeStaticEnvironment); nullptr when it has no such function.
std::shared_ptr<FunctionSource> staticFunction(Environment& environment, const std::string& name);

}  // namespace weft::sema
