// Python semantics for weft's scalar types (DESIGN.md section 3), as small host+device
// helpers that the generated code calls instead of C++ operators wherever C++ differs from
// Python or has undefined behaviour:
// - integer + - * and negation wrap (two's complement), computed in unsigned arithmetic;
// - // and % floor (the remainder takes the divisor's sign), for integers and floats;
// - shifts by >= the bit width give Python's value within the type's range;
// - int() truncation of floats, wrapped into the target integer type.
// Where Python raises an exception, device code cannot, so weft defines a result:
// - integer x // 0 == 0 and x % 0 == 0 (the host process must never trap; with debug=True
//   the divisor is checked first and ZeroDivisionError raised: intrinsics.h checked_divisor);
// - float x // 0.0 == floor(x / 0.0) (+-inf, or nan for 0.0 // 0.0) and x % 0.0 == nan;
// - a shift by a negative count gives 0;
// - integer x ** n with n < 0 gives Python's float result truncated toward zero (0 unless
//   x is 1 or -1; 0 ** negative == 0);
// - int() of nan or +-inf gives 0.
#pragma once

#include "weft/device/config.h"

namespace weft {

// complex64 and complex128: the layout of C's float _Complex / double _Complex (re, im),
// aggregates so that they may live in shared memory.
struct alignas(8) complex64 {
  float re, im;
};
struct alignas(16) complex128 {
  double re, im;
};
static_assert(sizeof(complex64) == 8 && alignof(complex64) == 8, "complex64 ABI");
static_assert(sizeof(complex128) == 16 && alignof(complex128) == 16, "complex128 ABI");

namespace detail {

enum class Category { Bool, Signed, Unsigned, Float, Complex };

// Per-type facts: category, width in bits, the same-width unsigned type `U`, the unsigned
// type `W` in which wrapping arithmetic is done (at least unsigned int, so that integer
// promotion never turns it back into a signed int), and the real part type of complexes.
template <class T>
struct Traits;
#define WEFT_INTEGER_TRAITS(T, category, bits, Unsigned, Wide) \
  template <>                                                  \
  struct Traits<T> {                                           \
    static constexpr Category kCategory = Category::category;  \
    static constexpr int kBits = bits;                         \
    using U = Unsigned;                                        \
    using W = Wide;                                            \
  };
WEFT_INTEGER_TRAITS(bool, Bool, 1, bool, unsigned int)
WEFT_INTEGER_TRAITS(int8_t, Signed, 8, uint8_t, unsigned int)
WEFT_INTEGER_TRAITS(int16_t, Signed, 16, uint16_t, unsigned int)
WEFT_INTEGER_TRAITS(int32_t, Signed, 32, uint32_t, unsigned int)
WEFT_INTEGER_TRAITS(int64_t, Signed, 64, uint64_t, unsigned long long)
WEFT_INTEGER_TRAITS(uint8_t, Unsigned, 8, uint8_t, unsigned int)
WEFT_INTEGER_TRAITS(uint16_t, Unsigned, 16, uint16_t, unsigned int)
WEFT_INTEGER_TRAITS(uint32_t, Unsigned, 32, uint32_t, unsigned int)
WEFT_INTEGER_TRAITS(uint64_t, Unsigned, 64, uint64_t, unsigned long long)
#undef WEFT_INTEGER_TRAITS
template <>
struct Traits<float> {
  static constexpr Category kCategory = Category::Float;
  static constexpr int kBits = 32;
};
template <>
struct Traits<double> {
  static constexpr Category kCategory = Category::Float;
  static constexpr int kBits = 64;
};
template <>
struct Traits<complex64> {
  static constexpr Category kCategory = Category::Complex;
  using Real = float;
};
template <>
struct Traits<complex128> {
  static constexpr Category kCategory = Category::Complex;
  using Real = double;
};

// float16, bfloat16 and the fp8 types (weft/device/fp16.h specializes it with their Traits:
// toFloat, fromFloat, fromDouble, add, sub, mul, div, neg).
template <class T>
inline constexpr bool kIsNarrow = false;

// The bits of a value of at most 8 bytes, zero-extended, and back (warp collectives and
// atomics move bits). A byte copy: NVRTC has no memcpy without headers, and compilers turn the
// loop into a move.
template <class T>
WEFT_HD uint64_t toBits(T value) {
  static_assert(sizeof(T) <= 8, "values of at most 8 bytes");
  uint64_t bits = 0;
  const unsigned char* from = reinterpret_cast<const unsigned char*>(&value);
  unsigned char* to = reinterpret_cast<unsigned char*>(&bits);
  for (unsigned i = 0; i < sizeof(T); ++i) to[i] = from[i];
  return bits;
}
template <class T>
WEFT_HD T fromBits(uint64_t bits) {
  T value;
  const unsigned char* from = reinterpret_cast<const unsigned char*>(&bits);
  unsigned char* to = reinterpret_cast<unsigned char*>(&value);
  for (unsigned i = 0; i < sizeof(T); ++i) to[i] = from[i];
  return value;
}

template <class T>
inline constexpr bool kIsInteger =
    Traits<T>::kCategory == Category::Signed || Traits<T>::kCategory == Category::Unsigned;
template <class T>
inline constexpr bool kIsSigned = Traits<T>::kCategory == Category::Signed;
template <class T>
inline constexpr bool kIsFloat = Traits<T>::kCategory == Category::Float;
template <class T>
inline constexpr bool kIsComplex = Traits<T>::kCategory == Category::Complex;

// IEEE tests written with arithmetic only, so they need no <cmath> under NVRTC. A narrow float
// (float16, bfloat16, fp8) is tested as the float32 it converts to exactly.
template <class F>
WEFT_HD bool isNan(F x) {
  if constexpr (kIsNarrow<F>) {
    return isNan(Traits<F>::toFloat(x));
  } else {
    return x != x;
  }
}
template <class F>
WEFT_HD bool isInf(F x) {
  return !isNan(x) && isNan(x - x);
}

// The C math functions weft's helpers need, per precision.
WEFT_HD float floorOf(float x) {
  return ::floorf(x);
}
WEFT_HD double floorOf(double x) {
  return ::floor(x);
}
WEFT_HD float fmodOf(float x, float y) {
  return ::fmodf(x, y);
}
WEFT_HD double fmodOf(double x, double y) {
  return ::fmod(x, y);
}
WEFT_HD float copysignOf(float x, float y) {
  return ::copysignf(x, y);
}
WEFT_HD double copysignOf(double x, double y) {
  return ::copysign(x, y);
}
WEFT_HD float fabsOf(float x) {
  return ::fabsf(x);
}
WEFT_HD double fabsOf(double x) {
  return ::fabs(x);
}

}  // namespace detail

// Positive infinity and a quiet NaN of a floating type (literals cannot spell them; NVRTC
// has neither <cmath> nor the GCC builtins, but has CUDA's bit-cast intrinsics).
template <class F>
WEFT_HD F inf() {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(F) == 4) {
    return __int_as_float(0x7f800000);
  } else {
    return __longlong_as_double(0x7ff0000000000000ll);
  }
#else
  return static_cast<F>(__builtin_huge_val());
#endif
}
template <class F>
WEFT_HD F nan() {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(F) == 4) {
    return __int_as_float(0x7fc00000);
  } else {
    return __longlong_as_double(0x7ff8000000000000ll);
  }
