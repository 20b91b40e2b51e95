// numba-cuda's `cuda.fp16` functions (issue 10, item 8): each is one of weft's own operations on
// float16 values (an operator, a comparison, a math function), so that it rounds as weft's
// float16 arithmetic does (docs/types.md: computed in float32, rounded once to float16).
#include "sema/checker.h"
#include "support/check.h"

namespace weft::sema {

namespace {

enum class Fp16Kind : uint8_t {
  Arithmetic,  // a binary operator
  Compare,     // a comparison (bool)
  Negate,      // unary -
  Math,        // a math builtin of float16 operands and a float16 result
  Reciprocal,  // 1 / x, one correctly rounded float16 division
  RecipSqrt,   // 1 / sqrt(x), computed in float32 and rounded once
  Exp10,       // 10 ** x, computed in float32 and rounded once
};

struct Fp16Entry {
  std::string_view name;
  size_t arity;
  Fp16Kind kind;
  BinaryOp binary = BinaryOp::Add;
  CompareOp compare = CompareOp::Eq;
  Builtin builtin = Builtin::Abs;
};

// numba-cuda's documented cuda.fp16 functions (docs/source/reference/kernel.rst). hmax and hmin
// are CUDA's __hmax/__hmin, which numba calls: a NaN operand gives the other one (fmax/fmin).
constexpr Fp16Entry kFp16[] = {
    {"hadd", 2, Fp16Kind::Arithmetic, BinaryOp::Add},
    {"hsub", 2, Fp16Kind::Arithmetic, BinaryOp::Sub},
    {"hmul", 2, Fp16Kind::Arithmetic, BinaryOp::Mul},
    {"hdiv", 2, Fp16Kind::Arithmetic, BinaryOp::TrueDiv},
    {"heq", 2, Fp16Kind::Compare, BinaryOp::Add, CompareOp::Eq},
    {"hne", 2, Fp16Kind::Compare, BinaryOp::Add, CompareOp::NotEq},
    {"hlt", 2, Fp16Kind::Compare, BinaryOp::Add, CompareOp::Lt},
    {"hle", 2, Fp16Kind::Compare, BinaryOp::Add, CompareOp::LtE},
    {"hgt", 2, Fp16Kind::Compare, BinaryOp::Add, CompareOp::Gt},
    {"hge", 2, Fp16Kind::Compare, BinaryOp::Add, CompareOp::GtE},
    {"hneg", 1, Fp16Kind::Negate},
    {"habs", 1, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Abs},
    {"hfma", 3, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Fma},
    {"hmax", 2, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Fmax},
    {"hmin", 2, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Fmin},
    {"hsqrt", 1, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Sqrt},
    {"hrsqrt", 1, Fp16Kind::RecipSqrt},
    {"hrcp", 1, Fp16Kind::Reciprocal},
    {"hexp", 1, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Exp},
    {"hexp2", 1, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Exp2},
    {"hexp10", 1, Fp16Kind::Exp10},
    {"hlog", 1, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Log},
    {"hlog2", 1, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Log2},
    {"hlog10", 1, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Log10},
    {"hsin", 1, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Sin},
    {"hcos", 1, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Cos},
    {"hceil", 1, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Ceil},
    {"hfloor", 1, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Floor},
    {"htrunc", 1, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Trunc},
    {"hrint", 1, Fp16Kind::Math, BinaryOp::Add, CompareOp::Eq, Builtin::Rint},
};

const Fp16Entry* findFp16(std::string_view name) {
  for (const Fp16Entry& entry : kFp16)
    if (entry.name == name) return &entry;
  return nullptr;
}

}  // namespace

bool isClassicFp16Function(std::string_view member) { return findFp16(member) != nullptr; }

Value classicFp16Call(FunctionChecker& checker, const Value& callee, const syntax::CallExpr& e) {
  using types::ScalarKind;
  std::string member = callee.name.substr(std::string_view("cuda.fp16.").size());
  const Fp16Entry* entry = findFp16(member);
  WEFT_CHECK(entry != nullptr, "cuda.fp16." + member + " resolved without a table row");
  std::string what = callee.name + "()";
  if (!e.keywords.empty() || e.args.size() != entry->arity) {
    checker.sink.error(diag::ArgumentCount, e.loc,
                       {what, std::to_string(entry->arity) + (entry->arity == 1 ? " argument" : " arguments"),
                        std::to_string(e.args.size() + e.keywords.size())});
    return checker.errorValue();
  }
  // numba types these functions on float16 only: a float16 value, or a number constant that
  // converts to one (as numba converts a literal).
  std::vector<Value> args;
  for (size_t i = 0; i < e.args.size(); ++i) {
    Value v = checker.value(*e.args[i]);
    if (v.isError()) return v;
    bool constant = v.weak && v.constant->kind != ConstValue::Kind::Complex;
    if (!constant && (!v.type()->isScalar() || v.type()->scalar != ScalarKind::Float16)) {
      checker.sink.error(diag::ArgumentType, e.args[i]->loc,
                         {std::to_string(i + 1), what, "a float16 (convert with cuda.float16(x))", checker.describe(v)});
      return checker.errorValue();
    }
    v = checker.promoteTo(v, ScalarKind::Float16, e.args[i]->loc);
    if (v.isError()) return v;
    if (v.constant) v = checker.toRunTime(v, e.args[i]->loc);
    args.push_back(v);
  }
  const types::Type* half = checker.types.scalar(ScalarKind::Float16);
  auto literal = [&](double x, ScalarKind kind) {
    ConstValue c;
    c.kind = ConstValue::Kind::Float;
    c.floatValue = x;
    return checker.toRunTime(checker.typedLiteral(c, kind, e.loc), e.loc);
  };
  auto builtinCall = [&](Builtin builtin, const types::Type* type, std::vector<TypedExpr*> operands) {
    TypedExpr* call = checker.make(TypedExprKind::BuiltinCall, type, e.loc, std::move(operands));
    call->builtin = builtin;
    return checker.runtime(call);
  };
  switch (entry->kind) {
    case Fp16Kind::Arithmetic: return checker.binary(entry->binary, args[0], args[1], e.loc);
    case Fp16Kind::Compare: {
      TypedExpr* link = checker.make(TypedExprKind::CompareChain, checker.types.scalar(ScalarKind::Bool), e.loc,
                                     {args[0].expr, args[1].expr});
      link->compareOps = {entry->compare};
      link->compareTypes = {half};
      return checker.runtime(link);
    }
    case Fp16Kind::Negate: {
      TypedExpr* n = checker.make(TypedExprKind::Unary, half, e.loc, {args[0].expr});
      n->unaryOp = UnaryOp::Neg;
      return checker.runtime(n);
    }
    case Fp16Kind::Math: {
      std::vector<TypedExpr*> operands;
      for (const Value& v : args) operands.push_back(v.expr);
      return builtinCall(entry->builtin, half, std::move(operands));
    }
    case Fp16Kind::Reciprocal: return checker.binary(BinaryOp::TrueDiv, literal(1.0, ScalarKind::Float16), args[0], e.loc);
    case Fp16Kind::RecipSqrt: {
      const types::Type* single = checker.types.scalar(ScalarKind::Float32);
      Value root = builtinCall(Builtin::Sqrt, single, {args[0].expr});
      Value reciprocal = checker.binary(BinaryOp::TrueDiv, literal(1.0, ScalarKind::Float32), root, e.loc);
      return checker.cast(reciprocal, ScalarKind::Float16, e.loc);
    }
    case Fp16Kind::Exp10: return builtinCall(Builtin::Pow, half, {literal(10.0, ScalarKind::Float16).expr, args[0].expr});
  }
  return checker.errorValue();
}

}  // namespace weft::sema
