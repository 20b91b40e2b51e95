// Numeric semantics of tiles against exact scalar references on seeded random data:
// ct::convert between every pair of element types (the seed's scalar conversions: round to
// nearest even, integers to floating out of range give infinity, floating to integers truncate
// and saturate, NaN gives 0), the numeric modifiers (add/sub/mul/div/fma/sqrt in the four
// precise rounding modes, with and without flushing subnormals, for float, double, float16 and
// bfloat16), and the math functions.
#include "tile_test.h"

namespace ct = ::cuda::tiles;

constexpr int kN = 256;

template <class T, class U>
__tile_global__ void convert_kernel(const T* in, U* out) {
  using I = ct::tile<int32_t, ct::shape<kN>>;
  ct::store(out + ct::iota<I>(), ct::convert<U>(ct::load(in + ct::iota<I>())));
}

// Operation O (0 add, 1 sub, 2 mul, 3 div, 4 fma, 5 sqrt) with modifiers Mods.
template <class T, int O, class... Mods>
__tile_global__ void rounding_kernel(const T* a, const T* b, const T* c, T* out) {
  using I = ct::tile<int32_t, ct::shape<kN>>;
  auto x = ct::load(a + ct::iota<I>());
  auto y = ct::load(b + ct::iota<I>());
  auto z = ct::load(c + ct::iota<I>());
  ct::tile<T, ct::shape<kN>> r;
  if constexpr (O == 0) r = ct::add(x, y, Mods{}...);
  if constexpr (O == 1) r = ct::sub(x, y, Mods{}...);
  if constexpr (O == 2) r = ct::mul(x, y, Mods{}...);
  if constexpr (O == 3) r = ct::div(x, y, Mods{}...);
  if constexpr (O == 4) r = ct::fma(x, y, z, Mods{}...);
  if constexpr (O == 5) r = ct::sqrt(x, Mods{}...);
  ct::store(out + ct::iota<I>(), r);
}

// The seed's example: ct::add(8.0f, 5 * eps, round_toward_negative) == 8.0f, and the flushed
// subtraction ct::sub(0x1.1p-126f, 0x1.0p-126f, ties_to_even, subnormals_to_zero) == 0.
__tile_global__ void seed_modifier_kernel(float* out) {
  float eps = 0x0.000002p0f;
  out[0] = ct::add(8.0f, 5 * eps, ct::round_toward_negative_t{});
  out[1] = ct::add(8.0f, 5 * eps);
  out[2] = ct::sub(0x1.1p-126f, 0x1.0p-126f, ct::round_ties_to_even_t{}, ct::round_subnormals_to_zero_t{});
  out[3] = ct::sub(0x1.1p-126f, 0x1.0p-126f);
}

// Math function F (0 exp, 1 exp2, 2 log, 3 log2, 4 sin, 5 cos, 6 tanh, 7 rsqrt, 8 floor, 9 ceil,
// 10 sqrt, 11 pow(x, y)), full precision or approximate.
template <class T, int F, bool Approx>
__tile_global__ void math_kernel(const T* a, const T* b, T* out) {
  using I = ct::tile<int32_t, ct::shape<16, 16>>;
  auto x = ct::load(a + ct::iota<I>());
  auto y = ct::load(b + ct::iota<I>());
  using P = std::conditional_t<Approx, ct::round_approximate_t, ct::round_full_t>;
  ct::tile<T, ct::shape<16, 16>> r;
  if constexpr (F == 0) r = ct::exp(x, P{});
  if constexpr (F == 1) r = ct::exp2(x, P{});
  if constexpr (F == 2) r = ct::log(x, P{});
  if constexpr (F == 3) r = ct::log2(x, P{});
  if constexpr (F == 4) r = ct::sin(x, P{});
  if constexpr (F == 5) r = ct::cos(x, P{});
  if constexpr (F == 6) r = ct::tanh(x, P{});
  if constexpr (F == 7) r = ct::rsqrt(x);
  if constexpr (F == 8) r = ct::floor(x);
  if constexpr (F == 9) r = ct::ceil(x);
  if constexpr (F == 10) {
    if constexpr (Approx) r = ct::sqrt(x, ct::round_approximate_t{});
    else r = ct::sqrt(x);
  }
  if constexpr (F == 11) r = ct::pow(x, y);
  ct::store(out + ct::iota<I>(), r);
}

