#include "syntax/parser.h"

#include "support/limits.h"
#include "syntax/syntax.h"
#include "syntax/syntax_diagnostics.h"

namespace weft::syntax {

Parser::Parser(const SourceFile& file, uint32_t fileId, TokenStream tokens, Module& module,
               Diagnostics& diagnostics)
    : file_(file), fileId_(fileId), stream_(std::move(tokens)), module_(module), diagnostics_(diagnostics) {
  endMarker_ = stream_.tokens.back();
  endMarker_.kind = TokenKind::EndMarker;
}

const Token& Parser::peek(size_t ahead) const {
  if (failed_) return endMarker_;
  size_t index = pos_ + ahead;
  if (index >= stream_.tokens.size()) return stream_.tokens.back();
  return stream_.tokens[index];
}

const Token& Parser::advance() {
  const Token& token = peek();
  if (failed_ || token.kind == TokenKind::EndMarker || token.kind == TokenKind::Error) return token;
  ++pos_;
  if (token.kind != TokenKind::Newline && token.kind != TokenKind::Indent && token.kind != TokenKind::Dedent) {
    last_ = token;
  }
  return token;
}

bool Parser::accept(TokenKind kind) {
  if (!at(kind)) return false;
  advance();
  return true;
}

bool Parser::expect(TokenKind kind) {
  if (accept(kind)) return true;
  if (!failed_) {
    const Token& token = peek();
    if (token.kind == TokenKind::Error) {
      error(diag::UnexpectedToken, token);
    } else if (kind == TokenKind::Indent) {
      error(diag::ExpectedIndent, token, {"':'"});
    } else if (token.kind == TokenKind::Indent) {
      error(diag::UnexpectedIndent, token);
    } else if (inFStringField_ && kind == TokenKind::RightParen) {
      unexpected();
    } else {
      std::string expected(tokenKindName(kind));
      error(diag::ExpectedToken, token, {expected});
    }
  }
  return false;
}

std::string_view Parser::text(const Token& token) const {
  return std::string_view(file_.text()).substr(token.begin, token.end - token.begin);
}

SourceLoc Parser::locOf(uint32_t line, uint32_t column, uint32_t endLine, uint32_t endColumn) const {
  uint32_t length = 0;
  if (endLine == line && endColumn > column) {
    length = endColumn - column;
  } else if (endLine > line) {
    size_t lineLength = file_.line(line).size();
    length = lineLength > column ? static_cast<uint32_t>(lineLength - column) : 0;
  }
  return SourceLoc{fileId_, line, column, length};
}

void Parser::error(const DiagnosticKind& kind, const Token& token, std::initializer_list<std::string_view> args) {
  if (failed_) return;
  failed_ = true;
  if (token.kind == TokenKind::Error && stream_.error.kind != nullptr) {
    const LexError& lex = stream_.error;
    std::vector<std::string_view> views(lex.args.begin(), lex.args.end());
    switch (views.size()) {
      case 0: diagnostics_.error(*lex.kind, lex.loc); break;
      case 1: diagnostics_.error(*lex.kind, lex.loc, {views[0]}); break;
      default: diagnostics_.error(*lex.kind, lex.loc, {views[0], views[1]}); break;
    }
    return;
  }
  // A generic error on a later line than a bracket that is still open is that bracket's fault.
  if (&kind == &diag::UnexpectedToken || &kind == &diag::ExpectedToken || &kind == &diag::UnexpectedEof) {
    std::vector<const Token*> open;
    for (size_t i = 0; i < pos_ && i < stream_.tokens.size(); ++i) {
      const Token& t = stream_.tokens[i];
      if (t.kind == TokenKind::LeftParen || t.kind == TokenKind::LeftBracket || t.kind == TokenKind::LeftBrace) {
        open.push_back(&t);
      } else if (!open.empty() && (t.kind == TokenKind::RightParen || t.kind == TokenKind::RightBracket ||
                                   t.kind == TokenKind::RightBrace)) {
        open.pop_back();
      }
    }
    if (!open.empty() && open.back()->line < token.line) {
      const Token& bracket = *open.back();
      std::string spelled(text(bracket));
      diagnostics_.error(diag::UnclosedBracket, locOf(bracket.line, bracket.column, bracket.line, bracket.column + 1),
                         {spelled});
      return;
    }
  }
  diagnostics_.error(kind, locOf(token.line, token.column, token.endLine, token.endColumn), args);
}

void Parser::errorAt(const DiagnosticKind& kind, const Node& node, std::initializer_list<std::string_view> args) {
  if (failed_) return;
  failed_ = true;
  diagnostics_.error(kind, locOf(node.loc.line, node.loc.column, node.endLine, node.endColumn), args);
}

void Parser::unexpected() {
  const Token& token = peek();
  if (token.kind == TokenKind::Indent) {
    error(diag::UnexpectedIndent, token);
  } else if (token.kind == TokenKind::EndMarker) {
    error(diag::UnexpectedEof, token);
  } else if (token.kind == TokenKind::Newline || token.kind == TokenKind::Dedent) {
    error(diag::UnexpectedToken, token, {"end of line"});
  } else {
    std::string spelled = "'" + std::string(text(token)) + "'";
    error(diag::UnexpectedToken, token, {spelled});
  }
}

void Parser::setSpan(Node& node, uint32_t line, uint32_t column, uint32_t endLine, uint32_t endColumn) const {
  node.loc = locOf(line, column, endLine, endColumn);
  node.endLine = endLine;
  node.endColumn = endColumn;
}

void Parser::copySpan(Node& to, const Node& from) const {
  to.loc = from.loc;
  to.endLine = from.endLine;
  to.endColumn = from.endColumn;
}

Expr* Parser::errorExpr() {
  auto* name = module_.make<NameExpr>();
  const Token& token = peek();
  setSpan(*name, token.line, token.column, token.line, token.column);
  return name;
}

bool Parser::enter() {
  if (++depth_ > kMaxNestingDepth) {
    error(diag::TooDeeplyNested, peek(),
          {"expressions or statements: weft's limit is " + std::to_string(kMaxNestingDepth) +
           " levels, and each operator of a chain such as a + b + c is one"});
    return false;
  }
  return true;
}

void Parser::parseFile() {
  while (!at(TokenKind::EndMarker)) {
    if (at(TokenKind::Indent)) {
      unexpected();
      break;
    }
    if (at(TokenKind::Newline)) {
      advance();
      continue;
    }
    parseStatementInto(module_.body);
  }
}

Expr* Parser::parseFieldExpression() {
  inFStringField_ = true;
  Token open = peek();
  if (!expect(TokenKind::LeftParen)) return errorExpr();
  Expr* expr = parseParenthesized(open, TokenKind::RightParen);
  if (!failed_ && !at(TokenKind::EndMarker)) unexpected();
  return expr;
}

std::unique_ptr<Module> parse(uint32_t fileId, Diagnostics& diagnostics) {
  const SourceFile& file = diagnostics.sources().file(fileId);
  auto module = std::make_unique<Module>();
  module->file = fileId;
  Parser parser(file, fileId, tokenizeFile(file, fileId), *module, diagnostics);
  parser.parseFile();
  return module;
}

}  // namespace weft::syntax
