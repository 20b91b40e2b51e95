// Compile-time constants: Python's arithmetic on literals and global constants, the
// conversion of constants to typed literals, and their rendering.
#include <cmath>
#include <cstdio>
#include <limits>

#include "sema/checker.h"
#include "support/check.h"

namespace weft::sema {

namespace {

using Kind = ConstValue::Kind;

ConstValue makeInt(int64_t x) {
  ConstValue v;
  v.kind = Kind::Int;
  v.intValue = x;
  return v;
}
ConstValue makeFloat(double x) {
  ConstValue v;
  v.kind = Kind::Float;
  v.floatValue = x;
  return v;
}
ConstValue makeBool(bool x) {
  ConstValue v;
  v.kind = Kind::Bool;
  v.boolValue = x;
  return v;
}
ConstValue makeComplex(double re, double im) {
  ConstValue v;
  v.kind = Kind::Complex;
  v.floatValue = re;
  v.imagValue = im;
  return v;
}

// The rank of a number's kind in Python's tower: bool < int < float < complex.
int rank(const ConstValue& v) {
  switch (v.kind) {
    case Kind::Bool: return 0;
    case Kind::Int: return 1;
    case Kind::Float: return 2;
    case Kind::Complex: return 3;
    case Kind::None:
    case Kind::Str:
    case Kind::Tuple: return -1;
  }
  return -1;
}

int64_t asInt(const ConstValue& v) { return v.kind == Kind::Bool ? (v.boolValue ? 1 : 0) : v.intValue; }
double asFloat(const ConstValue& v) {
  if (v.kind == Kind::Float || v.kind == Kind::Complex) return v.floatValue;
  return static_cast<double>(asInt(v));
}
double asImag(const ConstValue& v) { return v.kind == Kind::Complex ? v.imagValue : 0.0; }

Folded fail(FoldError error) {
  Folded result;
  result.error = error;
  return result;
}
Folded ok(ConstValue v) {
  Folded result;
  result.value = std::move(v);
  return result;
}

// Python's floor division and modulo on ints.
int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

Folded foldInt(BinaryOp op, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (op) {
    case BinaryOp::Add:
      if (__builtin_add_overflow(a, b, &r)) return fail(FoldError::Overflow);
      return ok(makeInt(r));
    case BinaryOp::Sub:
      if (__builtin_sub_overflow(a, b, &r)) return fail(FoldError::Overflow);
      return ok(makeInt(r));
    case BinaryOp::Mul:
      if (__builtin_mul_overflow(a, b, &r)) return fail(FoldError::Overflow);
      return ok(makeInt(r));
    case BinaryOp::TrueDiv:
      if (b == 0) return fail(FoldError::DivisionByZero);
      return ok(makeFloat(static_cast<double>(a) / static_cast<double>(b)));
    case BinaryOp::FloorDiv:
      if (b == 0) return fail(FoldError::DivisionByZero);
      if (a == std::numeric_limits<int64_t>::min() && b == -1) return fail(FoldError::Overflow);
      return ok(makeInt(floorDiv(a, b)));
    case BinaryOp::Mod:
      if (b == 0) return fail(FoldError::DivisionByZero);
      if (b == -1) return ok(makeInt(0));
      return ok(makeInt(floorMod(a, b)));
    case BinaryOp::Pow: {
      if (b < 0) {
        if (a == 0) return fail(FoldError::DivisionByZero);
        return ok(makeFloat(std::pow(static_cast<double>(a), static_cast<double>(b))));
      }
      int64_t result = 1;
      for (int64_t i = 0; i < b; ++i) {
        if (__builtin_mul_overflow(result, a, &result)) return fail(FoldError::Overflow);
        if (result == 0 || result == 1) break;
      }
      return ok(makeInt(result));
    }
    case BinaryOp::LShift:
      if (b < 0) return fail(FoldError::Unsupported);
      if (a == 0) return ok(makeInt(0));
      if (b >= 63 || (a > 0 ? a > (std::numeric_limits<int64_t>::max() >> b)
                            : a < (std::numeric_limits<int64_t>::min() >> b))) {
        return fail(FoldError::Overflow);
      }
      return ok(makeInt(static_cast<int64_t>(static_cast<uint64_t>(a) << b)));
    case BinaryOp::RShift:
      if (b < 0) return fail(FoldError::Unsupported);
      return ok(makeInt(b >= 63 ? (a < 0 ? -1 : 0) : (a >> b)));
    case BinaryOp::BitAnd: return ok(makeInt(a & b));
    case BinaryOp::BitOr: return ok(makeInt(a | b));
    case BinaryOp::BitXor: return ok(makeInt(a ^ b));
  }
  return fail(FoldError::Unsupported);
}

Folded foldFloat(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::Add: return ok(makeFloat(a + b));
    case BinaryOp::Sub: return ok(makeFloat(a - b));
    case BinaryOp::Mul: return ok(makeFloat(a * b));
    case BinaryOp::TrueDiv:
      if (b == 0) return fail(FoldError::DivisionByZero);
      return ok(makeFloat(a / b));
    case BinaryOp::FloorDiv:
      if (b == 0) return fail(FoldError::DivisionByZero);
      return ok(makeFloat(std::floor(a / b)));
    case BinaryOp::Mod: {
      if (b == 0) return fail(FoldError::DivisionByZero);
      double r = std::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return ok(makeFloat(r));
    }
    case BinaryOp::Pow:
      if (a == 0 && b < 0) return fail(FoldError::DivisionByZero);
      return ok(makeFloat(std::pow(a, b)));
    case BinaryOp::LShift:
    case BinaryOp::RShift:
    case BinaryOp::BitAnd:
    case BinaryOp::BitOr:
    case BinaryOp::BitXor: return fail(FoldError::Unsupported);
  }
  return fail(FoldError::Unsupported);
}

Folded foldComplex(BinaryOp op, double ar, double ai, double br, double bi) {
  switch (op) {
    case BinaryOp::Add: return ok(makeComplex(ar + br, ai + bi));
    case BinaryOp::Sub: return ok(makeComplex(ar - br, ai - bi));
    case BinaryOp::Mul: return ok(makeComplex(ar * br - ai * bi, ar * bi + ai * br));
    case BinaryOp::TrueDiv: {
      double d = br * br + bi * bi;
      if (d == 0) return fail(FoldError::DivisionByZero);
      return ok(makeComplex((ar * br + ai * bi) / d, (ai * br - ar * bi) / d));
    }
    case BinaryOp::FloorDiv:
    case BinaryOp::Mod:
    case BinaryOp::Pow:
    case BinaryOp::LShift:
    case BinaryOp::RShift:
    case BinaryOp::BitAnd:
    case BinaryOp::BitOr:
    case BinaryOp::BitXor: return fail(FoldError::Unsupported);
  }
  return fail(FoldError::Unsupported);
}

std::string floatRepr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buffer[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, x);
    if (std::strtod(buffer, nullptr) == x) break;
  }
  std::string text = buffer;
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

