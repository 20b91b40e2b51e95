// Expression rules of the parser (CPython 3.11 grammar from star_expressions down to atom,
// plus targets, call arguments, comprehensions and parameters).
#include <string>

#include "syntax/parser.h"
#include "syntax/syntax_diagnostics.h"

namespace weft::syntax {

namespace {

// The binary operator of `kind` at precedence `level` of Parser::parseBinary.
bool binaryOperator(int level, TokenKind kind, Operator& op) {
  switch (level) {
    case 0:
      if (kind == TokenKind::Pipe) return op = Operator::BitOr, true;
      return false;
    case 1:
      if (kind == TokenKind::Caret) return op = Operator::BitXor, true;
      return false;
    case 2:
      if (kind == TokenKind::Amp) return op = Operator::BitAnd, true;
      return false;
    case 3:
      if (kind == TokenKind::LessLess) return op = Operator::LShift, true;
      if (kind == TokenKind::GreaterGreater) return op = Operator::RShift, true;
      return false;
    case 4:
      if (kind == TokenKind::Plus) return op = Operator::Add, true;
      if (kind == TokenKind::Minus) return op = Operator::Sub, true;
      return false;
    default:
      if (kind == TokenKind::Star) return op = Operator::Mult, true;
      if (kind == TokenKind::Slash) return op = Operator::Div, true;
      if (kind == TokenKind::SlashSlash) return op = Operator::FloorDiv, true;
      if (kind == TokenKind::Percent) return op = Operator::Mod, true;
      if (kind == TokenKind::At) return op = Operator::MatMult, true;
      return false;
  }
}

constexpr int kFactorLevel = 6;

}  // namespace

std::string_view describeExpression(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::BoolOp:
    case ExprKind::BinOp:
    case ExprKind::UnaryOp: return "expression";
    case ExprKind::NamedExpr: return "named expression";
    case ExprKind::Lambda: return "lambda";
    case ExprKind::IfExp: return "conditional expression";
    case ExprKind::Dict: return "dict literal";
    case ExprKind::Set: return "set display";
    case ExprKind::ListComp: return "list comprehension";
    case ExprKind::SetComp: return "set comprehension";
    case ExprKind::DictComp: return "dict comprehension";
    case ExprKind::GeneratorExp: return "generator expression";
    case ExprKind::Await: return "await expression";
    case ExprKind::Yield:
    case ExprKind::YieldFrom: return "yield expression";
    case ExprKind::Compare: return "comparison";
    case ExprKind::Call: return "function call";
    case ExprKind::FormattedValue:
    case ExprKind::JoinedStr: return "f-string expression";
    case ExprKind::Constant:
      switch (as<ConstantExpr>(expr).value.kind) {
        case ConstantValue::Kind::None: return "None";
        case ConstantValue::Kind::Bool: return as<ConstantExpr>(expr).value.boolValue ? "True" : "False";
        case ConstantValue::Kind::Ellipsis: return "ellipsis";
        case ConstantValue::Kind::Int:
        case ConstantValue::Kind::Float:
        case ConstantValue::Kind::Complex:
        case ConstantValue::Kind::Str:
        case ConstantValue::Kind::Bytes: return "literal";
      }
      return "literal";
    case ExprKind::Attribute: return "attribute";
    case ExprKind::Subscript: return "subscript";
    case ExprKind::Starred: return "starred";
    case ExprKind::Name: return "name";
    case ExprKind::List: return "list";
    case ExprKind::Tuple: return "tuple";
    case ExprKind::Slice: return "slice";
  }
  return "expression";
}

bool Parser::startsExpression() const {
  switch (peek().kind) {
    case TokenKind::Name:
    case TokenKind::Number:
    case TokenKind::String:
    case TokenKind::LeftParen:
    case TokenKind::LeftBracket:
    case TokenKind::LeftBrace:
    case TokenKind::Minus:
    case TokenKind::Plus:
    case TokenKind::Tilde:
    case TokenKind::Star:
    case TokenKind::Ellipsis:
    case TokenKind::KwNot:
    case TokenKind::KwLambda:
    case TokenKind::KwAwait:
    case TokenKind::KwTrue:
    case TokenKind::KwFalse:
    case TokenKind::KwNone: return true;
    default: return false;
  }
}

