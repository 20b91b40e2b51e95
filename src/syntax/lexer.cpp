#include "syntax/lexer.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "syntax/syntax_diagnostics.h"
#include "syntax/unicode_tables.h"

namespace weft::syntax {

namespace {

struct Spelling {
  TokenKind kind;
  std::string_view text;
};

// Operators longest first, so the first match is the longest (as the .def orders them).
constexpr Spelling kPuncts[] = {
#define WEFT_PUNCT(Name, Text) {TokenKind::Name, Text},
#include "syntax/token_kinds.def"
};

constexpr Spelling kKeywords[] = {
#define WEFT_KEYWORD(Name, Text) {TokenKind::Kw##Name, Text},
#include "syntax/token_kinds.def"
};

// CPython nests at most 200 brackets (tokenizer MAXLEVEL) and 100 indentation levels.
constexpr size_t kMaxBrackets = 200;
constexpr size_t kMaxIndents = 100;

bool isAsciiDigit(char c) { return c >= '0' && c <= '9'; }
bool isHexDigit(char c) { return isAsciiDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

std::string hexCode(char32_t c) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%04X", static_cast<unsigned>(c));
  return buffer;
}

class Lexer {
 public:
  Lexer(std::string_view text, uint32_t fileId, const LexRange& range)
      : text_(text.substr(0, range.end)),
        file_(fileId),
        pos_(range.begin),
        line_(range.line),
        lineStart_(range.lineStart),
        insideBrackets_(range.insideBrackets) {}

  TokenStream run() {
    out_.tokens.reserve((text_.size() - pos_) / 4 + 8);
    while (!failed_ && lexOne()) {
    }
    if (!failed_) finishFile();
    if (failed_) out_.tokens.push_back(errorToken_);
    Token end;
    end.kind = TokenKind::EndMarker;
    end.begin = end.end = static_cast<uint32_t>(pos_);
    end.line = end.endLine = line_;
    end.column = end.endColumn = column();
    out_.tokens.push_back(end);
    return std::move(out_);
  }

 private:
  uint32_t column() const { return static_cast<uint32_t>(pos_ - lineStart_); }
  char at(size_t offset = 0) const { return pos_ + offset < text_.size() ? text_[pos_ + offset] : '\0'; }
  bool atEnd() const { return pos_ >= text_.size(); }

  void fail(const DiagnosticKind& kind, uint32_t line, uint32_t column, std::vector<std::string> args = {},
            uint32_t length = 1) {
    if (failed_) return;
    failed_ = true;
    out_.error = LexError{&kind, SourceLoc{file_, line, column, length}, std::move(args)};
    errorToken_.kind = TokenKind::Error;
    errorToken_.begin = errorToken_.end = static_cast<uint32_t>(pos_);
    errorToken_.line = errorToken_.endLine = line;
    errorToken_.column = errorToken_.endColumn = column;
  }

  void push(TokenKind kind, size_t begin, uint32_t line, uint32_t col) {
    Token t;
    t.kind = kind;
    t.begin = static_cast<uint32_t>(begin);
    t.end = static_cast<uint32_t>(pos_);
    t.line = line;
    t.column = col;
    t.endLine = line_;
    t.endColumn = column();
    out_.tokens.push_back(t);
  }

  // Consumes a line break ("\n", "\r\n" or "\r") at pos_.
  void newLine() {
    if (at() == '\r' && at(1) == '\n') ++pos_;
    ++pos_;
    ++line_;
    lineStart_ = pos_;
  }

  bool joinsLines() const { return insideBrackets_ || !brackets_.empty(); }

