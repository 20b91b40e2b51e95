// The registered diagnostic kinds of sema, one constant per entry of sema_diagnostics.def
// (e.g. `diag::UndefinedName`).
#pragma once

#include "support/diagnostics.h"

namespace weft::sema::diag {

#define WEFT_DIAGNOSTIC(Name, Format) inline constexpr DiagnosticKind Name{#Name, Format};
#include "sema/sema_diagnostics.def"

// Every kind of this stage, in declaration order (tests check each is exercised).
inline constexpr DiagnosticKind kAll[] = {
#define WEFT_DIAGNOSTIC(Name, Format) Name,
#include "sema/sema_diagnostics.def"
};

}  // namespace weft::sema::diag
