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
#undef WEFT_MATH_UNARY
#undef WEFT_MATH_BINARY

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
