// Expressions. Every emitted expression is self-delimiting (a name, a literal, a call or a
// parenthesized form), so callers can embed it anywhere without precedence concerns.
#include <cmath>

#include "codegen/cuda_emitter.h"
#include "support/check.h"

namespace weft::codegen {

using sema::TypedExpr;
using sema::TypedExprKind;
using types::ScalarKind;
using types::Type;

namespace {

template <class Predicate>
bool anyInTree(const TypedExpr& expr, Predicate predicate) {
  if (predicate(expr)) return true;
  for (const TypedExpr* operand : expr.operands) {
    if (anyInTree(*operand, predicate)) return true;
  }
  return false;
}

// Locals and literals: reading them twice or in any order gives the same value.
bool isSimple(const TypedExpr& expr) {
  return expr.kind == TypedExprKind::Local || expr.kind == TypedExprKind::Literal;
}

// The value of a constant exponent that is a non-negative integer (through sema's casts), or
// -1; such powers are repeated multiplication (DESIGN.md section 3).
int64_t constantIntegerExponent(const TypedExpr& exponent) {
  const TypedExpr* expr = &exponent;
  while (expr->kind == TypedExprKind::Cast) expr = expr->operands[0];
  if (expr->kind != TypedExprKind::Literal || !expr->type->isScalar()) return -1;
  constexpr int64_t kLargest = 1 << 16;  // beyond this, pow() is faster and as exact
  ScalarKind kind = expr->type->scalar;
  if (types::isInteger(kind)) {
    int64_t value = expr->literal.intValue;
    if (types::isUnsigned(kind)) return static_cast<uint64_t>(value) <= kLargest ? value : -1;
    return value >= 0 && value <= kLargest ? value : -1;
  }
  if (types::isFloating(kind)) {
    double value = expr->literal.floatValue;
    return value >= 0 && value <= kLargest && std::floor(value) == value ? static_cast<int64_t>(value) : -1;
  }
  return -1;
}

const char* compareFunction(sema::CompareOp op) {
  switch (op) {
    case sema::CompareOp::Eq: return "weft::eq";
    case sema::CompareOp::NotEq: return "weft::ne";
    case sema::CompareOp::Lt: return "weft::lt";
    case sema::CompareOp::LtE: return "weft::le";
    case sema::CompareOp::Gt: return "weft::gt";
    case sema::CompareOp::GtE: return "weft::ge";
  }
  WEFT_CHECK(false, "unknown comparison");
  return nullptr;
}

bool isBoolType(const Type* type) {
  return type->isScalar() && type->scalar == ScalarKind::Bool;
}

}  // namespace

bool hasCall(const TypedExpr& expr) {
  return anyInTree(expr, [](const TypedExpr& e) { return e.kind == TypedExprKind::Call; });
}

bool hasMemoryEffects(const TypedExpr& expr) {
  return anyInTree(expr, [](const TypedExpr& e) {
    return e.kind == TypedExprKind::Call || e.kind == TypedExprKind::ArrayElement ||
           (e.kind == TypedExprKind::BuiltinCall && sema::builtinHasEffects(e.builtin));
  });
}

std::string CudaEmitter::sequenced(
    const std::vector<TypedExpr*>& operands, const std::string& resultType,
    const std::function<std::string(const std::vector<std::string>&)>& combine) {
  int effectful = 0;
  bool calls = false;
  for (const TypedExpr* operand : operands) {
    if (hasMemoryEffects(*operand)) ++effectful;
    calls = calls || hasCall(*operand);
  }
  std::vector<std::string> codes;
  if (effectful < 2 || !calls) {
    for (const TypedExpr* operand : operands) codes.push_back(expr(*operand));
    return combine(codes);
  }
  std::string out = "[&]() -> " + resultType + " { ";
  for (const TypedExpr* operand : operands) {
    if (isSimple(*operand)) {
      codes.push_back(expr(*operand));
      continue;
    }
    std::string temp = freshTemp();
    // A struct with atomic fields is a place: the temporary refers to it.
    std::string reference = types::holdsAtomic(operand->type) ? "& " : " ";
    out += typeName(operand->type) + reference + temp + " = " + expr(*operand) + "; ";
    codes.push_back(temp);
  }
  return out + "return " + combine(codes) + "; }()";
}

std::string CudaEmitter::expr(const TypedExpr& e) {
  switch (e.kind) {
    case TypedExprKind::Literal: return literal(e);
    case TypedExprKind::ConstantArray: return constantArray(e);
    case TypedExprKind::TileMap: return tileMap(e);
    case TypedExprKind::MapInput: return "weft_in" + std::to_string(e.index);
    case TypedExprKind::TileCall: return tileCall(e);
    case TypedExprKind::Local: return localName(e.local);
    case TypedExprKind::Unary: return unary(e);
    case TypedExprKind::Binary: return binary(e);
    case TypedExprKind::CompareChain: return compareChain(e);
    case TypedExprKind::And:
    case TypedExprKind::Or: return andOr(e);
    case TypedExprKind::Truth: {
      WEFT_CHECK(e.operands.size() == 1, "Truth takes one operand");
      std::string operand = expr(*e.operands[0]);
      std::string truth = isBoolType(e.operands[0]->type) ? operand : "weft::truth(" + operand + ")";
      return convertScalar(truth, ScalarKind::Bool, e.type);
    }
    case TypedExprKind::Conditional: {
      WEFT_CHECK(e.operands.size() == 3, "Conditional takes three operands");
      std::string condition = expr(*e.operands[0]);
      if (!isBoolType(e.operands[0]->type)) condition = "weft::truth(" + condition + ")";
      return select(condition, convert(expr(*e.operands[1]), e.operands[1]->type, e.type),
                    convert(expr(*e.operands[2]), e.operands[2]->type, e.type), e.type);
    }
    case TypedExprKind::Cast:
      WEFT_CHECK(e.operands.size() == 1, "Cast takes one operand");
      return convert(expr(*e.operands[0]), e.operands[0]->type, e.type);
    case TypedExprKind::Call: {
      WEFT_CHECK(e.callee >= 0 && static_cast<size_t>(e.callee) < program_.functions.size(), "a bad callee");
      const sema::TypedFunction& callee = program_.functions[e.callee];
      WEFT_CHECK(!callee.isKernel, "device code calls the kernel " + callee.pythonName);
      WEFT_CHECK(callee.params.size() == e.operands.size(), "a call with the wrong number of arguments");
      std::string name = functionName(e.callee);
      return sequenced(e.operands, returnTypeName(e.type), [&](const std::vector<std::string>& codes) {
        std::string out = name + "(";
        for (size_t i = 0; i < codes.size(); ++i) {
          if (i) out += ", ";
          out += convert(codes[i], e.operands[i]->type, callee.locals[callee.params[i]].type);
        }
        return out + ")";
      });
    }
    case TypedExprKind::BuiltinCall: return builtinCall(e);
    case TypedExprKind::ArrayElement: return arrayElement(e);
    case TypedExprKind::ArrayShape:
    case TypedExprKind::ArrayStride: {
      WEFT_CHECK(e.operands.size() == 1 && e.operands[0]->type->isArray(), "shape/strides of a non-array");
      WEFT_CHECK(e.index >= 0 && e.index < e.operands[0]->type->ndim, "a shape/strides index out of range");
      const char* helper = e.kind == TypedExprKind::ArrayShape ? "weft::shape(" : "weft::stride_bytes(";
      return convertScalar(std::string(helper) + expr(*e.operands[0]) + ", " + std::to_string(e.index) + ")",
                           ScalarKind::Int64, e.type);
    }
    case TypedExprKind::ArraySize:
      WEFT_CHECK(e.operands.size() == 1 && e.operands[0]->type->isArray(), "size of a non-array");
      return convertScalar("weft::size(" + expr(*e.operands[0]) + ")", ScalarKind::Int64, e.type);
    case TypedExprKind::TupleMake: return tupleMake(e);
    case TypedExprKind::VectorMake: return vectorMake(e);
    case TypedExprKind::VectorElement: return vectorElement(e);
    case TypedExprKind::InlineElement: return inlineElement(e);
    case TypedExprKind::ArraySlice:
    case TypedExprKind::ArrayView:
    case TypedExprKind::ArrayReshape: return arrayView(e);
    case TypedExprKind::ArrayPart:
      WEFT_CHECK(e.operands.size() == 1 && e.operands[0]->type->isArray() && e.type->isArray(),
                 "a complex part of a non-array");
      return "weft::complex_part<" + std::to_string(e.index) + ">(" + expr(*e.operands[0]) + ")";
    case TypedExprKind::TupleGet: {
      WEFT_CHECK(e.operands.size() == 1 && (e.operands[0]->type->kind == types::TypeKind::Tuple ||
                                            e.operands[0]->type->kind == types::TypeKind::Struct),
                 "TupleGet of a non-tuple");
      const Type* tuple = e.operands[0]->type;
      WEFT_CHECK(e.index >= 0 && static_cast<size_t>(e.index) < tuple->elements.size(),
                 "a tuple index out of range");
      return convert(fieldRead(expr(*e.operands[0]), tuple, e.index), tuple->elements[e.index], e.type);
    }
  }
  WEFT_CHECK(false, "unknown expression kind");
  return {};
}

std::string CudaEmitter::unary(const TypedExpr& e) {
  WEFT_CHECK(e.operands.size() == 1, "a unary operator takes one operand");
  std::string operand = convert(expr(*e.operands[0]), e.operands[0]->type, e.type);
  std::string type = typeName(e.type);
  switch (e.unaryOp) {
    case sema::UnaryOp::Neg: return "weft::neg<" + type + ">(" + operand + ")";
    case sema::UnaryOp::Pos: return operand;
    case sema::UnaryOp::Invert:
      WEFT_CHECK(e.type->isScalar() && (types::isInteger(e.type->scalar) || types::isBool(e.type->scalar)),
                 "~ of a non-integer");
      return "static_cast<" + type + ">(~" + operand + ")";
    case sema::UnaryOp::Not: {
      std::string raw = expr(*e.operands[0]);
      std::string truth = isBoolType(e.operands[0]->type) ? raw : "weft::truth(" + raw + ")";
      return convertScalar("(!" + truth + ")", ScalarKind::Bool, e.type);
    }
  }
  WEFT_CHECK(false, "unknown unary operator");
  return {};
}

std::string CudaEmitter::binary(const TypedExpr& e) {
  WEFT_CHECK(e.operands.size() == 2, "a binary operator takes two operands");
  WEFT_CHECK(e.type->isScalar(), "a binary operator on " + types::toString(e.type));
  std::string type = typeName(e.type);
  ScalarKind kind = e.type->scalar;
  bool integral = types::isInteger(kind) || types::isBool(kind);
  const Type* resultType = e.type;
  auto call = [&](const std::string& function, bool convertRight = true) {
    return sequenced(e.operands, type, [&, function, convertRight](const std::vector<std::string>& codes) {
      std::string right = convertRight ? convert(codes[1], e.operands[1]->type, resultType) : codes[1];
      return function + "(" + convert(codes[0], e.operands[0]->type, resultType) + ", " + right + ")";
    });
  };
  auto infix = [&](const char* op) {
    return sequenced(e.operands, type, [&, op](const std::vector<std::string>& codes) {
      return "static_cast<" + type + ">(" + convert(codes[0], e.operands[0]->type, resultType) + " " + op +
             " " + convert(codes[1], e.operands[1]->type, resultType) + ")";
    });
  };
  switch (e.binaryOp) {
    case sema::BinaryOp::Add: return call("weft::add<" + type + ">");
    case sema::BinaryOp::Sub: return call("weft::sub<" + type + ">");
    case sema::BinaryOp::Mul: return call("weft::mul<" + type + ">");
    case sema::BinaryOp::TrueDiv:
      WEFT_CHECK(types::isFloating(kind) || types::isComplex(kind), "/ with a non-floating result type");
      if (types::isNarrowFloat(kind)) return call("weft::truediv<" + type + ">");
      return sequenced(e.operands, type, [&](const std::vector<std::string>& codes) {
        return "(" + convert(codes[0], e.operands[0]->type, resultType) + " / " +
               convert(codes[1], e.operands[1]->type, resultType) + ")";
      });
    case sema::BinaryOp::FloorDiv:
    case sema::BinaryOp::Mod: {
      WEFT_CHECK(!types::isComplex(kind), "// or % on complex numbers");
      std::string function = e.binaryOp == sema::BinaryOp::FloorDiv ? "weft::floordiv<" : "weft::mod<";
      if (!e.checked) return call(function + type + ">");
      // debug=True: a zero divisor raises ZeroDivisionError (sema marks integer divisions only).
      WEFT_CHECK(types::isInteger(kind), "a checked division of non-integers");
      std::string site = checkSite(e);
      return sequenced(e.operands, type, [&](const std::vector<std::string>& codes) {
        return function + type + ">(" + convert(codes[0], e.operands[0]->type, resultType) +
               ", weft::checked_divisor(" + site + "u, " +
               convert(codes[1], e.operands[1]->type, resultType) + "))";
      });
    }
    case sema::BinaryOp::Pow: {
      int64_t exponent = constantIntegerExponent(*e.operands[1]);
      if (exponent >= 0) {
        return "weft::pow_int<" + type + ">(" +
               convert(expr(*e.operands[0]), e.operands[0]->type, resultType) + ", " +
               std::to_string(exponent) + ")";
      }
      if (integral) return call("weft::pow_int<" + type + ">");
      WEFT_CHECK(types::isFloating(kind), "** on complex numbers with a non-constant exponent");
      return mathCall(e, sema::builtinInfo(sema::Builtin::Pow).helper);
    }
    case sema::BinaryOp::LShift:
    case sema::BinaryOp::RShift: {
      WEFT_CHECK(integral && e.operands[1]->type->isScalar() && types::isInteger(e.operands[1]->type->scalar),
                 "a shift of non-integers");
      const char* helper = e.binaryOp == sema::BinaryOp::LShift ? "weft::shl<" : "weft::shr<";
      return call(helper + type + ">", false);
    }
    case sema::BinaryOp::BitAnd: WEFT_CHECK(integral, "& of non-integers"); return infix("&");
    case sema::BinaryOp::BitOr: WEFT_CHECK(integral, "| of non-integers"); return infix("|");
    case sema::BinaryOp::BitXor: WEFT_CHECK(integral, "^ of non-integers"); return infix("^");
  }
  WEFT_CHECK(false, "unknown binary operator");
  return {};
}

// a < b < c: each operand evaluated once, left to right, stopping at the first false link;
// each link converts its two operands to the type sema chose for it.
std::string CudaEmitter::compareChain(const TypedExpr& e) {
  WEFT_CHECK(e.operands.size() >= 2 && e.compareOps.size() + 1 == e.operands.size() &&
                 e.compareTypes.size() == e.compareOps.size(),
             "a malformed comparison");
  auto finish = [&](const std::string& boolean) { return convertScalar(boolean, ScalarKind::Bool, e.type); };
  auto link = [&](size_t i, const std::string& left, const std::string& right) {
    return std::string(compareFunction(e.compareOps[i])) + "(" + convert(left, e.operands[i]->type, e.compareTypes[i]) +
           ", " + convert(right, e.operands[i + 1]->type, e.compareTypes[i]) + ")";
  };
  if (e.operands.size() == 2) {
    return finish(sequenced(e.operands, "bool",
                            [&](const std::vector<std::string>& codes) { return link(0, codes[0], codes[1]); }));
  }
  std::string out = "[&]() -> bool { ";
  std::vector<std::string> names;
  for (size_t i = 0; i < e.operands.size(); ++i) {
    const TypedExpr& operand = *e.operands[i];
    std::string name = expr(operand);
    if (!isSimple(operand)) {
      std::string temp = freshTemp();
      out += typeName(operand.type) + " " + temp + " = " + name + "; ";
      name = temp;
    }
    names.push_back(name);
    if (i == 0) continue;
    if (i + 1 == e.operands.size()) {
      out += "return " + link(i - 1, names[i - 1], name) + "; }()";
    } else {
      out += "if (!" + link(i - 1, names[i - 1], name) + ") return false; ";
    }
  }
  return finish(out);
}

// Python's `a and b` / `a or b`: the deciding operand's value, `b` evaluated only if needed.
std::string CudaEmitter::andOr(const TypedExpr& e) {
  WEFT_CHECK(e.operands.size() == 2, "and/or takes two operands");
  bool isAnd = e.kind == TypedExprKind::And;
  if (isBoolType(e.type)) {
    return "(" + convert(expr(*e.operands[0]), e.operands[0]->type, e.type) + (isAnd ? " && " : " || ") +
           convert(expr(*e.operands[1]), e.operands[1]->type, e.type) + ")";
  }
  // The operands of kLevels levels of the chain (at most 2**kLevels), left to right (sema builds
  // `a and b and c` as a balanced tree of one kind and type), decided in turn in one function: a
  // longer chain nests such functions, never deeper than its length's log to the base 2**kLevels,
  // and no function is long (C++ compilers optimize one of 80,000 branches very slowly).
  constexpr int kLevels = 5;
  std::vector<const TypedExpr*> chain;
  std::vector<std::pair<const TypedExpr*, int>> pending{{&e, 0}};
  while (!pending.empty()) {
    auto [node, level] = pending.back();
    pending.pop_back();
    if (node->kind == e.kind && node->type == e.type && level < kLevels) {
      pending.push_back({node->operands[1], level + 1});
      pending.push_back({node->operands[0], level + 1});
    } else {
      chain.push_back(node);
    }
  }
  auto operand = [&](const TypedExpr* node) { return convert(expr(*node), node->type, e.type); };
  std::string type = typeName(e.type);
  if (chain.size() == 2 && isSimple(*chain[0])) {
    std::string first = operand(chain[0]), second = operand(chain[1]);
    return select("weft::truth(" + first + ")", isAnd ? second : first, isAnd ? first : second, e.type);
  }
  std::string temp = freshTemp();
  std::string out = "[&]() -> " + type + " { " + type + " " + temp + "; ";
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    out += temp + " = " + operand(chain[i]) + "; if (" + (isAnd ? "!" : "") + "weft::truth(" + temp +
           ")) return " + temp + "; ";
  }
  return out + "return " + operand(chain.back()) + "; }()";
}

