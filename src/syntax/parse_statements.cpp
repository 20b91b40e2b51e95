// Statement rules of the parser (CPython 3.11 grammar: simple_stmts, compound_stmt, block).
#include <string>

#include "syntax/parser.h"
#include "syntax/syntax_diagnostics.h"

namespace weft::syntax {

namespace {

bool augmentedOperator(TokenKind kind, Operator& op) {
  switch (kind) {
    case TokenKind::PlusEqual: op = Operator::Add; return true;
    case TokenKind::MinusEqual: op = Operator::Sub; return true;
    case TokenKind::StarEqual: op = Operator::Mult; return true;
    case TokenKind::AtEqual: op = Operator::MatMult; return true;
    case TokenKind::SlashEqual: op = Operator::Div; return true;
    case TokenKind::PercentEqual: op = Operator::Mod; return true;
    case TokenKind::AmpEqual: op = Operator::BitAnd; return true;
    case TokenKind::PipeEqual: op = Operator::BitOr; return true;
    case TokenKind::CaretEqual: op = Operator::BitXor; return true;
    case TokenKind::LessLessEqual: op = Operator::LShift; return true;
    case TokenKind::GreaterGreaterEqual: op = Operator::RShift; return true;
    case TokenKind::StarStarEqual: op = Operator::Pow; return true;
    case TokenKind::SlashSlashEqual: op = Operator::FloorDiv; return true;
    default: return false;
  }
}

std::string onLine(std::string_view construct, const Token& owner) {
  return std::string(construct) + " on line " + std::to_string(owner.line);
}

}  // namespace

void Parser::parseStatementInto(std::vector<Stmt*>& out) {
  if (!enter()) return;
  const Token start = peek();
  switch (start.kind) {
    case TokenKind::KwDef: out.push_back(parseFunctionDef(start, false, {})); break;
    case TokenKind::At: out.push_back(parseDecorated()); break;
    case TokenKind::KwClass: out.push_back(parseClassDef(start, {})); break;
    case TokenKind::KwIf: out.push_back(parseIf(start)); break;
    case TokenKind::KwWhile: out.push_back(parseWhile()); break;
    case TokenKind::KwFor: out.push_back(parseFor(start, false)); break;
    case TokenKind::KwWith: out.push_back(parseWith(start, false)); break;
    case TokenKind::KwTry: out.push_back(parseTry()); break;
    case TokenKind::KwAsync:
      if (at(TokenKind::KwDef, 1)) {
        out.push_back(parseFunctionDef(start, true, {}));
      } else if (at(TokenKind::KwFor, 1)) {
        out.push_back(parseFor(start, true));
      } else if (at(TokenKind::KwWith, 1)) {
        out.push_back(parseWith(start, true));
      } else {
        advance();
        unexpected();
      }
      break;
    default: parseSimpleStatements(out); break;
  }
  leave();
}

void Parser::parseSimpleStatements(std::vector<Stmt*>& out) {
  while (true) {
    Stmt* stmt = parseSimpleStatement();
    if (stmt != nullptr) out.push_back(stmt);
    if (failed_ || !accept(TokenKind::Semicolon) || at(TokenKind::Newline)) break;
  }
  if (!accept(TokenKind::Newline)) unexpected();
}

std::vector<Stmt*> Parser::parseBlock(std::string_view construct, const Token& owner) {
  std::vector<Stmt*> body;
  if (!expect(TokenKind::Colon)) return body;
  if (!accept(TokenKind::Newline)) {
    parseSimpleStatements(body);
    return body;
  }
  if (!at(TokenKind::Indent)) {
    std::string what = onLine(construct, owner);
    error(diag::ExpectedIndent, peek(), {what});
    return body;
  }
  advance();
  while (!at(TokenKind::Dedent) && !at(TokenKind::EndMarker)) parseStatementInto(body);
  accept(TokenKind::Dedent);
  return body;
}

std::vector<Stmt*> Parser::parseElse(std::string_view construct) {
  if (!at(TokenKind::KwElse)) return {};
  Token elseToken = advance();
  return parseBlock(construct, elseToken);
}

Stmt* Parser::parseSimpleStatement() {
  const Token start = peek();
  auto atEnd = [&] { return at(TokenKind::Newline) || at(TokenKind::Semicolon) || at(TokenKind::EndMarker); };
  switch (start.kind) {
    case TokenKind::KwReturn: {
      advance();
      auto* stmt = module_.make<ReturnStmt>();
      if (!atEnd()) stmt->value = parseStarExpressions();
      return finish(stmt, start);
    }
    case TokenKind::KwImport: return parseImport();
    case TokenKind::KwFrom: return parseFromImport();
    case TokenKind::KwRaise: {
      advance();
      auto* stmt = module_.make<RaiseStmt>();
      if (!atEnd()) {
        stmt->exc = parseExpression();
        if (accept(TokenKind::KwFrom)) stmt->cause = parseExpression();
      }
      return finish(stmt, start);
    }
    case TokenKind::KwPass: advance(); return finish(module_.make<PassStmt>(), start);
    case TokenKind::KwBreak: advance(); return finish(module_.make<BreakStmt>(), start);
    case TokenKind::KwContinue: advance(); return finish(module_.make<ContinueStmt>(), start);
    case TokenKind::KwDel: return parseDelete();
    case TokenKind::KwGlobal: {
      advance();
      auto* stmt = module_.make<GlobalStmt>();
      stmt->names = parseNameList();
      return finish(stmt, start);
    }
    case TokenKind::KwNonlocal: {
      advance();
      auto* stmt = module_.make<NonlocalStmt>();
      stmt->names = parseNameList();
      return finish(stmt, start);
    }
    case TokenKind::KwAssert: {
      advance();
      auto* stmt = module_.make<AssertStmt>();
      stmt->test = parseExpression();
      if (accept(TokenKind::Comma)) stmt->msg = parseExpression();
      return finish(stmt, start);
    }
    default: return parseExpressionStatement();
  }
}

std::vector<std::string> Parser::parseNameList() {
  std::vector<std::string> names;
  do {
    const Token name = peek();
    if (!expect(TokenKind::Name)) break;
    names.push_back(identifier(name));
  } while (accept(TokenKind::Comma));
  return names;
}

Stmt* Parser::parseExpressionStatement() {
  const Token start = peek();
  auto parseValue = [&] { return at(TokenKind::KwYield) ? parseYield() : parseStarExpressions(); };
  Expr* first = parseValue();
  if (at(TokenKind::Colon)) {
    auto* stmt = module_.make<AnnAssignStmt>();
    switch (first->kind) {
      case ExprKind::Name: stmt->simple = start.kind != TokenKind::LeftParen; break;
      case ExprKind::Attribute:
      case ExprKind::Subscript: stmt->simple = false; break;
      case ExprKind::Tuple:
        errorAt(diag::InvalidSyntax, *first, {"only single target (not tuple) can be annotated"});
        break;
      case ExprKind::List:
        errorAt(diag::InvalidSyntax, *first, {"only single target (not list) can be annotated"});
        break;
      default: errorAt(diag::InvalidSyntax, *first, {"illegal target for annotation"}); break;
    }
    advance();
    setContext(first, ExprContext::Store);
    stmt->target = first;
    stmt->annotation = parseExpression();
    if (accept(TokenKind::Equal)) stmt->value = parseValue();
    return finish(stmt, start);
  }
  Operator op;
  if (augmentedOperator(peek().kind, op)) {
    if (first->kind != ExprKind::Name && first->kind != ExprKind::Attribute && first->kind != ExprKind::Subscript) {
      std::string message = "'" + std::string(describeExpression(*first)) +
                            "' is an illegal expression for augmented assignment";
      errorAt(diag::InvalidSyntax, *first, {message});
    }
    advance();
    setContext(first, ExprContext::Store);
    auto* stmt = module_.make<AugAssignStmt>();
    stmt->target = first;
    stmt->op = op;
    stmt->value = parseValue();
    return finish(stmt, start);
  }
  if (at(TokenKind::Equal)) {
    auto* stmt = module_.make<AssignStmt>();
    stmt->targets.push_back(first);
    while (accept(TokenKind::Equal)) stmt->targets.push_back(parseValue());
    stmt->value = stmt->targets.back();
    stmt->targets.pop_back();
    Expr* target = stmt->targets.front();
    bool assignable = target->kind == ExprKind::Name || target->kind == ExprKind::Attribute ||
                      target->kind == ExprKind::Subscript || target->kind == ExprKind::Starred ||
                      target->kind == ExprKind::Tuple || target->kind == ExprKind::List;
    if (stmt->targets.size() == 1 && !assignable) {
      // CPython's hint for `f() = 1`: a single invalid target is probably a mistyped comparison.
      std::string what = std::string(describeExpression(*target)) + " here. Maybe you meant '==' instead of '='?";
      errorAt(diag::InvalidTarget, *target, {"assign to", what});
    }
    for (Expr* each : stmt->targets) setContext(each, ExprContext::Store);
    return finish(stmt, start);
  }
  auto* stmt = module_.make<ExprStmt>();
  stmt->value = first;
  return finish(stmt, start);
}

Stmt* Parser::parseDelete() {
  const Token start = advance();
  auto* stmt = module_.make<DeleteStmt>();
  do {
    if (at(TokenKind::Newline) || at(TokenKind::Semicolon)) break;
    Expr* target = parsePrimary(false);
    setContext(target, ExprContext::Del);
    stmt->targets.push_back(target);
  } while (accept(TokenKind::Comma));
  if (stmt->targets.empty()) unexpected();
  return finish(stmt, start);
}

Stmt* Parser::parseIf(const Token& start) {
  advance();
  auto* stmt = module_.make<IfStmt>();
  stmt->test = parseNamedExpression();
  stmt->body = parseBlock(start.kind == TokenKind::KwIf ? "'if' statement" : "'elif' statement", start);
  if (at(TokenKind::KwElif) && enter()) {
    // An elif is an if nested in the else branch.
    const Token elif = peek();
    stmt->orelse.push_back(parseIf(elif));
    leave();
  } else {
    stmt->orelse = parseElse("'else' statement");
  }
  return finish(stmt, start);
}

Stmt* Parser::parseWhile() {
  const Token start = advance();
  auto* stmt = module_.make<WhileStmt>();
  stmt->test = parseNamedExpression();
  stmt->body = parseBlock("'while' statement", start);
  stmt->orelse = parseElse("'else' statement");
  return finish(stmt, start);
}

Stmt* Parser::parseFor(const Token& start, bool isAsync) {
  if (isAsync) advance();
  const Token forToken = advance();
  ForStmt* stmt = isAsync ? module_.make<AsyncForStmt>() : module_.make<ForStmt>();
  stmt->target = parseStarTargets();
  expect(TokenKind::KwIn);
  stmt->iter = parseStarExpressions();
  stmt->body = parseBlock("'for' statement", forToken);
  stmt->orelse = parseElse("'else' statement");
  return finish(stmt, start);
}

Stmt* Parser::parseWith(const Token& start, bool isAsync) {
  if (isAsync) advance();
  const Token withToken = advance();
  WithStmt* stmt = isAsync ? module_.make<AsyncWithStmt>() : module_.make<WithStmt>();
  // `with (a, b as c):` lists items in parentheses when the matching ')' is followed by ':'.
  bool parenthesized = false;
  if (at(TokenKind::LeftParen)) {
    int depth = 0;
    for (size_t i = 0;; ++i) {
      TokenKind kind = peek(i).kind;
      if (kind == TokenKind::EndMarker || kind == TokenKind::Error) break;
      if (kind == TokenKind::LeftParen || kind == TokenKind::LeftBracket || kind == TokenKind::LeftBrace) ++depth;
      if (kind == TokenKind::RightParen || kind == TokenKind::RightBracket || kind == TokenKind::RightBrace) {
        if (--depth == 0) {
          parenthesized = peek(i + 1).kind == TokenKind::Colon;
          break;
        }
      }
    }
  }
  if (parenthesized) {
    advance();
    do {
      if (at(TokenKind::RightParen)) break;
      stmt->items.push_back(parseWithItem());
    } while (accept(TokenKind::Comma));
    expect(TokenKind::RightParen);
  } else {
    do {
      stmt->items.push_back(parseWithItem());
    } while (accept(TokenKind::Comma));
  }
  stmt->body = parseBlock("'with' statement", withToken);
  return finish(stmt, start);
}

WithItem* Parser::parseWithItem() {
  auto* item = module_.make<WithItem>();
  item->contextExpr = parseExpression();
  if (accept(TokenKind::KwAs)) {
    item->optionalVars = parseStarTarget();
    setContext(item->optionalVars, ExprContext::Store);
  }
  return item;
}

Stmt* Parser::parseTry() {
  const Token start = advance();
  auto* plain = module_.make<TryStmt>();
  plain->body = parseBlock("'try' statement", start);
  int star = -1;  // unknown until the first handler
  while (at(TokenKind::KwExcept)) {
    const Token handlerStart = advance();
    bool isStar = accept(TokenKind::Star);
    if (star >= 0 && star != static_cast<int>(isStar)) {
      error(diag::InvalidSyntax, handlerStart, {"cannot have both 'except' and 'except*' on the same 'try'"});
      break;
    }
    star = isStar;
    auto* handler = module_.make<ExceptHandler>();
    if (!at(TokenKind::Colon)) {
      handler->type = parseExpression();
      if (at(TokenKind::Comma)) {
        errorAt(diag::InvalidSyntax, *handler->type, {"multiple exception types must be parenthesized"});
      }
      if (accept(TokenKind::KwAs)) {
        const Token name = peek();
        if (expect(TokenKind::Name)) {
          handler->name = identifier(name);
          handler->hasName = true;
        }
      }
    } else if (isStar) {
      error(diag::InvalidSyntax, peek(), {"expected one or more exception types"});
    }
    handler->body = parseBlock(isStar ? "'except*' statement" : "'except' statement", handlerStart);
    plain->handlers.push_back(finish(handler, handlerStart));
  }
  if (!plain->handlers.empty()) plain->orelse = parseElse("'else' statement");
  if (at(TokenKind::KwFinally)) {
    const Token finallyToken = advance();
    plain->finalbody = parseBlock("'finally' statement", finallyToken);
  } else if (plain->handlers.empty()) {
    error(diag::ExpectedToken, peek(), {"'except' or 'finally' block"});
  }
  if (star == 1) {
    auto* stmt = module_.make<TryStarStmt>();
    stmt->body = std::move(plain->body);
    stmt->handlers = std::move(plain->handlers);
    stmt->orelse = std::move(plain->orelse);
    stmt->finalbody = std::move(plain->finalbody);
    return finish(stmt, start);
  }
  return finish(plain, start);
}

Stmt* Parser::parseDecorated() {
  std::vector<Expr*> decorators;
  while (accept(TokenKind::At)) {
    decorators.push_back(parseNamedExpression());
    if (!accept(TokenKind::Newline)) unexpected();
  }
  const Token start = peek();
  if (at(TokenKind::KwDef)) return parseFunctionDef(start, false, std::move(decorators));
  if (at(TokenKind::KwAsync) && at(TokenKind::KwDef, 1)) return parseFunctionDef(start, true, std::move(decorators));
  if (at(TokenKind::KwClass)) return parseClassDef(start, std::move(decorators));
  unexpected();
  return finish(module_.make<PassStmt>(), start);
}

Stmt* Parser::parseFunctionDef(const Token& start, bool isAsync, std::vector<Expr*> decorators) {
  if (isAsync) advance();
  advance();
  FunctionDefStmt* stmt = isAsync ? module_.make<AsyncFunctionDefStmt>() : module_.make<FunctionDefStmt>();
  stmt->decoratorList = std::move(decorators);
  const Token name = peek();
  if (expect(TokenKind::Name)) stmt->name = identifier(name);
  expect(TokenKind::LeftParen);
  stmt->args = parseParameters(true, TokenKind::RightParen);
  expect(TokenKind::RightParen);
  if (accept(TokenKind::Arrow)) stmt->returns = parseExpression();
  stmt->body = parseBlock("function definition", start);
  return finish(stmt, start);
}

Stmt* Parser::parseClassDef(const Token& start, std::vector<Expr*> decorators) {
  advance();
  auto* stmt = module_.make<ClassDefStmt>();
  stmt->decoratorList = std::move(decorators);
  const Token name = peek();
  if (expect(TokenKind::Name)) stmt->name = identifier(name);
  if (at(TokenKind::LeftParen)) {
    const Token open = advance();
    parseCallArguments(open, stmt->bases, stmt->keywords, false);
    expect(TokenKind::RightParen);
  }
  stmt->body = parseBlock("class definition", start);
  return finish(stmt, start);
}

Alias* Parser::parseDottedAlias() {
  const Token start = peek();
  auto* alias = module_.make<Alias>();
  if (expect(TokenKind::Name)) alias->name = identifier(start);
  while (accept(TokenKind::Dot)) {
    const Token part = peek();
    if (!expect(TokenKind::Name)) break;
    alias->name += '.';
    alias->name += identifier(part);
  }
  if (accept(TokenKind::KwAs)) {
    const Token as = peek();
    if (expect(TokenKind::Name)) {
      alias->asname = identifier(as);
      alias->hasAsname = true;
    }
  }
  return finish(alias, start);
}

Stmt* Parser::parseImport() {
  const Token start = advance();
  auto* stmt = module_.make<ImportStmt>();
  do {
    stmt->names.push_back(parseDottedAlias());
  } while (accept(TokenKind::Comma));
  return finish(stmt, start);
}

Stmt* Parser::parseFromImport() {
  const Token start = advance();
  auto* stmt = module_.make<ImportFromStmt>();
  while (at(TokenKind::Dot) || at(TokenKind::Ellipsis)) stmt->level += advance().kind == TokenKind::Dot ? 1 : 3;
  if (at(TokenKind::Name)) {
    stmt->hasModule = true;
    stmt->module = identifier(advance());
    while (accept(TokenKind::Dot)) {
      const Token part = peek();
      if (!expect(TokenKind::Name)) break;
      stmt->module += '.';
      stmt->module += identifier(part);
    }
  } else if (stmt->level == 0) {
    unexpected();
  }
  expect(TokenKind::KwImport);
  if (at(TokenKind::Star)) {
    const Token star = advance();
    auto* alias = module_.make<Alias>();
    alias->name = "*";
    stmt->names.push_back(finish(alias, star));
    return finish(stmt, start);
  }
  bool parenthesized = accept(TokenKind::LeftParen);
  do {
    if (parenthesized && at(TokenKind::RightParen)) break;
    if (!parenthesized && !stmt->names.empty() && (at(TokenKind::Newline) || at(TokenKind::Semicolon))) {
      error(diag::InvalidSyntax, peek(), {"trailing comma not allowed without surrounding parentheses"});
      break;
    }
    const Token aliasStart = peek();
    auto* alias = module_.make<Alias>();
    if (expect(TokenKind::Name)) alias->name = identifier(aliasStart);
    if (accept(TokenKind::KwAs)) {
      const Token as = peek();
      if (expect(TokenKind::Name)) {
        alias->asname = identifier(as);
        alias->hasAsname = true;
      }
    }
    stmt->names.push_back(finish(alias, aliasStart));
  } while (accept(TokenKind::Comma));
  if (parenthesized) expect(TokenKind::RightParen);
  return finish(stmt, start);
}

}  // namespace weft::syntax
