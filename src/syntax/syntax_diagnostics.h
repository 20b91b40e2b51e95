// The registered diagnostic kinds of the syntax stage, one constant per entry of
// syntax_diagnostics.def (e.g. `diag::UnexpectedToken`).
#pragma once

#include "support/diagnostics.h"

namespace weft::syntax::diag {

#define WEFT_DIAGNOSTIC(Name, Format) inline constexpr DiagnosticKind Name{#Name, Format};
#include "syntax/syntax_diagnostics.def"

// Every kind of this stage, in declaration order (tests check each is exercised).
inline constexpr DiagnosticKind kAll[] = {
#define WEFT_DIAGNOSTIC(Name, Format) Name,
#include "syntax/syntax_diagnostics.def"
};

}  // namespace weft::syntax::diag