std::string CudaEmitter::select(const std::string& condition, const std::string& whenTrue,
                                const std::string& whenFalse, const Type* type) {
  std::string conditional = "(" + condition + " ? " + whenTrue + " : " + whenFalse + ")";
  bool aggregate = (type->kind == types::TypeKind::Scalar && types::isComplex(type->scalar)) ||
                   type->kind == types::TypeKind::Tuple || type->isVector() ||
                   (type->isStruct() && !types::holdsAtomic(type));
  if (!aggregate) return conditional;
  return "[&]() -> " + typeName(type) + " { return " + conditional + "; }()";
}

std::string CudaEmitter::checkSite(const TypedExpr& e) {
  EmittedUnit::CheckSite site;
  if (e.loc.file < sources_.size()) {
    const SourceFile& file = sources_.file(e.loc.file);
    site.file = file.name();
    std::string_view text = file.line(e.loc.line);
    size_t first = text.find_first_not_of(" \t");
    site.source = first == std::string_view::npos ? std::string() : std::string(text.substr(first));
  }
  site.line = e.loc.line;
  site.function = function_ != nullptr ? function_->pythonName : std::string();
  if (e.kind == TypedExprKind::BuiltinCall) site.message = e.text;
  checkSites_.push_back(std::move(site));
  return std::to_string(checkSites_.size() - 1);
}