  // Handles the indentation of a new logical line; returns false at the end of input.
  bool lexIndentation() {
    uint32_t col = 0, alt = 0;
    while (true) {
      char c = at();
      if (c == ' ') {
        ++col;
        ++alt;
      } else if (c == '\t') {
        col = (col / 8 + 1) * 8;
        ++alt;
      } else if (c == '\f') {
        col = alt = 0;
      } else {
        break;
      }
      ++pos_;
    }
    char c = at();
    if (c == '#' || c == '\n' || c == '\r' || atEnd()) return true;  // blank line: no layout
    if (c == '\\') return true;  // a continued blank start: indentation comes from this line
    atLineStart_ = false;
    if (col == indents_.back()) {
      if (alt != altIndents_.back()) fail(diag::InconsistentTabs, line_, column());
    } else if (col > indents_.back()) {
      if (indents_.size() >= kMaxIndents) {
        fail(diag::TooDeeplyNested, line_, column(), {"indentation levels"});
        return false;
      }
      if (alt <= altIndents_.back()) fail(diag::InconsistentTabs, line_, column());
      indents_.push_back(col);
      altIndents_.push_back(alt);
      push(TokenKind::Indent, pos_, line_, column());
    } else {
      while (indents_.size() > 1 && col < indents_.back()) {
        indents_.pop_back();
        altIndents_.pop_back();
        push(TokenKind::Dedent, pos_, line_, column());
      }
      if (col != indents_.back()) fail(diag::InconsistentIndent, line_, column());
      else if (alt != altIndents_.back()) fail(diag::InconsistentTabs, line_, column());
    }
    return !failed_;
  }

  bool lexOne() {
    if (atLineStart_ && !joinsLines()) {
      if (!lexIndentation()) return false;
    }
    while (at() == ' ' || at() == '\t' || at() == '\f') ++pos_;
    if (atEnd()) return false;
    char c = at();
    if (c == '#') {
      while (!atEnd() && at() != '\n' && at() != '\r') ++pos_;
      return true;
    }
    if (c == '\n' || c == '\r') {
      if (!joinsLines() && !atLineStart_) {
        size_t begin = pos_;
        uint32_t line = line_, col = column();
        ++pos_;
        if (c == '\r' && at() == '\n') ++pos_;
        Token t;
        t.kind = TokenKind::Newline;
        t.begin = static_cast<uint32_t>(begin);
        t.end = static_cast<uint32_t>(pos_);
        t.line = t.endLine = line;
        t.column = col;
        t.endColumn = col + 1;
        out_.tokens.push_back(t);
        pos_ = begin;
      }
      newLine();
      if (!joinsLines()) atLineStart_ = true;
      return true;
    }
    if (c == '\\') {
      uint32_t col = column();
      ++pos_;
      if (atEnd()) {
        fail(diag::UnexpectedEof, line_, column());
        return false;
      }
      if (at() != '\n' && at() != '\r') {
        fail(diag::UnexpectedLineContinuation, line_, col);
        return false;
      }
      newLine();
      if (atEnd()) {
        fail(diag::UnexpectedEof, line_, column());
        return false;
      }
      return true;
    }
    size_t begin = pos_;
    uint32_t line = line_, col = column();
    if (isAsciiDigit(c) || (c == '.' && isAsciiDigit(at(1)))) return lexNumber(begin, line, col);
    if (c == '"' || c == '\'') return lexString(begin, line, col);
    if (static_cast<unsigned char>(c) >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
      return lexNameOrPrefixedString(begin, line, col);
    }
    for (const Spelling& p : kPuncts) {
      if (text_.compare(pos_, p.text.size(), p.text) == 0) {
        pos_ += p.text.size();
        if (!trackBracket(p.kind, c, line, col)) return false;
        push(p.kind, begin, line, col);
        return true;
      }
    }
    if (c == '!') {
      fail(diag::UnexpectedToken, line, col, {"'!'"});
      return false;
    }
    fail(diag::InvalidCharacter, line, col, {std::string(1, c), hexCode(static_cast<unsigned char>(c))});
    return false;
  }

  bool trackBracket(TokenKind kind, char c, uint32_t line, uint32_t col) {
    if (kind == TokenKind::LeftParen || kind == TokenKind::LeftBracket || kind == TokenKind::LeftBrace) {
      if (brackets_.size() >= kMaxBrackets) {
        fail(diag::TooDeeplyNested, line, col, {"parentheses"});
        return false;
      }
      brackets_.push_back(Open{c, line, col});
    } else if (kind == TokenKind::RightParen || kind == TokenKind::RightBracket || kind == TokenKind::RightBrace) {
      if (brackets_.empty()) {
        if (insideBrackets_) return true;  // closes the f-string's implicit bracket: parser reports
        fail(diag::UnmatchedBracket, line, col, {std::string(1, c)});
        return false;
      }
      char open = brackets_.back().c;
      bool matches = (open == '(' && c == ')') || (open == '[' && c == ']') || (open == '{' && c == '}');
      if (!matches) {
        fail(diag::MismatchedBracket, line, col, {std::string(1, c), std::string(1, open)});
        return false;
      }
      brackets_.pop_back();
    }
    return true;
  }