std::string toString(const ConstValue& value) {
  switch (value.kind) {
    case Kind::None: return "None";
    case Kind::Bool: return value.boolValue ? "True" : "False";
    case Kind::Int: return std::to_string(value.intValue);
    case Kind::Float: return floatRepr(value.floatValue);
    case Kind::Complex: {
      std::string imag = floatRepr(value.imagValue);
      if (imag.size() > 2 && imag.ends_with(".0")) imag.resize(imag.size() - 2);
      if (value.floatValue == 0 && !std::signbit(value.floatValue)) return imag + "j";
      std::string real = floatRepr(value.floatValue);
      if (real.size() > 2 && real.ends_with(".0")) real.resize(real.size() - 2);
      return "(" + real + (value.imagValue >= 0 || std::isnan(value.imagValue) ? "+" : "") + imag + "j)";
    }
    case Kind::Str: {
      std::string text = "'";
      for (char c : value.strValue) {
        if (c == '\'' || c == '\\') text += '\\';
        text += c;
      }
      return text + "'";
    }
    case Kind::Tuple: {
      std::string text = "(";
      for (size_t i = 0; i < value.elements.size(); ++i) {
        if (i != 0) text += ", ";
        text += toString(value.elements[i]);
      }
      if (value.elements.size() == 1) text += ",";
      return text + ")";
    }
  }
  return "?";
}