#else
  return static_cast<F>(__builtin_nan(""));
#endif
}

// Complex arithmetic (C99 Annex G's special cases are not modelled).
#define WEFT_COMPLEX_OPERATORS(C, R)                                                      \
  WEFT_HD C operator+(C a, C b) {                                                         \
    return C{a.re + b.re, a.im + b.im};                                                   \
  }                                                                                       \
  WEFT_HD C operator-(C a, C b) {                                                         \
    return C{a.re - b.re, a.im - b.im};                                                   \
  }                                                                                       \
  WEFT_HD C operator-(C a) {                                                              \
    return C{-a.re, -a.im};                                                               \
  }                                                                                       \
  WEFT_HD C operator*(C a, C b) {                                                         \
    return C{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};                       \
  }                                                                                       \
  /* Smith's algorithm, as CPython's complex division: no overflow for large parts. */    \
  WEFT_HD C operator/(C a, C b) {                                                         \
    R absRe = detail::fabsOf(b.re), absIm = detail::fabsOf(b.im);                         \
    if (absRe >= absIm) {                                                                 \
      if (absRe == R(0)) return C{a.re / absRe, a.im / absRe};                            \
      R ratio = b.im / b.re, denominator = b.re + b.im * ratio;                           \
      return C{(a.re + a.im * ratio) / denominator, (a.im - a.re * ratio) / denominator}; \
    }                                                                                     \
    if (absIm >= absRe) {                                                                 \
      R ratio = b.re / b.im, denominator = b.re * ratio + b.im;                           \
      return C{(a.re * ratio + a.im) / denominator, (a.im * ratio - a.re) / denominator}; \
    }                                                                                     \
    return C{nan<R>(), nan<R>()};                                                         \
  }                                                                                       \
  WEFT_HD bool operator==(C a, C b) {                                                     \
    return a.re == b.re && a.im == b.im;                                                  \
  }                                                                                       \
  WEFT_HD bool operator!=(C a, C b) {                                                     \
    return !(a == b);                                                                     \
  }                                                                                       \
  WEFT_HD C conjugate(C a) {                                                              \
    return C{a.re, -a.im};                                                                \
  }