#if !defined(__CUDACC_RTC__)
using namespace tile_test;

// ---- Exact references ------------------------------------------------------------------------

template <class T>
constexpr bool is_float_like = std::is_floating_point_v<T> || is_narrow<T>;

template <class T>
long double exact(T x) {
  if constexpr (std::is_same_v<T, bool>) {
    return x ? 1.0L : 0.0L;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<long double>(x);
  } else {
    return static_cast<long double>(as_double(x));
  }
}

// A narrow type's bit patterns: the sign bit, the largest finite magnitude, infinity (0 if none),
// and whether overflow saturates.
template <class T>
struct pattern_facts;
template <>
struct pattern_facts<weft::float16> {
  static constexpr uint32_t sign = 0x8000, max = 0x7bff, inf = 0x7c00;
  static constexpr bool saturates = false;
};
template <>
struct pattern_facts<weft::bfloat16> {
  static constexpr uint32_t sign = 0x8000, max = 0x7f7f, inf = 0x7f80;
  static constexpr bool saturates = false;
};
template <>
struct pattern_facts<ct::tfloat32> {
  static constexpr uint32_t sign = 0x80000000u, max = 0x7f7fe000u, inf = 0x7f800000u;
  static constexpr bool saturates = false;
};
template <>
struct pattern_facts<weft::float8e4m3> {
  static constexpr uint32_t sign = 0x80, max = 0x7e, inf = 0;
  static constexpr bool saturates = true;
};
template <>
struct pattern_facts<weft::float8e5m2> {
  static constexpr uint32_t sign = 0x80, max = 0x7b, inf = 0;
  static constexpr bool saturates = true;
};

template <class T>
T from_pattern(uint32_t p) {
  if constexpr (std::is_same_v<T, ct::tfloat32>) {
    return ct::tfloat32{p};
  } else {
    T value;
    auto narrow = static_cast<ct::detail::bits_t<T>>(p);
    std::memcpy(&value, &narrow, sizeof(T));
    return value;
  }
}
// tf32 patterns step by 2**13 (the 13 low bits are zero).
template <class T>
constexpr uint32_t pattern_step = std::is_same_v<T, ct::tfloat32> ? (1u << 13) : 1u;

// The narrow value nearest to v, by search over the ordered patterns.
template <class T>
T nearest_narrow(long double v) {
  using F = pattern_facts<T>;
  if (std::isnan(v)) return from_double<T>(std::nan(""));
  uint32_t sign = std::signbit(v) ? F::sign : 0;
  long double m = std::fabs(v);
  constexpr uint32_t step = pattern_step<T>;
  auto value = [](uint32_t p) { return exact(from_pattern<T>(p)); };
  if (m >= value(F::max)) {
    long double ulp = value(F::max) - value(F::max - step);
    if (F::saturates || m < value(F::max) + ulp / 2) return from_pattern<T>(sign | F::max);
    return from_pattern<T>(sign | F::inf);
  }
  uint32_t lo = 0, hi = F::max / step;  // value(lo*step) <= m < value(hi*step)
  while (hi - lo > 1) {
    uint32_t mid = (lo + hi) / 2;
    if (value(mid * step) <= m) lo = mid;
    else hi = mid;
  }
  long double below = value(lo * step), above = value(hi * step);
  // Ties: to the even pattern; tfloat32's away from zero (cvt.rna, traits.h).
  const bool tieUp = std::is_same_v<T, ct::tfloat32> || (lo & 1u) != 0;
  uint32_t pick = (m - below < above - m) ? lo : (above - m < m - below) ? hi : tieUp ? hi : lo;
  return from_pattern<T>(sign | pick * step);
}

// The seed's scalar conversion of x to U, computed from x's exact value.
template <class U, class T>
U reference_convert(T x) {
  long double v = exact(x);
  if constexpr (std::is_same_v<U, bool>) {
    return v != 0 || std::isnan(v);
  } else if constexpr (std::is_integral_v<U>) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<U>(x);
    } else {
      if (std::isnan(v)) return U(0);
      long double t = std::trunc(v);
      if (t <= static_cast<long double>(std::numeric_limits<U>::min())) return std::numeric_limits<U>::min();
      if (t >= static_cast<long double>(std::numeric_limits<U>::max())) return std::numeric_limits<U>::max();
      return static_cast<U>(t);
    }
  } else if constexpr (std::is_floating_point_v<U>) {
    return static_cast<U>(v);
  } else {
    return nearest_narrow<U>(v);
  }
}