bool isNumber(const ConstValue& value) { return rank(value) >= 0; }

Folded foldBinary(BinaryOp op, const ConstValue& a, const ConstValue& b) {
  if (!isNumber(a) || !isNumber(b)) return fail(FoldError::Unsupported);
  int r = std::max(rank(a), rank(b));
  if (r == 0) {
    switch (op) {
      case BinaryOp::BitAnd: return ok(makeBool(a.boolValue && b.boolValue));
      case BinaryOp::BitOr: return ok(makeBool(a.boolValue || b.boolValue));
      case BinaryOp::BitXor: return ok(makeBool(a.boolValue != b.boolValue));
      case BinaryOp::Add:
      case BinaryOp::Sub:
      case BinaryOp::Mul:
      case BinaryOp::TrueDiv:
      case BinaryOp::FloorDiv:
      case BinaryOp::Mod:
      case BinaryOp::Pow:
      case BinaryOp::LShift:
      case BinaryOp::RShift: break;
    }
  }
  if (r <= 1) return foldInt(op, asInt(a), asInt(b));
  if (r == 2) return foldFloat(op, asFloat(a), asFloat(b));
  return foldComplex(op, asFloat(a), asImag(a), asFloat(b), asImag(b));
}

Folded foldUnary(UnaryOp op, const ConstValue& a) {
  if (!isNumber(a)) return fail(FoldError::Unsupported);
  switch (op) {
    case UnaryOp::Not: return ok(makeBool(!truthOf(a)));
    case UnaryOp::Pos:
      if (a.kind == Kind::Bool) return ok(makeInt(asInt(a)));
      return ok(a);
    case UnaryOp::Neg:
      if (a.kind == Kind::Float) return ok(makeFloat(-a.floatValue));
      if (a.kind == Kind::Complex) return ok(makeComplex(-a.floatValue, -a.imagValue));
      if (asInt(a) == std::numeric_limits<int64_t>::min()) return fail(FoldError::Overflow);
      return ok(makeInt(-asInt(a)));
    case UnaryOp::Invert:
      if (a.kind == Kind::Float || a.kind == Kind::Complex) return fail(FoldError::Unsupported);
      return ok(makeInt(~asInt(a)));
  }
  return fail(FoldError::Unsupported);
}

Folded foldCompare(CompareOp op, const ConstValue& a, const ConstValue& b) {
  if (!isNumber(a) || !isNumber(b)) return fail(FoldError::Unsupported);
  int r = std::max(rank(a), rank(b));
  if (r == 3) {
    bool equal = asFloat(a) == asFloat(b) && asImag(a) == asImag(b);
    if (op == CompareOp::Eq) return ok(makeBool(equal));
    if (op == CompareOp::NotEq) return ok(makeBool(!equal));
    return fail(FoldError::Unsupported);
  }
  int order = 0;
  bool unordered = false;
  if (r <= 1) {
    order = asInt(a) < asInt(b) ? -1 : (asInt(a) > asInt(b) ? 1 : 0);
  } else {
    double x = asFloat(a), y = asFloat(b);
    unordered = std::isnan(x) || std::isnan(y);
    order = x < y ? -1 : (x > y ? 1 : 0);
  }
  bool result = false;
  switch (op) {
    case CompareOp::Eq: result = !unordered && order == 0; break;
    case CompareOp::NotEq: result = unordered || order != 0; break;
    case CompareOp::Lt: result = !unordered && order < 0; break;
    case CompareOp::LtE: result = !unordered && order <= 0; break;
    case CompareOp::Gt: result = !unordered && order > 0; break;
    case CompareOp::GtE: result = !unordered && order >= 0; break;
  }
  return ok(makeBool(result));
}

bool truthOf(const ConstValue& value) {
  switch (value.kind) {
    case Kind::None: return false;
    case Kind::Bool: return value.boolValue;
    case Kind::Int: return value.intValue != 0;
    case Kind::Float: return value.floatValue != 0;
    case Kind::Complex: return value.floatValue != 0 || value.imagValue != 0;
    case Kind::Str: return !value.strValue.empty();
    case Kind::Tuple: return !value.elements.empty();
  }
  return false;
}

