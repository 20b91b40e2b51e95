// Narrow floating types: float16, bfloat16, float8e4m3, float8e5m2 (docs/types.md).
// The generated unit includes this header only when the program uses one of them, after
// defining WEFT_FLOAT16, WEFT_BFLOAT16 or WEFT_FLOAT8 for the ones it uses (WEFT_FLOAT8 needs
// the other two: cuda_fp8.h includes their headers anyway), because parsing
// CUDA's cuda_fp16.h / cuda_bf16.h / cuda_fp8.h dominates NVRTC time.
// - GPU: the types are CUDA's own (__half, __nv_bfloat16, __nv_fp8_e4m3, __nv_fp8_e5m2), so
//   their machine representation is the specification's; float16 and bfloat16 arithmetic
//   uses the hardware's instructions (__hadd...), which CUDA emulates on older architectures.
// - CPU: bit-exact structs of the same size and alignment; every operation computes in
//   float32 and rounds once to nearest even, which gives the same bits as the hardware
//   (float32 has more than 2p+2 significand bits for each of these formats).
// fp8 types store and convert; their arithmetic computes in float32 and rounds back. A value
// out of an fp8 type's range saturates to its largest finite value (CUDA's __NV_SATFINITE);
// float16 and bfloat16 overflow to infinity (IEEE).
#pragma once

#include "weft/device/config.h"
#include "weft/device/numeric.h"

#if !defined(WEFT_TARGET_HOST)
#if defined(WEFT_FLOAT8)
#include <cuda_fp8.h>
#endif
#if defined(WEFT_FLOAT16)
#include <cuda_fp16.h>
#endif
#if defined(WEFT_BFLOAT16)
#include <cuda_bf16.h>
#endif
#endif

namespace weft {

#if defined(WEFT_TARGET_HOST)
// The CPU target's storage: IEEE/OCP bit patterns, as CUDA stores them.
struct alignas(2) float16 {
  uint16_t bits;
};
struct alignas(2) bfloat16 {
  uint16_t bits;
};
struct float8e4m3 {
  uint8_t bits;
};
struct float8e5m2 {
  uint8_t bits;
};

namespace detail {

// A narrow binary format: `M` significand bits, `E` exponent bits; `Ieee`: the top exponent
// encodes inf/nan (float8e4m3 has no inf and one nan pattern, 0x7f); `Saturate`: overflow
// gives the largest finite value instead of inf.
template <int M, int E, bool Ieee, bool Saturate>
struct NarrowFormat {
  static constexpr int kBias = (1 << (E - 1)) - 1;
  static constexpr unsigned kSign = 1u << (M + E);
  static constexpr unsigned kInf = ((1u << E) - 1u) << M;
  static constexpr unsigned kNan = Ieee ? (kInf | (1u << (M - 1))) : (kInf | ((1u << M) - 1u));
  static constexpr unsigned kMaxFinite = Ieee ? kInf - 1u : kNan - 1u;

  // The bits nearest to x (ties to even).
  static unsigned encode(double x) {
    unsigned sign = std::signbit(x) ? kSign : 0u;
    if (std::isnan(x)) return sign | kNan;
    double a = std::fabs(x);
    if (std::isinf(a)) return sign | (Ieee && !Saturate ? kInf : kMaxFinite);
    if (a == 0.0) return sign;
    int exponent = std::ilogb(a);
    constexpr int kMinNormal = 1 - kBias;
    if (exponent < kMinNormal) exponent = kMinNormal;
    // a / quantum is exact (a power-of-two scaling); round it to an integer, ties to even.
    double scaled = std::ldexp(a, M - exponent);
    double whole = std::floor(scaled);
    double fraction = scaled - whole;
    if (fraction > 0.5 || (fraction == 0.5 && std::fmod(whole, 2.0) != 0.0)) whole += 1.0;
    unsigned significand = static_cast<unsigned>(whole);
    unsigned code;
    if (significand < (1u << M)) {
      code = significand;  // subnormal (exponent field 0)
    } else {
      if (significand == (2u << M)) {
        significand = 1u << M;
        ++exponent;
      }
      long biased = static_cast<long>(exponent) + kBias;
      if (biased > static_cast<long>(kMaxFinite >> M)) return sign | (Saturate ? kMaxFinite : kInf);
      code = (static_cast<unsigned>(biased) << M) | (significand - (1u << M));
    }
    if (code > kMaxFinite) return sign | (Saturate || !Ieee ? kMaxFinite : kInf);
    return sign | code;
  }

