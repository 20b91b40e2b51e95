// The `math` module for device code: one overload per floating type, so float32 code calls
// the single-precision functions (sqrtf, ...) and float64 code the double ones. The C
// functions come from the CUDA device math library (built into NVRTC) or from <cmath> on
// the CPU target.
#pragma once

#include "weft/device/numeric.h"

namespace weft::math {

#define WEFT_MATH_UNARY(name, floatFunction, doubleFunction) \
  WEFT_HD float name(float x) {                              \
    return ::floatFunction(x);                               \
  }                                                          \
  WEFT_HD double name(double x) {                            \
    return ::doubleFunction(x);                              \
  }
#define WEFT_MATH_BINARY(name, floatFunction, doubleFunction) \
  WEFT_HD float name(float x, float y) {                      \
    return ::floatFunction(x, y);                             \
  }                                                           \
  WEFT_HD double name(double x, double y) {                   \
    return ::doubleFunction(x, y);                            \
  }
WEFT_MATH_UNARY(acos, acosf, acos)
WEFT_MATH_UNARY(asin, asinf, asin)
WEFT_MATH_UNARY(atan, atanf, atan)
WEFT_MATH_UNARY(acosh, acoshf, acosh)
WEFT_MATH_UNARY(asinh, asinhf, asinh)
WEFT_MATH_UNARY(atanh, atanhf, atanh)
WEFT_MATH_UNARY(cos, cosf, cos)
WEFT_MATH_UNARY(sin, sinf, sin)
WEFT_MATH_UNARY(tan, tanf, tan)
WEFT_MATH_UNARY(cosh, coshf, cosh)
WEFT_MATH_UNARY(sinh, sinhf, sinh)
WEFT_MATH_UNARY(tanh, tanhf, tanh)
WEFT_MATH_UNARY(exp, expf, exp)
WEFT_MATH_UNARY(exp2, exp2f, exp2)
WEFT_MATH_UNARY(expm1, expm1f, expm1)
WEFT_MATH_UNARY(fabs, fabsf, fabs)
WEFT_MATH_UNARY(log, logf, log)
WEFT_MATH_UNARY(log10, log10f, log10)
WEFT_MATH_UNARY(log1p, log1pf, log1p)
WEFT_MATH_UNARY(log2, log2f, log2)
WEFT_MATH_UNARY(sqrt, sqrtf, sqrt)
WEFT_MATH_UNARY(ceil, ceilf, ceil)
WEFT_MATH_UNARY(floor, floorf, floor)
WEFT_MATH_BINARY(atan2, atan2f, atan2)
WEFT_MATH_BINARY(pow, powf, pow)
WEFT_MATH_BINARY(copysign, copysignf, copysign)
WEFT_MATH_BINARY(fmod, fmodf, fmod)
WEFT_MATH_UNARY(erf, erff, erf)
WEFT_MATH_UNARY(erfc, erfcf, erfc)
WEFT_MATH_UNARY(gamma, tgammaf, tgamma)
WEFT_MATH_UNARY(lgamma, lgammaf, lgamma)
WEFT_MATH_UNARY(trunc, truncf, trunc)
WEFT_MATH_UNARY(cbrt, cbrtf, cbrt)
WEFT_MATH_BINARY(hypot, hypotf, hypot)
WEFT_MATH_BINARY(remainder, remainderf, remainder)
// fma(a, b, c) == a * b + c rounded once.
WEFT_HD float fma(float a, float b, float c) {
  return ::fmaf(a, b, c);
}
WEFT_HD double fma(double a, double b, double c) {
  return ::fma(a, b, c);
}
WEFT_MATH_BINARY(nextafter, nextafterf, nextafter)
// math.degrees and math.radians: one multiplication by the constant CPython uses.
WEFT_HD float degrees(float x) {
  return x * (180.0f / 3.14159265358979323846f);
}
WEFT_HD double degrees(double x) {
  return x * (180.0 / 3.14159265358979323846);
}
WEFT_HD float radians(float x) {
  return x * (3.14159265358979323846f / 180.0f);
}
WEFT_HD double radians(double x) {
  return x * (3.14159265358979323846 / 180.0);
}
// math.ldexp(x, i): sema passes the integer i in x's float type, which holds every exponent
// that does not overflow or underflow to zero anyway.
WEFT_HD float ldexp(float x, float i) {
  return ::ldexpf(x, i > 1000.0f ? 1000 : i < -1000.0f ? -1000 : static_cast<int>(i));
}
WEFT_HD double ldexp(double x, double i) {
  return ::ldexp(x, i > 10000.0 ? 10000 : i < -10000.0 ? -10000 : static_cast<int>(i));
}
// round(x): the nearest integer value, ties to even (the default rounding mode).
WEFT_MATH_UNARY(rint, rintf, rint)
// round(x, ndigits) as numba computes it: x scaled by 10**ndigits, rounded (ties to even) and
// scaled back; x itself when it is not finite or the scaling overflows.
template <class T>
WEFT_HD T round_digits(T x, T digits) {
  if (!(x - x == x - x)) return x;  // inf or nan
  if (digits >= 0) {
    T scale = pow(static_cast<T>(10), digits > 400 ? static_cast<T>(400) : digits);
    T scaled = x * scale;
    return scaled - scaled == 0 ? rint(scaled) / scale : x;
  }
  T scale = pow(static_cast<T>(10), -digits > 400 ? static_cast<T>(400) : -digits);
  if (!(scale - scale == 0)) return x * 0;  // 10**-ndigits beyond the type: every x rounds to 0
  return rint(x / scale) * scale;
}
#undef WEFT_MATH_UNARY
#undef WEFT_MATH_BINARY

// math.isclose(a, b, rel_tol, abs_tol) as CPython computes it: equal values (infinities
// included) are close, an infinity is close to nothing else, NaN to nothing.
template <class T>
WEFT_HD bool isclose(T a, T b, T relTol, T absTol) {
  if (a == b) return true;
  if (detail::isInf(a) || detail::isInf(b)) return false;
  T diff = a > b ? a - b : b - a;
  T scale = (a < 0 ? -a : a) > (b < 0 ? -b : b) ? (a < 0 ? -a : a) : (b < 0 ? -b : b);
  return diff <= relTol * scale || diff <= absTol;
}

// numpy.minimum / maximum: NaN when either operand is; numpy.fmin / fmax: the other operand
// when one is NaN. Integers compare as min and max do.
template <class T>
WEFT_HD T minimum(T a, T b) {
  if constexpr (detail::kIsFloat<T>) {
    if (detail::isNan(a)) return a;
    if (detail::isNan(b)) return b;
  }
  return lt(b, a) ? b : a;
}
template <class T>
WEFT_HD T maximum(T a, T b) {
  if constexpr (detail::kIsFloat<T>) {
    if (detail::isNan(a)) return a;
    if (detail::isNan(b)) return b;
  }
  return lt(a, b) ? b : a;
}
template <class T>
WEFT_HD T fmin(T a, T b) {
  if constexpr (detail::kIsFloat<T>) {
    if (detail::isNan(a)) return b;
    if (detail::isNan(b)) return a;
  }
  return lt(b, a) ? b : a;
}
template <class T>
WEFT_HD T fmax(T a, T b) {
  if constexpr (detail::kIsFloat<T>) {
    if (detail::isNan(a)) return b;
    if (detail::isNan(b)) return a;
  }
  return lt(a, b) ? b : a;
}

// math.isnan / math.isinf; integers are never nan or infinite.
template <class T>
WEFT_HD bool isnan(T x) {
  if constexpr (detail::kIsFloat<T>) {
    return detail::isNan(x);
  } else {
    return false;
  }
}
template <class T>
WEFT_HD bool isfinite(T x) {
  if constexpr (detail::kIsFloat<T>) {
    return !detail::isNan(x) && !detail::isInf(x);
  } else {
    return true;
  }
}
template <class T>
WEFT_HD bool isinf(T x) {
  if constexpr (detail::kIsFloat<T>) {
    return detail::isInf(x);
  } else {
    return false;
  }
}

}  // namespace weft::math
