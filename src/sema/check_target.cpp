// Target specialization: `if target(desc):` with TargetDescription values built from
// is_host, is_device, any_target, no_target, is_exactly(smXX), provides(smXX), | & ~.
// A description is a TargetSet (targets.h): the host and GPU targets it holds, as values of
// __CUDA_ARCH__ per feature set (sm_90, sm_100f, sm_90a). The if statement keeps both branches
// type-checked and carries the preprocessor condition that each lowering evaluates, so one
// front-end pass serves the host and every GPU target.
#include "sema/checker.h"
#include "sema/targets.h"

namespace weft::sema {

namespace {

// Descriptions travel in Value::constant as their encoded text (TargetSet::encoded).
Value description(const TargetSet& set, std::string name) {
  Value v;
  v.kind = Value::Kind::Intrinsic;
  v.intrinsic = Intrinsic::TargetDescription;
  v.constant = ConstValue{};
  v.constant->kind = ConstValue::Kind::Str;
  v.constant->strValue = set.encoded();
  v.name = std::move(name);
  return v;
}

std::optional<TargetSet> descriptionOf(const Value& v) {
  if (v.kind != Value::Kind::Intrinsic || v.intrinsic != Intrinsic::TargetDescription || !v.constant) return std::nullopt;
  return TargetSet::decode(v.constant->strValue);
}

// Reports unless `call` has exactly one positional argument and no keywords.
bool oneArgument(FunctionChecker& checker, const std::string& what, const syntax::CallExpr& call) {
  if (!call.keywords.empty()) {
    checker.sink.error(diag::KeywordArgument, call.keywords.front()->loc, {what, call.keywords.front()->arg});
    return false;
  }
  if (call.args.size() != 1 || call.args[0]->kind == syntax::ExprKind::Starred) {
    checker.sink.error(diag::ArgumentCount, call.loc, {what, "1 argument", std::to_string(call.args.size())});
    return false;
  }
  return true;
}

bool isTargetCall(FunctionChecker& checker, const syntax::Expr& e) {
  if (e.kind != syntax::ExprKind::Call) return false;
  Value callee = checker.peekEntity(*syntax::as<syntax::CallExpr>(e).func);
  return callee.kind == Value::Kind::Intrinsic && callee.intrinsic == Intrinsic::Target;
}

// Whether `e` calls device.target somewhere (then the if is a target specialization).
bool mentionsTarget(FunctionChecker& checker, const syntax::Expr& e) {
  if (isTargetCall(checker, e)) return true;
  switch (e.kind) {
    case syntax::ExprKind::BoolOp:
      for (const syntax::Expr* operand : syntax::as<syntax::BoolOpExpr>(e).values)
        if (mentionsTarget(checker, *operand)) return true;
      return false;
    case syntax::ExprKind::UnaryOp: return mentionsTarget(checker, *syntax::as<syntax::UnaryOpExpr>(e).operand);
    case syntax::ExprKind::BinOp: {
      const auto& b = syntax::as<syntax::BinOpExpr>(e);
      return mentionsTarget(checker, *b.left) || mentionsTarget(checker, *b.right);
    }
    case syntax::ExprKind::Compare: {
      const auto& c = syntax::as<syntax::CompareExpr>(e);
      if (mentionsTarget(checker, *c.left)) return true;
      for (const syntax::Expr* operand : c.comparators)
        if (mentionsTarget(checker, *operand)) return true;
      return false;
    }
    case syntax::ExprKind::IfExp: {
      const auto& i = syntax::as<syntax::IfExpExpr>(e);
      return mentionsTarget(checker, *i.test) || mentionsTarget(checker, *i.body) || mentionsTarget(checker, *i.orelse);
    }
    default: return false;
  }
}

// Evaluates a TargetDescription expression; nullopt after reporting.
std::optional<TargetSet> evaluateDescription(FunctionChecker& checker, const syntax::Expr& e) {
  if (e.kind == syntax::ExprKind::BinOp) {
    const auto& b = syntax::as<syntax::BinOpExpr>(e);
    if (b.op == syntax::Operator::BitOr || b.op == syntax::Operator::BitAnd) {
      auto left = evaluateDescription(checker, *b.left);
      auto right = evaluateDescription(checker, *b.right);
      if (!left || !right) return std::nullopt;
      return b.op == syntax::Operator::BitOr ? *left | *right : *left & *right;
    }
  }
  if (e.kind == syntax::ExprKind::UnaryOp) {
    const auto& u = syntax::as<syntax::UnaryOpExpr>(e);
    if (u.op == syntax::UnaryOperator::Invert) {
      auto operand = evaluateDescription(checker, *u.operand);
      if (!operand) return std::nullopt;
      return ~*operand;
    }
  }
  Value v = e.kind == syntax::ExprKind::Name || e.kind == syntax::ExprKind::Attribute || e.kind == syntax::ExprKind::Call
                ? checker.expr(e)
                : checker.errorValue();
  if (v.kind == Value::Kind::Error && (e.kind == syntax::ExprKind::Name || e.kind == syntax::ExprKind::Attribute ||
                                       e.kind == syntax::ExprKind::Call))
    return std::nullopt;  // reported
  if (std::optional<TargetSet> set = descriptionOf(v)) return set;
  checker.sink.error(diag::TargetDescriptionExpected, e.loc,
                     {v.kind == Value::Kind::Error ? std::string("this expression") : checker.describe(v)});
  return std::nullopt;
}

// Evaluates the condition of a target if; nullopt after reporting.
std::optional<TargetSet> evaluateCondition(FunctionChecker& checker, const syntax::Expr& e) {
  if (isTargetCall(checker, e)) {
    const auto& call = syntax::as<syntax::CallExpr>(e);
    if (!oneArgument(checker, "device.target()", call)) return std::nullopt;
    return evaluateDescription(checker, *call.args[0]);
  }
  if (e.kind == syntax::ExprKind::BoolOp) {
    const auto& b = syntax::as<syntax::BoolOpExpr>(e);
    std::optional<TargetSet> result;
    bool failed = false;
    for (const syntax::Expr* operand : b.values) {
      auto value = evaluateCondition(checker, *operand);
      if (!value) {
        failed = true;
        continue;
      }
      result = !result ? *value : b.op == syntax::BoolOperator::And ? *result & *value : *result | *value;
    }
    if (failed) return std::nullopt;
    return result;
  }
  if (e.kind == syntax::ExprKind::UnaryOp && syntax::as<syntax::UnaryOpExpr>(e).op == syntax::UnaryOperator::Not) {
    auto operand = evaluateCondition(checker, *syntax::as<syntax::UnaryOpExpr>(e).operand);
    if (!operand) return std::nullopt;
    return ~*operand;
  }
  if (!mentionsTarget(checker, e)) {
    Value v = checker.expr(e);
    if (v.isError()) return std::nullopt;
    if (v.kind == Value::Kind::RunTime && v.constant && isNumber(*v.constant))
      return truthOf(*v.constant) ? TargetSet::all() : TargetSet::none();
  }
  checker.sink.error(diag::TargetConditionNotConstant, e.loc);
  return std::nullopt;
}

}  // namespace

Value resolveTargetEntity(std::string_view member) {
  if (member == "is_host") return description(TargetSet::host(), "device.is_host");
  if (member == "is_device") return description(TargetSet::device(), "device.is_device");
  if (member == "any_target") return description(TargetSet::all(), "device.any_target");
  if (member == "no_target") return description(TargetSet::none(), "device.no_target");
  if (std::optional<TargetSet> set = TargetSet::decode(member)) return description(*set, "TargetDescription " + set->condition());
  if (std::optional<GpuTarget> target = parseTarget(member, "sm"); target && isKnownTarget(*target)) {
    Value v;
    v.kind = Value::Kind::Intrinsic;
    v.intrinsic = Intrinsic::SMSelector;
    v.constant = ConstValue{};
    v.constant->kind = ConstValue::Kind::Str;
    v.constant->strValue = std::string(member);
    v.name = "device." + std::string(member);
    return v;
  }
  return {};
}

Value targetSelectorCall(FunctionChecker& checker, const Value& callee, const syntax::CallExpr& e) {
  if (callee.intrinsic == Intrinsic::Target) {
    checker.sink.error(diag::TargetOutsideIf, e.loc);
    return checker.errorValue();
  }
  std::string what = callee.name + "()";
  if (!oneArgument(checker, what, e)) return checker.errorValue();
  Value sm = checker.expr(*e.args[0]);
  if (sm.kind == Value::Kind::Error) return sm;
  if (sm.kind != Value::Kind::Intrinsic || sm.intrinsic != Intrinsic::SMSelector || !sm.constant) {
    checker.sink.error(diag::SMSelectorExpected, e.args[0]->loc, {what, checker.describe(sm)});
    return checker.errorValue();
  }
  GpuTarget target = parseTarget(sm.constant->strValue, "sm").value();
  TargetSet set = callee.intrinsic == Intrinsic::IsExactly ? TargetSet::exactly(target) : TargetSet::provides(target);
  return description(set, what.substr(0, what.size() - 2) + "(" + sm.name + ")");
}

bool checkTargetIf(FunctionChecker& checker, const syntax::IfStmt& s) {
  if (!mentionsTarget(checker, *s.test)) return false;
  std::optional<TargetSet> condition = evaluateCondition(checker, *s.test);
  // Both branches are type-checked whatever the condition: each lowering keeps one of them.
  std::vector<TypedStmt*> body, orelse;
  checker.block(s.body, body);
  checker.block(s.orelse, orelse);
  if (!condition) return true;
  TypedStmt* branch = checker.emit(TypedStmtKind::If, s.loc);
  branch->targetCondition = condition->condition();
  branch->targetIncludesHost = condition->includesHost();
  branch->targetFeatures = condition->distinguishedFeatures();
  branch->body = std::move(body);
  branch->orelse = std::move(orelse);
  return true;
}

}  // namespace weft::sema
