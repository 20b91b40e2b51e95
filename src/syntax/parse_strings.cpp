// Literal atoms: numbers, and strings with implicit concatenation and f-strings split into
// JoinedStr/FormattedValue the way CPython 3.11's string_parser.c does it.
#include <string>

#include "syntax/literals.h"
#include "syntax/parser.h"
#include "syntax/syntax_diagnostics.h"

namespace weft::syntax {

namespace {

// The prefix of a string token and where its body lies.
struct StringPiece {
  bool raw = false;
  bool bytes = false;
  bool formatted = false;
  size_t bodyBegin = 0;  // offsets in the source text
  size_t bodyEnd = 0;
};

StringPiece analyze(std::string_view source, const Token& token) {
  StringPiece piece;
  size_t pos = token.begin;
  while (source[pos] != '\'' && source[pos] != '"') {
    char c = static_cast<char>(source[pos] | 0x20);
    piece.raw |= c == 'r';
    piece.bytes |= c == 'b';
    piece.formatted |= c == 'f';
    ++pos;
  }
  char quote = source[pos];
  size_t quoteLength = pos + 2 < token.end && source[pos + 1] == quote && source[pos + 2] == quote &&
                               token.end - pos >= 6
                           ? 3
                           : 1;
  piece.bodyBegin = pos + quoteLength;
  piece.bodyEnd = token.end - quoteLength;
  return piece;
}

bool isPythonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

Expr* Parser::parseNumber() {
  const Token token = advance();
  auto* constant = module_.make<ConstantExpr>();
  constant->value = numberValue(text(token));
  return finish(constant, token);
}

void Parser::flushLiteral(FStringParts& parts, const Node& span, bool kindU) {
  if (parts.pending.empty()) return;
  auto* constant = module_.make<ConstantExpr>();
  constant->value.kind = ConstantValue::Kind::Str;
  constant->value.bytes = std::move(parts.pending);
  constant->kindU = kindU;
  copySpan(*constant, span);
  parts.values.push_back(constant);
  parts.pending.clear();
}

Expr* Parser::parseStrings() {
  const Token first = peek();
  std::string_view source = file_.text();
  size_t firstIndex = pos_;
  while (at(TokenKind::String)) advance();
  size_t endIndex = pos_;
  bool anyBytes = false, anyStr = false, anyFormatted = false;
  for (size_t i = firstIndex; i < endIndex; ++i) {
    StringPiece piece = analyze(source, stream_.tokens[i]);
    (piece.bytes ? anyBytes : anyStr) = true;
    anyFormatted |= piece.formatted;
  }
  bool kindU = source[first.begin] == 'u';
  auto* constant = module_.make<ConstantExpr>();
  finish(constant, first);
  if (anyBytes && anyStr) {
    errorAt(diag::MixedBytesAndStr, *constant);
    return constant;
  }
  auto decode = [&](const Token& token, const StringPiece& piece, std::string& out) {
    EscapeError escape;
    std::string_view body = source.substr(piece.bodyBegin, piece.bodyEnd - piece.bodyBegin);
    if (decodeLiteralBody(body, piece.raw, piece.bytes, out, escape)) return true;
    if (escape.unsupportedNamedEscape) error(diag::UnsupportedNamedEscape, token);
    else if (piece.bytes && escape.message.rfind("bytes", 0) == 0) error(diag::BytesNonAscii, token);
    else error(diag::InvalidEscape, token, {escape.message});
    return false;
  };
  if (!anyFormatted) {
    constant->value.kind = anyBytes ? ConstantValue::Kind::Bytes : ConstantValue::Kind::Str;
    constant->kindU = kindU;
    for (size_t i = firstIndex; i < endIndex && !failed_; ++i) {
      const Token& token = stream_.tokens[i];
      decode(token, analyze(source, token), constant->value.bytes);
    }
    return constant;
  }
  auto* joined = module_.make<JoinedStrExpr>();
  copySpan(*joined, *constant);
  FStringParts parts;
  for (size_t i = firstIndex; i < endIndex && !failed_; ++i) {
    const Token token = stream_.tokens[i];
    StringPiece piece = analyze(source, token);
    if (!piece.formatted) {
      decode(token, piece, parts.pending);
      continue;
    }
    size_t pos = piece.bodyBegin;
    if (!parseFString(pos, piece.bodyEnd, piece.raw, 0, parts, token, *joined, kindU)) break;
  }
  flushLiteral(parts, *joined, kindU);
  joined->values = std::move(parts.values);
  return joined;
}

bool Parser::parseFString(size_t& pos, size_t end, bool raw, int level, FStringParts& parts, const Token& token,
                          const Node& span, bool kindU) {
  std::string_view source = file_.text();
  while (true) {
    size_t literalBegin = pos, literalEnd = 0;
    bool doubled = false;
    while (pos < end) {
      char c = source[pos++];
      if (!raw && c == '\\' && pos < end) {
        c = source[pos++];
        if (c == 'N') {
          error(diag::UnsupportedNamedEscape, token);
          return false;
        }
      }
      if (c == '{' || c == '}') {
        // Doubled braces are literal only in the string itself, not in a format spec.
        if (level == 0) {
          if (pos < end && source[pos] == c) {
            literalEnd = pos;
            ++pos;
            doubled = true;
            break;
          }
          if (c == '}') {
            error(diag::InvalidFString, token, {"single '}' is not allowed"});
            return false;
          }
        }
        --pos;
        break;
      }
    }
    if (!doubled) literalEnd = pos;
    if (literalEnd > literalBegin) {
      EscapeError escape;
      if (!decodeLiteralBody(source.substr(literalBegin, literalEnd - literalBegin), raw, false, parts.pending,
                             escape)) {
        error(diag::InvalidEscape, token, {escape.message});
        return false;
      }
    }
    if (doubled) continue;
    if (pos >= end || source[pos] == '}') return true;
    if (!parseFStringField(pos, end, raw, level, parts, token, span, kindU)) return false;
  }
}

bool Parser::parseFStringField(size_t& pos, size_t end, bool raw, int level, FStringParts& parts,
                               const Token& token, const Node& span, bool kindU) {
  std::string_view source = file_.text();
  auto fail = [&](std::string_view message) {
    error(diag::InvalidFString, token, {message});
    return false;
  };
  if (level >= 2) return fail("expressions nested too deeply");
  size_t open = pos++;
  size_t exprBegin = pos;
  // Find the end of the expression: CPython's scan, aware of quotes and bracket nesting.
  char quote = 0;
  bool tripleQuote = false;
  std::string brackets;
  for (; pos < end; ++pos) {
    char c = source[pos];
    if (c == '\\') return fail("expression part cannot include a backslash");
    if (quote != 0) {
      if (c == quote) {
        if (tripleQuote) {
          if (pos + 2 < end && source[pos + 1] == c && source[pos + 2] == c) {
            pos += 2;
            quote = 0;
          }
        } else {
          quote = 0;
        }
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      tripleQuote = pos + 2 < end && source[pos + 1] == c && source[pos + 2] == c;
      if (tripleQuote) pos += 2;
      quote = c;
    } else if (c == '[' || c == '{' || c == '(') {
      if (brackets.size() >= 200) return fail("too many nested parenthesis");
      brackets += c;
    } else if (c == '#') {
      return fail("expression part cannot include '#'");
    } else if (brackets.empty() && (c == '!' || c == ':' || c == '}' || c == '=' || c == '>' || c == '<')) {
      if (pos + 1 < end && source[pos + 1] == '=' && c != ':' && c != '}') {
        ++pos;
        continue;
      }
      if (c == '>' || c == '<') continue;
      break;
    } else if (c == ']' || c == '}' || c == ')') {
      if (brackets.empty()) return fail(std::string("unmatched '") + c + "'");
      char opening = brackets.back();
      brackets.pop_back();
      if (!((opening == '(' && c == ')') || (opening == '[' && c == ']') || (opening == '{' && c == '}'))) {
        return fail(std::string("closing parenthesis '") + c + "' does not match opening parenthesis '" + opening + "'");
      }
    }
  }
  if (quote != 0) return fail("unterminated string");
  if (!brackets.empty()) return fail(std::string("unmatched '") + brackets.back() + "'");
  if (pos >= end) return fail("expecting '}'");
  size_t exprEnd = pos;
  bool blank = true;
  for (size_t i = exprBegin; i < exprEnd; ++i) blank &= isPythonSpace(source[i]);
  if (blank) return fail("empty expression not allowed");

  // Tokenize the expression in place, wrapped in '(' ')' at the braces as CPython parses it.
  uint32_t line = token.line;
  size_t lineStart = token.begin - token.column;
  for (size_t i = token.begin; i < open; ++i) {
    if (source[i] == '\n' || (source[i] == '\r' && (i + 1 >= source.size() || source[i + 1] != '\n'))) {
      ++line;
      lineStart = i + 1;
    }
  }
  LexRange range;
  range.begin = static_cast<uint32_t>(exprBegin);
  range.end = static_cast<uint32_t>(exprEnd);
  range.line = line;
  range.lineStart = static_cast<uint32_t>(lineStart);
  range.insideBrackets = true;
  TokenStream inner = tokenize(source, fileId_, range);
  Token leftParen;
  leftParen.kind = TokenKind::LeftParen;
  leftParen.begin = static_cast<uint32_t>(open);
  leftParen.end = leftParen.begin + 1;
  leftParen.line = leftParen.endLine = line;
  leftParen.column = static_cast<uint32_t>(open - lineStart);
  leftParen.endColumn = leftParen.column + 1;
  Token rightParen = inner.tokens.back();
  rightParen.kind = TokenKind::RightParen;
  rightParen.begin = static_cast<uint32_t>(exprEnd);
  rightParen.end = rightParen.begin + 1;
  rightParen.endColumn = rightParen.column + 1;
  rightParen.endLine = rightParen.line;
  inner.tokens.insert(inner.tokens.begin(), leftParen);
  inner.tokens.insert(inner.tokens.end() - 1, rightParen);
  Parser sub(file_, fileId_, std::move(inner), module_, diagnostics_);
  sub.depth_ = depth_;
  Expr* value = sub.parseFieldExpression();
  if (sub.failed()) {
    failed_ = true;
    return false;
  }

  auto* formatted = module_.make<FormattedValueExpr>();
  formatted->value = value;
  bool selfDocumenting = false;
  if (source[pos] == '=') {
    ++pos;
    while (pos < end && isPythonSpace(source[pos])) ++pos;
    if (pos >= end) return fail("expecting '}'");
    parts.pending.append(source.substr(exprBegin, pos - exprBegin));
    selfDocumenting = true;
  }
  if (source[pos] == '!') {
    ++pos;
    if (pos >= end) return fail("expecting '}'");
    char conversion = source[pos++];
    if (conversion != 's' && conversion != 'r' && conversion != 'a') {
      return fail("invalid conversion character: expected 's', 'r', or 'a'");
    }
    formatted->conversion = conversion;
  }
  if (pos < end && source[pos] == ':') {
    ++pos;
    if (pos >= end) return fail("expecting '}'");
    // As in CPython 3.11, a format spec and its last literal span the string token they are
    // in, while its fields and the literals before them span the whole concatenation.
    auto* joined = module_.make<JoinedStrExpr>();
    setSpan(*joined, token.line, token.column, token.endLine, token.endColumn);
    FStringParts spec;
    if (!parseFString(pos, end, raw, level + 1, spec, token, span, kindU)) return false;
    flushLiteral(spec, *joined, kindU);
    joined->values = std::move(spec.values);
    formatted->formatSpec = joined;
  }
  if (pos >= end || source[pos] != '}') return fail("expecting '}'");
  ++pos;
  if (selfDocumenting && formatted->formatSpec == nullptr && formatted->conversion == -1) formatted->conversion = 'r';
  copySpan(*formatted, span);
  flushLiteral(parts, span, kindU);
  parts.values.push_back(formatted);
  return true;
}

}  // namespace weft::syntax
