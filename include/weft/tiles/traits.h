// weft::tiles type machinery without the standard library (NVRTC has none): small metafunctions,
// the scalar categories of the seed (integral, basic and restricted floating point, pointer),
// the conversion ranks, the arithmetic common type and the narrowing rule, and the seed's scalar
// conversion (round to nearest even; integers to floating out of range give infinity; floating
// to integers truncate and saturate, NaN gives 0; fp8 saturates to its largest finite value).
#pragma once

#include "weft/device/fp16.h"
#include "weft/tiles/config.h"

// Which narrow floating types this unit has: all of them on the CPU target; on the GPU those
// whose CUDA header the unit asked for (weft/device/fp16.h: WEFT_FLOAT16, WEFT_BFLOAT16,
// WEFT_FLOAT8).
#if defined(WEFT_TARGET_HOST) || defined(WEFT_FLOAT16)
#define WEFT_TILES_FLOAT16 1
#endif
#if defined(WEFT_TARGET_HOST) || defined(WEFT_BFLOAT16)
#define WEFT_TILES_BFLOAT16 1
#endif
#if defined(WEFT_TARGET_HOST) || defined(WEFT_FLOAT8)
#define WEFT_TILES_FLOAT8 1
#endif

namespace weft::tiles {

// TensorFloat-32: float32 storage whose value has 10 mantissa bits; conversions to it round to
// nearest, ties away from zero, as the GPU's cvt.rna.tf32.f32 does (the seed leaves tf32's
// conversions unspecified; CUDA 13.0 has no cuda_tf32.h). A restricted type: load, store,
// convert, mma.
struct alignas(4) tfloat32 {
  uint32_t bits;
};

namespace detail {

// ---- Metafunctions ----------------------------------------------------------------------------

template <class T>
struct type_identity {
  using type = T;
};
template <class A, class B>
inline constexpr bool is_same_v = false;
template <class A>
inline constexpr bool is_same_v<A, A> = true;
template <bool C, class A, class B>
struct conditional {
  using type = A;
};
template <class A, class B>
struct conditional<false, A, B> {
  using type = B;
};
template <bool C, class A, class B>
using conditional_t = typename conditional<C, A, B>::type;
template <class T>
struct remove_cv {
  using type = T;
};
template <class T>
struct remove_cv<const T> {
  using type = T;
};
template <class T>
struct remove_cv<volatile T> {
  using type = T;
};
template <class T>
struct remove_cv<const volatile T> {
  using type = T;
};
template <class T>
struct remove_ref {
  using type = T;
};
template <class T>
struct remove_ref<T&> {
  using type = T;
};
template <class T>
struct remove_ref<T&&> {
  using type = T;
};
template <class T>
using remove_cv_t = typename remove_cv<T>::type;
template <class T>
using remove_cvref_t = typename remove_cv<typename remove_ref<T>::type>::type;
template <class T>
struct remove_pointer {
  using type = T;
};
template <class T>
struct remove_pointer<T*> {
  using type = T;
};
template <class T>
struct remove_pointer<T* const> {
  using type = T;
};
template <class T>
inline constexpr bool is_const_element = false;
template <class T>
inline constexpr bool is_const_element<const T> = true;
template <class T>
inline constexpr bool is_const_element<const volatile T> = true;
// Only in unevaluated operands (decltype).
template <class T>
WEFT_HD T&& declval() noexcept;
// A dependent false, for static_asserts in templates that must not fire before instantiation.
template <class...>
inline constexpr bool always_false = false;

// index_sequence / make_index_sequence (recursive doubling: depth log N).
template <size_t... I>
struct index_sequence {};
template <class A, class B>
struct concat_sequence;
template <size_t... A, size_t... B>
struct concat_sequence<index_sequence<A...>, index_sequence<B...>> {
  using type = index_sequence<A..., (sizeof...(A) + B)...>;
};
template <size_t N>
struct make_sequence {
  using type =
      typename concat_sequence<typename make_sequence<N / 2>::type, typename make_sequence<N - N / 2>::type>::type;
};
template <>
struct make_sequence<0> {
  using type = index_sequence<>;
};
template <>
struct make_sequence<1> {
  using type = index_sequence<0>;
};
template <size_t N>
using make_index_sequence = typename make_sequence<N>::type;

// Powers of two and their logarithms, for shapes and layouts.
WEFT_HD constexpr bool is_pow2(size_t x) {
  return x != 0 && (x & (x - 1)) == 0;
}
WEFT_HD constexpr uint32_t log2_of(size_t x) {
  uint32_t n = 0;
  while (x > 1) {
    x >>= 1;
    ++n;
  }
  return n;
}
template <class T>
WEFT_HD constexpr T min_of(T a, T b) {
  return b < a ? b : a;
}
template <class T>
WEFT_HD constexpr T max_of(T a, T b) {
  return a < b ? b : a;
}

// ---- Scalar categories (the seed's "Scalars") ------------------------------------------------

enum class scalar_kind { none, boolean, integer, basic_float, restricted_float, pointer };

// Facts about a cv-unqualified scalar type: its kind; for integers the signedness, bit width,
// conversion rank (bool 0, char 1, short 2, int 3, long 4, long long 5), subrank (character
// types below their underlying type) and the corresponding unsigned type; for floating types the
// level of the conversion-rank partial order (fp8 0, half/bfloat16 1, tf32 2, float 3, double 4:
// two distinct types of one level are unordered).
template <class T>
struct scalar_info {
  static constexpr scalar_kind kind = scalar_kind::none;
};
template <>
struct scalar_info<bool> {
  static constexpr scalar_kind kind = scalar_kind::boolean;
  static constexpr bool is_signed = false;
  static constexpr int bits = 1;
  static constexpr int rank = 0;
  static constexpr int subrank = 1;
  using unsigned_type = bool;
};
#define WEFT_TILES_INTEGER(T, rank_, subrank_, Unsigned)     \
  template <>                                                \
  struct scalar_info<T> {                                    \
    static constexpr scalar_kind kind = scalar_kind::integer; \
    static constexpr bool is_signed = static_cast<T>(-1) < static_cast<T>(0); \
    static constexpr int bits = int(sizeof(T)) * 8;          \
    static constexpr int rank = rank_;                       \
    static constexpr int subrank = subrank_;                 \
    using unsigned_type = Unsigned;                          \
  };
WEFT_TILES_INTEGER(char, 1, 0, unsigned char)
WEFT_TILES_INTEGER(signed char, 1, 1, unsigned char)
WEFT_TILES_INTEGER(unsigned char, 1, 1, unsigned char)
WEFT_TILES_INTEGER(char8_t, 1, 0, char8_t)
WEFT_TILES_INTEGER(short, 2, 1, unsigned short)
WEFT_TILES_INTEGER(unsigned short, 2, 1, unsigned short)
WEFT_TILES_INTEGER(char16_t, 2, 0, char16_t)
WEFT_TILES_INTEGER(int, 3, 1, unsigned int)
WEFT_TILES_INTEGER(unsigned int, 3, 1, unsigned int)
WEFT_TILES_INTEGER(char32_t, 3, 0, char32_t)
WEFT_TILES_INTEGER(wchar_t, 3, 0, unsigned int)
WEFT_TILES_INTEGER(long, 4, 1, unsigned long)
WEFT_TILES_INTEGER(unsigned long, 4, 1, unsigned long)
WEFT_TILES_INTEGER(long long, 5, 1, unsigned long long)
WEFT_TILES_INTEGER(unsigned long long, 5, 1, unsigned long long)
#undef WEFT_TILES_INTEGER
#define WEFT_TILES_FLOATING(T, kind_, level_)   \
  template <>                                   \
  struct scalar_info<T> {                       \
    static constexpr scalar_kind kind = kind_;  \
    static constexpr int level = level_;        \
    static constexpr int bits = int(sizeof(T)) * 8; \
  };
WEFT_TILES_FLOATING(float, scalar_kind::basic_float, 3)
WEFT_TILES_FLOATING(double, scalar_kind::basic_float, 4)
WEFT_TILES_FLOATING(tfloat32, scalar_kind::restricted_float, 2)
#if defined(WEFT_TILES_FLOAT16)
WEFT_TILES_FLOATING(::weft::float16, scalar_kind::basic_float, 1)
#endif
#if defined(WEFT_TILES_BFLOAT16)
WEFT_TILES_FLOATING(::weft::bfloat16, scalar_kind::basic_float, 1)
#endif
#if defined(WEFT_TILES_FLOAT8)
WEFT_TILES_FLOATING(::weft::float8e4m3, scalar_kind::restricted_float, 0)
WEFT_TILES_FLOATING(::weft::float8e5m2, scalar_kind::restricted_float, 0)
#endif
#undef WEFT_TILES_FLOATING

template <class T>
inline constexpr scalar_kind kind_of = scalar_info<remove_cv_t<T>>::kind;
template <class T>
inline constexpr bool is_integral = kind_of<T> == scalar_kind::boolean || kind_of<T> == scalar_kind::integer;
template <class T>
inline constexpr bool is_basic_float = kind_of<T> == scalar_kind::basic_float;
template <class T>
inline constexpr bool is_restricted = kind_of<T> == scalar_kind::restricted_float;
template <class T>
inline constexpr bool is_floating = is_basic_float<T> || is_restricted<T>;
template <class T>
inline constexpr bool is_arithmetic = is_integral<T> || is_basic_float<T>;
template <class T>
inline constexpr bool is_numeric = is_integral<T> || is_floating<T>;
template <class T>
WEFT_HD constexpr bool signed_integer_check() {
  if constexpr (kind_of<T> == scalar_kind::integer) {
    return scalar_info<remove_cv_t<T>>::is_signed;
  } else {
    return false;
  }
}
template <class T>
inline constexpr bool is_signed_integer = signed_integer_check<T>();
// A floating type narrower than float (computes through float).
template <class T>
inline constexpr bool is_narrow_float = is_floating<T> && sizeof(T) < 4;

// Pointers to numeric scalars or void (not multi-level, not to structs).
template <class T>
inline constexpr bool is_pointer_scalar = false;
template <class T>
inline constexpr bool is_pointer_scalar<T*> = is_numeric<remove_cv_t<T>> || is_same_v<remove_cv_t<T>, void>;
template <class T>
inline constexpr bool is_pointer_scalar<T* const> = is_pointer_scalar<T*>;

// Scalars: the possible element types of a tile.
template <class T>
inline constexpr bool is_scalar = is_numeric<T> || is_pointer_scalar<T>;

// ---- Arithmetic common type and narrowing (the seed's "Arithmetic Conversions") ---------------

// The marker of "no arithmetic common type" (unordered floating ranks).
struct no_common_type {};

template <class A, class B>
WEFT_HD constexpr auto integer_common() {
  using IA = scalar_info<A>;
  using IB = scalar_info<B>;
  if constexpr (is_same_v<A, B>) {
    return type_identity<A>{};
  } else if constexpr (IA::is_signed != IB::is_signed) {
    using S = conditional_t<IA::is_signed, A, B>;
    using U = conditional_t<IA::is_signed, B, A>;
    if constexpr (scalar_info<U>::rank > scalar_info<S>::rank) {
      return type_identity<U>{};
    } else if constexpr (scalar_info<S>::bits > scalar_info<U>::bits) {
      return type_identity<S>{};
    } else {
      return type_identity<typename scalar_info<S>::unsigned_type>{};
    }
  } else if constexpr (IA::rank != IB::rank) {
    return type_identity<conditional_t<(IA::rank > IB::rank), A, B>>{};
  } else {
    return type_identity<conditional_t<(IA::subrank > IB::subrank), A, B>>{};
  }
}

template <class A, class B>
WEFT_HD constexpr auto arithmetic_common() {
  if constexpr (is_same_v<A, B>) {
    return type_identity<A>{};
  } else if constexpr (is_floating<A> && !is_floating<B>) {
    return type_identity<A>{};
  } else if constexpr (is_floating<B> && !is_floating<A>) {
    return type_identity<B>{};
  } else if constexpr (is_floating<A>) {
    if constexpr (scalar_info<A>::level > scalar_info<B>::level) {
      return type_identity<A>{};
    } else if constexpr (scalar_info<B>::level > scalar_info<A>::level) {
      return type_identity<B>{};
    } else {
      return type_identity<no_common_type>{};
    }
  } else {
    return integer_common<A, B>();
  }
}

// The arithmetic common type of two numeric scalars, or no_common_type.
template <class A, class B>
using arithmetic_common_t = typename decltype(arithmetic_common<remove_cv_t<A>, remove_cv_t<B>>())::type;

// Whether the scalar conversion From -> To is narrowing (C++ list-initialization's rule with
// the seed's floating conversion ranks).
template <class From, class To>
WEFT_HD constexpr bool is_narrowing() {
  if constexpr (is_same_v<From, To>) {
    return false;
  } else if constexpr (is_floating<From>) {
    if constexpr (!is_floating<To>) {
      return true;
    } else {
      return scalar_info<To>::level <= scalar_info<From>::level;
    }
  } else if constexpr (is_floating<To>) {
    return true;  // integer to floating (the arithmetic conversions allow it)
  } else if constexpr (kind_of<From> == scalar_kind::boolean) {
    return false;
  } else if constexpr (kind_of<To> == scalar_kind::boolean) {
    return true;
  } else if constexpr (scalar_info<From>::is_signed && !scalar_info<To>::is_signed) {
    return true;
  } else if constexpr (!scalar_info<From>::is_signed && scalar_info<To>::is_signed) {
    return scalar_info<To>::bits <= scalar_info<From>::bits;
  } else {
    return scalar_info<To>::bits < scalar_info<From>::bits;
  }
}

// Narrowing that the arithmetic conversions reject: all but integer to floating.
template <class From, class To>
inline constexpr bool is_rejected_narrowing = is_narrowing<From, To>() && !(is_integral<From> && is_floating<To>);

// ---- Narrow floating types -------------------------------------------------------------------

// float <-> a narrow floating type (rounding to nearest even) or tfloat32 (see tf32_from_float).
template <class T>
WEFT_HD float to_float(T x) {
  if constexpr (is_same_v<T, tfloat32>) {
    return bit_cast<float>(x.bits);
  } else {
    return ::weft::detail::Traits<T>::toFloat(x);
  }
}

// float -> tfloat32: to nearest at 10 mantissa bits, ties away from zero (overflow gives inf):
// cvt.rna.tf32.f32 on sm_80+, the same integer rounding of the sign-magnitude bits elsewhere.
// NaN stays a quiet NaN.
WEFT_HD tfloat32 tf32_from_float(float x) {
  uint32_t bits = bit_cast<uint32_t>(x);
  if ((bits & 0x7f800000u) == 0x7f800000u) return tfloat32{(bits & 0x7fffffffu) > 0x7f800000u ? bits | 0x00400000u : bits};
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  uint32_t rounded;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(rounded) : "f"(x));
  return tfloat32{rounded};
#else
  return tfloat32{(bits + 0x1000u) & ~0x1fffu};
#endif
}

template <class T>
WEFT_HD T from_float(float x) {
  if constexpr (is_same_v<T, tfloat32>) {
    return tf32_from_float(x);
  } else {
    return ::weft::detail::Traits<T>::fromFloat(x);
  }
}

// double -> float rounded to odd (truncate, then set the last bit when inexact): rounding that
// to any format with at least 2 fewer significand bits gives the correctly rounded result.
WEFT_HD float round_to_odd_float(double x) {
  float f = static_cast<float>(x);
  double back = static_cast<double>(f);
  if (back == x || x != x) return f;
  uint32_t bits = bit_cast<uint32_t>(f);
  if ((back < 0 ? -back : back) > (x < 0 ? -x : x)) --bits;  // truncate toward zero
  return bit_cast<float>(bits | 1u);
}

template <class T>
WEFT_HD T from_double(double x) {
  if constexpr (is_same_v<T, tfloat32>) {
    return tf32_from_float(round_to_odd_float(x));
  } else {
    return ::weft::detail::Traits<T>::fromDouble(x);
  }
}

// Index of the highest set bit of a nonzero 64-bit value.
WEFT_HD int highest_bit(unsigned long long x) {
#if defined(__CUDA_ARCH__)
  return 63 - __clzll(static_cast<long long>(x));
#else
  return 63 - __builtin_clzll(x);
#endif
}

// An integer as float rounded to odd (exact below 2**24): see round_to_odd_float.
template <class I>
WEFT_HD float integer_to_odd_float(I x) {
  bool negative = false;
  unsigned long long magnitude;
  if constexpr (is_signed_integer<I>) {
    negative = x < 0;
    magnitude = negative ? 0ull - static_cast<unsigned long long>(x) : static_cast<unsigned long long>(x);
  } else {
    magnitude = static_cast<unsigned long long>(x);
  }
  float result;
  if (magnitude < (1ull << 24)) {
    result = static_cast<float>(magnitude);
  } else {
    int shift = highest_bit(magnitude) - 23;
    unsigned long long kept = magnitude >> shift;
    if ((magnitude & ((1ull << shift) - 1ull)) != 0) kept |= 1ull;
    result = static_cast<float>(kept) * static_cast<float>(1ull << shift);
  }
  return negative ? -result : result;
}

// A floating value truncated to the integer type I: out of range saturates, NaN gives 0 (what
// the GPU's cvt.rzi does; C++ leaves it undefined).
template <class I, class F>
WEFT_HD I saturate_to_integer(F x) {
  if (x != x) return I(0);
  constexpr int kBits = scalar_info<I>::bits;
  if constexpr (scalar_info<I>::is_signed) {
    constexpr F kLimit = static_cast<F>(1ull << (kBits - 1));  // 2**(bits-1), exact
    if (x >= kLimit) return static_cast<I>(~0ull >> (65 - kBits));
    if (x <= -kLimit) return static_cast<I>(0ull - (1ull << (kBits - 1)));
  } else {
    if (x <= F(-1)) return I(0);
    if constexpr (kBits == 64) {
      if (x >= static_cast<F>(18446744073709551616.0)) return static_cast<I>(~0ull);
    } else {
      if (x >= static_cast<F>(1ull << kBits)) return static_cast<I>(~0ull);
    }
  }
  return static_cast<I>(x);
}

// The seed's scalar conversion of x to To (explicit, so narrowing is allowed here).
template <class To, class From>
WEFT_HD To scalar_convert(From x) {
  using F = remove_cv_t<From>;
  static_assert(is_scalar<To> && is_scalar<F>, "tile conversions are between scalar element types");
  if constexpr (is_same_v<F, To>) {
    return x;
  } else if constexpr (is_pointer_scalar<To> || is_pointer_scalar<F>) {
    static_assert(is_pointer_scalar<To> && is_pointer_scalar<F>,
                  "no scalar conversion exists between a pointer and a number");
    return static_cast<To>(x);
  } else if constexpr (kind_of<To> == scalar_kind::boolean) {
    if constexpr (is_narrow_float<F> || is_same_v<F, tfloat32>) {
      return to_float(x) != 0.0f;
    } else {
      return x != F(0);
    }
  } else if constexpr (is_narrow_float<F> || is_same_v<F, tfloat32>) {
    return scalar_convert<To>(to_float(x));  // exact
  } else if constexpr (is_integral<To>) {
    if constexpr (is_integral<F>) {
      return static_cast<To>(x);  // modulo 2**bits (C++20)
    } else {
      return saturate_to_integer<To>(x);
    }
  } else if constexpr (is_narrow_float<To> || is_same_v<To, tfloat32>) {
    if constexpr (is_same_v<F, float>) {
      return from_float<To>(x);
    } else if constexpr (is_same_v<F, double>) {
      return from_double<To>(x);
    } else if constexpr (kind_of<F> == scalar_kind::boolean) {
      return from_float<To>(x ? 1.0f : 0.0f);
    } else {
      return from_float<To>(integer_to_odd_float(x));
    }
  } else {
    // To is float or double: C++'s conversions round to nearest even on every target.
    if constexpr (kind_of<F> == scalar_kind::boolean) {
      return x ? To(1) : To(0);
    } else {
      return static_cast<To>(x);
    }
  }
}

}  // namespace detail
}  // namespace weft::tiles
