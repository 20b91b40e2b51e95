// The recursive-descent parser of the Python 3.11 grammar (without `match`), internal to the
// syntax stage. Its rules follow CPython's PEG grammar; each node spans from the first token of
// the rule that built it to the last significant token that rule consumed, which is exactly how
// CPython computes lineno/col_offset/end_lineno/end_col_offset.
//
// Error handling: the first syntax error is reported and the parser then behaves as if the input
// ended (every lookahead sees EndMarker), so every rule unwinds without further reports and the
// result is a partial module.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostics.h"
#include "syntax/ast.h"
#include "syntax/lexer.h"

namespace weft::syntax {

class Parser {
 public:
  // Parses `tokens` (of the text of `file`) into nodes owned by `module`.
  Parser(const SourceFile& file, uint32_t fileId, TokenStream tokens, Module& module, Diagnostics& diagnostics);

  // file: statements ENDMARKER; appends to module.body.
  void parseFile();
  // The expression of an f-string replacement field, whose tokens are wrapped in a synthetic
  // '(' ... ')' pair as CPython 3.11 parses it.
  Expr* parseFieldExpression();
  // True once a syntax error was reported by this parser.
  bool failed() const { return failed_; }

 private:
  // ---- tokens (parser.cpp) ----
  const Token& peek(size_t ahead = 0) const;
  bool at(TokenKind kind, size_t ahead = 0) const { return peek(ahead).kind == kind; }
  const Token& advance();
  bool accept(TokenKind kind);
  bool expect(TokenKind kind);
  std::string_view text(const Token& token) const;
  // The name a Name token stands for (NFKC-normalized as CPython's parser does).
  std::string identifier(const Token& token) const { return identifierName(text(token)); }
  // Reports `kind` at `token` (the tokenizer's own error when `token` is the Error token).
  void error(const DiagnosticKind& kind, const Token& token, std::initializer_list<std::string_view> args = {});
  void errorAt(const DiagnosticKind& kind, const Node& node, std::initializer_list<std::string_view> args = {});
  // Reports "invalid syntax" at the current token.
  void unexpected();
  SourceLoc locOf(uint32_t line, uint32_t column, uint32_t endLine, uint32_t endColumn) const;
  // Sets `node`'s position from `start` to the last consumed significant token.
  template <class T>
  T* finish(T* node, const Token& start) {
    setSpan(*node, start.line, start.column, last_.endLine, last_.endColumn);
    return node;
  }
  void setSpan(Node& node, uint32_t line, uint32_t column, uint32_t endLine, uint32_t endColumn) const;
  void copySpan(Node& to, const Node& from) const;
  // A placeholder so that rules can return a node after an error.
  Expr* errorExpr();
  // Counts one level of nesting (a rule that recurses, or one more node of a left-nested chain
  // built in a loop), so that no pass over the tree can overflow the stack; false after
  // reporting that the source nests more than kMaxNestingDepth levels.
  bool enter();
  void leave(int levels = 1) { depth_ -= levels; }

  // ---- statements (parse_statements.cpp) ----
  void parseStatementInto(std::vector<Stmt*>& out);
  void parseSimpleStatements(std::vector<Stmt*>& out);
  Stmt* parseSimpleStatement();
  std::vector<Stmt*> parseBlock(std::string_view construct, const Token& owner);
  Stmt* parseExpressionStatement();
  Stmt* parseIf(const Token& start);
  Stmt* parseWhile();
  Stmt* parseFor(const Token& start, bool isAsync);
  Stmt* parseWith(const Token& start, bool isAsync);
  WithItem* parseWithItem();
  Stmt* parseTry();
  Stmt* parseDecorated();
  Stmt* parseFunctionDef(const Token& start, bool isAsync, std::vector<Expr*> decorators);
  Stmt* parseClassDef(const Token& start, std::vector<Expr*> decorators);
  Stmt* parseImport();
  Stmt* parseFromImport();
  Alias* parseDottedAlias();
  Stmt* parseDelete();
  std::vector<std::string> parseNameList();
  std::vector<Stmt*> parseElse(std::string_view construct);

  // ---- expressions (parse_expressions.cpp) ----
  Expr* parseStarExpressions();
  Expr* parseStarExpression();
  Expr* parseStarNamedExpression();
  Expr* parseNamedExpression();
  Expr* parseExpression();
  Expr* parseDisjunction();
  Expr* parseConjunction();
  Expr* parseInversion();
  Expr* parseComparison();
  Expr* parseBitOr() { return parseBinary(0); }
  Expr* parseFactor();
  Expr* parsePower();
  Expr* parsePrimary(bool allowAwait);
  Expr* parseAtom();
  Expr* parseParenthesized(const Token& start, TokenKind closer);
  Expr* parseBracketed();
  Expr* parseBraced();
  Expr* parseSlices();
  Expr* parseSlice();
  Expr* parseYield();
  Expr* parseLambda();
  void parseCallArguments(const Token& open, std::vector<Expr*>& args, std::vector<Keyword*>& keywords,
                          bool allowGenerator);
  std::vector<Comprehension*> parseComprehensions();
  Arguments* parseParameters(bool annotations, TokenKind closer);
  Arg* parseParameter(bool annotations, bool starAnnotation);
  Expr* parseStarTargets();
  Expr* parseStarTarget();
  bool startsTarget() const;
  bool startsExpression() const;
  // The left-associative binary operator levels: | ^ & (<< >>) (+ -) (* / // % @), then factor.
  Expr* parseBinary(int level);
  // Sets the context of an assignment/deletion target, reporting invalid targets.
  void setContext(Expr* target, ExprContext context);
  Expr* makeName(const Token& token, ExprContext context);

  // ---- literals (parse_strings.cpp) ----
  Expr* parseStrings();
  Expr* parseNumber();
  // The pieces of a JoinedStr being built: finished values and the literal text after them.
  struct FStringParts {
    std::vector<Expr*> values;
    std::string pending;
  };
  // Moves the pending literal text of `parts` into a Constant positioned like `span`.
  void flushLiteral(FStringParts& parts, const Node& span, bool kindU);
  // Parses f-string text [pos, end) at nesting `level` (0: the string, 1: a format spec) into
  // `parts`; stops at the end or, in a format spec, at its closing '}'. False on error.
  bool parseFString(size_t& pos, size_t end, bool raw, int level, FStringParts& parts, const Token& token,
                    const Node& span, bool kindU);
  // Parses the replacement field starting at the '{' at `pos`.
  bool parseFStringField(size_t& pos, size_t end, bool raw, int level, FStringParts& parts, const Token& token,
                         const Node& span, bool kindU);

  const SourceFile& file_;
  uint32_t fileId_;
  TokenStream stream_;
  Module& module_;
  Diagnostics& diagnostics_;
  size_t pos_ = 0;
  Token last_;       // the last consumed token that is not layout (NEWLINE/INDENT/DEDENT)
  Token endMarker_;  // what peek() returns once failed
  bool failed_ = false;
  bool inFStringField_ = false;  // the closing ')' is synthetic: never ask the user for it
  int depth_ = 0;
};

// Describes an expression as CPython's error messages do ("function call", "literal", ...).
std::string_view describeExpression(const Expr& expr);

}  // namespace weft::syntax