  // Scans digits of `isDigit` with single underscores between them; false on a misplaced '_'.
  template <class IsDigit>
  bool scanDigits(IsDigit isDigit) {
    while (true) {
      while (isDigit(at())) ++pos_;
      if (at() != '_') return true;
      ++pos_;
      if (!isDigit(at())) return false;
    }
  }

  bool lexNumber(size_t begin, uint32_t line, uint32_t col) {
    auto invalid = [&](const char* what) {
      // Like CPython, point at the last character that was still read as part of the number.
      uint32_t at = pos_ > begin && pos_ - 1 >= lineStart_ ? static_cast<uint32_t>(pos_ - 1 - lineStart_) : col;
      fail(diag::InvalidNumber, line, at, {what});
      return false;
    };
    char c = at();
    char x = static_cast<char>(at(1) | 0x20);
    if (c == '0' && (x == 'x' || x == 'o' || x == 'b')) {
      pos_ += 2;
      const char* what = x == 'x' ? "hexadecimal" : x == 'o' ? "octal" : "binary";
      auto digit = [x](char d) {
        if (x == 'x') return isHexDigit(d);
        if (x == 'o') return d >= '0' && d <= '7';
        return d == '0' || d == '1';
      };
      if (at() == '_') ++pos_;
      if (!digit(at())) return invalid(what);
      if (!scanDigits(digit)) return invalid(what);
      if (isAsciiDigit(at()) || continuesName()) return invalid(what);
      push(TokenKind::Number, begin, line, col);
      return true;
    }
    bool isFloat = false;
    if (c != '.') {
      if (!scanDigits(isAsciiDigit)) return invalid("decimal");
    }
    if (at() == '.') {
      isFloat = true;
      ++pos_;
      if (isAsciiDigit(at()) && !scanDigits(isAsciiDigit)) return invalid("decimal");
    }
    char e = at();
    if (e == 'e' || e == 'E') {
      size_t sign = (at(1) == '+' || at(1) == '-') ? 1 : 0;
      if (isAsciiDigit(at(1 + sign))) {
        isFloat = true;
        pos_ += 1 + sign;
        if (!scanDigits(isAsciiDigit)) return invalid("decimal");
      } else if (!startsKeyword()) {
        return invalid("decimal");
      }
    }
    bool imaginary = false;
    if (at() == 'j' || at() == 'J') {
      ++pos_;
      imaginary = true;
    }
    if (!isFloat && !imaginary && c == '0') {
      for (size_t i = begin; i < pos_; ++i) {
        if (text_[i] != '0' && text_[i] != '_') {
          fail(diag::LeadingZeros, line, col, {}, static_cast<uint32_t>(pos_ - begin));
          return false;
        }
      }
    }
    if (continuesName() && !startsKeyword()) return invalid(imaginary ? "imaginary" : "decimal");
    push(TokenKind::Number, begin, line, col);
    return true;
  }

  // True when the character at pos_ would continue an identifier.
  bool continuesName() const {
    size_t p = pos_;
    if (p >= text_.size()) return false;
    char32_t cp = decodeUtf8(text_, p);
    return isIdentifierContinue(cp);
  }

  // True when a keyword starts at pos_ (CPython allows `1if x else 2`, with a warning).
  bool startsKeyword() const {
    for (const Spelling& k : kKeywords) {
      if (text_.compare(pos_, k.text.size(), k.text) == 0) return true;
    }
    return false;
  }

