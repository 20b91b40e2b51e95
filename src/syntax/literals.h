// Values of literal tokens: numbers (exact big integers, correctly rounded floats) and the
// backslash escapes of str/bytes literals, decoded exactly as CPython 3.11 does.
#pragma once

#include <string>
#include <string_view>

#include "syntax/ast.h"

namespace weft::syntax {

// The value of a NUMBER token's spelling (already validated by the lexer).
ConstantValue numberValue(std::string_view spelling);

// Why an escape sequence could not be decoded; `offset` is the byte offset of its backslash.
struct EscapeError {
  bool unsupportedNamedEscape = false;
  size_t offset = 0;
  std::string message;
};

// Appends the value of the body of a str (`bytes == false`: UTF-8 out) or bytes literal to
// `out`. Raw bodies only get their line breaks normalized. Invalid escapes such as `\d` stay
// literally, as in CPython. Returns false and fills `error` on a malformed escape.
bool decodeLiteralBody(std::string_view body, bool raw, bool bytes, std::string& out, EscapeError& error);

}  // namespace weft::syntax