// Conversion test values of T: its whole range for integers; for floating types a mix of
// small values, values near rounding ties, large values (beyond the narrow types' ranges),
// infinities and NaN. For fp8 destinations values stay in range (out of range is unspecified).
template <class T, class U>
T conversion_value(Random& random, int i) {
  bool fp8Target = std::is_same_v<U, weft::float8e4m3> || std::is_same_v<U, weft::float8e5m2>;
  double limit = fp8Target ? 200.0 : 1e6;
  if constexpr (std::is_same_v<T, bool>) {
    return (random.next() & 1u) != 0;
  } else if constexpr (std::is_integral_v<T>) {
    if (fp8Target) return static_cast<T>(random.next() % 200);
    if (i % 4 == 0) return static_cast<T>(static_cast<int64_t>(random.next() % 2001) - 1000);
    return random.bits<T>();
  } else {
    int kind = i % 8;
    double v;
    if (!fp8Target && kind == 0) v = (i % 16 == 0) ? std::numeric_limits<double>::infinity() : std::nan("");
    else if (!fp8Target && kind == 1) v = -std::numeric_limits<double>::infinity();
    else if (kind == 2) v = std::round(random.uniform(-limit, limit)) + 0.5;  // ties for integers
    else if (!fp8Target && kind == 3) v = random.uniform(-1e12, 1e12);
    else if (!fp8Target && kind == 4) v = random.uniform(-3e38, 3e38);
    else v = random.uniform(-limit, limit) * std::pow(2.0, -static_cast<double>(random.next() % 20));
    return from_double<T>(v);
  }
}

template <class T, class U>
void run_convert(Random& random) {
  Buffer<T> in(kN);
  Buffer<U> out(kN);
  for (int i = 0; i < kN; ++i) in[i] = conversion_value<T, U>(random, i);
  launch({1, 1, 1}, convert_kernel<T, U>, static_cast<const T*>(in.get()), out.get());
  for (int i = 0; i < kN; ++i) {
    U expected = reference_convert<U>(in[i]);
    bool ok;
    if constexpr (is_float_like<U>) {
      ok = same_value(out[i], expected) || (std::isnan(as_double(expected)) && std::isnan(as_double(out[i])));
    } else {
      ok = out[i] == expected;
    }
    check(ok, std::string("convert ") + type_name<T>() + " -> " + type_name<U>() + ": " + show(in[i]) + " gave " +
                  show(out[i]) + ", expected " + show(expected));
  }
}

template <class T>
void run_convert_from(Random& random) {
  run_convert<T, bool>(random);
  run_convert<T, int8_t>(random);
  run_convert<T, uint8_t>(random);
  run_convert<T, int16_t>(random);
  run_convert<T, uint16_t>(random);
  run_convert<T, int32_t>(random);
  run_convert<T, uint32_t>(random);
  run_convert<T, int64_t>(random);
  run_convert<T, uint64_t>(random);
  run_convert<T, weft::float16>(random);
  run_convert<T, weft::bfloat16>(random);
  run_convert<T, float>(random);
  run_convert<T, double>(random);
  run_convert<T, ct::tfloat32>(random);
  run_convert<T, weft::float8e4m3>(random);
  run_convert<T, weft::float8e5m2>(random);
}

// ---- Rounding modes ------------------------------------------------------------------------

// The neighbours of a value of T (T is float, double, float16 or bfloat16) toward +inf / -inf.
template <class T>
T step_up(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::nextafter(x, std::numeric_limits<T>::infinity());
  } else {
    auto bits = ct::detail::bit_cast<uint16_t>(x);
    if ((bits & 0x7fffu) == 0) return from_pattern<T>(1u);
    return from_pattern<T>((bits & 0x8000u) ? bits - 1u : bits + 1u);
  }
}
template <class T>
T step_down(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::nextafter(x, -std::numeric_limits<T>::infinity());
  } else {
    auto bits = ct::detail::bit_cast<uint16_t>(x);
    if ((bits & 0x7fffu) == 0) return from_pattern<T>(0x8001u);
    return from_pattern<T>((bits & 0x8000u) ? bits + 1u : bits - 1u);
  }
}

