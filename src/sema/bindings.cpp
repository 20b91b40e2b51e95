// The names a statement binds, by Python's scoping rule (a name bound anywhere in a function
// is local to it): the prescan makes them locals, and a statement that reported an error leaves
// them without a value, so that their later uses stay silent (one mistake, one message).
#include "sema/checker.h"

namespace weft::sema {

namespace {

using Visit = std::function<void(const std::string& name, SourceLoc loc, bool repeated)>;

// Calls `visit` for each direct sub-expression of `e` (not inside lambdas, whose names are
// their own).
void forEachChild(const syntax::Expr& e, const std::function<void(const syntax::Expr&)>& visit) {
  using K = syntax::ExprKind;
  auto each = [&](const std::vector<syntax::Expr*>& list) {
    for (const syntax::Expr* child : list) {
      if (child != nullptr) visit(*child);
    }
  };
  auto comprehensions = [&](const std::vector<syntax::Comprehension*>& generators) {
    for (const syntax::Comprehension* generator : generators) {
      visit(*generator->iter);
      each(generator->ifs);
    }
  };
  switch (e.kind) {
    case K::BoolOp: each(syntax::as<syntax::BoolOpExpr>(e).values); return;
    case K::NamedExpr: visit(*syntax::as<syntax::NamedExprExpr>(e).value); return;
    case K::BinOp:
      visit(*syntax::as<syntax::BinOpExpr>(e).left);
      visit(*syntax::as<syntax::BinOpExpr>(e).right);
      return;
    case K::UnaryOp: visit(*syntax::as<syntax::UnaryOpExpr>(e).operand); return;
    case K::Lambda: return;
    case K::IfExp: {
      const auto& i = syntax::as<syntax::IfExpExpr>(e);
      each({i.test, i.body, i.orelse});
      return;
    }
    case K::Dict:
      each(syntax::as<syntax::DictExpr>(e).keys);
      each(syntax::as<syntax::DictExpr>(e).values);
      return;
    case K::Set: each(syntax::as<syntax::SetExpr>(e).elts); return;
    case K::ListComp:
    case K::SetComp:
    case K::GeneratorExp:
      visit(*syntax::as<syntax::ListCompExpr>(e).elt);
      comprehensions(syntax::as<syntax::ListCompExpr>(e).generators);
      return;
    case K::DictComp: {
      const auto& d = syntax::as<syntax::DictCompExpr>(e);
      each({d.key, d.value});
      comprehensions(d.generators);
      return;
    }
    case K::Await: visit(*syntax::as<syntax::AwaitExpr>(e).value); return;
    case K::Yield: each({syntax::as<syntax::YieldExpr>(e).value}); return;
    case K::YieldFrom: visit(*syntax::as<syntax::YieldFromExpr>(e).value); return;
    case K::Compare:
      visit(*syntax::as<syntax::CompareExpr>(e).left);
      each(syntax::as<syntax::CompareExpr>(e).comparators);
      return;
    case K::Call: {
      const auto& c = syntax::as<syntax::CallExpr>(e);
      visit(*c.func);
      each(c.args);
      for (const syntax::Keyword* keyword : c.keywords) visit(*keyword->value);
      return;
    }
    case K::FormattedValue:
      each({syntax::as<syntax::FormattedValueExpr>(e).value,
            syntax::as<syntax::FormattedValueExpr>(e).formatSpec});
      return;
    case K::JoinedStr: each(syntax::as<syntax::JoinedStrExpr>(e).values); return;
    case K::Attribute: visit(*syntax::as<syntax::AttributeExpr>(e).value); return;
    case K::Subscript:
      visit(*syntax::as<syntax::SubscriptExpr>(e).value);
      visit(*syntax::as<syntax::SubscriptExpr>(e).slice);
      return;
    case K::Starred: visit(*syntax::as<syntax::StarredExpr>(e).value); return;
    case K::List:
    case K::Tuple: each(syntax::as<syntax::ListExpr>(e).elts); return;
    case K::Slice: {
      const auto& s = syntax::as<syntax::SliceExpr>(e);
      each({s.lower, s.upper, s.step});
      return;
    }
    case K::Constant:
    case K::Name: return;
  }
}

// The targets of `:=` in `e`.
void walrusTargets(const syntax::Expr* e, const Visit& visit) {
  if (e == nullptr) return;
  if (e->kind == syntax::ExprKind::NamedExpr) {
    const syntax::Expr& target = *syntax::as<syntax::NamedExprExpr>(*e).target;
    visit(syntax::as<syntax::NameExpr>(target).id, target.loc, false);
  }
  forEachChild(*e, [&](const syntax::Expr& child) { walrusTargets(&child, visit); });
}

// The names an assignment target binds (`a`, `a, (b, *c)`; not `a[i]` or `a.x`).
void targetNames(const syntax::Expr& target, bool repeated, const Visit& visit) {
  if (target.kind == syntax::ExprKind::Name) {
    visit(syntax::as<syntax::NameExpr>(target).id, target.loc, repeated);
  } else if (target.kind == syntax::ExprKind::Tuple || target.kind == syntax::ExprKind::List) {
    for (const syntax::Expr* element : syntax::as<syntax::ListExpr>(target).elts)
      targetNames(*element, repeated, visit);
  } else if (target.kind == syntax::ExprKind::Starred) {
    targetNames(*syntax::as<syntax::StarredExpr>(target).value, repeated, visit);
  } else {
    walrusTargets(&target, visit);  // a[i := 0] = x
  }
}

void bodyBindings(const std::vector<syntax::Stmt*>& body, bool deep, const Visit& visit) {
  for (const syntax::Stmt* s : body) forEachBinding(*s, deep, visit);
}

}  // namespace

void forEachBinding(const syntax::Stmt& s, bool deep, const Visit& visit) {
  using K = syntax::StmtKind;
  switch (s.kind) {
    case K::Assign: {
      const auto& a = syntax::as<syntax::AssignStmt>(s);
      for (const syntax::Expr* target : a.targets) targetNames(*target, false, visit);
      walrusTargets(a.value, visit);
      return;
    }
    case K::AugAssign:
      targetNames(*syntax::as<syntax::AugAssignStmt>(s).target, true, visit);
      walrusTargets(syntax::as<syntax::AugAssignStmt>(s).value, visit);
      return;
    case K::AnnAssign: {
      const auto& a = syntax::as<syntax::AnnAssignStmt>(s);
      if (a.value != nullptr) targetNames(*a.target, false, visit);
      walrusTargets(a.value, visit);
      return;
    }
    case K::For:
    case K::AsyncFor: {
      const auto& f = syntax::as<syntax::ForStmt>(s);
      targetNames(*f.target, true, visit);
      walrusTargets(f.iter, visit);
      if (deep || s.kind == K::AsyncFor) {
        bodyBindings(f.body, true, visit);
        bodyBindings(f.orelse, true, visit);
      }
      return;
    }
    case K::While:
      walrusTargets(syntax::as<syntax::WhileStmt>(s).test, visit);
      if (deep) {
        bodyBindings(syntax::as<syntax::WhileStmt>(s).body, true, visit);
        bodyBindings(syntax::as<syntax::WhileStmt>(s).orelse, true, visit);
      }
      return;
    case K::If:
      walrusTargets(syntax::as<syntax::IfStmt>(s).test, visit);
      if (deep) {
        bodyBindings(syntax::as<syntax::IfStmt>(s).body, true, visit);
        bodyBindings(syntax::as<syntax::IfStmt>(s).orelse, true, visit);
      }
      return;
    // Statements sema rejects whole: their bodies are never checked, so what they bind belongs
    // to the statement itself.
    case K::With:
    case K::AsyncWith: {
      const auto& w = syntax::as<syntax::WithStmt>(s);
      for (const syntax::WithItem* item : w.items) {
        walrusTargets(item->contextExpr, visit);
        if (item->optionalVars != nullptr) targetNames(*item->optionalVars, false, visit);
      }
      bodyBindings(w.body, true, visit);
      return;
    }
    case K::Try:
    case K::TryStar: {
      const auto& t = syntax::as<syntax::TryStmt>(s);
      bodyBindings(t.body, true, visit);
      for (const syntax::ExceptHandler* handler : t.handlers) {
        if (handler->hasName) visit(handler->name, handler->loc, false);
        bodyBindings(handler->body, true, visit);
      }
      bodyBindings(t.orelse, true, visit);
      bodyBindings(t.finalbody, true, visit);
      return;
    }
    case K::FunctionDef:
    case K::AsyncFunctionDef: visit(syntax::as<syntax::FunctionDefStmt>(s).name, s.loc, false); return;
    case K::ClassDef: visit(syntax::as<syntax::ClassDefStmt>(s).name, s.loc, false); return;
    case K::Import:
    case K::ImportFrom: {
      const auto& names = s.kind == K::Import ? syntax::as<syntax::ImportStmt>(s).names
                                              : syntax::as<syntax::ImportFromStmt>(s).names;
      for (const syntax::Alias* alias : names) {
        if (alias->name == "*") continue;
        visit(alias->hasAsname ? alias->asname : alias->name.substr(0, alias->name.find('.')), s.loc, false);
      }
      return;
    }
    case K::Return: walrusTargets(syntax::as<syntax::ReturnStmt>(s).value, visit); return;
    case K::Delete:
      for (const syntax::Expr* target : syntax::as<syntax::DeleteStmt>(s).targets)
        walrusTargets(target, visit);
      return;
    case K::Raise:
      walrusTargets(syntax::as<syntax::RaiseStmt>(s).exc, visit);
      walrusTargets(syntax::as<syntax::RaiseStmt>(s).cause, visit);
      return;
    case K::Assert:
      walrusTargets(syntax::as<syntax::AssertStmt>(s).test, visit);
      walrusTargets(syntax::as<syntax::AssertStmt>(s).msg, visit);
      return;
    case K::Expr: walrusTargets(syntax::as<syntax::ExprStmt>(s).value, visit); return;
    case K::Global:
    case K::Nonlocal:
    case K::Pass:
    case K::Break:
    case K::Continue: return;
  }
}

}  // namespace weft::sema
