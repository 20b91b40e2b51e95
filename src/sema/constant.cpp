// Compile-time constants: Python's arithmetic on literals and global constants, the
// conversion of constants to typed literals, and their rendering.
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "sema/checker.h"
#include "support/check.h"
#include "weft/device/fp16.h"

namespace weft::sema {

namespace {

using Kind = ConstValue::Kind;

// Integer constants are computed exactly in 128 bits, then must fit int64 or uint64.
using Wide = __int128;
constexpr Wide kLowest = static_cast<Wide>(std::numeric_limits<int64_t>::min());
constexpr Wide kHighest = static_cast<Wide>(std::numeric_limits<uint64_t>::max());

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

Wide asWide(const ConstValue& v) {
  if (v.kind == Kind::Bool) return v.boolValue ? 1 : 0;
  return v.aboveInt64 ? static_cast<Wide>(static_cast<uint64_t>(v.intValue)) : static_cast<Wide>(v.intValue);
}
double asFloat(const ConstValue& v) {
  if (v.kind == Kind::Float || v.kind == Kind::Complex) return v.floatValue;
  if (v.kind == Kind::Int && v.aboveInt64) return static_cast<double>(static_cast<uint64_t>(v.intValue));
  return static_cast<double>(asWide(v));
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
Wide floorDiv(Wide a, Wide b) {
  Wide q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
Wide floorMod(Wide a, Wide b) {
  Wide r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// An int result: Overflow when neither int64 nor uint64 holds it.
Folded intResult(Wide r) {
  if (r < kLowest || r > kHighest) return fail(FoldError::Overflow);
  return ok(r > static_cast<Wide>(std::numeric_limits<int64_t>::max())
                ? uint64Constant(static_cast<uint64_t>(r))
                : intConstant(static_cast<int64_t>(r)));
}

Folded foldInt(BinaryOp op, Wide a, Wide b) {
  Wide r = 0;
  switch (op) {
    case BinaryOp::Add: return intResult(a + b);
    case BinaryOp::Sub: return intResult(a - b);
    case BinaryOp::Mul:
      if (__builtin_mul_overflow(a, b, &r)) return fail(FoldError::Overflow);
      return intResult(r);
    case BinaryOp::TrueDiv:
      if (b == 0) return fail(FoldError::DivisionByZero);
      return ok(makeFloat(static_cast<double>(a) / static_cast<double>(b)));
    case BinaryOp::FloorDiv:
      if (b == 0) return fail(FoldError::DivisionByZero);
      return intResult(floorDiv(a, b));
    case BinaryOp::Mod:
      if (b == 0) return fail(FoldError::DivisionByZero);
      return intResult(floorMod(a, b));
    case BinaryOp::Pow: {
      if (b < 0) {
        if (a == 0) return fail(FoldError::DivisionByZero);
        return ok(makeFloat(std::pow(static_cast<double>(a), static_cast<double>(b))));
      }
      Wide result = 1;
      for (Wide i = 0; i < b; ++i) {
        if (__builtin_mul_overflow(result, a, &result) || result < kLowest || result > kHighest)
          return fail(FoldError::Overflow);
        if (result == 0 || result == 1) break;
      }
      return intResult(result);
    }
    case BinaryOp::LShift:
      if (b < 0) return fail(FoldError::Unsupported);
      if (a == 0) return ok(intConstant(0));
      // |a| >= 1 and every result in range is below 2**64: a shift by more than 64 overflows.
      if (b > 64 || __builtin_mul_overflow(a, static_cast<Wide>(1) << b, &r))
        return fail(FoldError::Overflow);
      return intResult(r);
    case BinaryOp::RShift:
      if (b < 0) return fail(FoldError::Unsupported);
      return intResult(b >= 127 ? (a < 0 ? -1 : 0) : (a >> b));
    case BinaryOp::BitAnd: return intResult(a & b);
    case BinaryOp::BitOr: return intResult(a | b);
    case BinaryOp::BitXor: return intResult(a ^ b);
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

// The constant of a value the device headers computed (weft::cast's result).
ConstValue fromDevice(bool x) {
  return makeBool(x);
}
template <class T>
ConstValue fromDevice(T x) {
  using Category = weft::detail::Category;
  if constexpr (weft::detail::kIsNarrow<T>) {
    return makeFloat(static_cast<double>(weft::detail::Traits<T>::toFloat(x)));
  } else if constexpr (weft::detail::Traits<T>::kCategory == Category::Signed) {
    return intConstant(static_cast<int64_t>(x));
  } else if constexpr (weft::detail::Traits<T>::kCategory == Category::Unsigned) {
    return uint64Constant(static_cast<uint64_t>(x));
  } else if constexpr (weft::detail::Traits<T>::kCategory == Category::Float) {
    return makeFloat(static_cast<double>(x));
  } else {
    return makeComplex(static_cast<double>(x.re), static_cast<double>(x.im));
  }
}

// `value` converted to the C++ type To by the run-time conversion itself (weft::cast of the
// device headers), from the exact Python value.
template <class To>
ConstValue castTo(const ConstValue& value) {
  switch (value.kind) {
    case Kind::Bool: return fromDevice(weft::cast<To>(value.boolValue));
    case Kind::Int:
      if (value.aboveInt64) return fromDevice(weft::cast<To>(static_cast<uint64_t>(value.intValue)));
      return fromDevice(weft::cast<To>(value.intValue));
    case Kind::Float: return fromDevice(weft::cast<To>(value.floatValue));
    case Kind::Complex:
      return fromDevice(weft::cast<To>(weft::complex128{value.floatValue, value.imagValue}));
    case Kind::None:
    case Kind::Str:
    case Kind::Tuple: break;
  }
  WEFT_CHECK(false, "a conversion of a constant that is not a number");
  return {};
}

}  // namespace

ConstValue intConstant(int64_t value) {
  ConstValue v;
  v.kind = Kind::Int;
  v.intValue = value;
  return v;
}

ConstValue uint64Constant(uint64_t value) {
  ConstValue v = intConstant(static_cast<int64_t>(value));
  v.aboveInt64 = value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  return v;
}

std::optional<int64_t> int64Value(const ConstValue& value) {
  if (value.kind == Kind::Bool) return value.boolValue ? 1 : 0;
  if (value.kind != Kind::Int || value.aboveInt64) return std::nullopt;
  return value.intValue;
}

std::string toString(const ConstValue& value) {
  switch (value.kind) {
    case Kind::None: return "None";
    case Kind::Bool: return value.boolValue ? "True" : "False";
    case Kind::Int:
      return value.aboveInt64 ? std::to_string(static_cast<uint64_t>(value.intValue))
                              : std::to_string(value.intValue);
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
  if (r <= 1) return foldInt(op, asWide(a), asWide(b));
  if (r == 2) return foldFloat(op, asFloat(a), asFloat(b));
  return foldComplex(op, asFloat(a), asImag(a), asFloat(b), asImag(b));
}

Folded foldUnary(UnaryOp op, const ConstValue& a) {
  if (!isNumber(a)) return fail(FoldError::Unsupported);
  switch (op) {
    case UnaryOp::Not: return ok(makeBool(!truthOf(a)));
    case UnaryOp::Pos:
      if (a.kind == Kind::Bool) return intResult(asWide(a));
      return ok(a);
    case UnaryOp::Neg:
      if (a.kind == Kind::Float) return ok(makeFloat(-a.floatValue));
      if (a.kind == Kind::Complex) return ok(makeComplex(-a.floatValue, -a.imagValue));
      return intResult(-asWide(a));
    case UnaryOp::Invert:
      if (a.kind == Kind::Float || a.kind == Kind::Complex) return fail(FoldError::Unsupported);
      return intResult(~asWide(a));
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
    order = asWide(a) < asWide(b) ? -1 : (asWide(a) > asWide(b) ? 1 : 0);
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
  using types::ScalarKind;
  switch (value.kind) {
    case Kind::Bool: return ScalarKind::Bool;
    case Kind::Int:
      if (fitsScalar(value, ScalarKind::Int32, false)) return ScalarKind::Int32;
      return value.aboveInt64 ? ScalarKind::UInt64 : ScalarKind::Int64;
    case Kind::Float:
      return fitsScalar(value, ScalarKind::Float32, false) ? ScalarKind::Float32 : ScalarKind::Float64;
    case Kind::Complex:
      return fitsScalar(makeFloat(value.floatValue), ScalarKind::Float32, false) &&
                     fitsScalar(makeFloat(value.imagValue), ScalarKind::Float32, false)
                 ? ScalarKind::Complex64
                 : ScalarKind::Complex128;
    case Kind::None:
    case Kind::Str:
    case Kind::Tuple: break;
  }
  WEFT_CHECK(false, "builtinKindOf needs a number constant");
  return ScalarKind::Bool;
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
  Wide x = 0;
  if (value.kind == Kind::Float) {
    double f = value.floatValue;
    if (!std::isfinite(f) || (!truncate && std::trunc(f) != f)) return false;
    if (std::fabs(f) >= 18446744073709551616.0) return false;  // beyond every integer type
    x = static_cast<Wide>(std::trunc(f));
  } else {
    x = asWide(value);
  }
  if (types::isBool(kind)) return x == 0 || x == 1;
  int bits = 8 * types::byteSize(kind);
  Wide low = types::isSigned(kind) ? -(static_cast<Wide>(1) << (bits - 1)) : 0;
  Wide high =
      types::isSigned(kind) ? (static_cast<Wide>(1) << (bits - 1)) - 1 : (static_cast<Wide>(1) << bits) - 1;
  return x >= low && x <= high;
}

ConstValue convertConstant(const ConstValue& value, types::ScalarKind kind) {
  using types::ScalarKind;
  switch (kind) {
    case ScalarKind::Bool: return castTo<bool>(value);
    case ScalarKind::Int8: return castTo<int8_t>(value);
    case ScalarKind::Int16: return castTo<int16_t>(value);
    case ScalarKind::Int32: return castTo<int32_t>(value);
    case ScalarKind::Int64: return castTo<int64_t>(value);
    case ScalarKind::UInt8: return castTo<uint8_t>(value);
    case ScalarKind::UInt16: return castTo<uint16_t>(value);
    case ScalarKind::UInt32: return castTo<uint32_t>(value);
    case ScalarKind::UInt64: return castTo<uint64_t>(value);
    case ScalarKind::Float16: return castTo<weft::float16>(value);
    case ScalarKind::BFloat16: return castTo<weft::bfloat16>(value);
    case ScalarKind::Float8E4M3: return castTo<weft::float8e4m3>(value);
    case ScalarKind::Float8E5M2: return castTo<weft::float8e5m2>(value);
    case ScalarKind::Float32: return castTo<float>(value);
    case ScalarKind::Float64: return castTo<double>(value);
    case ScalarKind::Complex64: return castTo<weft::complex64>(value);
    case ScalarKind::Complex128: return castTo<weft::complex128>(value);
    case ScalarKind::TFloat32: {
      // A scalar meeting a tfloat32 tile (sema then reports the restricted type): float32
      // rounded to 10 mantissa bits, ties away from zero, as the tile header's tf32_from_float.
      ConstValue f = castTo<float>(value);
      uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(f.floatValue));
      if ((bits & 0x7f800000u) != 0x7f800000u) f.floatValue = std::bit_cast<float>((bits + 0x1000u) & ~0x1fffu);
      return f;
    }
  }
  WEFT_CHECK(false, "unknown scalar kind");
  return {};
}

Literal toLiteral(const ConstValue& value, types::ScalarKind kind) {
  ConstValue converted = convertConstant(value, kind);
  Literal literal;
  literal.boolValue = converted.kind == Kind::Bool && converted.boolValue;
  literal.intValue = converted.kind == Kind::Int ? converted.intValue : 0;
  literal.floatValue =
      converted.kind == Kind::Float || converted.kind == Kind::Complex ? converted.floatValue : 0;
  literal.imagValue = asImag(converted);
  return literal;
}

std::optional<ConstValue> fromSyntax(const syntax::ConstantValue& value) {
  using SK = syntax::ConstantValue::Kind;
  switch (value.kind) {
    case SK::None: return ConstValue{};
    case SK::Bool: return makeBool(value.boolValue);
    case SK::Int: {
      if (value.fitsInt64) return intConstant(value.intValue);
      // A literal is never negative (its sign is a unary minus): above int64, perhaps uint64.
      errno = 0;
      char* end = nullptr;
      unsigned long long magnitude = std::strtoull(value.intDigits.c_str(), &end, 10);
      if (errno == ERANGE || end == value.intDigits.c_str() || *end != '\0') return std::nullopt;
      return uint64Constant(magnitude);
    }
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