WEFT_COMPLEX_OPERATORS(complex64, float)
WEFT_COMPLEX_OPERATORS(complex128, double)
#undef WEFT_COMPLEX_OPERATORS

// Python truthiness: nonzero (either part, for complexes).
template <class T>
WEFT_HD bool truth(T x) {
  if constexpr (detail::kIsComplex<T>) {
    return x.re != 0 || x.im != 0;
  } else if constexpr (detail::kIsNarrow<T>) {
    return detail::Traits<T>::toFloat(x) != 0.0f;
  } else {
    return x != 0;
  }
}

namespace detail {

// An integer result computed in W, wrapped to T. On the GPU a 16-bit T is cut from a 32-bit
// register by an explicit truncation: ptxas (CUDA 13.0) keeps 16-bit values in 32-bit registers
// and takes the result of a 16-bit negation (neg.s16, also what 0 - x becomes) as already sign
// extended, so -(-32768) compared as 32768 and min(-x, 0) of x = -32768 gave 0 on an H100.
template <class T, class W>
WEFT_HD T wrap(W wide) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 2) {
    unsigned short bits;
    asm("cvt.u16.u32 %0, %1;" : "=h"(bits) : "r"(static_cast<unsigned>(wide)));
    return static_cast<T>(bits);
  }
#endif
  return static_cast<T>(wide);
}

}  // namespace detail

// Wrapping a + b, a - b, a * b, -a (plain IEEE arithmetic for floats and complexes).
template <class T>
WEFT_HD T add(T a, T b) {
  if constexpr (detail::kIsInteger<T>) {
    using W = typename detail::Traits<T>::W;
    return detail::wrap<T>(static_cast<W>(a) + static_cast<W>(b));
  } else if constexpr (detail::kIsNarrow<T>) {
    return detail::Traits<T>::add(a, b);
  } else {
    return a + b;
  }
}
template <class T>
WEFT_HD T sub(T a, T b) {
  if constexpr (detail::kIsInteger<T>) {
    using W = typename detail::Traits<T>::W;
    return detail::wrap<T>(static_cast<W>(a) - static_cast<W>(b));
  } else if constexpr (detail::kIsNarrow<T>) {
    return detail::Traits<T>::sub(a, b);
  } else {
    return a - b;
  }
}
template <class T>
WEFT_HD T mul(T a, T b) {
  if constexpr (detail::kIsInteger<T>) {
    using W = typename detail::Traits<T>::W;
    return detail::wrap<T>(static_cast<W>(a) * static_cast<W>(b));
  } else if constexpr (detail::kIsNarrow<T>) {
    return detail::Traits<T>::mul(a, b);
  } else {
    return a * b;
  }
}
template <class T>
WEFT_HD T neg(T a) {
  if constexpr (detail::kIsInteger<T>) {
    using W = typename detail::Traits<T>::W;
    return detail::wrap<T>(W(0) - static_cast<W>(a));
  } else if constexpr (detail::kIsNarrow<T>) {
    return detail::Traits<T>::neg(a);
  } else {
    return -a;
  }
}

