// Unicode character classes the lexer and ast_dump need, as CPython 3.11 defines them.
#pragma once

namespace weft::syntax {

// True when `c` may start an identifier (XID_Start or '_').
bool isIdentifierStart(char32_t c);
// True when `c` may continue an identifier (XID_Continue).
bool isIdentifierContinue(char32_t c);
// True when Python's str.isprintable() holds for `c` (repr() keeps it unescaped).
bool isPrintable(char32_t c);

}  // namespace weft::syntax
