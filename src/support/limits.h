// The nesting limit of weft's recursive passes (docs/architecture.md, "Nesting limit").
#pragma once

namespace weft {

// Expressions, statements and calls nest at most this deep. The parser counts the nesting of
// the source (each operator of a chain such as a + b + c is one level), sema the nesting of the
// program it checks, through calls of device functions; either reports deeper nesting as an
// error at the user's line, so that every recursive pass after them (AST dump, sema, constant
// folding, codegen, typed dump, and the C++ compilers of the generated unit) fits a thread's
// default stack.
inline constexpr int kMaxNestingDepth = 1000;

}  // namespace weft