// a / b for floating and complex types (narrow floats: the hardware's division, or float32's
// rounded once).
template <class T>
WEFT_HD T truediv(T a, T b) {
  if constexpr (detail::kIsNarrow<T>) {
    return detail::Traits<T>::div(a, b);
  } else {
    return a / b;
  }
}

// A narrow float as float32 (exact); other numbers unchanged.
template <class T>
WEFT_HD auto widen(T x) {
  if constexpr (detail::kIsNarrow<T>) {
    return detail::Traits<T>::toFloat(x);
  } else {
    return x;
  }
}

// Python's a // b: the floor of the quotient (see the file comment for b == 0).
template <class T>
WEFT_HD T floordiv(T a, T b) {
  if constexpr (detail::kIsNarrow<T>) {
    return detail::Traits<T>::fromFloat(floordiv(widen(a), widen(b)));
  } else if constexpr (detail::kIsInteger<T>) {
    if (b == 0) return T(0);
    if constexpr (detail::kIsSigned<T>) {
      // MIN // -1 overflows (and traps on x86): Python's value wraps to MIN.
      if (b == T(-1)) return neg(a);
      T quotient = static_cast<T>(a / b);
      T remainder = static_cast<T>(a % b);
      if (remainder != 0 && ((remainder < 0) != (b < 0))) quotient = static_cast<T>(quotient - 1);
      return quotient;
    } else {
      return static_cast<T>(a / b);
    }
  } else {
    // CPython's float_floor_div, so that results match Python bit for bit.
    if (b == T(0)) return detail::floorOf(a / b);
    T mod = detail::fmodOf(a, b);
    T div = (a - mod) / b;
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
    if (div == T(0)) return detail::copysignOf(T(0), a / b);
    T floored = detail::floorOf(div);
    if (div - floored > T(0.5)) floored += T(1);
    return floored;
  }
}

// Python's a % b: the remainder with the divisor's sign (see the file comment for b == 0).
template <class T>
WEFT_HD T mod(T a, T b) {
  if constexpr (detail::kIsNarrow<T>) {
    return detail::Traits<T>::fromFloat(mod(widen(a), widen(b)));
  } else if constexpr (detail::kIsInteger<T>) {
    if (b == 0) return T(0);
    if constexpr (detail::kIsSigned<T>) {
      if (b == T(-1)) return T(0);
      T remainder = static_cast<T>(a % b);
      if (remainder != 0 && ((remainder < 0) != (b < 0))) remainder = static_cast<T>(remainder + b);
      return remainder;
    } else {
      return static_cast<T>(a % b);
    }
  } else {
    T remainder = detail::fmodOf(a, b);
    if (remainder != T(0)) {
      if ((b < T(0)) != (remainder < T(0))) remainder += b;
    } else {
      remainder = detail::copysignOf(T(0), b);
    }
    return remainder;
  }
}

// Python's a << s and a >> s within the range of a's type: bits shifted past the width are
// lost (left), right shifts of negatives by >= the width give -1 (see the file comment for
// s < 0).
template <class T, class S>
WEFT_HD T shl(T a, S s) {
  static_assert(detail::kIsInteger<T> && detail::kIsInteger<S>, "shifts are on integers");
  if constexpr (detail::kIsSigned<S>) {
    if (s < 0) return T(0);
  }
  if (static_cast<unsigned long long>(s) >= static_cast<unsigned long long>(detail::Traits<T>::kBits)) {
    return T(0);
  }
  using W = typename detail::Traits<T>::W;
  return detail::wrap<T>(static_cast<W>(static_cast<W>(a) << static_cast<int>(s)));
}
template <class T, class S>
WEFT_HD T shr(T a, S s) {
  static_assert(detail::kIsInteger<T> && detail::kIsInteger<S>, "shifts are on integers");
  if constexpr (detail::kIsSigned<S>) {
    if (s < 0) return T(0);
  }
  if (static_cast<unsigned long long>(s) >= static_cast<unsigned long long>(detail::Traits<T>::kBits)) {
    if constexpr (detail::kIsSigned<T>) return a < 0 ? T(-1) : T(0);
    return T(0);
  }
  // Right shifts of negative values are arithmetic (defined since C++20, and on every
  // compiler weft supports before it).
  return static_cast<T>(a >> static_cast<int>(s));
}