bool Parser::startsTarget() const {
  TokenKind kind = peek().kind;
  return kind == TokenKind::Name || kind == TokenKind::LeftParen || kind == TokenKind::LeftBracket ||
         kind == TokenKind::Star;
}

Expr* Parser::makeName(const Token& token, ExprContext context) {
  auto* name = module_.make<NameExpr>();
  name->id = identifier(token);
  name->ctx = context;
  setSpan(*name, token.line, token.column, token.endLine, token.endColumn);
  return name;
}

void Parser::setContext(Expr* target, ExprContext context) {
  switch (target->kind) {
    case ExprKind::Name: as<NameExpr>(*target).ctx = context; return;
    case ExprKind::Attribute: as<AttributeExpr>(*target).ctx = context; return;
    case ExprKind::Subscript: as<SubscriptExpr>(*target).ctx = context; return;
    case ExprKind::Starred:
      if (context == ExprContext::Del) break;
      as<StarredExpr>(*target).ctx = context;
      setContext(as<StarredExpr>(*target).value, context);
      return;
    case ExprKind::List:
    case ExprKind::Tuple:
      as<ListExpr>(*target).ctx = context;
      for (Expr* element : as<ListExpr>(*target).elts) setContext(element, context);
      return;
    case ExprKind::BoolOp:
    case ExprKind::NamedExpr:
    case ExprKind::BinOp:
    case ExprKind::UnaryOp:
    case ExprKind::Lambda:
    case ExprKind::IfExp:
    case ExprKind::Dict:
    case ExprKind::Set:
    case ExprKind::ListComp:
    case ExprKind::SetComp:
    case ExprKind::DictComp:
    case ExprKind::GeneratorExp:
    case ExprKind::Await:
    case ExprKind::Yield:
    case ExprKind::YieldFrom:
    case ExprKind::Compare:
    case ExprKind::Call:
    case ExprKind::FormattedValue:
    case ExprKind::JoinedStr:
    case ExprKind::Constant:
    case ExprKind::Slice: break;
  }
  errorAt(diag::InvalidTarget, *target, {context == ExprContext::Del ? "delete" : "assign to", describeExpression(*target)});
}

Expr* Parser::parseStarExpressions() {
  const Token start = peek();
  Expr* first = parseStarExpression();
  if (!at(TokenKind::Comma)) return first;
  auto* tuple = module_.make<TupleExpr>();
  tuple->elts.push_back(first);
  while (accept(TokenKind::Comma)) {
    if (!startsExpression()) break;
    tuple->elts.push_back(parseStarExpression());
  }
  return finish(tuple, start);
}

Expr* Parser::parseStarExpression() {
  if (!at(TokenKind::Star)) return parseExpression();
  const Token start = advance();
  auto* starred = module_.make<StarredExpr>();
  starred->value = parseBitOr();
  return finish(starred, start);
}

Expr* Parser::parseStarNamedExpression() {
  if (!at(TokenKind::Star)) return parseNamedExpression();
  const Token start = advance();
  auto* starred = module_.make<StarredExpr>();
  starred->value = parseBitOr();
  return finish(starred, start);
}

Expr* Parser::parseNamedExpression() {
  if (at(TokenKind::Name) && at(TokenKind::ColonEqual, 1)) {
    const Token start = peek();
    auto* named = module_.make<NamedExprExpr>();
    named->target = makeName(advance(), ExprContext::Store);
    advance();
    named->value = parseExpression();
    return finish(named, start);
  }
  Expr* expr = parseExpression();
  if (at(TokenKind::ColonEqual)) {
    std::string message = "cannot use assignment expressions with " + std::string(describeExpression(*expr));
    errorAt(diag::InvalidSyntax, *expr, {message});
  }
  return expr;
}