template <class T>
bool is_subnormal(T x) {
  double v = as_double(x);
  double tiny = std::is_same_v<T, float> ? 0x1p-126 : std::is_same_v<T, double> ? 0x1p-1022
                : std::is_same_v<T, weft::float16> ? 0x1p-14 : 0x1p-126;
  return v != 0 && std::fabs(v) < tiny;
}
template <class T>
T flushed(T x) {
  return is_subnormal(x) ? from_double<T>(std::signbit(as_double(x)) ? -0.0 : 0.0) : x;
}

// sign(exact result - c) for candidate c of operation O on (a, b, z), computed exactly in
// double: TwoSum and fma residuals, with operands scaled by a power of 2 where a residual would
// underflow. Every type here converts to double exactly.
template <class T, int O>
int residual_sign(T a, T b, T z, T c) {
  double x = as_double(a), y = as_double(b), w = as_double(z), cand = as_double(c);
  auto sign_of = [](double v) { return v > 0 ? 1 : v < 0 ? -1 : 0; };
  // s + e == u + v exactly.
  auto two_sum = [](double u, double v, double& e) {
    double s = u + v, bb = s - u;
    e = (u - (s - bb)) + (v - bb);
    return s;
  };
  int k = (std::fabs(x) < 1e-200 || std::fabs(cand) < 1e-200) ? 600 : 0;
  if constexpr (O == 0 || O == 1) {
    double e, s = two_sum(x, O == 0 ? y : -y, e);
    return sign_of((s - cand) + e);
  } else if constexpr (O == 2) {
    double xs = std::ldexp(x, k), cs = std::ldexp(cand, k);
    double p = xs * y, e = std::fma(xs, y, -p);
    return sign_of((p - cs) + e);
  } else if constexpr (O == 3) {
    double r = std::fma(-std::ldexp(cand, k), y, std::ldexp(x, k));  // x - cand*y, exact
    if (r == 0) return 0;
    return (r > 0) == (y > 0) ? 1 : -1;
  } else if constexpr (O == 4) {
    double p = x * y;  // exact: the operands have short significands
    double e, s = two_sum(p, w, e);
    return sign_of((s - cand) + e);
  } else {
    int h = x < 1e-200 ? 300 : 0;
    double r = std::fma(-std::ldexp(cand, h), std::ldexp(cand, h), std::ldexp(x, 2 * h));
    return sign_of(r);
  }
}

// The result of operation O in rounding mode R (0 nearest even, 1 toward zero, 2 down, 3 up).
template <class T, int O>
T reference_rounded(T a, T b, T z, int R, bool ftz) {
  if (ftz) {
    a = flushed(a);
    b = flushed(b);
    z = flushed(z);
  }
  double x = as_double(a), y = as_double(b), w = as_double(z);
  double nearest;  // correctly rounded to double, then to T (innocuous double rounding)
  if constexpr (std::is_same_v<T, float>) {
    float fa = a, fb = b, fz = z;
    float r = O == 0 ? fa + fb : O == 1 ? fa - fb : O == 2 ? fa * fb : O == 3 ? fa / fb : O == 4 ? std::fma(fa, fb, fz) : std::sqrt(fa);
    nearest = r;
  } else {
    nearest = O == 0 ? x + y : O == 1 ? x - y : O == 2 ? x * y : O == 3 ? x / y : O == 4 ? std::fma(x, y, w) : std::sqrt(x);
  }
  T c = from_double<T>(nearest);
  // IEEE 754: an exact zero sum of operands of opposite signs is -0 when rounding down.
  bool zeroSum = (O == 0 || O == 1 || O == 4) && nearest == 0;
  if (zeroSum) {
    double u = O == 4 ? x * y : x, v = O == 0 ? y : O == 1 ? -y : w;
    bool sameSignZeros = u == 0 && v == 0 && std::signbit(u) == std::signbit(v);
    if (!sameSignZeros) c = from_double<T>(R == 2 ? -0.0 : 0.0);
  }
  if (R != 0 && !std::isnan(nearest)) {
    int sign = residual_sign<T, O>(a, b, z, c);
    if (sign > 0 && (R == 3 || (R == 1 && as_double(c) < 0))) c = step_up(c);
    if (sign < 0 && (R == 2 || (R == 1 && as_double(c) > 0))) c = step_down(c);
  }
  return ftz ? flushed(c) : c;
}

