// The element-level semantics of the tile arithmetic (the seed's numeric modifiers included),
// for one element type E after the arithmetic conversions:
// - integers wrap (two's complement); x / 0 == 0 and x % 0 == 0; MIN / -1 == MIN and
//   MIN % -1 == 0; a shift by a count outside [0, bits) gives 0 (>> of a negative value: -1);
// - bool has bit width 1: + and - are xor, * is and;
// - floating point follows IEEE 754 with the requested rounding mode (default: to nearest
//   even) and subnormal mode (default: preserve). On the GPU: the PTX .rn/.rz/.rm/.rp and .ftz
//   forms; on the CPU target: the operation between fesetround calls, exact. float16 and
//   bfloat16 compute in float32 with the same mode and round once to the narrow type with it
//   (exact: float32 has more than twice their significand bits, and directed roundings nest);
// - min/max: suppress NaN by default (a NaN operand loses to a number), or propagate it.
#pragma once

#include "weft/device/math.h"
#include "weft/tiles/traits.h"

#if defined(WEFT_TARGET_HOST)
#include <cfenv>
#endif

namespace weft::tiles {

// Rounding modes (the seed's ct::rounding_mode): the four precise IEEE modes and two imprecise.
struct round_ties_to_even_t {};
struct round_toward_zero_t {};
struct round_toward_negative_t {};
struct round_toward_positive_t {};
struct round_approximate_t {};
struct round_full_t {};
// Subnormal modes: keep subnormal operands and results (default), or flush them to signed zero.
struct preserve_subnormals_t {};
struct round_subnormals_to_zero_t {};
// NaN propagation modes of min and max: a NaN operand loses to a number (default), or wins.
struct suppress_nan_t {};
struct propagate_nan_t {};

namespace detail {

// The modes as numbers: 0 ties to even, 1 toward zero, 2 toward negative, 3 toward positive,
// 4 approximate, 5 full.
template <class M>
inline constexpr int rounding_code = -1;
template <>
inline constexpr int rounding_code<round_ties_to_even_t> = 0;
template <>
inline constexpr int rounding_code<round_toward_zero_t> = 1;
template <>
inline constexpr int rounding_code<round_toward_negative_t> = 2;
template <>
inline constexpr int rounding_code<round_toward_positive_t> = 3;
template <>
inline constexpr int rounding_code<round_approximate_t> = 4;
template <>
inline constexpr int rounding_code<round_full_t> = 5;

template <class M>
inline constexpr bool is_subnormal_mode = is_same_v<M, preserve_subnormals_t> || is_same_v<M, round_subnormals_to_zero_t>;
template <class M>
inline constexpr bool is_nan_mode = is_same_v<M, suppress_nan_t> || is_same_v<M, propagate_nan_t>;

// The numeric modifiers of one call: Round (a rounding code), Ftz (flush subnormals). Each
// operation states which rounding codes it accepts.
template <int Round, bool Ftz>
struct modifiers {
  static constexpr int kRound = Round;
  static constexpr bool kFtz = Ftz;
};

// Parses a call's trailing modifier arguments: at most one rounding mode, then at most one
// subnormal mode (the seed's argument order).
template <class... M>
struct parse_modifiers;
template <>
struct parse_modifiers<> {
  using type = modifiers<0, false>;
};
template <class R>
struct parse_modifiers<R> {
  static_assert(rounding_code<R> >= 0 || is_subnormal_mode<R>,
                "a numeric modifier must be a rounding mode (ct::round_*_t) or a subnormal mode "
                "(ct::preserve_subnormals_t, ct::round_subnormals_to_zero_t)");
  using type = modifiers<(rounding_code<R> >= 0 ? rounding_code<R> : 0), is_same_v<R, round_subnormals_to_zero_t>>;
};
template <class R, class Sub>
struct parse_modifiers<R, Sub> {
  static_assert(rounding_code<R> >= 0, "the first numeric modifier must be a rounding mode (ct::round_*_t)");
  static_assert(is_subnormal_mode<Sub>,
                "the second numeric modifier must be a subnormal mode (ct::preserve_subnormals_t or "
                "ct::round_subnormals_to_zero_t)");
  using type = modifiers<rounding_code<R>, is_same_v<Sub, round_subnormals_to_zero_t>>;
};

// The smallest normal value of F.
template <class F>
WEFT_HD constexpr F min_normal() {
  if constexpr (sizeof(F) == 4) {
    return 1.17549435e-38f;
  } else {
    return 2.2250738585072014e-308;
  }
}

// x, or a zero of its sign when x is subnormal (round subnormals to zero).
template <class F>
WEFT_HD F flush(F x) {
  F magnitude = x < F(0) ? -x : x;
  if (magnitude < min_normal<F>() && magnitude != F(0)) return x < F(0) ? -F(0) : F(0);
  return x;
}

// A narrow floating value with a subnormal magnitude flushed to a zero of its sign.
template <class T>
WEFT_HD T flush_narrow(T x) {
  using B = bits_t<T>;
  constexpr int kExponentBits = is_same_v<T, ::weft::bfloat16> ? 8 : 5;
  constexpr int kMantissaBits = int(sizeof(T)) * 8 - 1 - kExponentBits;
  B bits = bit_cast<B>(x);
  constexpr B kSign = static_cast<B>(B(1) << (sizeof(T) * 8 - 1));
  constexpr B kExponent = static_cast<B>(((B(1) << kExponentBits) - 1) << kMantissaBits);
  if ((bits & kExponent) == 0) bits = static_cast<B>(bits & kSign);
  return bit_cast<T>(bits);
}

// float -> float16/bfloat16 with rounding code Round (0..3): the nearest-even result, stepped
// one unit toward the required side where it lies on the wrong one (overflow to infinity steps
// back to the largest finite value, as directed modes require).
template <class T, int Round>
WEFT_HD T narrow_from_float(float x) {
  T nearest = from_float<T>(x);
  if constexpr (Round == 0 || Round > 3) {
    return nearest;
  } else {
    float back = to_float(nearest);
    if (back == x || x != x) return nearest;
    using B = bits_t<T>;
    B bits = bit_cast<B>(nearest);
    bool magnitudeTooBig = (back < 0 ? -back : back) > (x < 0 ? -x : x);
    bool step;  // move the magnitude one unit down (true) or up (false)
    if constexpr (Round == 1) {
      if (!magnitudeTooBig) return nearest;
      step = true;
    } else if constexpr (Round == 2) {
      if (back < x) return nearest;
      step = !(x < 0);  // above x: a positive value shrinks, a negative one grows
    } else {
      if (back > x) return nearest;
      step = x < 0;
    }
    B magnitude = static_cast<B>(bits & static_cast<B>(~(B(1) << (sizeof(T) * 8 - 1))));
    if (step) {
      if (magnitude == 0) return nearest;
      --bits;
    } else {
      ++bits;
    }
    return bit_cast<T>(bits);
  }
}

#if defined(WEFT_TARGET_HOST)
// The C fenv rounding mode of a rounding code (the imprecise codes compute exactly).
inline int fenv_mode(int round) {
  return round == 1 ? FE_TOWARDZERO : round == 2 ? FE_DOWNWARD : round == 3 ? FE_UPWARD : FE_TONEAREST;
}
// op() evaluated in rounding mode `round`: its operands are read from volatiles after
// fesetround and its result written to one before the mode is restored, so the compiler can
// neither fold it nor move it out of the window.
template <int Round, class F, class Op>
inline F host_rounded(Op op) {
  if constexpr (Round == 0 || Round > 3) {
    return op();
  } else {
    int saved = fegetround();
    fesetround(fenv_mode(Round));
    volatile F result = op();
    fesetround(saved);
    return result;
  }
}
#endif

enum class fop { add, sub, mul, div };

#if !defined(WEFT_TARGET_HOST)
// PTX floating point with an explicit rounding and subnormal mode.
#define WEFT_PTX_F32_BINARY(name, op)                                                                  \
  template <int Round, bool Ftz>                                                                      \
  __device__ __forceinline__ float name(float a, float b) {                                           \
    float r;                                                                                          \
    if constexpr (Round == 0 && !Ftz) asm(op ".rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));       \
    else if constexpr (Round == 0) asm(op ".rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));      \
    else if constexpr (Round == 1 && !Ftz) asm(op ".rz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));  \
    else if constexpr (Round == 1) asm(op ".rz.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));      \
    else if constexpr (Round == 2 && !Ftz) asm(op ".rm.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));  \
    else if constexpr (Round == 2) asm(op ".rm.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));      \
    else if constexpr (Round == 3 && !Ftz) asm(op ".rp.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));  \
    else asm(op ".rp.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));                                \
    return r;                                                                                         \
  }