Expr* Parser::parseExpression() {
  if (!enter()) return errorExpr();
  Expr* result;
  if (at(TokenKind::KwLambda)) {
    result = parseLambda();
  } else {
    const Token start = peek();
    result = parseDisjunction();
    if (accept(TokenKind::KwIf)) {
      auto* conditional = module_.make<IfExpExpr>();
      conditional->body = result;
      conditional->test = parseDisjunction();
      expect(TokenKind::KwElse);
      conditional->orelse = parseExpression();
      result = finish(conditional, start);
    }
  }
  leave();
  return result;
}

Expr* Parser::parseDisjunction() {
  const Token start = peek();
  Expr* first = parseConjunction();
  if (!at(TokenKind::KwOr)) return first;
  auto* op = module_.make<BoolOpExpr>();
  op->op = BoolOperator::Or;
  op->values.push_back(first);
  while (accept(TokenKind::KwOr)) op->values.push_back(parseConjunction());
  return finish(op, start);
}

Expr* Parser::parseConjunction() {
  const Token start = peek();
  Expr* first = parseInversion();
  if (!at(TokenKind::KwAnd)) return first;
  auto* op = module_.make<BoolOpExpr>();
  op->op = BoolOperator::And;
  op->values.push_back(first);
  while (accept(TokenKind::KwAnd)) op->values.push_back(parseInversion());
  return finish(op, start);
}

Expr* Parser::parseInversion() {
  if (!at(TokenKind::KwNot)) return parseComparison();
  if (!enter()) return errorExpr();
  const Token start = advance();
  auto* op = module_.make<UnaryOpExpr>();
  op->op = UnaryOperator::Not;
  op->operand = parseInversion();
  leave();
  return finish(op, start);
}

Expr* Parser::parseComparison() {
  const Token start = peek();
  Expr* left = parseBitOr();
  CompareExpr* compare = nullptr;
  while (true) {
    CmpOperator op;
    switch (peek().kind) {
      case TokenKind::EqualEqual: op = CmpOperator::Eq; break;
      case TokenKind::NotEqual: op = CmpOperator::NotEq; break;
      case TokenKind::Less: op = CmpOperator::Lt; break;
      case TokenKind::LessEqual: op = CmpOperator::LtE; break;
      case TokenKind::Greater: op = CmpOperator::Gt; break;
      case TokenKind::GreaterEqual: op = CmpOperator::GtE; break;
      case TokenKind::KwIn: op = CmpOperator::In; break;
      case TokenKind::KwIs: op = at(TokenKind::KwNot, 1) ? CmpOperator::IsNot : CmpOperator::Is; break;
      case TokenKind::KwNot:
        if (!at(TokenKind::KwIn, 1)) return compare ? finish(compare, start) : left;
        op = CmpOperator::NotIn;
        break;
      default: return compare ? finish(compare, start) : left;
    }
    advance();
    if (op == CmpOperator::IsNot || op == CmpOperator::NotIn) advance();
    if (compare == nullptr) {
      compare = module_.make<CompareExpr>();
      compare->left = left;
    }
    compare->ops.push_back(op);
    compare->comparators.push_back(parseBitOr());
  }
}

Expr* Parser::parseBinary(int level) {
  if (level == kFactorLevel) return parseFactor();
  const Token start = peek();
  Expr* left = parseBinary(level + 1);
  Operator op;
  int chained = 0;  // each operator nests the chain so far one level deeper
  while (binaryOperator(level, peek().kind, op) && enter()) {
    ++chained;
    advance();
    auto* binary = module_.make<BinOpExpr>();
    binary->left = left;
    binary->op = op;
    binary->right = parseBinary(level + 1);
    left = finish(binary, start);
  }
  leave(chained);
  return left;
}

Expr* Parser::parseFactor() {
  UnaryOperator op;
  switch (peek().kind) {
    case TokenKind::Plus: op = UnaryOperator::UAdd; break;
    case TokenKind::Minus: op = UnaryOperator::USub; break;
    case TokenKind::Tilde: op = UnaryOperator::Invert; break;
    default: return parsePower();
  }
  if (!enter()) return errorExpr();
  const Token start = advance();
  auto* unary = module_.make<UnaryOpExpr>();
  unary->op = op;
  unary->operand = parseFactor();
  leave();
  return finish(unary, start);
}