// An element as an lvalue: weft::at<wrap...>(site, array, index...).
std::string CudaEmitter::arrayElement(const TypedExpr& e) {
  WEFT_CHECK(!e.operands.empty() && e.operands[0]->type->isArray(), "indexing a non-array");
  const Type* array = e.operands[0]->type;
  std::vector<TypedExpr*> operands = e.operands;
  // A single tuple index (a[t] with t a tuple) supplies one index per dimension.
  bool tupleIndex = operands.size() == 2 && operands[1]->type->kind == types::TypeKind::Tuple;
  size_t indices = tupleIndex ? operands[1]->type->elements.size() : operands.size() - 1;
  WEFT_CHECK(indices == static_cast<size_t>(array->ndim),
             "an array indexed with the wrong number of indices");
  std::string wraps;
  for (size_t i = 0; i < indices; ++i) {
    bool wrap = i < e.wrapNegative.size() ? static_cast<bool>(e.wrapNegative[i]) : true;
    wraps += (i ? ", " : "") + std::string(wrap ? "true" : "false");
  }
  WEFT_CHECK(array->element != nullptr ? e.type == array->element
                                       : e.type->isScalar() && e.type->scalar == array->scalar,
             "an element of the wrong type");
  std::string element = typeName(e.type) + "&";
  std::string site = checkSite(e) + "u";
  if (tupleIndex) {
    // The tuple is read once per index: hold it (and the array) in temporaries.
    std::string arrayTemp = freshTemp(), tupleTemp = freshTemp();
    std::string out = "[&]() -> " + element + " { " + typeName(array) + " " + arrayTemp + " = " +
                      expr(*operands[0]) + "; " + typeName(operands[1]->type) + " " + tupleTemp + " = " +
                      expr(*operands[1]) + "; return weft::at<" + wraps + ">(" + site + ", " + arrayTemp;
    for (size_t i = 0; i < indices; ++i) {
      const Type* index = operands[1]->type->elements[i];
      WEFT_CHECK(index->isScalar() && types::isInteger(index->scalar),
                 "a tuple index with a non-integer element");
      out += ", " + tupleTemp + ".f" + std::to_string(i);
    }
    return out + "); }()";
  }
  return sequenced(operands, element, [&](const std::vector<std::string>& codes) {
    std::string out = "weft::at<" + wraps + ">(" + site + ", " + codes[0];
    for (size_t i = 1; i < codes.size(); ++i) out += ", " + codes[i];
    return out + ")";
  });
}

std::string CudaEmitter::tupleMake(const TypedExpr& e) {
  WEFT_CHECK((e.type->kind == types::TypeKind::Tuple || e.type->kind == types::TypeKind::Struct) &&
                 e.type->elements.size() == e.operands.size(),
             "a tuple of the wrong length");
  // Braced initializers evaluate left to right, as Python does.
  std::vector<std::string> values;
  for (size_t i = 0; i < e.operands.size(); ++i)
    values.push_back(convert(expr(*e.operands[i]), e.operands[i]->type, e.type->elements[i]));
  return typeName(e.type) + structInitializer(e.type, values);
}

}  // namespace weft::codegen
