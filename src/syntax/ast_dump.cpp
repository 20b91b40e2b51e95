// ast.dump() of CPython 3.11 with default arguments: fields by name, None-valued optional
// fields omitted, no positions, and Python's repr() for constants.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "syntax/lexer.h"
#include "syntax/syntax.h"
#include "syntax/unicode_tables.h"

namespace weft::syntax {

namespace {

// Python's float repr ('r' format): shortest round-trip digits; scientific notation when the
// decimal exponent is below -4 or above 16. `addDotZero` appends ".0" to integral values
// (float repr does, the imaginary part of a complex repr does not).
std::string floatRepr(double value, bool addDotZero) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::string sign = std::signbit(value) ? "-" : "";
  value = std::fabs(value);
  if (value == 0) return sign + (addDotZero ? "0.0" : "0");
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string_view sci(buffer, static_cast<size_t>(result.ptr - buffer));
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int exponent = 0;
  std::from_chars(sci.data() + e + (sci[e + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exponent);
  int decimalPoint = exponent + 1;  // value = 0.digits * 10^decimalPoint
  int n = static_cast<int>(digits.size());
  std::string out = sign;
  if (decimalPoint <= -4 || decimalPoint > 16) {
    out += digits[0];
    if (n > 1) {
      out += '.';
      out += digits.substr(1);
    }
    char exp[16];
    std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += exp;
  } else if (decimalPoint <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-decimalPoint), '0');
    out += digits;
  } else if (decimalPoint >= n) {
    out += digits;
    out.append(static_cast<size_t>(decimalPoint - n), '0');
    if (addDotZero) out += ".0";
  } else {
    out += digits.substr(0, static_cast<size_t>(decimalPoint));
    out += '.';
    out += digits.substr(static_cast<size_t>(decimalPoint));
  }
  return out;
}

void appendHex(std::string& out, char prefix, uint32_t value, int width) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "\\%c%0*x", prefix, width, value);
  out += buffer;
}

// Python's str repr of UTF-8 text (lone surrogates included).
void strRepr(std::string& out, std::string_view text) {
  bool hasSingle = text.find('\'') != std::string_view::npos;
  bool hasDouble = text.find('"') != std::string_view::npos;
  char quote = hasSingle && !hasDouble ? '"' : '\'';
  out += quote;
  for (size_t pos = 0; pos < text.size();) {
    char32_t c = decodeUtf8(text, pos);
    if (c == static_cast<char32_t>(quote) || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      appendHex(out, 'x', c, 2);
    } else if (c < 0x7f) {
      out += static_cast<char>(c);
    } else if (isPrintable(c)) {
      appendUtf8(out, c);
    } else if (c <= 0xff) {
      appendHex(out, 'x', c, 2);
    } else if (c <= 0xffff) {
      appendHex(out, 'u', c, 4);
    } else {
      appendHex(out, 'U', c, 8);
    }
  }
  out += quote;
}

void bytesRepr(std::string& out, std::string_view bytes) {
  bool hasSingle = bytes.find('\'') != std::string_view::npos;
  bool hasDouble = bytes.find('"') != std::string_view::npos;
  char quote = hasSingle && !hasDouble ? '"' : '\'';
  out += 'b';
  out += quote;
  for (char ch : bytes) {
    auto c = static_cast<unsigned char>(ch);
    if (c == static_cast<unsigned char>(quote) || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c >= 0x7f) {
      appendHex(out, 'x', c, 2);
    } else {
      out += ch;
    }
  }
  out += quote;
}

std::string_view operatorName(Operator op) {
  switch (op) {
    case Operator::Add: return "Add()";
    case Operator::Sub: return "Sub()";
    case Operator::Mult: return "Mult()";
    case Operator::MatMult: return "MatMult()";
    case Operator::Div: return "Div()";
    case Operator::Mod: return "Mod()";
    case Operator::Pow: return "Pow()";
    case Operator::LShift: return "LShift()";
    case Operator::RShift: return "RShift()";
    case Operator::BitOr: return "BitOr()";
    case Operator::BitXor: return "BitXor()";
    case Operator::BitAnd: return "BitAnd()";
    case Operator::FloorDiv: return "FloorDiv()";
  }
  return "";
}

std::string_view unaryName(UnaryOperator op) {
  switch (op) {
    case UnaryOperator::Invert: return "Invert()";
    case UnaryOperator::Not: return "Not()";
    case UnaryOperator::UAdd: return "UAdd()";
    case UnaryOperator::USub: return "USub()";
  }
  return "";
}