// Comparisons that are exact for every pair of scalar types, including signed against
// unsigned integers (where C++'s usual conversions would be wrong).
template <class A, class B>
WEFT_HD bool eq(A a, B b) {
  if constexpr (detail::kIsNarrow<A> || detail::kIsNarrow<B>) {
    return widen(a) == widen(b);
  } else if constexpr (detail::kIsInteger<A> && detail::kIsInteger<B> &&
                detail::kIsSigned<A> != detail::kIsSigned<B>) {
    if constexpr (detail::kIsSigned<A>) {
      return a >= 0 && static_cast<unsigned long long>(a) == static_cast<unsigned long long>(b);
    } else {
      return b >= 0 && static_cast<unsigned long long>(a) == static_cast<unsigned long long>(b);
    }
  } else {
    return a == b;
  }
}
template <class A, class B>
WEFT_HD bool ne(A a, B b) {
  return !eq(a, b);
}
template <class A, class B>
WEFT_HD bool lt(A a, B b) {
  if constexpr (detail::kIsNarrow<A> || detail::kIsNarrow<B>) {
    return widen(a) < widen(b);
  } else if constexpr (detail::kIsInteger<A> && detail::kIsInteger<B> &&
                detail::kIsSigned<A> != detail::kIsSigned<B>) {
    if constexpr (detail::kIsSigned<A>) {
      return a < 0 || static_cast<unsigned long long>(a) < static_cast<unsigned long long>(b);
    } else {
      return b >= 0 && static_cast<unsigned long long>(a) < static_cast<unsigned long long>(b);
    }
  } else {
    return a < b;
  }
}
template <class A, class B>
WEFT_HD bool gt(A a, B b) {
  return lt(b, a);
}
// a <= b is not !(b < a) for NaNs; spelled out so that NaN compares false as in Python.
template <class A, class B>
WEFT_HD bool le(A a, B b) {
  return lt(a, b) || eq(a, b);
}
template <class A, class B>
WEFT_HD bool ge(A a, B b) {
  return lt(b, a) || eq(a, b);
}