// Operands with exponents close together (so that the references above are exact), a few
// subnormal operands and results when `ftz`, short significands for double fma.
template <class T, int O>
void rounding_operands(Random& random, T& a, T& b, T& z, bool subnormals) {
  auto draw = [&](int bitsKept) {
    double v = random.uniform(1.0, 100.0) * (random.next() % 2 ? -1.0 : 1.0);
    if (bitsKept > 0) v = std::ldexp(std::round(std::ldexp(v, bitsKept - 7)), 7 - bitsKept);
    return v;
  };
  int kept = std::is_same_v<T, double> && O == 4 ? 24 : 0;
  a = from_double<T>(draw(kept));
  b = from_double<T>(draw(kept));
  z = from_double<T>(draw(kept));
  if constexpr (O == 5) a = from_double<T>(std::fabs(as_double(a)));
  if (subnormals) {
    double tiny = std::is_same_v<T, double> ? 0x1p-1022 : std::is_same_v<T, weft::float16> ? 0x1p-14 : 0x1p-126;
    int kind = static_cast<int>(random.next() % 3);
    double scale = random.uniform(0.25, 1.75);
    if (kind == 0) a = from_double<T>(tiny * scale);  // a subnormal operand (or a normal one)
    if (kind == 1) {
      a = from_double<T>(tiny * 1.0625);  // a subnormal difference
      b = from_double<T>(O == 0 ? -tiny : tiny);
    }
    if (kind == 2) {
      a = from_double<T>(tiny * scale * 8);
      b = from_double<T>(O == 3 ? 16.0 : 0.0625);  // a subnormal product or quotient
    }
    if constexpr (O == 5) a = from_double<T>(std::fabs(as_double(a)));
  }
}

template <class T, int O, int R, bool Ftz>
void run_rounding_case(Random& random) {
  Buffer<T> a(kN), b(kN), z(kN), out(kN);
  for (int i = 0; i < kN; ++i) {
    T x, y, w;
    rounding_operands<T, O>(random, x, y, w, Ftz && i % 2 == 0);
    a[i] = x;
    b[i] = y;
    z[i] = w;
  }
  using Round = std::conditional_t<R == 0, ct::round_ties_to_even_t,
                std::conditional_t<R == 1, ct::round_toward_zero_t,
                std::conditional_t<R == 2, ct::round_toward_negative_t, ct::round_toward_positive_t>>>;
  using Sub = std::conditional_t<Ftz, ct::round_subnormals_to_zero_t, ct::preserve_subnormals_t>;
  launch({1, 1, 1}, rounding_kernel<T, O, Round, Sub>, static_cast<const T*>(a.get()), static_cast<const T*>(b.get()),
         static_cast<const T*>(z.get()), out.get());
  for (int i = 0; i < kN; ++i) {
    T expected = reference_rounded<T, O>(a[i], b[i], z[i], R, Ftz);
    check(same_value(out[i], expected), std::string("rounding op ") + std::to_string(O) + " mode " + std::to_string(R) +
                                            (Ftz ? " ftz " : " ") + type_name<T>() + ": " + show(a[i]) + ", " + show(b[i]) +
                                            ", " + show(z[i]) + " gave " + show(out[i]) + ", expected " + show(expected));
  }
}

template <class T, int O>
void run_rounding_op(Random& random) {
  run_rounding_case<T, O, 0, false>(random);
  run_rounding_case<T, O, 1, false>(random);
  run_rounding_case<T, O, 2, false>(random);
  run_rounding_case<T, O, 3, false>(random);
  run_rounding_case<T, O, 0, true>(random);
  run_rounding_case<T, O, 2, true>(random);
}

template <class T>
void run_rounding(Random& random) {
  run_rounding_op<T, 0>(random);
  run_rounding_op<T, 1>(random);
  run_rounding_op<T, 2>(random);
  run_rounding_op<T, 3>(random);
  run_rounding_op<T, 4>(random);
  run_rounding_op<T, 5>(random);
}

// ---- Math -----------------------------------------------------------------------------------