WEFT_PTX_F32_BINARY(ptx_add_f32, "add")
WEFT_PTX_F32_BINARY(ptx_sub_f32, "sub")
WEFT_PTX_F32_BINARY(ptx_mul_f32, "mul")
WEFT_PTX_F32_BINARY(ptx_div_f32, "div")
#undef WEFT_PTX_F32_BINARY
#define WEFT_PTX_F64_BINARY(name, op)                                                              \
  template <int Round>                                                                            \
  __device__ __forceinline__ double name(double a, double b) {                                    \
    double r;                                                                                     \
    if constexpr (Round == 0) asm(op ".rn.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));            \
    else if constexpr (Round == 1) asm(op ".rz.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));       \
    else if constexpr (Round == 2) asm(op ".rm.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));       \
    else asm(op ".rp.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));                                 \
    return r;                                                                                     \
  }
WEFT_PTX_F64_BINARY(ptx_add_f64, "add")
WEFT_PTX_F64_BINARY(ptx_sub_f64, "sub")
WEFT_PTX_F64_BINARY(ptx_mul_f64, "mul")
WEFT_PTX_F64_BINARY(ptx_div_f64, "div")
#undef WEFT_PTX_F64_BINARY

template <int Round, bool Ftz>
__device__ __forceinline__ float ptx_fma_f32(float a, float b, float c) {
  float r;
  if constexpr (Round == 0 && !Ftz) asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
  else if constexpr (Round == 0) asm("fma.rn.ftz.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
  else if constexpr (Round == 1 && !Ftz) asm("fma.rz.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
  else if constexpr (Round == 1) asm("fma.rz.ftz.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
  else if constexpr (Round == 2 && !Ftz) asm("fma.rm.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
  else if constexpr (Round == 2) asm("fma.rm.ftz.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
  else if constexpr (Round == 3 && !Ftz) asm("fma.rp.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
  else asm("fma.rp.ftz.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
  return r;
}
template <int Round>
__device__ __forceinline__ double ptx_fma_f64(double a, double b, double c) {
  double r;
  if constexpr (Round == 0) asm("fma.rn.f64 %0, %1, %2, %3;" : "=d"(r) : "d"(a), "d"(b), "d"(c));
  else if constexpr (Round == 1) asm("fma.rz.f64 %0, %1, %2, %3;" : "=d"(r) : "d"(a), "d"(b), "d"(c));
  else if constexpr (Round == 2) asm("fma.rm.f64 %0, %1, %2, %3;" : "=d"(r) : "d"(a), "d"(b), "d"(c));
  else asm("fma.rp.f64 %0, %1, %2, %3;" : "=d"(r) : "d"(a), "d"(b), "d"(c));
  return r;
}
template <int Round, bool Ftz>
__device__ __forceinline__ float ptx_sqrt_f32(float a) {
  float r;
  if constexpr (Round == 0 && !Ftz) asm("sqrt.rn.f32 %0, %1;" : "=f"(r) : "f"(a));
  else if constexpr (Round == 0) asm("sqrt.rn.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
  else if constexpr (Round == 1 && !Ftz) asm("sqrt.rz.f32 %0, %1;" : "=f"(r) : "f"(a));
  else if constexpr (Round == 1) asm("sqrt.rz.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
  else if constexpr (Round == 2 && !Ftz) asm("sqrt.rm.f32 %0, %1;" : "=f"(r) : "f"(a));
  else if constexpr (Round == 2) asm("sqrt.rm.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
  else if constexpr (Round == 3 && !Ftz) asm("sqrt.rp.f32 %0, %1;" : "=f"(r) : "f"(a));
  else if constexpr (Round == 3) asm("sqrt.rp.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
  else if constexpr (!Ftz) asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(a));
  else asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
  return r;
}
template <int Round>
__device__ __forceinline__ double ptx_sqrt_f64(double a) {
  double r;
  if constexpr (Round == 0) asm("sqrt.rn.f64 %0, %1;" : "=d"(r) : "d"(a));
  else if constexpr (Round == 1) asm("sqrt.rz.f64 %0, %1;" : "=d"(r) : "d"(a));
  else if constexpr (Round == 2) asm("sqrt.rm.f64 %0, %1;" : "=d"(r) : "d"(a));
  else asm("sqrt.rp.f64 %0, %1;" : "=d"(r) : "d"(a));
  return r;
}
#endif

// a op b in float or double with modifiers M (rounding codes 0..3; div also 4 approximate and
// 5 full).
template <fop Op, class M, class F>
WEFT_HD F float_binary(F a, F b) {
  constexpr int R = M::kRound;
  if constexpr (M::kFtz) {
    a = flush(a);
    b = flush(b);
  }
  F r;
#if defined(WEFT_TARGET_HOST)
  r = host_rounded<R, F>([&] {
    volatile F x = a, y = b;
    if constexpr (Op == fop::add) return F(x + y);
    else if constexpr (Op == fop::sub) return F(x - y);
    else if constexpr (Op == fop::mul) return F(x * y);
    else return F(x / y);
  });
#else
  if constexpr (sizeof(F) == 4) {
    if constexpr (Op == fop::div && R == 4) {
      if constexpr (M::kFtz) asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
      else asm("div.approx.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    } else if constexpr (Op == fop::div && R == 5) {
      if constexpr (M::kFtz) asm("div.full.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
      else asm("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    } else if constexpr (Op == fop::add) {
      r = ptx_add_f32<R, M::kFtz>(a, b);
    } else if constexpr (Op == fop::sub) {
      r = ptx_sub_f32<R, M::kFtz>(a, b);
    } else if constexpr (Op == fop::mul) {
      r = ptx_mul_f32<R, M::kFtz>(a, b);
    } else {
      r = ptx_div_f32<R, M::kFtz>(a, b);
    }
  } else {
    constexpr int R64 = R > 3 ? 0 : R;  // f64 has no approximate forms: exact
    if constexpr (Op == fop::add) {
      r = ptx_add_f64<R64>(a, b);
    } else if constexpr (Op == fop::sub) {
      r = ptx_sub_f64<R64>(a, b);
    } else if constexpr (Op == fop::mul) {
      r = ptx_mul_f64<R64>(a, b);
    } else {
      r = ptx_div_f64<R64>(a, b);
    }
  }
#endif
  if constexpr (M::kFtz) r = flush(r);
  return r;
}

template <class M, class F>
WEFT_HD F float_fma(F a, F b, F c) {
  constexpr int R = M::kRound;
  if constexpr (M::kFtz) {
    a = flush(a);
    b = flush(b);
    c = flush(c);
  }
  F r;
#if defined(WEFT_TARGET_HOST)
  r = host_rounded<R, F>([&] {
    volatile F x = a, y = b, z = c;
    return ::weft::math::fma(F(x), F(y), F(z));
  });
#else
  if constexpr (sizeof(F) == 4) {
    r = ptx_fma_f32<R, M::kFtz>(a, b, c);
  } else {
    r = ptx_fma_f64<R>(a, b, c);
  }
#endif
  if constexpr (M::kFtz) r = flush(r);
  return r;
}

template <class M, class F>
WEFT_HD F float_sqrt(F a) {
  constexpr int R = M::kRound;
  if constexpr (M::kFtz) a = flush(a);
  F r;
#if defined(WEFT_TARGET_HOST)
  r = host_rounded<R, F>([&] {
    volatile F x = a;
    return ::weft::math::sqrt(F(x));
  });
#else
  if constexpr (sizeof(F) == 4) {
    r = ptx_sqrt_f32<R, M::kFtz>(a);
  } else {
    r = ptx_sqrt_f64<(R > 3 ? 0 : R)>(a);
  }
#endif
  if constexpr (M::kFtz) r = flush(r);
  return r;
}

// Integer arithmetic in the unsigned type of at least 32 bits (no promotion back to int).
template <class T>
using wide_unsigned_t = conditional_t<(sizeof(T) > 4), unsigned long long, unsigned int>;

// ---- The element operations, for one element type E -----------------------------------------

template <class M, class E>
WEFT_HD E e_add(E a, E b) {
  if constexpr (kind_of<E> == scalar_kind::boolean) {
    return a != b;
  } else if constexpr (is_integral<E>) {
    using W = wide_unsigned_t<E>;
    return static_cast<E>(static_cast<W>(a) + static_cast<W>(b));
  } else if constexpr (is_narrow_float<E>) {
    if constexpr (M::kRound == 0 && !M::kFtz) {
      return ::weft::detail::Traits<E>::add(a, b);
    } else {
      using M32 = modifiers<M::kRound, false>;
      E r = narrow_from_float<E, M::kRound>(float_binary<fop::add, M32>(to_float(M::kFtz ? flush_narrow(a) : a),
                                                                        to_float(M::kFtz ? flush_narrow(b) : b)));
      return M::kFtz ? flush_narrow(r) : r;
    }
  } else if constexpr (M::kRound == 0 && !M::kFtz) {
    return a + b;
  } else {
    return float_binary<fop::add, M>(a, b);
  }
}

template <class M, class E>
WEFT_HD E e_sub(E a, E b) {
  if constexpr (kind_of<E> == scalar_kind::boolean) {
    return a != b;
  } else if constexpr (is_integral<E>) {
    using W = wide_unsigned_t<E>;
    return static_cast<E>(static_cast<W>(a) - static_cast<W>(b));
  } else if constexpr (is_narrow_float<E>) {
    if constexpr (M::kRound == 0 && !M::kFtz) {
      return ::weft::detail::Traits<E>::sub(a, b);
    } else {
      using M32 = modifiers<M::kRound, false>;
      E r = narrow_from_float<E, M::kRound>(float_binary<fop::sub, M32>(to_float(M::kFtz ? flush_narrow(a) : a),
                                                                        to_float(M::kFtz ? flush_narrow(b) : b)));
      return M::kFtz ? flush_narrow(r) : r;
    }
  } else if constexpr (M::kRound == 0 && !M::kFtz) {
    return a - b;
  } else {
    return float_binary<fop::sub, M>(a, b);
  }
}

template <class M, class E>
WEFT_HD E e_mul(E a, E b) {
  if constexpr (kind_of<E> == scalar_kind::boolean) {
    return a && b;
  } else if constexpr (is_integral<E>) {
    using W = wide_unsigned_t<E>;
    return static_cast<E>(static_cast<W>(a) * static_cast<W>(b));
  } else if constexpr (is_narrow_float<E>) {
    if constexpr (M::kRound == 0 && !M::kFtz) {
      return ::weft::detail::Traits<E>::mul(a, b);
    } else {
      using M32 = modifiers<M::kRound, false>;
      E r = narrow_from_float<E, M::kRound>(float_binary<fop::mul, M32>(to_float(M::kFtz ? flush_narrow(a) : a),
                                                                        to_float(M::kFtz ? flush_narrow(b) : b)));
      return M::kFtz ? flush_narrow(r) : r;
    }
  } else if constexpr (M::kRound == 0 && !M::kFtz) {
    return a * b;
  } else {
    return float_binary<fop::mul, M>(a, b);
  }
}

template <class M, class E>
WEFT_HD E e_div(E a, E b) {
  if constexpr (kind_of<E> == scalar_kind::boolean) {
    return b ? a : false;
  } else if constexpr (is_integral<E>) {
    if (b == E(0)) return E(0);
    if constexpr (scalar_info<E>::is_signed) {
      if (b == static_cast<E>(-1)) return e_sub<M>(E(0), a);
    }
    return static_cast<E>(a / b);
  } else if constexpr (is_narrow_float<E>) {
    if constexpr (M::kRound == 0 && !M::kFtz) {
      return ::weft::detail::Traits<E>::div(a, b);
    } else {
      using M32 = modifiers<M::kRound, false>;
      E r = narrow_from_float<E, M::kRound>(float_binary<fop::div, M32>(to_float(M::kFtz ? flush_narrow(a) : a),
                                                                        to_float(M::kFtz ? flush_narrow(b) : b)));
      return M::kFtz ? flush_narrow(r) : r;
    }
  } else if constexpr (M::kRound == 0 && !M::kFtz) {
    return a / b;
  } else {
    return float_binary<fop::div, M>(a, b);
  }
}

// C++'s remainder: the sign of the dividend (fmod for floating point).
template <class E>
WEFT_HD E e_rem(E a, E b) {
  if constexpr (kind_of<E> == scalar_kind::boolean) {
    return false;
  } else if constexpr (is_integral<E>) {
    if (b == E(0)) return E(0);
    if constexpr (scalar_info<E>::is_signed) {
      if (b == static_cast<E>(-1)) return E(0);
    }
    return static_cast<E>(a % b);
  } else if constexpr (is_narrow_float<E>) {
    return from_float<E>(::weft::math::fmod(to_float(a), to_float(b)));
  } else {
    return ::weft::math::fmod(a, b);
  }
}

template <class E>
WEFT_HD E e_neg(E a) {
  if constexpr (kind_of<E> == scalar_kind::boolean) {
    return a;
  } else if constexpr (is_integral<E>) {
    using W = wide_unsigned_t<E>;
    return static_cast<E>(W(0) - static_cast<W>(a));
  } else if constexpr (is_narrow_float<E>) {
    using B = bits_t<E>;
    return bit_cast<E>(static_cast<B>(bit_cast<B>(a) ^ static_cast<B>(B(1) << (sizeof(E) * 8 - 1))));
  } else {
    return -a;
  }
}

template <class E>
WEFT_HD E e_abs(E a) {
  if constexpr (is_signed_integer<E>) {
    return a < E(0) ? e_neg(a) : a;
  } else if constexpr (is_integral<E>) {
    return a;
  } else if constexpr (is_narrow_float<E>) {
    using B = bits_t<E>;
    return bit_cast<E>(static_cast<B>(bit_cast<B>(a) & static_cast<B>(~(B(1) << (sizeof(E) * 8 - 1)))));
  } else {
    return ::weft::math::fabs(a);
  }
}

template <class E>
WEFT_HD E e_shl(E a, E s) {
  constexpr int kBits = scalar_info<E>::bits;
  if constexpr (scalar_info<E>::is_signed) {
    if (s < E(0)) return E(0);
  }
  if (static_cast<unsigned long long>(s) >= static_cast<unsigned long long>(kBits)) return E(0);
  using W = wide_unsigned_t<E>;
  return static_cast<E>(static_cast<W>(a) << static_cast<int>(s));
}

template <class E>
WEFT_HD E e_shr(E a, E s) {
  constexpr int kBits = scalar_info<E>::bits;
  bool outside = static_cast<unsigned long long>(s) >= static_cast<unsigned long long>(kBits);
  if constexpr (scalar_info<E>::is_signed) {
    outside = outside || s < E(0);
    if (outside) return a < E(0) ? static_cast<E>(-1) : E(0);
  }
  if (outside) return E(0);
  return static_cast<E>(a >> static_cast<int>(s));
}

// Comparisons of two values of one type (narrow floats compare as float).
template <class E>
WEFT_HD auto comparable(E a) {
  if constexpr (is_narrow_float<E>) {
    return to_float(a);
  } else {
    return a;
  }
}

template <class E>
WEFT_HD bool e_isnan(E a) {
  if constexpr (is_floating<E>) {
    auto x = comparable(a);
    return x != x;
  } else {
    return false;
  }
}

// min/max; NaN mode Propagate: a NaN operand gives NaN; otherwise the number wins. Floats order
// as weft's SIMT numpy.fmax/maximum do (-0 below +0: weft::math).
template <bool Max, bool Propagate, class E>
WEFT_HD E e_minmax(E a, E b) {
  if constexpr (is_floating<E> && Propagate) {
    return Max ? ::weft::math::maximum(a, b) : ::weft::math::minimum(a, b);
  } else if constexpr (is_floating<E>) {
    return Max ? ::weft::math::fmax(a, b) : ::weft::math::fmin(a, b);
  } else if constexpr (Max) {
    return comparable(a) < comparable(b) ? b : a;
  } else {
    return comparable(b) < comparable(a) ? b : a;
  }
}

}  // namespace detail
}  // namespace weft::tiles