Expr* Parser::parsePower() {
  const Token start = peek();
  Expr* base = parsePrimary(true);
  if (!accept(TokenKind::StarStar)) return base;
  if (!enter()) return errorExpr();
  auto* power = module_.make<BinOpExpr>();
  power->left = base;
  power->op = Operator::Pow;
  power->right = parseFactor();
  leave();
  return finish(power, start);
}

Expr* Parser::parsePrimary(bool allowAwait) {
  const Token start = peek();
  if (allowAwait && at(TokenKind::KwAwait)) {
    advance();
    auto* await = module_.make<AwaitExpr>();
    await->value = parsePrimary(false);
    return finish(await, start);
  }
  Expr* expr = parseAtom();
  // Each trailer (a.b, f(x), a[i]) nests the primary so far one level deeper.
  int chained = 0;
  while ((at(TokenKind::Dot) || at(TokenKind::LeftParen) || at(TokenKind::LeftBracket)) && enter()) {
    ++chained;
    if (accept(TokenKind::Dot)) {
      auto* attribute = module_.make<AttributeExpr>();
      attribute->value = expr;
      const Token name = peek();
      if (expect(TokenKind::Name)) attribute->attr = identifier(name);
      expr = finish(attribute, start);
    } else if (at(TokenKind::LeftParen)) {
      const Token open = advance();
      auto* call = module_.make<CallExpr>();
      call->func = expr;
      parseCallArguments(open, call->args, call->keywords, true);
      expect(TokenKind::RightParen);
      expr = finish(call, start);
    } else if (accept(TokenKind::LeftBracket)) {
      auto* subscript = module_.make<SubscriptExpr>();
      subscript->value = expr;
      subscript->slice = parseSlices();
      expect(TokenKind::RightBracket);
      expr = finish(subscript, start);
    }
  }
  leave(chained);
  return expr;
}

Expr* Parser::parseAtom() {
  const Token start = peek();
  switch (start.kind) {
    case TokenKind::Name: return makeName(advance(), ExprContext::Load);
    case TokenKind::KwTrue:
    case TokenKind::KwFalse:
    case TokenKind::KwNone:
    case TokenKind::Ellipsis: {
      advance();
      auto* constant = module_.make<ConstantExpr>();
      if (start.kind == TokenKind::KwNone) {
        constant->value.kind = ConstantValue::Kind::None;
      } else if (start.kind == TokenKind::Ellipsis) {
        constant->value.kind = ConstantValue::Kind::Ellipsis;
      } else {
        constant->value.kind = ConstantValue::Kind::Bool;
        constant->value.boolValue = start.kind == TokenKind::KwTrue;
      }
      return finish(constant, start);
    }
    case TokenKind::Number: return parseNumber();
    case TokenKind::String: return parseStrings();
    case TokenKind::LeftParen: advance(); return parseParenthesized(start, TokenKind::RightParen);
    case TokenKind::LeftBracket: return parseBracketed();
    case TokenKind::LeftBrace: return parseBraced();
    default: unexpected(); return errorExpr();
  }
}

Expr* Parser::parseParenthesized(const Token& open, TokenKind closer) {
  if (accept(closer)) return finish(module_.make<TupleExpr>(), open);
  if (at(TokenKind::KwYield)) {
    Expr* yield = parseYield();
    expect(closer);
    return yield;
  }
  Expr* first = parseStarNamedExpression();
  if (at(TokenKind::KwFor) || (at(TokenKind::KwAsync) && at(TokenKind::KwFor, 1))) {
    if (first->kind == ExprKind::Starred) errorAt(diag::InvalidSyntax, *first, {"iterable unpacking cannot be used in comprehension"});
    auto* generator = module_.make<GeneratorExpExpr>();
    generator->elt = first;
    generator->generators = parseComprehensions();
    expect(closer);
    return finish(generator, open);
  }
  if (at(TokenKind::Comma)) {
    auto* tuple = module_.make<TupleExpr>();
    tuple->elts.push_back(first);
    while (accept(TokenKind::Comma)) {
      if (at(closer)) break;
      tuple->elts.push_back(parseStarNamedExpression());
    }
    expect(closer);
    return finish(tuple, open);
  }
  expect(closer);
  if (first->kind == ExprKind::Starred) errorAt(diag::InvalidSyntax, *first, {"cannot use starred expression here"});
  return first;
}