namespace detail {

// `c < d ? b : a` for integers, float and double. On the GPU the comparison and the select are
// PTX that neither NVRTC nor ptxas reads as a min or max: ptxas (CUDA 12.8 to 13.3 at least)
// fuses two dependent integer min/max into one three-operand VIMNMX3 and can drop a negated
// operand (min(x, -y, z) computed min(x, y, z) on an H100), and NVRTC made max(-0.0, 0.0) of a
// constant -0.0 a max.f64, which gives +0.0 where Python keeps the first argument, -0.0.
template <class T>
WEFT_HD T selectIfLess(T a, T b, T c, T d) {
#if defined(__CUDA_ARCH__)
  static_assert(!kIsNarrow<T>, "narrow floats compare through float32");
  if constexpr (kIsFloat<T>) {
    T result;
    if constexpr (sizeof(T) == 4) {
      asm("{ .reg .pred p; setp.lt.f32 p, %3, %4; selp.f32 %0, %2, %1, p; }"
          : "=f"(result) : "f"(a), "f"(b), "f"(c), "f"(d));
    } else {
      asm("{ .reg .pred p; setp.lt.f64 p, %3, %4; selp.f64 %0, %2, %1, p; }"
          : "=d"(result) : "d"(a), "d"(b), "d"(c), "d"(d));
    }
    return result;
  } else if constexpr (sizeof(T) <= 4) {
    unsigned result;
    if constexpr (kIsSigned<T>) {
      asm("{ .reg .pred p; setp.lt.s32 p, %3, %4; selp.b32 %0, %2, %1, p; }"
          : "=r"(result) : "r"(static_cast<int>(a)), "r"(static_cast<int>(b)), "r"(static_cast<int>(c)),
            "r"(static_cast<int>(d)));
    } else {
      asm("{ .reg .pred p; setp.lt.u32 p, %3, %4; selp.b32 %0, %2, %1, p; }"
          : "=r"(result) : "r"(static_cast<unsigned>(a)), "r"(static_cast<unsigned>(b)),
            "r"(static_cast<unsigned>(c)), "r"(static_cast<unsigned>(d)));
    }
    return static_cast<T>(result);
  } else {
    unsigned long long result;
    if constexpr (kIsSigned<T>) {
      asm("{ .reg .pred p; setp.lt.s64 p, %3, %4; selp.b64 %0, %2, %1, p; }"
          : "=l"(result) : "l"(static_cast<long long>(a)), "l"(static_cast<long long>(b)),
            "l"(static_cast<long long>(c)), "l"(static_cast<long long>(d)));
    } else {
      asm("{ .reg .pred p; setp.lt.u64 p, %3, %4; selp.b64 %0, %2, %1, p; }"
          : "=l"(result) : "l"(static_cast<unsigned long long>(a)), "l"(static_cast<unsigned long long>(b)),
            "l"(static_cast<unsigned long long>(c)), "l"(static_cast<unsigned long long>(d)));
    }
    return static_cast<T>(result);
  }
#else
  return c < d ? b : a;
#endif
}

}  // namespace detail

// Python's min(a, b) and max(a, b): the first argument unless the second is strictly
// smaller (larger), which fixes which operand a NaN comparison returns.
template <class T>
WEFT_HD T min(T a, T b) {
  if constexpr (detail::kIsInteger<T> || (detail::kIsFloat<T> && !detail::kIsNarrow<T>)) {
    return detail::selectIfLess(a, b, b, a);
  } else {
    return lt(b, a) ? b : a;
  }
}
template <class T>
WEFT_HD T max(T a, T b) {
  if constexpr (detail::kIsInteger<T> || (detail::kIsFloat<T> && !detail::kIsNarrow<T>)) {
    return detail::selectIfLess(a, b, a, b);
  } else {
    return lt(a, b) ? b : a;
  }
}

// Python's abs(): wrapping for integers (abs(MIN) == MIN), magnitude for complexes.
template <class T>
WEFT_HD auto abs(T x) {
  if constexpr (detail::kIsComplex<T>) {
    using R = typename detail::Traits<T>::Real;
    if constexpr (sizeof(R) == 4) {
      return ::hypotf(x.re, x.im);
    } else {
      return ::hypot(x.re, x.im);
    }
  } else if constexpr (detail::kIsSigned<T>) {
    // A select, not `x < 0 ? -x : x`: ptxas took the abs that NVVM made of that as never
    // negative and dropped the negative-divisor step of a later % (1 % abs(INT64_MIN) gave 1).
    return detail::selectIfLess(x, neg(x), x, T(0));
  } else if constexpr (detail::kIsNarrow<T>) {
    return detail::Traits<T>::fromFloat(detail::fabsOf(widen(x)));
  } else if constexpr (detail::kIsFloat<T>) {
    return detail::fabsOf(x);
  } else {
    return x;
  }
}