  bool lexNameOrPrefixedString(size_t begin, uint32_t line, uint32_t col) {
    // A string prefix: up to two of r/b/u/f in a valid combination, then a quote.
    size_t n = 0;
    bool r = false, b = false, u = false, f = false, ok = true;
    while (n < 3) {
      char p = static_cast<char>(at(n) | 0x20);
      if (p == 'r' && !r) r = true;
      else if (p == 'b' && !b) b = true;
      else if (p == 'u' && !u) u = true;
      else if (p == 'f' && !f) f = true;
      else break;
      ++n;
    }
    if (n > 0 && n <= 2 && (at(n) == '"' || at(n) == '\'')) {
      if (u && n > 1) ok = false;
      if (b && f) ok = false;
      if (ok) {
        pos_ += n;
        return lexString(begin, line, col);
      }
    }
    while (!atEnd()) {
      unsigned char ch = static_cast<unsigned char>(at());
      if (ch < 0x80) {
        bool cont = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || isAsciiDigit(static_cast<char>(ch));
        if (!cont) break;
        ++pos_;
        continue;
      }
      size_t p = pos_;
      char32_t cp = decodeUtf8(text_, p);
      bool first = pos_ == begin;
      if (!(first ? isIdentifierStart(cp) : isIdentifierContinue(cp))) {
        if (cp == 0xFFFFFFFF) {
          fail(diag::InvalidUtf8, line_, column(), {hexCode(ch).substr(2)});
          return false;
        }
        if (pos_ == begin) {
          std::string spelled(text_.substr(pos_, p - pos_));
          if (isPrintable(cp)) fail(diag::InvalidCharacter, line_, column(), {spelled, hexCode(cp)});
          else fail(diag::InvalidNonPrintableCharacter, line_, column(), {hexCode(cp)});
          return false;
        }
        break;
      }
      pos_ = p;
    }
    std::string_view word = text_.substr(begin, pos_ - begin);
    TokenKind kind = TokenKind::Name;
    for (const Spelling& k : kKeywords) {
      if (k.text == word) {
        kind = k.kind;
        break;
      }
    }
    push(kind, begin, line, col);
    return true;
  }

  bool lexString(size_t begin, uint32_t line, uint32_t col) {
    char quote = at();
    bool triple = at(1) == quote && at(2) == quote;
    pos_ += triple ? 3 : 1;
    while (true) {
      if (atEnd()) {
        // CPython counts the line of the last character, not the empty one after a final newline.
        uint32_t detected = pos_ == lineStart_ && line_ > line ? line_ - 1 : line_;
        if (triple) fail(diag::UnterminatedTripleQuotedString, line, col, {std::to_string(detected)});
        else fail(diag::UnterminatedString, line, col, {std::to_string(detected)});
        return false;
      }
      char ch = at();
      if (ch == quote) {
        if (!triple) {
          ++pos_;
          break;
        }
        if (at(1) == quote && at(2) == quote) {
          pos_ += 3;
          break;
        }
        ++pos_;
      } else if (ch == '\\') {
        ++pos_;
        if (at() == '\n' || at() == '\r') newLine();
        else if (!atEnd()) ++pos_;
      } else if (ch == '\n' || ch == '\r') {
        if (!triple) {
          fail(diag::UnterminatedString, line, col, {std::to_string(line_)});
          return false;
        }
        newLine();
      } else {
        ++pos_;
      }
    }
    push(TokenKind::String, begin, line, col);
    return true;
  }

  void finishFile() {
    if (!brackets_.empty() && !insideBrackets_) {
      const Open& open = brackets_.back();
      fail(diag::UnclosedBracket, open.line, open.column, {std::string(1, open.c)});
      return;
    }
    if (insideBrackets_) return;
    if (!out_.tokens.empty() && out_.tokens.back().kind != TokenKind::Newline &&
        out_.tokens.back().kind != TokenKind::Dedent && out_.tokens.back().kind != TokenKind::Indent) {
      Token t;
      t.kind = TokenKind::Newline;
      t.begin = t.end = static_cast<uint32_t>(pos_);
      t.line = t.endLine = line_;
      t.column = column();
      t.endColumn = column() + 1;
      out_.tokens.push_back(t);
    }
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(TokenKind::Dedent, pos_, line_, column());
    }
  }

  struct Open {
    char c;
    uint32_t line;
    uint32_t column;
  };

  std::string_view text_;
  uint32_t file_;
  size_t pos_;
  uint32_t line_;
  size_t lineStart_;
  bool insideBrackets_;
  bool atLineStart_ = true;
  bool failed_ = false;
  Token errorToken_;
  std::vector<uint32_t> indents_{0};
  std::vector<uint32_t> altIndents_{0};
  std::vector<Open> brackets_;
  TokenStream out_;
};

}  // namespace

std::string_view tokenKindName(TokenKind kind) {
  switch (kind) {
#define WEFT_TOKEN(Name, Text) \
  case TokenKind::Name: return Text;
#define WEFT_PUNCT(Name, Text) \
  case TokenKind::Name: return "'" Text "'";
#define WEFT_KEYWORD(Name, Text) \
  case TokenKind::Kw##Name: return "'" Text "'";
#include "syntax/token_kinds.def"
  }
  return "token";
}

