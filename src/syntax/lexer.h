// The Python 3.11 tokenizer: source text -> tokens with exact positions (line 1-based,
// column = UTF-8 byte offset as CPython's col_offset).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostics.h"
#include "support/source.h"

namespace weft::syntax {

enum class TokenKind : uint8_t {
#define WEFT_TOKEN(Name, Text) Name,
#define WEFT_PUNCT(Name, Text) Name,
#define WEFT_KEYWORD(Name, Text) Kw##Name,
#include "syntax/token_kinds.def"
};

// A human-readable name of `kind` for diagnostics ("')'", "'def'", "newline").
std::string_view tokenKindName(TokenKind kind);

// One token. The text is `source.substr(begin, end - begin)`; no per-token allocation.
struct Token {
  TokenKind kind = TokenKind::EndMarker;
  uint32_t begin = 0;  // byte offset of the first character in the source text
  uint32_t end = 0;    // byte offset one past the last character
  uint32_t line = 0;
  uint32_t column = 0;
  uint32_t endLine = 0;
  uint32_t endColumn = 0;
};

// A tokenizer error, reported by the parser only when it reaches the Error token (as CPython,
// whose tokenizer runs lazily, so an earlier syntax error wins).
struct LexError {
  const DiagnosticKind* kind = nullptr;
  SourceLoc loc;
  std::vector<std::string> args;
};

// The tokens of a text. On error the last tokens are Error then EndMarker and `error` is set.
struct TokenStream {
  std::vector<Token> tokens;
  LexError error;
};

// Where the lexer starts and what it sees; a whole file, or the expression of an f-string
// replacement field (tokenized in place, inside an implicit bracket so newlines are ignored).
struct LexRange {
  uint32_t begin = 0;
  uint32_t end = 0;
  uint32_t line = 1;
  uint32_t lineStart = 0;  // byte offset of the start of `line`, for columns
  bool insideBrackets = false;
};

// Tokenizes `range` of `text` (file id `fileId` for error locations).
TokenStream tokenize(std::string_view text, uint32_t fileId, const LexRange& range);

// Tokenizes a whole source file.
TokenStream tokenizeFile(const SourceFile& file, uint32_t fileId);

// Decodes one UTF-8 sequence at `text[pos]`; returns the code point and advances `pos`, or
// returns U+FFFFFFFF (and advances one byte) when the bytes are not valid UTF-8. Surrogates
// encoded in three bytes are accepted (weft stores Python strings with lone surrogates so).
char32_t decodeUtf8(std::string_view text, size_t& pos);

// Appends the UTF-8 encoding of `c` (surrogates included) to `out`.
void appendUtf8(std::string& out, char32_t c);

// The name a Name token's `spelling` stands for, as CPython's parser makes it (PEP 3131): the
// spelling itself when it is ASCII, else its NFKC normalization, so that `ﬁ` and `fi`, or
// `Ａ` and `A`, are one name. `spelling` is valid UTF-8 of identifier characters.
std::string identifierName(std::string_view spelling);

}  // namespace weft::syntax
