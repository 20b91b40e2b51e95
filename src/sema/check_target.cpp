// Target specialization: `if target(desc):` with TargetDescription values built from
// is_host, is_device, any_target, no_target, is_exactly(smXX), provides(smXX), | & ~.
// A description is a set of values of __CUDA_ARCH__ (0 stands for the host, where the macro
// is undefined and the preprocessor reads it as 0); the if statement keeps both branches
// type-checked and carries the preprocessor condition that each lowering evaluates, so one
// front-end pass serves the host and every GPU architecture.
#include <algorithm>
#include <charconv>
#include <limits>

#include "sema/checker.h"

namespace weft::sema {

namespace {

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

// The architectures CUDA 13.0's NVRTC supports (nvrtcGetSupportedArchs), as XY of sm_XY.
constexpr int kArchitectures[] = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};

// A set of __CUDA_ARCH__ values: sorted, disjoint, non-adjacent inclusive intervals.
using Intervals = std::vector<std::pair<int64_t, int64_t>>;

Intervals normalized(Intervals intervals) {
  std::sort(intervals.begin(), intervals.end());
  Intervals result;
  for (const auto& [lo, hi] : intervals) {
    if (lo > hi) continue;
    if (!result.empty() && (result.back().second == kUnbounded || lo <= result.back().second + 1)) {
      result.back().second = std::max(result.back().second, hi);
    } else {
      result.emplace_back(lo, hi);
    }
  }
  return result;
}

Intervals unite(const Intervals& a, const Intervals& b) {
  Intervals all = a;
  all.insert(all.end(), b.begin(), b.end());
  return normalized(std::move(all));
}

Intervals complement(const Intervals& a) {
  Intervals result;
  int64_t next = 0;
  for (const auto& [lo, hi] : a) {
    if (lo > next) result.emplace_back(next, lo - 1);
    if (hi == kUnbounded) return result;
    next = hi + 1;
  }
  result.emplace_back(next, kUnbounded);
  return result;
}

Intervals intersect(const Intervals& a, const Intervals& b) { return complement(unite(complement(a), complement(b))); }

// Descriptions travel in Value::constant as a tuple of (lo, hi) int pairs.
ConstValue encode(const Intervals& intervals) {
  ConstValue tuple;
  tuple.kind = ConstValue::Kind::Tuple;
  for (const auto& [lo, hi] : intervals) {
    ConstValue pair;
    pair.kind = ConstValue::Kind::Tuple;
    for (int64_t bound : {lo, hi}) {
      ConstValue v;
      v.kind = ConstValue::Kind::Int;
      v.intValue = bound;
      pair.elements.push_back(v);
    }
    tuple.elements.push_back(pair);
  }
  return tuple;
}

Intervals decode(const ConstValue& tuple) {
  Intervals intervals;
  for (const ConstValue& pair : tuple.elements) intervals.emplace_back(pair.elements[0].intValue, pair.elements[1].intValue);
  return intervals;
}

Value description(const Intervals& intervals, std::string name) {
  Value v;
  v.kind = Value::Kind::Intrinsic;
  v.intrinsic = Intrinsic::TargetDescription;
  v.constant = encode(normalized(intervals));
  v.name = std::move(name);
  return v;
}

bool isDescription(const Value& v) {
  return v.kind == Value::Kind::Intrinsic && v.intrinsic == Intrinsic::TargetDescription && v.constant;
}

// `<targets 0-0 900-max>`: how the host names a computed TargetDescription (its __weft_name__).
std::optional<Intervals> parseEncoded(std::string_view member) {
  constexpr std::string_view prefix = "<targets";
  if (!member.starts_with(prefix) || !member.ends_with(">")) return std::nullopt;
  std::string_view rest = member.substr(prefix.size(), member.size() - prefix.size() - 1);
  Intervals intervals;
  while (!rest.empty()) {
    if (rest.front() != ' ') return std::nullopt;
    rest.remove_prefix(1);
    size_t dash = rest.find('-');
    size_t end = std::min(rest.find(' '), rest.size());
    if (dash == std::string_view::npos || dash > end) return std::nullopt;
    auto number = [](std::string_view text, int64_t& out) {
      if (text == "max") {
        out = kUnbounded;
        return true;
      }
      auto [ptr, error] = std::from_chars(text.data(), text.data() + text.size(), out);
      return error == std::errc() && ptr == text.data() + text.size() && out >= 0;
    };
    int64_t lo = 0, hi = 0;
    if (!number(rest.substr(0, dash), lo) || !number(rest.substr(dash + 1, end - dash - 1), hi)) return std::nullopt;
    intervals.emplace_back(lo, hi);
    rest.remove_prefix(end);
  }
  return intervals;
}

// One interval as a preprocessor test, in the specification's spelling where it has one.
std::string renderInterval(int64_t lo, int64_t hi) {
  const std::string arch = "__CUDA_ARCH__";
  if (lo == 0 && hi == 0) return "!" + arch;
  if (lo == hi) return arch + " == " + std::to_string(lo);
  if (lo == 1 && hi == kUnbounded) return arch;
  std::string lower = lo % 10 == 0 ? arch + " >= " + std::to_string(lo) : arch + " > " + std::to_string(lo - 1);
  if (hi == kUnbounded) return lower;  // before hi + 1 below, which would overflow
  std::string upper = hi % 10 == 0 ? arch + " <= " + std::to_string(hi) : arch + " < " + std::to_string(hi + 1);
  if (lo == 0) return upper;
  return "(" + lower + " && " + upper + ")";
}

std::string render(const Intervals& intervals) {
  if (intervals.empty()) return "0";
  if (intervals.size() == 1 && intervals[0].first == 0 && intervals[0].second == kUnbounded) return "1";
  std::string text;
  for (const auto& [lo, hi] : intervals) text += (text.empty() ? "" : " || ") + renderInterval(lo, hi);
  return text;
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
std::optional<Intervals> evaluateDescription(FunctionChecker& checker, const syntax::Expr& e) {
  if (e.kind == syntax::ExprKind::BinOp) {
    const auto& b = syntax::as<syntax::BinOpExpr>(e);
    if (b.op == syntax::Operator::BitOr || b.op == syntax::Operator::BitAnd) {
      auto left = evaluateDescription(checker, *b.left);
      auto right = evaluateDescription(checker, *b.right);
      if (!left || !right) return std::nullopt;
      return b.op == syntax::Operator::BitOr ? unite(*left, *right) : intersect(*left, *right);
    }
  }
  if (e.kind == syntax::ExprKind::UnaryOp) {
    const auto& u = syntax::as<syntax::UnaryOpExpr>(e);
    if (u.op == syntax::UnaryOperator::Invert) {
      auto operand = evaluateDescription(checker, *u.operand);
      if (!operand) return std::nullopt;
      return complement(*operand);
    }
  }
  Value v = e.kind == syntax::ExprKind::Name || e.kind == syntax::ExprKind::Attribute || e.kind == syntax::ExprKind::Call
                ? checker.expr(e)
                : checker.errorValue();
  if (v.kind == Value::Kind::Error && (e.kind == syntax::ExprKind::Name || e.kind == syntax::ExprKind::Attribute ||
                                       e.kind == syntax::ExprKind::Call))
    return std::nullopt;  // reported
  if (isDescription(v)) return decode(*v.constant);
  checker.sink.error(diag::TargetDescriptionExpected, e.loc,
                     {v.kind == Value::Kind::Error ? std::string("this expression") : checker.describe(v)});
  return std::nullopt;
}

// Evaluates the condition of a target if; nullopt after reporting.
std::optional<Intervals> evaluateCondition(FunctionChecker& checker, const syntax::Expr& e) {
  if (isTargetCall(checker, e)) {
    const auto& call = syntax::as<syntax::CallExpr>(e);
    if (!oneArgument(checker, "device.target()", call)) return std::nullopt;
    return evaluateDescription(checker, *call.args[0]);
  }
  if (e.kind == syntax::ExprKind::BoolOp) {
    const auto& b = syntax::as<syntax::BoolOpExpr>(e);
    std::optional<Intervals> result;
    bool failed = false;
    for (const syntax::Expr* operand : b.values) {
      auto value = evaluateCondition(checker, *operand);
      if (!value) {
        failed = true;
        continue;
      }
      result = !result ? *value : b.op == syntax::BoolOperator::And ? intersect(*result, *value) : unite(*result, *value);
    }
    if (failed) return std::nullopt;
    return result;
  }
  if (e.kind == syntax::ExprKind::UnaryOp && syntax::as<syntax::UnaryOpExpr>(e).op == syntax::UnaryOperator::Not) {
    auto operand = evaluateCondition(checker, *syntax::as<syntax::UnaryOpExpr>(e).operand);
    if (!operand) return std::nullopt;
    return complement(*operand);
  }
  if (!mentionsTarget(checker, e)) {
    Value v = checker.expr(e);
    if (v.isError()) return std::nullopt;
    if (v.kind == Value::Kind::RunTime && v.constant && isNumber(*v.constant))
      return truthOf(*v.constant) ? Intervals{{0, kUnbounded}} : Intervals{};
  }
  checker.sink.error(diag::TargetConditionNotConstant, e.loc);
  return std::nullopt;
}

}  // namespace

Value resolveTargetEntity(std::string_view member) {
  if (member == "is_host") return description({{0, 0}}, "device.is_host");
  if (member == "is_device") return description({{1, kUnbounded}}, "device.is_device");
  if (member == "any_target") return description({{0, kUnbounded}}, "device.any_target");
  if (member == "no_target") return description({}, "device.no_target");
  if (auto intervals = parseEncoded(member)) return description(*intervals, "TargetDescription " + render(normalized(*intervals)));
  if (member.starts_with("sm") && member.size() > 2) {
    int arch = 0;
    auto [ptr, error] = std::from_chars(member.data() + 2, member.data() + member.size(), arch);
    if (error == std::errc() && ptr == member.data() + member.size() && member[2] != '0' &&
        std::find(std::begin(kArchitectures), std::end(kArchitectures), arch) != std::end(kArchitectures)) {
      Value v;
      v.kind = Value::Kind::Intrinsic;
      v.intrinsic = Intrinsic::SMSelector;
      v.constant = ConstValue{};
      v.constant->kind = ConstValue::Kind::Int;
      v.constant->intValue = arch;
      v.name = "device." + std::string(member);
      return v;
    }
  }
  return {};
}

std::vector<int> supportedArchitectures() { return {std::begin(kArchitectures), std::end(kArchitectures)}; }

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
  int64_t value = sm.constant->intValue * 10;
  bool exactly = callee.intrinsic == Intrinsic::IsExactly;
  return description({{value, exactly ? value : kUnbounded}}, what.substr(0, what.size() - 2) + "(" + sm.name + ")");
}

bool checkTargetIf(FunctionChecker& checker, const syntax::IfStmt& s) {
  if (!mentionsTarget(checker, *s.test)) return false;
  std::optional<Intervals> condition = evaluateCondition(checker, *s.test);
  // Both branches are type-checked whatever the condition: each lowering keeps one of them.
  std::vector<TypedStmt*> body, orelse;
  checker.block(s.body, body);
  checker.block(s.orelse, orelse);
  if (!condition) return true;
  TypedStmt* branch = checker.emit(TypedStmtKind::If, s.loc);
  branch->targetCondition = render(*condition);
  branch->targetIncludesHost = !intersect(*condition, Intervals{{0, 0}}).empty();
  branch->body = std::move(body);
  branch->orelse = std::move(orelse);
  return true;
}

}  // namespace weft::sema