char32_t decodeUtf8(std::string_view text, size_t& pos) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char b0 = byte(pos);
  if (b0 < 0x80) {
    ++pos;
    return b0;
  }
  size_t need = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    need = 1;
    cp = b0 & 0x1F;
    min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    need = 2;
    cp = b0 & 0x0F;
    min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    need = 3;
    cp = b0 & 0x07;
    min = 0x10000;
  } else {
    ++pos;
    return 0xFFFFFFFF;
  }
  if (pos + need >= text.size()) {
    ++pos;
    return 0xFFFFFFFF;
  }
  for (size_t i = 1; i <= need; ++i) {
    unsigned char b = byte(pos + i);
    if ((b & 0xC0) != 0x80) {
      ++pos;
      return 0xFFFFFFFF;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF) {
    ++pos;
    return 0xFFFFFFFF;
  }
  pos += need + 1;
  return cp;
}

void appendUtf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

TokenStream tokenize(std::string_view text, uint32_t fileId, const LexRange& range) {
  return Lexer(text, fileId, range).run();
}

std::string identifierName(std::string_view spelling) {
  if (std::all_of(spelling.begin(), spelling.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
    return std::string(spelling);
  // NFKC (Unicode Standard Annex #15): the compatibility decomposition of every character,
  // each run of non-starters put in canonical order, then canonical composition.
  std::u32string text;
  for (size_t pos = 0; pos < spelling.size();) appendCompatibilityDecomposition(decodeUtf8(spelling, pos), text);
  for (size_t begin = 0; begin < text.size();) {
    size_t end = begin;
    while (end < text.size() && combiningClass(text[end]) != 0) ++end;
    std::stable_sort(text.begin() + static_cast<ptrdiff_t>(begin), text.begin() + static_cast<ptrdiff_t>(end),
                     [](char32_t a, char32_t b) { return combiningClass(a) < combiningClass(b); });
    begin = end == begin ? end + 1 : end;
  }
  std::u32string composed;
  size_t starter = std::u32string::npos;  // the last starter in `composed`
  uint8_t lastClass = 0;                  // the class of the last character in `composed`
  for (char32_t c : text) {
    uint8_t cls = combiningClass(c);
    // A character composes with the last starter unless a character between them blocks it:
    // a starter, or a non-starter of its class or higher (the run between is in class order).
    bool blocked = starter == std::u32string::npos ||
                   (starter + 1 != composed.size() && (lastClass == 0 || lastClass >= cls));
    if (!blocked) {
      if (char32_t composite = composePair(composed[starter], c)) {
        composed[starter] = composite;
        continue;
      }
    }
    if (cls == 0) starter = composed.size();
    composed += c;
    lastClass = cls;
  }
  std::string out;
  for (char32_t c : composed) appendUtf8(out, c);
  return out;
}

TokenStream tokenizeFile(const SourceFile& file, uint32_t fileId) {
  std::string_view text = file.text();
  LexRange range;
  range.end = static_cast<uint32_t>(text.size());
  // A UTF-8 byte order mark is not part of the program (CPython skips it too).
  if (text.substr(0, 3) == "\xEF\xBB\xBF") range.begin = range.lineStart = 3;
  // Invalid UTF-8 anywhere is an error before any token, as CPython's decoding of the file.
  for (size_t pos = range.begin; pos < text.size();) {
    size_t at = pos;
    if (decodeUtf8(text, pos) == 0xFFFFFFFF) {
      TokenStream out;
      uint32_t line = 1;
      size_t lineStart = 0;
      for (size_t i = 0; i < at; ++i) {
        if (text[i] == '\n') {
          ++line;
          lineStart = i + 1;
        }
      }
      char hex[4];
      std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(text[at]));
      uint32_t col = static_cast<uint32_t>(at - lineStart);
      out.error = LexError{&diag::InvalidUtf8, SourceLoc{fileId, line, col, 1}, {hex}};
      Token error;
      error.kind = TokenKind::Error;
      error.line = error.endLine = line;
      error.column = error.endColumn = col;
      out.tokens.push_back(error);
      Token end = error;
      end.kind = TokenKind::EndMarker;
      out.tokens.push_back(end);
      return out;
    }
  }
  return tokenize(text, fileId, range);
}

}  // namespace weft::syntax