types::ScalarKind builtinKindOf(const ConstValue& value) {
  switch (value.kind) {
    case Kind::Bool: return types::ScalarKind::Bool;
    case Kind::Int:
      return fitsScalar(value, types::ScalarKind::Int32, false) ? types::ScalarKind::Int32 : types::ScalarKind::Int64;
    case Kind::Float: return types::ScalarKind::Float32;
    case Kind::Complex: return types::ScalarKind::Complex64;
    case Kind::None:
    case Kind::Str:
    case Kind::Tuple: break;
  }
  WEFT_CHECK(false, "builtinKindOf needs a number constant");
  return types::ScalarKind::Bool;
}

bool fitsScalar(const ConstValue& value, types::ScalarKind kind, bool truncate) {
  using types::ScalarKind;
  if (!isNumber(value)) return false;
  if (value.kind == Kind::Complex && !types::isComplex(kind)) return false;
  if (types::isComplex(kind)) return true;
  if (types::isFloating(kind)) {
    double x = asFloat(value);
    if (!std::isfinite(x)) return true;  // inf and nan exist in every floating type
    double limit = kind == ScalarKind::Float16      ? 65504.0
                   : kind == ScalarKind::BFloat16   ? 3.3895313892515355e38
                   : kind == ScalarKind::Float8E4M3 ? 448.0
                   : kind == ScalarKind::Float8E5M2 ? 57344.0
                   : kind == ScalarKind::Float32    ? static_cast<double>(std::numeric_limits<float>::max())
                                                    : std::numeric_limits<double>::max();
    return std::fabs(x) <= limit;
  }
  long double x = value.kind == Kind::Float ? static_cast<long double>(value.floatValue)
                                            : static_cast<long double>(asInt(value));
  if (value.kind == Kind::Float) {
    if (!std::isfinite(value.floatValue)) return false;
    if (!truncate && std::trunc(value.floatValue) != value.floatValue) return false;
    x = std::trunc(x);
  }
  if (types::isBool(kind)) return x == 0 || x == 1;
  int bits = 8 * types::byteSize(kind);
  long double low = types::isSigned(kind) ? -std::ldexp(1.0L, bits - 1) : 0.0L;
  long double high = types::isSigned(kind) ? std::ldexp(1.0L, bits - 1) - 1 : std::ldexp(1.0L, bits) - 1;
  return x >= low && x <= high;
}

Literal toLiteral(const ConstValue& value, types::ScalarKind kind) {
  Literal literal;
  if (types::isBool(kind)) {
    literal.boolValue = truthOf(value);
  } else if (types::isInteger(kind)) {
    literal.intValue = value.kind == Kind::Float ? static_cast<int64_t>(std::trunc(value.floatValue)) : asInt(value);
  } else {
    literal.floatValue = asFloat(value);
    literal.imagValue = asImag(value);
  }
  return literal;
}

ConstValue fromLiteral(const Literal& literal, types::ScalarKind kind) {
  if (types::isBool(kind)) return makeBool(literal.boolValue);
  if (types::isInteger(kind)) return makeInt(literal.intValue);
  if (types::isComplex(kind)) return makeComplex(literal.floatValue, literal.imagValue);
  return makeFloat(literal.floatValue);
}

std::optional<ConstValue> fromSyntax(const syntax::ConstantValue& value) {
  using SK = syntax::ConstantValue::Kind;
  switch (value.kind) {
    case SK::None: return ConstValue{};
    case SK::Bool: return makeBool(value.boolValue);
    case SK::Int:
      if (!value.fitsInt64) return std::nullopt;
      return makeInt(value.intValue);
    case SK::Float: return makeFloat(value.floatValue);
    case SK::Complex: return makeComplex(0.0, value.floatValue);
    case SK::Str: {
      ConstValue v;
      v.kind = Kind::Str;
      v.strValue = value.bytes;
      return v;
    }
    case SK::Ellipsis:
    case SK::Bytes: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace weft::sema