std::string_view compareName(CmpOperator op) {
  switch (op) {
    case CmpOperator::Eq: return "Eq()";
    case CmpOperator::NotEq: return "NotEq()";
    case CmpOperator::Lt: return "Lt()";
    case CmpOperator::LtE: return "LtE()";
    case CmpOperator::Gt: return "Gt()";
    case CmpOperator::GtE: return "GtE()";
    case CmpOperator::Is: return "Is()";
    case CmpOperator::IsNot: return "IsNot()";
    case CmpOperator::In: return "In()";
    case CmpOperator::NotIn: return "NotIn()";
  }
  return "";
}

std::string_view contextName(ExprContext context) {
  switch (context) {
    case ExprContext::Load: return "Load()";
    case ExprContext::Store: return "Store()";
    case ExprContext::Del: return "Del()";
  }
  return "";
}

// Writes nodes in ast.dump's syntax: `Name(field=value, ...)`.
class Dumper {
 public:
  explicit Dumper(bool positions) : positions_(positions) {}

  std::string out;

  void module(const Module& module) {
    out += "Module(body=";
    stmts(module.body);
    out += ", type_ignores=[])";
  }

 private:
  // Opens `Name(`; fields follow, each through field().
  void open(std::string_view name) {
    out += name;
    out += '(';
    first_ = true;
  }
  void field(std::string_view name) {
    if (!first_) out += ", ";
    first_ = false;
    out += name;
    out += '=';
  }
  void close(const Node* node) {
    if (positions_ && node != nullptr) {
      out += first_ ? "" : ", ";
      out += "lineno=" + std::to_string(node->loc.line) + ", col_offset=" + std::to_string(node->loc.column) +
             ", end_lineno=" + std::to_string(node->endLine) + ", end_col_offset=" + std::to_string(node->endColumn);
    }
    out += ')';
    first_ = false;
  }
  void string(std::string_view text) { strRepr(out, text); }
  void optional(std::string_view name, const Expr* expr) {
    if (expr == nullptr) return;
    field(name);
    this->expr(*expr);
  }
  void identifier(std::string_view name, std::string_view value) {
    field(name);
    string(value);
  }
  void integer(std::string_view name, long value) {
    field(name);
    out += std::to_string(value);
  }
  void raw(std::string_view name, std::string_view value) {
    field(name);
    out += value;
  }