template <class T, int F, bool Approx>
void run_math(Random& random) {
  constexpr int n = 256;
  Buffer<T> a(n), b(n), out(n);
  for (int i = 0; i < n; ++i) {
    double v = F == 2 || F == 3 || F == 7 || F == 10 || F == 11 ? random.uniform(0.01, 50.0) : random.uniform(-8.0, 8.0);
    a[i] = from_double<T>(v);
    b[i] = from_double<T>(random.uniform(-3.0, 3.0));
  }
  launch({1, 1, 1}, math_kernel<T, F, Approx>, static_cast<const T*>(a.get()), static_cast<const T*>(b.get()), out.get());
  double tolerance = std::is_same_v<T, double> ? 1e-14 : std::is_same_v<T, float> ? (Approx ? 2e-3 : 2e-6) : 1e-2;  // narrow: a few units
  for (int i = 0; i < n; ++i) {
    double x = as_double(a[i]), y = as_double(b[i]);
    double r = F == 0 ? std::exp(x) : F == 1 ? std::exp2(x) : F == 2 ? std::log(x) : F == 3 ? std::log2(x)
             : F == 4 ? std::sin(x) : F == 5 ? std::cos(x) : F == 6 ? std::tanh(x) : F == 7 ? 1.0 / std::sqrt(x)
             : F == 8 ? std::floor(x) : F == 9 ? std::ceil(x) : F == 10 ? std::sqrt(x) : std::pow(x, y);
    if constexpr (is_narrow<T>) r = as_double(from_double<T>(r));
    double got = as_double(out[i]);
    double scale = (F == 4 || F == 5 || F == 6) ? 1.0 : std::fabs(r);  // absolute error for bounded functions
    bool ok = got == r || std::fabs(got - r) <= tolerance * std::fmax(scale, 1e-30) || (std::isnan(got) && std::isnan(r));
    check(ok, std::string("math ") + std::to_string(F) + (Approx ? " approx " : " ") + type_name<T>() + "(" + show(a[i]) +
                  ") gave " + show(out[i]) + ", expected " + std::to_string(r));
  }
}

template <class T>
void run_maths(Random& random) {
  run_math<T, 0, false>(random);
  run_math<T, 1, false>(random);
  run_math<T, 2, false>(random);
  run_math<T, 3, false>(random);
  run_math<T, 4, false>(random);
  run_math<T, 5, false>(random);
  run_math<T, 6, false>(random);
  run_math<T, 7, false>(random);
  run_math<T, 8, false>(random);
  run_math<T, 9, false>(random);
  run_math<T, 10, false>(random);
  run_math<T, 11, false>(random);
  if constexpr (std::is_same_v<T, float>) {
    run_math<T, 0, true>(random);
    run_math<T, 1, true>(random);
    run_math<T, 2, true>(random);
    run_math<T, 4, true>(random);
    run_math<T, 6, true>(random);
    run_math<T, 10, true>(random);
  }
}

int main() {
  Random random(seed());
  run_convert_from<bool>(random);
  run_convert_from<int8_t>(random);
  run_convert_from<uint8_t>(random);
  run_convert_from<int16_t>(random);
  run_convert_from<uint16_t>(random);
  run_convert_from<int32_t>(random);
  run_convert_from<uint32_t>(random);
  run_convert_from<int64_t>(random);
  run_convert_from<uint64_t>(random);
  run_convert_from<weft::float16>(random);
  run_convert_from<weft::bfloat16>(random);
  run_convert_from<float>(random);
  run_convert_from<double>(random);
  run_convert_from<ct::tfloat32>(random);
  run_convert_from<weft::float8e4m3>(random);
  run_convert_from<weft::float8e5m2>(random);

  run_rounding<float>(random);
  run_rounding<double>(random);
  run_rounding<weft::float16>(random);
  run_rounding<weft::bfloat16>(random);

  Buffer<float> seedOut(4);
  launch({1, 1, 1}, seed_modifier_kernel, seedOut.get());
  check(seedOut[0] == 8.0f, "seed example: add(8, 5 eps, round_toward_negative) == 8");
  check(seedOut[1] == 8.0f + 8 * 0x0.000002p0f, "seed example: add(8, 5 eps) == 8 + 8 eps");
  check(seedOut[2] == 0.0f, "seed example: flushed subnormal difference == 0");
  check(seedOut[3] == 0x0.1p-126f, "seed example: subnormal difference kept");

  run_maths<float>(random);
  run_maths<double>(random);
  run_maths<weft::float16>(random);
  run_maths<weft::bfloat16>(random);
  return finish("test_numeric");
}
#endif