Expr* Parser::parseBracketed() {
  const Token open = advance();
  if (accept(TokenKind::RightBracket)) return finish(module_.make<ListExpr>(), open);
  Expr* first = parseStarNamedExpression();
  if (at(TokenKind::KwFor) || (at(TokenKind::KwAsync) && at(TokenKind::KwFor, 1))) {
    if (first->kind == ExprKind::Starred) errorAt(diag::InvalidSyntax, *first, {"iterable unpacking cannot be used in comprehension"});
    auto* comprehension = module_.make<ListCompExpr>();
    comprehension->elt = first;
    comprehension->generators = parseComprehensions();
    expect(TokenKind::RightBracket);
    return finish(comprehension, open);
  }
  auto* list = module_.make<ListExpr>();
  list->elts.push_back(first);
  while (accept(TokenKind::Comma)) {
    if (at(TokenKind::RightBracket)) break;
    list->elts.push_back(parseStarNamedExpression());
  }
  expect(TokenKind::RightBracket);
  return finish(list, open);
}

Expr* Parser::parseBraced() {
  const Token open = advance();
  if (accept(TokenKind::RightBrace)) return finish(module_.make<DictExpr>(), open);
  auto isComprehension = [&] { return at(TokenKind::KwFor) || (at(TokenKind::KwAsync) && at(TokenKind::KwFor, 1)); };
  auto* dict = module_.make<DictExpr>();
  if (accept(TokenKind::StarStar)) {
    dict->keys.push_back(nullptr);
    dict->values.push_back(parseBitOr());
    if (isComprehension()) error(diag::InvalidSyntax, peek(), {"dict unpacking cannot be used in dict comprehension"});
  } else {
    Expr* first = parseStarNamedExpression();
    if (first->kind != ExprKind::Starred && accept(TokenKind::Colon)) {
      Expr* value = parseExpression();
      if (isComprehension()) {
        auto* comprehension = module_.make<DictCompExpr>();
        comprehension->key = first;
        comprehension->value = value;
        comprehension->generators = parseComprehensions();
        expect(TokenKind::RightBrace);
        return finish(comprehension, open);
      }
      dict->keys.push_back(first);
      dict->values.push_back(value);
    } else if (isComprehension()) {
      if (first->kind == ExprKind::Starred) errorAt(diag::InvalidSyntax, *first, {"iterable unpacking cannot be used in comprehension"});
      auto* comprehension = module_.make<SetCompExpr>();
      comprehension->elt = first;
      comprehension->generators = parseComprehensions();
      expect(TokenKind::RightBrace);
      return finish(comprehension, open);
    } else {
      auto* set = module_.make<SetExpr>();
      set->elts.push_back(first);
      while (accept(TokenKind::Comma)) {
        if (at(TokenKind::RightBrace)) break;
        set->elts.push_back(parseStarNamedExpression());
      }
      expect(TokenKind::RightBrace);
      return finish(set, open);
    }
  }
  while (accept(TokenKind::Comma)) {
    if (at(TokenKind::RightBrace)) break;
    if (accept(TokenKind::StarStar)) {
      dict->keys.push_back(nullptr);
      dict->values.push_back(parseBitOr());
    } else {
      dict->keys.push_back(parseExpression());
      expect(TokenKind::Colon);
      dict->values.push_back(parseExpression());
    }
  }
  expect(TokenKind::RightBrace);
  return finish(dict, open);
}

std::vector<Comprehension*> Parser::parseComprehensions() {
  std::vector<Comprehension*> generators;
  while (at(TokenKind::KwFor) || (at(TokenKind::KwAsync) && at(TokenKind::KwFor, 1))) {
    auto* generator = module_.make<Comprehension>();
    generator->isAsync = accept(TokenKind::KwAsync);
    advance();
    generator->target = parseStarTargets();
    expect(TokenKind::KwIn);
    generator->iter = parseDisjunction();
    while (accept(TokenKind::KwIf)) generator->ifs.push_back(parseDisjunction());
    generators.push_back(generator);
  }
  return generators;
}