// Conversion to `To` with Python semantics: bool() is truthiness; int() of a float truncates
// toward zero and the integer wraps into To's range (int() of nan/inf gives 0); a real
// converts to a complex with a zero imaginary part; a complex converts to a real by its
// real part (sema only asks for that where Python allows it).
template <class To, class From>
WEFT_HD To cast(From x) {
  if constexpr (detail::kIsNarrow<From>) {
    // Through float32 (exact); a narrow float to itself round-trips unchanged.
    return cast<To>(detail::Traits<From>::toFloat(x));
  } else if constexpr (detail::kIsNarrow<To>) {
    if constexpr (detail::kIsComplex<From>) {
      return cast<To>(x.re);
    } else if constexpr (detail::Traits<From>::kCategory == detail::Category::Bool) {
      return detail::Traits<To>::fromFloat(x ? 1.0f : 0.0f);
    } else if constexpr (sizeof(From) == 4 && detail::kIsFloat<From>) {
      return detail::Traits<To>::fromFloat(x);
    } else {
      return detail::Traits<To>::fromDouble(static_cast<double>(x));
    }
  } else if constexpr (detail::Traits<To>::kCategory == detail::Category::Bool) {
    return truth(x);
  } else if constexpr (detail::kIsComplex<To>) {
    using R = typename detail::Traits<To>::Real;
    if constexpr (detail::kIsComplex<From>) {
      return To{static_cast<R>(x.re), static_cast<R>(x.im)};
    } else {
      return To{static_cast<R>(x), R(0)};
    }
  } else if constexpr (detail::kIsComplex<From>) {
    return cast<To>(x.re);
  } else if constexpr (detail::kIsInteger<To> && detail::kIsFloat<From>) {
    if (detail::isNan(x) || detail::isInf(x)) return To(0);
    // fmod by 2**64 is exact, so the magnitude below fits uint64 and the result is the
    // truncated value modulo 2**64, then modulo To's width.
    From magnitude = detail::fmodOf(detail::fabsOf(x), From(18446744073709551616.0));
    unsigned long long bits = static_cast<unsigned long long>(magnitude);
    if (x < From(0)) bits = 0ull - bits;
    return static_cast<To>(bits);
  } else {
    return static_cast<To>(x);
  }
}

// a ** n by repeated squaring, for an integer exponent n >= 0 (integers wrap); for integer
// bases a negative n gives Python's result truncated toward zero (see the file comment).
template <class T, class E>
WEFT_HD T pow_int(T base, E n) {
  static_assert(detail::kIsInteger<E>, "the exponent of pow_int is an integer");
  if constexpr (detail::kIsSigned<E>) {
    if (n < 0) {
      if constexpr (detail::kIsInteger<T>) {
        if (base == T(1)) return T(1);
        if constexpr (detail::kIsSigned<T>) {
          if (base == T(-1)) return (n & 1) ? T(-1) : T(1);
        }
        return T(0);
      } else {
        return truediv(cast<T>(1), pow_int(base, neg(n)));
      }
    }
  }
  using UE = typename detail::Traits<E>::U;
  UE bits = static_cast<UE>(n);
  T result = cast<T>(1);
  while (bits != 0) {
    if (bits & 1u) result = mul(result, base);
    bits = static_cast<UE>(bits >> 1);
    if (bits != 0) base = mul(base, base);
  }
  return result;
}

// The next value of a range() loop counter after `i`, or `stop` when adding `step` would
// pass it (so the counter never overflows); only called while the loop condition holds.
template <class T>
WEFT_HD T range_next(T i, T stop, T step) {
  if constexpr (detail::kIsSigned<T>) {
    using W = typename detail::Traits<T>::W;
    if (step > 0) {
      return static_cast<W>(static_cast<W>(stop) - static_cast<W>(i)) > static_cast<W>(step)
                 ? static_cast<T>(i + step)
                 : stop;
    }
    return static_cast<W>(static_cast<W>(i) - static_cast<W>(stop)) >
                   static_cast<W>(W(0) - static_cast<W>(step))
               ? static_cast<T>(i + step)
               : stop;
  } else {
    return static_cast<T>(stop - i) > step ? static_cast<T>(i + step) : stop;
  }
}

// Whether a range() loop with counter `i` continues: i < stop for a positive step, i > stop
// for a negative one; a zero step runs no iteration (Python raises ValueError).
template <class T>
WEFT_HD bool range_continues(T i, T stop, T step) {
  if constexpr (detail::kIsSigned<T>) {
    return step > 0 ? i < stop : (step < 0 && i > stop);
  } else {
    return step > 0 && i < stop;
  }
}

}  // namespace weft
