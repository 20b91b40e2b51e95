// Lexer tests: token kinds, exact positions (UTF-8 byte columns), layout tokens and errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "syntax/lexer.h"
#include "syntax/syntax_diagnostics.h"

namespace weft::syntax {
namespace {

TokenStream lex(const std::string& text) {
  LexRange range;
  range.end = static_cast<uint32_t>(text.size());
  return tokenize(text, 0, range);
}

std::vector<TokenKind> kinds(const std::string& text) {
  std::vector<TokenKind> out;
  for (const Token& t : lex(text).tokens) out.push_back(t.kind);
  return out;
}

using K = TokenKind;

TEST(Lexer, SimpleStatementPositions) {
  std::string text = "x = a[i] + 1.5\n";
  TokenStream s = lex(text);
  ASSERT_EQ(s.tokens.size(), 10u);
  const K expected[] = {K::Name, K::Equal, K::Name, K::LeftBracket, K::Name, K::RightBracket, K::Plus, K::Number,
                        K::Newline, K::EndMarker};
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(s.tokens[i].kind, expected[i]) << i;
  const Token& number = s.tokens[7];
  EXPECT_EQ(text.substr(number.begin, number.end - number.begin), "1.5");
  EXPECT_EQ(number.line, 1u);
  EXPECT_EQ(number.column, 11u);
  EXPECT_EQ(number.endColumn, 14u);
}

TEST(Lexer, IndentDedentAndBlankLines) {
  std::vector<TokenKind> got = kinds("if x:\n    y\n\n    # c\n        \n    z\nw\n");
  std::vector<TokenKind> want = {K::KwIf, K::Name, K::Colon, K::Newline, K::Indent, K::Name, K::Newline, K::Name,
                                 K::Newline, K::Dedent, K::Name, K::Newline, K::EndMarker};
  EXPECT_EQ(got, want);
}

TEST(Lexer, DedentsAtEndOfFileWithoutNewline) {
  std::vector<TokenKind> got = kinds("def f():\n    if x:\n        return");
  std::vector<TokenKind> want = {K::KwDef, K::Name, K::LeftParen, K::RightParen, K::Colon, K::Newline, K::Indent,
                                 K::KwIf, K::Name, K::Colon, K::Newline, K::Indent, K::KwReturn, K::Newline,
                                 K::Dedent, K::Dedent, K::EndMarker};
  EXPECT_EQ(got, want);
}

TEST(Lexer, BracketsAndBackslashJoinLines) {
  std::vector<TokenKind> got = kinds("x = (1,\n  2)\ny = 1 + \\\n  2\n");
  std::vector<TokenKind> want = {K::Name, K::Equal, K::LeftParen, K::Number, K::Comma, K::Number, K::RightParen,
                                 K::Newline, K::Name, K::Equal, K::Number, K::Plus, K::Number, K::Newline,
                                 K::EndMarker};
  EXPECT_EQ(got, want);
}

TEST(Lexer, TabsAdvanceToMultiplesOfEight) {
  TokenStream s = lex("if x:\n\ty = 1\n");
  EXPECT_EQ(s.error.kind, nullptr);
  EXPECT_EQ(s.tokens[5].kind, K::Name);
  EXPECT_EQ(s.tokens[5].column, 1u);  // byte column, as CPython's col_offset
}

TEST(Lexer, NumberForms) {
  for (const char* number : {"0", "00", "1_000", "0x_FF", "0o17", "0B1", "1.", ".5", "1e10", "1E-3", "1.5e+3",
                             "1j", "1.5J", "09.5", "0e0", "1_0.0_1e1_0j"}) {
    std::string text = std::string(number) + "\n";
    TokenStream s = lex(text);
    EXPECT_EQ(s.error.kind, nullptr) << number;
    ASSERT_GE(s.tokens.size(), 2u);
    EXPECT_EQ(s.tokens[0].kind, K::Number) << number;
    EXPECT_EQ(s.tokens[0].end, std::string(number).size()) << number;
  }
  // `1if` is a number then a keyword (CPython accepts it with a warning).
  EXPECT_EQ(kinds("1if x else 2\n")[1], K::KwIf);
  for (const char* bad : {"1_", "1__0", "0x", "0b2", "1e", "1abc", "0o8"}) {
    EXPECT_EQ(lex(std::string(bad) + "\n").error.kind, &diag::InvalidNumber) << bad;
  }
}

TEST(Lexer, StringPrefixesAndQuotes) {
  for (const char* literal : {"'a'", "\"a\"", "'''a'''", "\"\"\"a\"\"\"", "r'a'", "u'a'", "b'a'", "br'a'", "rb'a'",
                              "f'a'", "rf'a'", "fr'a'", "R'a'", "U'a'", "B'a'", "BR'a'", "Rb'a'", "F'a'", "fR'a'",
                              "'it\\'s'", "'\\\\'", "''", "\"\"\"\"\"\""}) {
    std::string text = std::string(literal) + "\n";
    TokenStream s = lex(text);
    EXPECT_EQ(s.error.kind, nullptr) << literal;
    EXPECT_EQ(s.tokens[0].kind, K::String) << literal;
    EXPECT_EQ(s.tokens[0].end, std::string(literal).size()) << literal;
  }
  // Not prefixes: `ub`, `bf` and longer names are identifiers.
  EXPECT_EQ(kinds("ub'a'\n")[0], K::Name);
  EXPECT_EQ(kinds("bf'a'\n")[0], K::Name);
  EXPECT_EQ(kinds("rbx\n")[0], K::Name);
}

TEST(Lexer, MultiLineStringEndPosition) {
  TokenStream s = lex("x = '''a\nbc''' + 1\n");
  const Token& string = s.tokens[2];
  EXPECT_EQ(string.kind, K::String);
  EXPECT_EQ(string.line, 1u);
  EXPECT_EQ(string.column, 4u);
  EXPECT_EQ(string.endLine, 2u);
  EXPECT_EQ(string.endColumn, 5u);
  EXPECT_EQ(s.tokens[3].line, 2u);
}

TEST(Lexer, UnicodeIdentifiersUseByteColumns) {
  TokenStream s = lex("π = naïve + 变量\n");
  EXPECT_EQ(s.error.kind, nullptr);
  EXPECT_EQ(s.tokens[0].kind, K::Name);
  EXPECT_EQ(s.tokens[0].endColumn, 2u);
  EXPECT_EQ(s.tokens[2].column, 5u);
  EXPECT_EQ(s.tokens[4].column, 14u);
  EXPECT_EQ(s.tokens[4].endColumn, 20u);
}

TEST(Lexer, KeywordsAndOperators) {
  std::vector<TokenKind> got = kinds("a **= b // c -> d := e != f ... g @ h\n");
  std::vector<TokenKind> want = {K::Name, K::StarStarEqual, K::Name, K::SlashSlash, K::Name, K::Arrow, K::Name,
                                 K::ColonEqual, K::Name, K::NotEqual, K::Name, K::Ellipsis, K::Name, K::At, K::Name,
                                 K::Newline, K::EndMarker};
  EXPECT_EQ(got, want);
  EXPECT_EQ(kinds("match case _ await async\n")[0], K::Name);
  EXPECT_EQ(kinds("await\n")[0], K::KwAwait);
  EXPECT_EQ(tokenKindName(K::KwDef), "'def'");
  EXPECT_EQ(tokenKindName(K::RightParen), "')'");
}

TEST(Lexer, CommentsAndCrLf) {
  std::vector<TokenKind> got = kinds("x = 1  # comment\r\n# only comment\r\ny\r\n");
  std::vector<TokenKind> want = {K::Name, K::Equal, K::Number, K::Newline, K::Name, K::Newline, K::EndMarker};
  EXPECT_EQ(got, want);
}

TEST(Lexer, FStringRangeInsideBrackets) {
  std::string text = "f'{a +\n b}'";
  LexRange range;
  range.begin = 3;
  range.end = 9;
  range.insideBrackets = true;
  TokenStream s = tokenize(text, 0, range);
  std::vector<TokenKind> got;
  for (const Token& t : s.tokens) got.push_back(t.kind);
  std::vector<TokenKind> want = {K::Name, K::Plus, K::Name, K::EndMarker};
  EXPECT_EQ(got, want);
  EXPECT_EQ(s.tokens[2].line, 2u);
  EXPECT_EQ(s.tokens[2].column, 1u);
}

struct LexErrorCase {
  const char* source;
  const DiagnosticKind* kind;
  uint32_t line;
  uint32_t column;
};

TEST(Lexer, ErrorsStopWithAnErrorToken) {
  const LexErrorCase cases[] = {
      {"'abc\n", &diag::UnterminatedString, 1, 0},
      {"x = '''abc", &diag::UnterminatedTripleQuotedString, 1, 4},
      {"012\n", &diag::LeadingZeros, 1, 0},
      {"if x:\n    a\n  b\n", &diag::InconsistentIndent, 3, 2},
      {"if x:\n        a\n\tb\n", &diag::InconsistentTabs, 3, 1},
      {"a ? b\n", &diag::InvalidCharacter, 1, 2},
      {"a \xe2\x80\x8b b\n", &diag::InvalidNonPrintableCharacter, 1, 2},
      {"(]\n", &diag::MismatchedBracket, 1, 1},
      {"]\n", &diag::UnmatchedBracket, 1, 0},
      {"(\n", &diag::UnclosedBracket, 1, 0},
      {"a \\ b\n", &diag::UnexpectedLineContinuation, 1, 2},
      {"a \\", &diag::UnexpectedEof, 1, 3},
      {"a != b ! c\n", &diag::UnexpectedToken, 1, 7},
  };
  for (const LexErrorCase& c : cases) {
    TokenStream s = lex(c.source);
    ASSERT_NE(s.error.kind, nullptr) << c.source;
    EXPECT_EQ(s.error.kind, c.kind) << c.source << " got " << s.error.kind->name;
    EXPECT_EQ(s.error.loc.line, c.line) << c.source;
    EXPECT_EQ(s.error.loc.column, c.column) << c.source;
    ASSERT_GE(s.tokens.size(), 2u);
    EXPECT_EQ(s.tokens[s.tokens.size() - 2].kind, K::Error);
    EXPECT_EQ(s.tokens.back().kind, K::EndMarker);
  }
}

TEST(Lexer, InvalidUtf8IsReportedBeforeAnyToken) {
  SourceFile file("t.py", "x = 1\ny = '\xc3('\n");
  TokenStream s = tokenizeFile(file, 0);
  ASSERT_EQ(s.error.kind, &diag::InvalidUtf8);
  EXPECT_EQ(s.error.loc.line, 2u);
  EXPECT_EQ(s.error.loc.column, 5u);
}

TEST(Lexer, Utf8RoundTrip) {
  std::string text;
  for (char32_t c : {U'a', U'\u00e9', U'\u4e2d', U'\U0001F600', char32_t(0xD800)}) appendUtf8(text, c);
  size_t pos = 0;
  EXPECT_EQ(decodeUtf8(text, pos), U'a');
  EXPECT_EQ(decodeUtf8(text, pos), U'\u00e9');
  EXPECT_EQ(decodeUtf8(text, pos), U'\u4e2d');
  EXPECT_EQ(decodeUtf8(text, pos), U'\U0001F600');
  EXPECT_EQ(decodeUtf8(text, pos), char32_t(0xD800));
  EXPECT_EQ(pos, text.size());
  std::string bad = "\xc3";
  pos = 0;
  EXPECT_EQ(decodeUtf8(bad, pos), char32_t(0xFFFFFFFF));
  EXPECT_EQ(pos, 1u);
}

// Identifiers are NFKC-normalized as CPython's parser does (PEP 3131); the expected strings
// are Python's unicodedata.normalize('NFKC', ...) of each spelling.
TEST(Lexer, IdentifierNamesAreNfkcNormalized) {
  EXPECT_EQ(identifierName("plain_ascii_1"), "plain_ascii_1");
  EXPECT_EQ(identifierName("\uFB01"), "fi");                                  // ﬁ ligature
  EXPECT_EQ(identifierName("x\uFB03y"), "xffiy");                             // ﬃ
  EXPECT_EQ(identifierName("\uFF49\uFF46"), "if");                            // fullwidth: a name, not the keyword
  EXPECT_EQ(identifierName("\U0001D538"), "A");                               // mathematical double-struck A
  EXPECT_EQ(identifierName("\u00BA\u00AA"), "oa");                            // ordinal indicators
  EXPECT_EQ(identifierName("\u210C"), "H");                                   // black-letter H
  EXPECT_EQ(identifierName("e\u0301"), "\u00E9");                             // composed
  EXPECT_EQ(identifierName("\u00E9"), "\u00E9");                              // already NFKC
  EXPECT_EQ(identifierName("a\u0301\u0323"), "\u1EA1\u0301");                 // reordered, then composed
  EXPECT_EQ(identifierName("\u1E0B\u0323"), "\u1E0D\u0307");                  // decomposed, reordered, recomposed
  EXPECT_EQ(identifierName("\u3131\u314F"), "\uAC00");                        // compatibility jamo -> syllable
  EXPECT_EQ(identifierName("\u1100\u1161\u11A8"), "\uAC01");                  // conjoining jamo -> LVT syllable
  EXPECT_EQ(identifierName("\uAC00\u11A8"), "\uAC01");                        // LV syllable + T
  EXPECT_EQ(identifierName("\u0958"), "\u0915\u093C");                        // composition exclusion stays apart
  EXPECT_EQ(identifierName("\u2167"), "VIII");                                // roman numeral eight
}

TEST(Lexer, FullwidthKeywordsAreNames) {
  std::string text = "\uFF49\uFF46 = 1\n";
  EXPECT_EQ(kinds(text), (std::vector<K>{K::Name, K::Equal, K::Number, K::Newline, K::EndMarker}));
}

}  // namespace
}  // namespace weft::syntax