  // The exact value of `bits`.
  static float decode(unsigned bits) {
    float sign = (bits & kSign) ? -1.0f : 1.0f;
    unsigned magnitude = bits & (kSign - 1u);
    if (magnitude == kNan || (Ieee && (magnitude & kInf) == kInf && (magnitude & ((1u << M) - 1u)) != 0)) {
      return weft::nan<float>();
    }
    if (Ieee && magnitude == kInf) return sign * weft::inf<float>();
    unsigned field = magnitude >> M;
    unsigned fraction = magnitude & ((1u << M) - 1u);
    if (field == 0) return sign * std::ldexp(static_cast<float>(fraction), 1 - kBias - M);
    return sign * std::ldexp(static_cast<float>(fraction | (1u << M)), static_cast<int>(field) - kBias - M);
  }
};

using Float16Format = NarrowFormat<10, 5, true, false>;
using BFloat16Format = NarrowFormat<7, 8, true, false>;
using Float8E4M3Format = NarrowFormat<3, 4, false, true>;
using Float8E5M2Format = NarrowFormat<2, 5, true, true>;

}  // namespace detail
#else
#if defined(WEFT_FLOAT16)
using float16 = __half;
#endif
#if defined(WEFT_BFLOAT16)
using bfloat16 = __nv_bfloat16;
#endif
#if defined(WEFT_FLOAT8)
using float8e4m3 = __nv_fp8_e4m3;
using float8e5m2 = __nv_fp8_e5m2;
#endif
#endif

namespace detail {

// Traits of a narrow type T: conversions through float and the four arithmetic operations
// (through float32 unless the GPU has an instruction).
#define WEFT_NARROW_COMMON(T, width)                     \
  static constexpr Category kCategory = Category::Float; \
  static constexpr int kBits = width;                    \
  static WEFT_HD T fromFloat(float x) {                  \
    return fromDouble(static_cast<double>(x));           \
  }
#define WEFT_NARROW_THROUGH_FLOAT(T)           \
  static WEFT_HD T add(T a, T b) {             \
    return fromFloat(toFloat(a) + toFloat(b)); \
  }                                            \
  static WEFT_HD T sub(T a, T b) {             \
    return fromFloat(toFloat(a) - toFloat(b)); \
  }                                            \
  static WEFT_HD T mul(T a, T b) {             \
    return fromFloat(toFloat(a) * toFloat(b)); \
  }                                            \
  static WEFT_HD T div(T a, T b) {             \
    return fromFloat(toFloat(a) / toFloat(b)); \
  }                                            \
  static WEFT_HD T neg(T a) {                  \
    return fromFloat(-toFloat(a));             \
  }

#if defined(WEFT_TARGET_HOST)
#define WEFT_NARROW_HOST_TRAITS(T, Format, width)                                                          \
  template <>                                                                                              \
  struct Traits<T> {                                                                                       \
    static WEFT_HD float toFloat(T x) { return Format::decode(x.bits); }                                   \
    static WEFT_HD T fromDouble(double x) { return T{static_cast<decltype(T::bits)>(Format::encode(x))}; } \
    WEFT_NARROW_COMMON(T, width)                                                                           \
    WEFT_NARROW_THROUGH_FLOAT(T)                                                                           \
  };                                                                                                       \
  template <>                                                                                              \
  inline constexpr bool kIsNarrow<T> = true;
WEFT_NARROW_HOST_TRAITS(float16, Float16Format, 16)
WEFT_NARROW_HOST_TRAITS(bfloat16, BFloat16Format, 16)
WEFT_NARROW_HOST_TRAITS(float8e4m3, Float8E4M3Format, 8)
WEFT_NARROW_HOST_TRAITS(float8e5m2, Float8E5M2Format, 8)
#undef WEFT_NARROW_HOST_TRAITS
#else
// float16 and bfloat16: CUDA's conversions and native arithmetic (__hadd is overloaded).
#define WEFT_NARROW_NATIVE_TRAITS(T, toF, fromF, fromD)        \
  template <>                                                  \
  struct Traits<T> {                                           \
    static WEFT_HD float toFloat(T x) { return toF(x); }       \
    static WEFT_HD T fromDouble(double x) { return fromD(x); } \
    static constexpr Category kCategory = Category::Float;     \
    static constexpr int kBits = 16;                           \
    static WEFT_HD T fromFloat(float x) { return fromF(x); }   \
    static WEFT_HD T add(T a, T b) { return __hadd(a, b); }    \
    static WEFT_HD T sub(T a, T b) { return __hsub(a, b); }    \
    static WEFT_HD T mul(T a, T b) { return __hmul(a, b); }    \
    static WEFT_HD T div(T a, T b) { return __hdiv(a, b); }    \
    static WEFT_HD T neg(T a) { return __hneg(a); }            \
  };                                                           \
  template <>                                                  \
  inline constexpr bool kIsNarrow<T> = true;
#if defined(WEFT_FLOAT16)
WEFT_NARROW_NATIVE_TRAITS(float16, __half2float, __float2half_rn, __double2half)
#endif
#if defined(WEFT_BFLOAT16)
WEFT_NARROW_NATIVE_TRAITS(bfloat16, __bfloat162float, __float2bfloat16_rn, __double2bfloat16)
#endif
#undef WEFT_NARROW_NATIVE_TRAITS
#if defined(WEFT_FLOAT8)
// fp8: CUDA's saturating conversions; arithmetic through float32.
#define WEFT_NARROW_FP8_TRAITS(T)                                       \
  template <>                                                           \
  struct Traits<T> {                                                    \
    static WEFT_HD float toFloat(T x) { return static_cast<float>(x); } \
    static WEFT_HD T fromDouble(double x) { return T(x); }              \
    WEFT_NARROW_COMMON(T, 8)                                            \
    WEFT_NARROW_THROUGH_FLOAT(T)                                        \
  };                                                                    \
  template <>                                                           \
  inline constexpr bool kIsNarrow<T> = true;
WEFT_NARROW_FP8_TRAITS(float8e4m3)
WEFT_NARROW_FP8_TRAITS(float8e5m2)
#undef WEFT_NARROW_FP8_TRAITS
#endif
#endif
#undef WEFT_NARROW_COMMON
#undef WEFT_NARROW_THROUGH_FLOAT

}  // namespace detail

#if !defined(WEFT_TARGET_HOST)
// The machine representation is CUDA's own type (the specification's table).
#if defined(WEFT_FLOAT16)
static_assert(sizeof(float16) == 2 && alignof(float16) == 2, "float16 is __half");
#endif
#if defined(WEFT_BFLOAT16)
static_assert(sizeof(bfloat16) == 2 && alignof(bfloat16) == 2, "bfloat16 is __nv_bfloat16");
#endif
#if defined(WEFT_FLOAT8)
static_assert(sizeof(float8e4m3) == 1 && alignof(float8e4m3) == 1, "float8e4m3 is __nv_fp8_e4m3");
static_assert(sizeof(float8e5m2) == 1 && alignof(float8e5m2) == 1, "float8e5m2 is __nv_fp8_e5m2");
#endif
#else
static_assert(sizeof(float16) == 2 && alignof(float16) == 2, "float16 has __half's layout");
static_assert(sizeof(bfloat16) == 2 && alignof(bfloat16) == 2, "bfloat16 has __nv_bfloat16's layout");
static_assert(sizeof(float8e4m3) == 1 && sizeof(float8e5m2) == 1, "fp8 types are one byte");
#endif

}  // namespace weft