Expr* Parser::parseSlices() {
  const Token start = peek();
  auto parseElement = [&]() -> Expr* {
    if (!at(TokenKind::Star)) return parseSlice();
    const Token star = advance();
    auto* starred = module_.make<StarredExpr>();
    starred->value = parseExpression();
    return finish(starred, star);
  };
  Expr* first = parseElement();
  if (!at(TokenKind::Comma) && first->kind != ExprKind::Starred) return first;
  auto* tuple = module_.make<TupleExpr>();
  tuple->elts.push_back(first);
  while (accept(TokenKind::Comma)) {
    if (at(TokenKind::RightBracket)) break;
    tuple->elts.push_back(parseElement());
  }
  return finish(tuple, start);
}

Expr* Parser::parseSlice() {
  const Token start = peek();
  Expr* lower = nullptr;
  if (!at(TokenKind::Colon)) {
    lower = parseNamedExpression();
    if (!at(TokenKind::Colon)) return lower;
  }
  advance();
  auto* slice = module_.make<SliceExpr>();
  slice->lower = lower;
  auto ends = [&] { return at(TokenKind::Comma) || at(TokenKind::RightBracket); };
  if (!at(TokenKind::Colon) && !ends()) slice->upper = parseExpression();
  if (accept(TokenKind::Colon) && !ends()) slice->step = parseExpression();
  return finish(slice, start);
}

Expr* Parser::parseYield() {
  const Token start = advance();
  if (accept(TokenKind::KwFrom)) {
    auto* yield = module_.make<YieldFromExpr>();
    yield->value = parseExpression();
    return finish(yield, start);
  }
  auto* yield = module_.make<YieldExpr>();
  if (startsExpression()) yield->value = parseStarExpressions();
  return finish(yield, start);
}

Expr* Parser::parseLambda() {
  const Token start = advance();
  auto* lambda = module_.make<LambdaExpr>();
  lambda->args = parseParameters(false, TokenKind::Colon);
  expect(TokenKind::Colon);
  lambda->body = parseExpression();
  return finish(lambda, start);
}

void Parser::parseCallArguments(const Token& open, std::vector<Expr*>& args, std::vector<Keyword*>& keywords,
                                bool allowGenerator) {
  bool seenKeyword = false, seenDoubleStar = false;
  while (!at(TokenKind::RightParen) && !at(TokenKind::EndMarker)) {
    const Token start = peek();
    if (accept(TokenKind::Star)) {
      if (seenDoubleStar) {
        error(diag::InvalidArguments, start, {"iterable argument unpacking follows keyword argument unpacking"});
      }
      auto* starred = module_.make<StarredExpr>();
      starred->value = parseExpression();
      args.push_back(finish(starred, start));
    } else if (accept(TokenKind::StarStar)) {
      auto* keyword = module_.make<Keyword>();
      keyword->hasArg = false;
      keyword->value = parseExpression();
      keywords.push_back(finish(keyword, start));
      seenDoubleStar = true;
    } else if (at(TokenKind::Name) && at(TokenKind::Equal, 1)) {
      auto* keyword = module_.make<Keyword>();
      keyword->arg = identifier(advance());
      advance();
      keyword->value = parseExpression();
      keywords.push_back(finish(keyword, start));
      seenKeyword = true;
    } else {
      Expr* value = parseNamedExpression();
      if (at(TokenKind::Equal)) {
        errorAt(diag::InvalidArguments, *value, {"expression cannot contain assignment, perhaps you meant \"==\"?"});
      }
      if (at(TokenKind::KwFor) || (at(TokenKind::KwAsync) && at(TokenKind::KwFor, 1))) {
        auto* generator = module_.make<GeneratorExpExpr>();
        generator->elt = value;
        generator->generators = parseComprehensions();
        if (!allowGenerator || !args.empty() || !keywords.empty() || !at(TokenKind::RightParen)) {
          errorAt(diag::InvalidArguments, *value, {"Generator expression must be parenthesized"});
        }
        // A sole generator argument spans the call's parentheses, as in CPython.
        const Token& close = peek();
        setSpan(*generator, open.line, open.column, close.endLine, close.endColumn);
        args.push_back(generator);
        return;
      }
      if (seenDoubleStar) {
        errorAt(diag::InvalidArguments, *value, {"positional argument follows keyword argument unpacking"});
      } else if (seenKeyword) {
        errorAt(diag::InvalidArguments, *value, {"positional argument follows keyword argument"});
      }
      args.push_back(value);
    }
    if (!accept(TokenKind::Comma)) break;
  }
}

