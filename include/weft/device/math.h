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
// math.frexp(x) = (mantissa, exponent) and math.modf(x) = (fraction, whole), a part each.
WEFT_HD float frexp_mantissa(float x) {
  int exponent = 0;
  return ::frexpf(x, &exponent);
}
WEFT_HD double frexp_mantissa(double x) {
  int exponent = 0;
  return ::frexp(x, &exponent);
}
template <class T>
WEFT_HD int frexp_exponent(T x) {
  int exponent = 0;
  if (!(x - x == x - x)) return 0;  // inf or nan: CPython's exponent is 0
  ::frexp(static_cast<double>(x), &exponent);
  return exponent;
}
WEFT_HD float modf_fraction(float x) {
  float whole = 0;
  return ::modff(x, &whole);
}
WEFT_HD double modf_fraction(double x) {
  double whole = 0;
  return ::modf(x, &whole);
}
WEFT_HD float modf_whole(float x) {
  float whole = 0;
  ::modff(x, &whole);
  return whole;
}
WEFT_HD double modf_whole(double x) {
  double whole = 0;
  ::modf(x, &whole);
  return whole;
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

// a orders below b in min and max: -0 below +0 (IEEE 754-2019's minimumNumber/maximumNumber,
// and what the GPU's min.f32/max.f32 compute), NaN below nothing.
template <class T>
WEFT_HD bool ordersBelow(T a, T b) {
  if constexpr (detail::kIsFloat<T>) {
    if (eq(a, b)) {
      if constexpr (detail::kIsNarrow<T>) {
        return ordersBelow(detail::Traits<T>::toFloat(a), detail::Traits<T>::toFloat(b));
      } else {
        return detail::copysignOf(T(1), a) < detail::copysignOf(T(1), b);
      }
    }
  }
  return lt(a, b);
}

// numpy.minimum / maximum: NaN when either operand is; numpy.fmin / fmax: the other operand
// when one is NaN. Integers compare as min and max do; -0 is below +0 (detail::ordersBelow).
template <class T>
WEFT_HD T minimum(T a, T b) {
  if constexpr (detail::kIsFloat<T>) {
    if (detail::isNan(a)) return a;
    if (detail::isNan(b)) return b;
  }
  return ordersBelow(b, a) ? b : a;
}
template <class T>
WEFT_HD T maximum(T a, T b) {
  if constexpr (detail::kIsFloat<T>) {
    if (detail::isNan(a)) return a;
    if (detail::isNan(b)) return b;
  }
  return ordersBelow(a, b) ? b : a;
}
template <class T>
WEFT_HD T fmin(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (detail::kIsFloat<T> && !detail::kIsNarrow<T> && sizeof(T) == 4) return ::fminf(a, b);  // min.f32
#endif
  if constexpr (detail::kIsFloat<T>) {
    if (detail::isNan(a)) return b;
    if (detail::isNan(b)) return a;
  }
  return ordersBelow(b, a) ? b : a;
}
template <class T>
WEFT_HD T fmax(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (detail::kIsFloat<T> && !detail::kIsNarrow<T> && sizeof(T) == 4) return ::fmaxf(a, b);  // max.f32
#endif
  if constexpr (detail::kIsFloat<T>) {
    if (detail::isNan(a)) return b;
    if (detail::isNan(b)) return a;
  }
  return ordersBelow(a, b) ? b : a;
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

// z ** w of complexes as CPython computes it: w == 0 gives 1; an integral real exponent of
// magnitude at most 100 multiplies (square and multiply, then 1 / the power for a negative
// one); any other goes through the polar form. 0 ** w with w negative or not real, where
// CPython raises ZeroDivisionError, gives nan+nanj.
template <class C>
WEFT_HD C complex_pow(C a, C b) {
  using R = typename detail::Traits<C>::Real;
  if (b.re == 0 && b.im == 0) return C{1, 0};
  if (a.re == 0 && a.im == 0) {
    if (b.im != 0 || b.re < 0) return C{sqrt(R(-1)), sqrt(R(-1))};  // nan
    return C{0, 0};
  }
  if (b.im == 0 && b.re == floor(b.re) && fabs(b.re) <= 100) {
    long n = static_cast<long>(b.re);
    unsigned long bits = static_cast<unsigned long>(n < 0 ? -n : n);
    C result{1, 0};
    C power = a;
    for (unsigned long mask = 1; mask > 0 && bits >= mask; mask <<= 1) {
      if (bits & mask) result = result * power;
      power = power * power;
    }
    return n < 0 ? C{1, 0} / result : result;
  }
  R magnitude = hypot(a.re, a.im);
  R length = pow(magnitude, b.re);
  R angle = atan2(a.im, a.re);
  R phase = angle * b.re;
  if (b.im != 0) {
    length /= exp(angle * b.im);
    phase += b.im * log(magnitude);
  }
  return C{length * cos(phase), length * sin(phase)};
}

}  // namespace weft::math

// The cmath module for device code, on complex64 and complex128 (from the real formulas; the
// special values of infinite and NaN parts may differ from CPython's tables).
namespace weft::cmath {

template <class C>
WEFT_HD C exp(C z) {
  auto scale = math::exp(z.re);
  return C{scale * math::cos(z.im), scale * math::sin(z.im)};
}
template <class C>
WEFT_HD C log(C z) {
  return C{math::log(math::hypot(z.re, z.im)), math::atan2(z.im, z.re)};
}
template <class C>
WEFT_HD C log10(C z) {
  using R = typename detail::Traits<C>::Real;
  C natural = log(z);
  const R ln10 = static_cast<R>(2.302585092994045684);
  return C{natural.re / ln10, natural.im / ln10};
}
template <class C>
WEFT_HD C sqrt(C z) {
  using R = typename detail::Traits<C>::Real;
  if (z.re == 0 && z.im == 0) return C{0, z.im};
  R t = math::sqrt((math::fabs(z.re) + math::hypot(z.re, z.im)) / 2);
  if (z.re >= 0) return C{t, z.im / (2 * t)};
  return C{math::fabs(z.im) / (2 * t), math::copysign(t, z.im)};
}
template <class C>
WEFT_HD C sinh(C z) {
  return C{math::sinh(z.re) * math::cos(z.im), math::cosh(z.re) * math::sin(z.im)};
}
template <class C>
WEFT_HD C cosh(C z) {
  return C{math::cosh(z.re) * math::cos(z.im), math::sinh(z.re) * math::sin(z.im)};
}
template <class C>
WEFT_HD C tanh(C z) {
  using R = typename detail::Traits<C>::Real;
  // Beyond |re| = 20 the real part is ±1 to the type's precision (and cosh would overflow).
  if (math::fabs(z.re) > 20) {
    R im = 4 * math::sin(z.im) * math::cos(z.im) * math::exp(-2 * math::fabs(z.re));
    return C{math::copysign(static_cast<R>(1), z.re), im};
  }
  R denominator = math::cosh(2 * z.re) + math::cos(2 * z.im);
  return C{math::sinh(2 * z.re) / denominator, math::sin(2 * z.im) / denominator};
}
template <class C>
WEFT_HD C sin(C z) {
  return C{math::sin(z.re) * math::cosh(z.im), math::cos(z.re) * math::sinh(z.im)};
}
template <class C>
WEFT_HD C cos(C z) {
  return C{math::cos(z.re) * math::cosh(z.im), -(math::sin(z.re) * math::sinh(z.im))};
}
// tan(z) = -i tanh(i z).
template <class C>
WEFT_HD C tan(C z) {
  C t = tanh(C{-z.im, z.re});
  return C{t.im, -t.re};
}
// The inverse functions from square roots of 1 ± z (Kahan's formulas, as CPython uses them for
// finite arguments of moderate size): each part comes from one atan2 or asinh without the
// cancellation of log(z + sqrt(z*z - 1)). |z| near the type's overflow may overflow (z*z is not
// formed, but 1 ± z is).
template <class C>
WEFT_HD C acos(C z) {
  C a = sqrt(C{1 - z.re, -z.im});
  C b = sqrt(C{1 + z.re, z.im});
  return C{2 * math::atan2(a.re, b.re), math::asinh(b.re * a.im - b.im * a.re)};
}
template <class C>
WEFT_HD C acosh(C z) {
  C a = sqrt(C{z.re - 1, z.im});
  C b = sqrt(C{z.re + 1, z.im});
  return C{math::asinh(a.re * b.re + a.im * b.im), 2 * math::atan2(a.im, b.re)};
}
template <class C>
WEFT_HD C asinh(C z) {
  C a = sqrt(C{1 + z.im, -z.re});  // sqrt(1 - i z)
  C b = sqrt(C{1 - z.im, z.re});   // sqrt(1 + i z)
  return C{math::asinh(a.re * b.im - b.re * a.im), math::atan2(z.im, a.re * b.re - a.im * b.im)};
}
// asin(z) = -i asinh(i z).
template <class C>
WEFT_HD C asin(C z) {
  C r = asinh(C{-z.im, z.re});
  return C{r.im, -r.re};
}
// atanh(z) = log((1 + z) / (1 - z)) / 2, the real part through log1p (exact near 0), for the
// sign of z.re that keeps 1 - |re| free of cancellation (atanh is odd).
template <class C>
WEFT_HD C atanh(C z) {
  using R = typename detail::Traits<C>::Real;
  if (math::copysign(static_cast<R>(1), z.re) < 0) {
    C r = atanh(C{-z.re, -z.im});
    return C{-r.re, -r.im};
  }
  R x = z.re, y = z.im;
  R re = math::log1p(4 * x / ((1 - x) * (1 - x) + y * y)) / 4;
  R im = -math::atan2(-2 * y, (1 - x) * (1 + x) - y * y) / 2;
  return C{re, im};
}
// atan(z) = -i atanh(i z).
template <class C>
WEFT_HD C atan(C z) {
  C r = atanh(C{-z.im, z.re});
  return C{r.im, -r.re};
}
template <class C>
WEFT_HD auto phase(C z) {
  return math::atan2(z.im, z.re);
}
template <class C>
WEFT_HD bool isnan(C z) {
  return math::isnan(z.re) || math::isnan(z.im);
}
template <class C>
WEFT_HD bool isinf(C z) {
  return math::isinf(z.re) || math::isinf(z.im);
}
template <class C>
WEFT_HD bool isfinite(C z) {
  return math::isfinite(z.re) && math::isfinite(z.im);
}
WEFT_HD complex64 rect(float r, float phi) {
  return complex64{r * math::cos(phi), r * math::sin(phi)};
}
WEFT_HD complex128 rect(double r, double phi) {
  return complex128{r * math::cos(phi), r * math::sin(phi)};
}

}  // namespace weft::cmath