  template <class T, class F>
  void list(std::string_view name, const std::vector<T>& items, F each) {
    field(name);
    out += '[';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += ", ";
      each(items[i]);
      first_ = false;
    }
    out += ']';
    first_ = false;
  }
  void stmts(const std::vector<Stmt*>& body) {
    out += '[';
    for (size_t i = 0; i < body.size(); ++i) {
      if (i > 0) out += ", ";
      stmt(*body[i]);
    }
    out += ']';
  }
  void stmtList(std::string_view name, const std::vector<Stmt*>& body) {
    field(name);
    stmts(body);
    first_ = false;
  }
  void exprList(std::string_view name, const std::vector<Expr*>& items) {
    list(name, items, [&](const Expr* e) {
      if (e == nullptr) out += "None";
      else expr(*e);
    });
  }
  void names(std::string_view name, const std::vector<std::string>& items) {
    list(name, items, [&](const std::string& s) { string(s); });
  }

  void arguments(const Arguments& a) {
    open("arguments");
    list("posonlyargs", a.posonlyargs, [&](const Arg* x) { arg(*x); });
    list("args", a.args, [&](const Arg* x) { arg(*x); });
    if (a.vararg != nullptr) {
      field("vararg");
      arg(*a.vararg);
    }
    list("kwonlyargs", a.kwonlyargs, [&](const Arg* x) { arg(*x); });
    exprList("kw_defaults", a.kwDefaults);
    if (a.kwarg != nullptr) {
      field("kwarg");
      arg(*a.kwarg);
    }
    exprList("defaults", a.defaults);
    close(nullptr);
  }
  void arg(const Arg& a) {
    open("arg");
    identifier("arg", a.arg);
    optional("annotation", a.annotation);
    close(&a);
  }
  void keyword(const Keyword& k) {
    open("keyword");
    if (k.hasArg) identifier("arg", k.arg);
    field("value");
    expr(*k.value);
    close(&k);
  }
  void alias(const Alias& a) {
    open("alias");
    identifier("name", a.name);
    if (a.hasAsname) identifier("asname", a.asname);
    close(&a);
  }
  void comprehensions(const std::vector<Comprehension*>& generators) {
    list("generators", generators, [&](const Comprehension* c) {
      open("comprehension");
      field("target");
      expr(*c->target);
      field("iter");
      expr(*c->iter);
      exprList("ifs", c->ifs);
      integer("is_async", c->isAsync ? 1 : 0);
      close(nullptr);
    });
  }
  void body(const Expr& e) {
    field("value");
    expr(e);
  }
  void functionDef(const FunctionDefStmt& s, std::string_view name) {
    open(name);
    identifier("name", s.name);
    field("args");
    arguments(*s.args);
    stmtList("body", s.body);
    exprList("decorator_list", s.decoratorList);
    optional("returns", s.returns);
    close(&s);
  }
  void forStmt(const ForStmt& s, std::string_view name) {
    open(name);
    field("target");
    expr(*s.target);
    field("iter");
    expr(*s.iter);
    stmtList("body", s.body);
    stmtList("orelse", s.orelse);
    close(&s);
  }
  void withStmt(const WithStmt& s, std::string_view name) {
    open(name);
    list("items", s.items, [&](const WithItem* item) {
      open("withitem");
      field("context_expr");
      expr(*item->contextExpr);
      optional("optional_vars", item->optionalVars);
      close(nullptr);
    });
    stmtList("body", s.body);
    close(&s);
  }
  void tryStmt(const TryStmt& s, std::string_view name) {
    open(name);
    stmtList("body", s.body);
    list("handlers", s.handlers, [&](const ExceptHandler* h) {
      open("ExceptHandler");
      optional("type", h->type);
      if (h->hasName) identifier("name", h->name);
      stmtList("body", h->body);
      close(h);
    });
    stmtList("orelse", s.orelse);
    stmtList("finalbody", s.finalbody);
    close(&s);
  }

  void stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::FunctionDef: functionDef(as<FunctionDefStmt>(s), "FunctionDef"); return;
      case StmtKind::AsyncFunctionDef: functionDef(as<FunctionDefStmt>(s), "AsyncFunctionDef"); return;
      case StmtKind::ClassDef: {
        const auto& c = as<ClassDefStmt>(s);
        open("ClassDef");
        identifier("name", c.name);
        exprList("bases", c.bases);
        list("keywords", c.keywords, [&](const Keyword* k) { keyword(*k); });
        stmtList("body", c.body);
        exprList("decorator_list", c.decoratorList);
        close(&s);
        return;
      }
      case StmtKind::Return:
        open("Return");
        optional("value", as<ReturnStmt>(s).value);
        close(&s);
        return;
      case StmtKind::Delete:
        open("Delete");
        exprList("targets", as<DeleteStmt>(s).targets);
        close(&s);
        return;
      case StmtKind::Assign:
        open("Assign");
        exprList("targets", as<AssignStmt>(s).targets);
        body(*as<AssignStmt>(s).value);
        close(&s);
        return;
      case StmtKind::AugAssign: {
        const auto& a = as<AugAssignStmt>(s);
        open("AugAssign");
        field("target");
        expr(*a.target);
        raw("op", operatorName(a.op));
        body(*a.value);
        close(&s);
        return;
      }
      case StmtKind::AnnAssign: {
        const auto& a = as<AnnAssignStmt>(s);
        open("AnnAssign");
        field("target");
        expr(*a.target);
        field("annotation");
        expr(*a.annotation);
        optional("value", a.value);
        integer("simple", a.simple ? 1 : 0);
        close(&s);
        return;
      }
      case StmtKind::For: forStmt(as<ForStmt>(s), "For"); return;
      case StmtKind::AsyncFor: forStmt(as<ForStmt>(s), "AsyncFor"); return;
      case StmtKind::While:
      case StmtKind::If: {
        bool isWhile = s.kind == StmtKind::While;
        open(isWhile ? "While" : "If");
        field("test");
        expr(isWhile ? *as<WhileStmt>(s).test : *as<IfStmt>(s).test);
        stmtList("body", isWhile ? as<WhileStmt>(s).body : as<IfStmt>(s).body);
        stmtList("orelse", isWhile ? as<WhileStmt>(s).orelse : as<IfStmt>(s).orelse);
        close(&s);
        return;
      }
      case StmtKind::With: withStmt(as<WithStmt>(s), "With"); return;
      case StmtKind::AsyncWith: withStmt(as<WithStmt>(s), "AsyncWith"); return;
      case StmtKind::Raise:
        open("Raise");
        optional("exc", as<RaiseStmt>(s).exc);
        optional("cause", as<RaiseStmt>(s).cause);
        close(&s);
        return;
      case StmtKind::Try: tryStmt(as<TryStmt>(s), "Try"); return;
      case StmtKind::TryStar: tryStmt(as<TryStmt>(s), "TryStar"); return;
      case StmtKind::Assert:
        open("Assert");
        field("test");
        expr(*as<AssertStmt>(s).test);
        optional("msg", as<AssertStmt>(s).msg);
        close(&s);
        return;
      case StmtKind::Import:
        open("Import");
        list("names", as<ImportStmt>(s).names, [&](const Alias* a) { alias(*a); });
        close(&s);
        return;
      case StmtKind::ImportFrom: {
        const auto& i = as<ImportFromStmt>(s);
        open("ImportFrom");
        if (i.hasModule) identifier("module", i.module);
        list("names", i.names, [&](const Alias* a) { alias(*a); });
        integer("level", i.level);
        close(&s);
        return;
      }
      case StmtKind::Global:
        open("Global");
        names("names", as<GlobalStmt>(s).names);
        close(&s);
        return;
      case StmtKind::Nonlocal:
        open("Nonlocal");
        names("names", as<NonlocalStmt>(s).names);
        close(&s);
        return;
      case StmtKind::Expr:
        open("Expr");
        body(*as<ExprStmt>(s).value);
        close(&s);
        return;
      case StmtKind::Pass: open("Pass"); close(&s); return;
      case StmtKind::Break: open("Break"); close(&s); return;
      case StmtKind::Continue: open("Continue"); close(&s); return;
    }
  }

  void constant(const ConstantValue& v) {
    switch (v.kind) {
      case ConstantValue::Kind::None: out += "None"; return;
      case ConstantValue::Kind::Bool: out += v.boolValue ? "True" : "False"; return;
      case ConstantValue::Kind::Ellipsis: out += "Ellipsis"; return;
      case ConstantValue::Kind::Int: out += v.intDigits; return;
      case ConstantValue::Kind::Float: out += floatRepr(v.floatValue, true); return;
      case ConstantValue::Kind::Complex: out += floatRepr(v.floatValue, false) + "j"; return;
      case ConstantValue::Kind::Str: strRepr(out, v.bytes); return;
      case ConstantValue::Kind::Bytes: bytesRepr(out, v.bytes); return;
    }
  }

  void comprehensionExpr(const ListCompExpr& e, std::string_view name) {
    open(name);
    field("elt");
    expr(*e.elt);
    comprehensions(e.generators);
    close(&e);
  }

  void expr(const Expr& e) {
    switch (e.kind) {
      case ExprKind::BoolOp: {
        const auto& b = as<BoolOpExpr>(e);
        open("BoolOp");
        raw("op", b.op == BoolOperator::And ? "And()" : "Or()");
        exprList("values", b.values);
        close(&e);
        return;
      }
      case ExprKind::NamedExpr:
        open("NamedExpr");
        field("target");
        expr(*as<NamedExprExpr>(e).target);
        body(*as<NamedExprExpr>(e).value);
        close(&e);
        return;
      case ExprKind::BinOp: {
        const auto& b = as<BinOpExpr>(e);
        open("BinOp");
        field("left");
        expr(*b.left);
        raw("op", operatorName(b.op));
        field("right");
        expr(*b.right);
        close(&e);
        return;
      }
      case ExprKind::UnaryOp:
        open("UnaryOp");
        raw("op", unaryName(as<UnaryOpExpr>(e).op));
        field("operand");
        expr(*as<UnaryOpExpr>(e).operand);
        close(&e);
        return;
      case ExprKind::Lambda:
        open("Lambda");
        field("args");
        arguments(*as<LambdaExpr>(e).args);
        field("body");
        expr(*as<LambdaExpr>(e).body);
        close(&e);
        return;
      case ExprKind::IfExp: {
        const auto& i = as<IfExpExpr>(e);
        open("IfExp");
        field("test");
        expr(*i.test);
        field("body");
        expr(*i.body);
        field("orelse");
        expr(*i.orelse);
        close(&e);
        return;
      }
      case ExprKind::Dict:
        open("Dict");
        exprList("keys", as<DictExpr>(e).keys);
        exprList("values", as<DictExpr>(e).values);
        close(&e);
        return;
      case ExprKind::Set:
        open("Set");
        exprList("elts", as<SetExpr>(e).elts);
        close(&e);
        return;
      case ExprKind::ListComp: comprehensionExpr(as<ListCompExpr>(e), "ListComp"); return;
      case ExprKind::SetComp: comprehensionExpr(as<ListCompExpr>(e), "SetComp"); return;
      case ExprKind::GeneratorExp: comprehensionExpr(as<ListCompExpr>(e), "GeneratorExp"); return;
      case ExprKind::DictComp: {
        const auto& d = as<DictCompExpr>(e);
        open("DictComp");
        field("key");
        expr(*d.key);
        field("value");
        expr(*d.value);
        comprehensions(d.generators);
        close(&e);
        return;
      }
      case ExprKind::Await:
        open("Await");
        body(*as<AwaitExpr>(e).value);
        close(&e);
        return;
      case ExprKind::Yield:
        open("Yield");
        optional("value", as<YieldExpr>(e).value);
        close(&e);
        return;
      case ExprKind::YieldFrom:
        open("YieldFrom");
        body(*as<YieldFromExpr>(e).value);
        close(&e);
        return;
      case ExprKind::Compare: {
        const auto& c = as<CompareExpr>(e);
        open("Compare");
        field("left");
        expr(*c.left);
        list("ops", c.ops, [&](CmpOperator op) { out += compareName(op); });
        exprList("comparators", c.comparators);
        close(&e);
        return;
      }
      case ExprKind::Call: {
        const auto& c = as<CallExpr>(e);
        open("Call");
        field("func");
        expr(*c.func);
        exprList("args", c.args);
        list("keywords", c.keywords, [&](const Keyword* k) { keyword(*k); });
        close(&e);
        return;
      }
      case ExprKind::FormattedValue: {
        const auto& f = as<FormattedValueExpr>(e);
        open("FormattedValue");
        body(*f.value);
        integer("conversion", f.conversion);
        optional("format_spec", f.formatSpec);
        close(&e);
        return;
      }
      case ExprKind::JoinedStr:
        open("JoinedStr");
        exprList("values", as<JoinedStrExpr>(e).values);
        close(&e);
        return;
      case ExprKind::Constant: {
        const auto& c = as<ConstantExpr>(e);
        open("Constant");
        field("value");
        constant(c.value);
        if (c.kindU) raw("kind", "'u'");
        close(&e);
        return;
      }
      case ExprKind::Attribute: {
        const auto& a = as<AttributeExpr>(e);
        open("Attribute");
        body(*a.value);
        identifier("attr", a.attr);
        raw("ctx", contextName(a.ctx));
        close(&e);
        return;
      }
      case ExprKind::Subscript: {
        const auto& s = as<SubscriptExpr>(e);
        open("Subscript");
        body(*s.value);
        field("slice");
        expr(*s.slice);
        raw("ctx", contextName(s.ctx));
        close(&e);
        return;
      }
      case ExprKind::Starred:
        open("Starred");
        body(*as<StarredExpr>(e).value);
        raw("ctx", contextName(as<StarredExpr>(e).ctx));
        close(&e);
        return;
      case ExprKind::Name:
        open("Name");
        identifier("id", as<NameExpr>(e).id);
        raw("ctx", contextName(as<NameExpr>(e).ctx));
        close(&e);
        return;
      case ExprKind::List:
      case ExprKind::Tuple:
        open(e.kind == ExprKind::List ? "List" : "Tuple");
        exprList("elts", as<ListExpr>(e).elts);
        raw("ctx", contextName(as<ListExpr>(e).ctx));
        close(&e);
        return;
      case ExprKind::Slice: {
        const auto& s = as<SliceExpr>(e);
        open("Slice");
        optional("lower", s.lower);
        optional("upper", s.upper);
        optional("step", s.step);
        close(&e);
        return;
      }
    }
  }

  bool positions_;
  bool first_ = true;
};

}  // namespace

std::string dumpAst(const Module& module) { return dumpAst(module, false); }

std::string dumpAst(const Module& module, bool includeAttributes) {
  Dumper dumper(includeAttributes);
  dumper.module(module);
  return std::move(dumper.out);
}

}  // namespace weft::syntax