Arg* Parser::parseParameter(bool annotations, bool starAnnotation) {
  const Token start = peek();
  auto* arg = module_.make<Arg>();
  if (expect(TokenKind::Name)) arg->arg = identifier(start);
  if (annotations && accept(TokenKind::Colon)) {
    arg->annotation = starAnnotation && at(TokenKind::Star) ? parseStarExpression() : parseExpression();
  }
  return finish(arg, start);
}

Arguments* Parser::parseParameters(bool annotations, TokenKind closer) {
  auto* arguments = module_.make<Arguments>();
  bool seenSlash = false, seenStar = false, seenDefault = false, seenKwarg = false;
  while (!at(closer) && !at(TokenKind::EndMarker)) {
    const Token start = peek();
    if (seenKwarg) {
      error(diag::InvalidParameters, start, {"arguments cannot follow var-keyword argument"});
      break;
    }
    if (accept(TokenKind::Slash)) {
      if (seenSlash) error(diag::InvalidParameters, start, {"/ may appear only once"});
      else if (seenStar) error(diag::InvalidParameters, start, {"/ must be ahead of *"});
      else if (arguments->args.empty()) error(diag::InvalidParameters, start, {"at least one argument must precede /"});
      seenSlash = true;
      arguments->posonlyargs = std::move(arguments->args);
      arguments->args.clear();
    } else if (accept(TokenKind::Star)) {
      if (seenStar) error(diag::InvalidParameters, start, {"* argument may appear only once"});
      seenStar = true;
      if (at(TokenKind::Name)) {
        arguments->vararg = parseParameter(annotations, true);
      } else if (!at(TokenKind::Comma) || !at(TokenKind::Name, 1)) {
        error(diag::InvalidParameters, start, {"named arguments must follow bare *"});
      }
    } else if (accept(TokenKind::StarStar)) {
      arguments->kwarg = parseParameter(annotations, false);
      seenKwarg = true;
    } else {
      Arg* arg = parseParameter(annotations, false);
      Expr* value = accept(TokenKind::Equal) ? parseExpression() : nullptr;
      if (seenStar) {
        arguments->kwonlyargs.push_back(arg);
        arguments->kwDefaults.push_back(value);
      } else {
        arguments->args.push_back(arg);
        if (value != nullptr) {
          arguments->defaults.push_back(value);
          seenDefault = true;
        } else if (seenDefault) {
          error(diag::InvalidParameters, start, {"non-default argument follows default argument"});
        }
      }
    }
    if (!accept(TokenKind::Comma)) break;
  }
  return arguments;
}

Expr* Parser::parseStarTargets() {
  const Token start = peek();
  Expr* first = parseStarTarget();
  if (!at(TokenKind::Comma)) return first;
  auto* tuple = module_.make<TupleExpr>();
  tuple->ctx = ExprContext::Store;
  tuple->elts.push_back(first);
  while (accept(TokenKind::Comma)) {
    if (!startsTarget()) break;
    tuple->elts.push_back(parseStarTarget());
  }
  return finish(tuple, start);
}

Expr* Parser::parseStarTarget() {
  if (!enter()) return errorExpr();
  Expr* result;
  if (at(TokenKind::Star)) {
    const Token start = advance();
    auto* starred = module_.make<StarredExpr>();
    starred->ctx = ExprContext::Store;
    starred->value = parseStarTarget();
    result = finish(starred, start);
  } else {
    result = parsePrimary(false);
    setContext(result, ExprContext::Store);
  }
  leave();
  return result;
}

}  // namespace weft::syntax
