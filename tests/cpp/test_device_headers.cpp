// The device headers' Python semantics, compiled for the host: each helper against values
// computed by CPython (tables) and against independent references on random inputs
// (128-bit integer arithmetic, long double, std::complex).
#define WEFT_HOST 1
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <random>
#include <vector>

#include "weft/device/math.h"
#include "weft/device/runtime.h"

namespace {

using int128 = __int128;

template <class T>
T wrapTo(int128 value) {
  return static_cast<T>(static_cast<unsigned __int128>(value));
}

// Random integers of T, biased toward the edges where C++ and Python disagree.
template <class T>
std::vector<T> sampleIntegers(std::mt19937_64& random, size_t count) {
  using Limits = std::numeric_limits<T>;
  std::vector<T> values = {Limits::min(), Limits::max(), T(0), T(1), T(2), T(7)};
  if constexpr (std::is_signed_v<T>) {
    values.insert(values.end(), {T(-1), T(-2), T(-7), static_cast<T>(Limits::min() + 1)});
  }
  while (values.size() < count) {
    uint64_t bits = random();
    switch (bits % 3) {
      case 0: values.push_back(static_cast<T>(bits >> 8)); break;
      case 1: values.push_back(static_cast<T>(static_cast<int64_t>(bits >> 40) - (1 << 23))); break;
      default: values.push_back(static_cast<T>(static_cast<int>(bits >> 58) - 32)); break;
    }
  }
  return values;
}

// Python's floor division and modulo by definition: q = floor(a / b), r = a - q * b.
int128 pythonFloorDiv(int128 a, int128 b) {
  int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}

template <class T>
void checkFloorDivMod() {
  std::mt19937_64 random(sizeof(T) * 31 + std::is_signed_v<T>);
  std::vector<T> values = sampleIntegers<T>(random, 60);
  for (T a : values) {
    for (T b : values) {
      T q = weft::floordiv(a, b), r = weft::mod(a, b);
      if (b == 0) {
        EXPECT_EQ(q, T(0));
        EXPECT_EQ(r, T(0));
        continue;
      }
      int128 expectedQ = pythonFloorDiv(a, b);
      int128 expectedR = int128(a) - expectedQ * int128(b);
      // The remainder takes the divisor's sign and is smaller in magnitude.
      EXPECT_TRUE(b > 0 ? expectedR >= 0 && expectedR < b : expectedR <= 0 && expectedR > int128(b));
      EXPECT_EQ(q, wrapTo<T>(expectedQ)) << +a << " // " << +b;
      EXPECT_EQ(r, wrapTo<T>(expectedR)) << +a << " % " << +b;
    }
  }
}

TEST(DeviceNumeric, IntegerFloorDivAndModMatchPython) {
  checkFloorDivMod<int8_t>();
  checkFloorDivMod<int16_t>();
  checkFloorDivMod<int32_t>();
  checkFloorDivMod<int64_t>();
  checkFloorDivMod<uint8_t>();
  checkFloorDivMod<uint16_t>();
  checkFloorDivMod<uint32_t>();
  checkFloorDivMod<uint64_t>();
  // CPython: 7 // -2 == -4, 7 % -2 == -1, -7 // 2 == -4, -7 % 2 == 1.
  EXPECT_EQ(weft::floordiv(7, -2), -4);
  EXPECT_EQ(weft::mod(7, -2), -1);
  EXPECT_EQ(weft::floordiv(-7, 2), -4);
  EXPECT_EQ(weft::mod(-7, 2), 1);
  EXPECT_EQ(weft::floordiv(-7, -2), 3);
  EXPECT_EQ(weft::mod(-7, -2), -1);
  // MIN // -1 does not trap: Python's 2**31 wraps to MIN.
  EXPECT_EQ(weft::floordiv(std::numeric_limits<int32_t>::min(), -1), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(weft::floordiv(5, 0), 0);
}

TEST(DeviceNumeric, FloatFloorDivAndModMatchCPython) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  // a, b, a // b, a % b as CPython computes them.
  struct Case {
    double a, b, quotient, remainder;
  };
  const Case cases[] = {
      {7.5, 2.0, 3.0, 1.5},
      {-7.5, 2.0, -4.0, 0.5},
      {7.5, -2.0, -4.0, -0.5},
      {-7.5, -2.0, 3.0, -1.5},
      {1.0, 0.1, 9.0, 0.09999999999999995},
      {-1.0, 0.1, -10.0, 5.551115123125783e-17},
      {0.0, -3.0, -0.0, -0.0},
      {-0.0, 3.0, -0.0, 0.0},
      {1e+300, 1e-300, inf, 4.891554850853602e-301},
      {5.0, inf, 0.0, 5.0},
      {-5.0, inf, -1.0, inf},
      {inf, 3.0, nan, nan},
      {3.0, -0.7, -5.0, -0.4999999999999998},
      {1e-320, -3.0, -1.0, -3.0},
      {1.152921504606847e+18, 7.0, 1.647030720866924e+17, 1.0},
      {-123.456, 0.001, -123457.0, 0.0009999999999995004},
  };
  auto same = [](double x, double y) {
    return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y));
  };
  for (const Case& c : cases) {
    EXPECT_PRED2(same, weft::floordiv(c.a, c.b), c.quotient) << c.a << " // " << c.b;
    EXPECT_PRED2(same, weft::mod(c.a, c.b), c.remainder) << c.a << " % " << c.b;
  }
  // Division by zero is defined (Python raises): floor(x / 0.0) and nan.
  EXPECT_EQ(weft::floordiv(3.0f, 0.0f), std::numeric_limits<float>::infinity());
  EXPECT_EQ(weft::floordiv(-3.0, 0.0), -inf);
  EXPECT_TRUE(std::isnan(weft::mod(3.0, 0.0)));
  // Random: q is floor(a / b) up to rounding, r has b's sign, and q * b + r is a.
  std::mt19937 random(17);
  std::uniform_real_distribution<float> uniform(-1000, 1000);
  for (int k = 0; k < 5000; ++k) {
    float a = uniform(random), b = uniform(random) / 16;
    if (b == 0) continue;
    float q = weft::floordiv(a, b), r = weft::mod(a, b);
    EXPECT_EQ(q, std::floor(q));
    EXPECT_TRUE(r == 0 || (r < 0) == (b < 0)) << a << " % " << b;
    EXPECT_LE(std::fabs(r), std::fabs(b));
    EXPECT_NEAR(static_cast<double>(q) * b + r, a, 1e-3 * std::fabs(a) + 1e-3);
    EXPECT_NEAR(q, std::floor(static_cast<double>(a) / b), 1.0);
  }
}

template <class T>
void checkWrapping() {
  std::mt19937_64 random(sizeof(T) + 100 * std::is_signed_v<T>);
  std::vector<T> values = sampleIntegers<T>(random, 40);
  for (T a : values) {
    EXPECT_EQ(weft::neg(a), wrapTo<T>(-int128(a)));
    for (T b : values) {
      EXPECT_EQ(weft::add(a, b), wrapTo<T>(int128(a) + int128(b))) << +a << " + " << +b;
      EXPECT_EQ(weft::sub(a, b), wrapTo<T>(int128(a) - int128(b))) << +a << " - " << +b;
      // The product of two 64-bit values fits 128 bits unsigned; wrap from there.
      unsigned __int128 product =
          static_cast<unsigned __int128>(int128(a)) * static_cast<unsigned __int128>(int128(b));
      EXPECT_EQ(weft::mul(a, b), static_cast<T>(product)) << +a << " * " << +b;
    }
  }
}

TEST(DeviceNumeric, IntegerArithmeticWraps) {
  checkWrapping<int8_t>();
  checkWrapping<int16_t>();
  checkWrapping<int32_t>();
  checkWrapping<int64_t>();
  checkWrapping<uint8_t>();
  checkWrapping<uint16_t>();
  checkWrapping<uint32_t>();
  checkWrapping<uint64_t>();
  EXPECT_EQ(weft::abs(std::numeric_limits<int32_t>::min()), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(weft::abs(int16_t(-5)), 5);
}

template <class T>
void checkShifts() {
  constexpr int bits = sizeof(T) * 8;
  std::mt19937_64 random(bits + 7);
  for (T a : sampleIntegers<T>(random, 60)) {
    for (int s = -2; s <= bits + 3; ++s) {
      T left = weft::shl(a, s), right = weft::shr(a, s);
      if (s < 0) {
        EXPECT_EQ(left, T(0));
        EXPECT_EQ(right, T(0));
        continue;
      }
      // Python: a << s is a * 2**s (wrapped into T); a >> s is floor(a / 2**s).
      int128 power = s < 100 ? (int128(1) << s) : 0;
      EXPECT_EQ(left, s >= bits ? T(0) : wrapTo<T>(int128(a) * power)) << +a << " << " << s;
      int128 expected = s >= bits ? (a < 0 ? -1 : 0) : pythonFloorDiv(a, power);
      EXPECT_EQ(right, static_cast<T>(expected)) << +a << " >> " << s;
    }
    EXPECT_EQ(weft::shr(a, uint64_t(1) << 40), std::is_signed_v<T> && a < 0 ? T(-1) : T(0));
  }
}

TEST(DeviceNumeric, ShiftsFollowPythonWithinTheType) {
  checkShifts<int8_t>();
  checkShifts<int16_t>();
  checkShifts<int32_t>();
  checkShifts<int64_t>();
  checkShifts<uint8_t>();
  checkShifts<uint32_t>();
  checkShifts<uint64_t>();
}

TEST(DeviceNumeric, PowByRepeatedSquaring) {
  std::mt19937_64 random(3);
  for (int64_t base : sampleIntegers<int64_t>(random, 30)) {
    for (int n = 0; n < 70; ++n) {
      unsigned __int128 expected = 1;
      for (int k = 0; k < n; ++k) expected = static_cast<uint64_t>(expected) * static_cast<uint64_t>(base);
      EXPECT_EQ(weft::pow_int(base, n), static_cast<int64_t>(static_cast<uint64_t>(expected)))
          << base << "**" << n;
      EXPECT_EQ(weft::pow_int(static_cast<int32_t>(base), int8_t(n % 100)),
                wrapTo<int32_t>(static_cast<int128>(static_cast<uint32_t>(static_cast<uint64_t>(expected)))));
    }
  }
  // Negative exponents: Python's float result truncated.
  EXPECT_EQ(weft::pow_int(1, -5), 1);
  EXPECT_EQ(weft::pow_int(-1, -5), -1);
  EXPECT_EQ(weft::pow_int(-1, -4), 1);
  EXPECT_EQ(weft::pow_int(2, -1), 0);
  EXPECT_EQ(weft::pow_int(0, -1), 0);
  std::uniform_real_distribution<double> uniform(-3, 3);
  for (int k = 0; k < 200; ++k) {
    double x = uniform(random);
    for (int n = 0; n < 12; ++n)
      EXPECT_NEAR(weft::pow_int(x, n), std::pow(x, n), 1e-12 * std::pow(3.0, n)) << x;
    EXPECT_NEAR(weft::pow_int(x, -3), std::pow(x, -3), 1e-9 * std::fabs(std::pow(x, -3)));
  }
  weft::complex64 z{1.5f, -0.5f};
  std::complex<float> reference = std::pow(std::complex<float>(1.5f, -0.5f), 5);
  weft::complex64 power = weft::pow_int(z, 5);
  EXPECT_NEAR(power.re, reference.real(), 1e-4);
  EXPECT_NEAR(power.im, reference.imag(), 1e-4);
}

TEST(DeviceNumeric, CastsTruncateAndWrapLikePythonInt) {
  std::mt19937_64 random(9);
  std::uniform_real_distribution<double> exponent(-5, 37);
  for (int k = 0; k < 20000; ++k) {
    double magnitude = std::pow(10.0, exponent(random));
    double x = (random() & 1) ? -magnitude : magnitude;
    // Python: int(x) (exact truncation; here in 128 bits), then two's-complement wrapping.
    int128 truncated = static_cast<int128>(std::trunc(x));
    EXPECT_EQ(weft::cast<int64_t>(x), wrapTo<int64_t>(truncated)) << x;
    EXPECT_EQ(weft::cast<uint64_t>(x), wrapTo<uint64_t>(truncated)) << x;
    EXPECT_EQ(weft::cast<int32_t>(x), wrapTo<int32_t>(truncated)) << x;
    EXPECT_EQ(weft::cast<uint8_t>(x), wrapTo<uint8_t>(truncated)) << x;
    float single = static_cast<float>(x);
    EXPECT_EQ(weft::cast<int16_t>(single), wrapTo<int16_t>(static_cast<int128>(std::trunc(single))))
        << single;
  }
  EXPECT_EQ(weft::cast<int32_t>(-3.99), -3);
  EXPECT_EQ(weft::cast<int32_t>(std::nan("")), 0);
  EXPECT_EQ(weft::cast<int64_t>(-std::numeric_limits<double>::infinity()), 0);
  EXPECT_EQ(weft::cast<bool>(0.5f), true);
  EXPECT_EQ(weft::cast<bool>(-0.0), false);
  EXPECT_EQ(weft::cast<bool>(weft::complex64{0, 2}), true);
  EXPECT_EQ(weft::cast<double>(int64_t(1) << 60), 1152921504606846976.0);
  weft::complex128 widened = weft::cast<weft::complex128>(2.5f);
  EXPECT_EQ(widened.re, 2.5);
  EXPECT_EQ(widened.im, 0.0);
}

TEST(DeviceNumeric, ComparisonsAreExactAcrossSignedness) {
  EXPECT_TRUE(weft::lt(-1, 0u));
  EXPECT_FALSE(weft::lt(0u, -1));
  EXPECT_TRUE(weft::gt(0u, -1));
  EXPECT_FALSE(weft::eq(int64_t(-1), std::numeric_limits<uint64_t>::max()));
  EXPECT_TRUE(weft::ne(-1, 4294967295u));
  EXPECT_TRUE(weft::le(uint8_t(3), int64_t(3)));
  EXPECT_TRUE(weft::ge(int8_t(3), 3u));
  double nan = std::nan("");
  EXPECT_FALSE(weft::le(nan, 1.0));
  EXPECT_FALSE(weft::ge(nan, nan));
  EXPECT_TRUE(weft::ne(nan, nan));
  std::mt19937_64 random(21);
  for (int64_t a : sampleIntegers<int64_t>(random, 40)) {
    for (uint32_t b : sampleIntegers<uint32_t>(random, 40)) {
      EXPECT_EQ(weft::lt(a, b), int128(a) < int128(b));
      EXPECT_EQ(weft::ge(b, a), int128(b) >= int128(a));
    }
  }
}

TEST(DeviceNumeric, MinMaxAbsTruth) {
  double nan = std::nan("");
  // Python: min(nan, 1.0) is nan, min(1.0, nan) is 1.0 (the first unless the second is less).
  EXPECT_TRUE(std::isnan(weft::min(nan, 1.0)));
  EXPECT_EQ(weft::min(1.0, nan), 1.0);
  EXPECT_EQ(weft::max(1.0, nan), 1.0);
  EXPECT_EQ(weft::min(-0.0, 0.0), 0.0);
  EXPECT_TRUE(std::signbit(weft::min(-0.0, 0.0)));
  EXPECT_EQ(weft::max(int8_t(-3), int8_t(2)), 2);
  EXPECT_FLOAT_EQ(weft::abs(weft::complex64{3, -4}), 5.0f);
  EXPECT_EQ(weft::abs(-2.5), 2.5);
  EXPECT_TRUE(weft::truth(weft::complex128{0, -0.5}));
  EXPECT_FALSE(weft::truth(weft::complex128{0, 0}));
  EXPECT_FALSE(weft::truth(-0.0f));
  EXPECT_TRUE(weft::truth(nan));
}

TEST(DeviceNumeric, ComplexArithmeticMatchesStdComplex) {
  std::mt19937 random(4);
  std::uniform_real_distribution<double> uniform(-100, 100);
  for (int k = 0; k < 1000; ++k) {
    weft::complex128 a{uniform(random), uniform(random)}, b{uniform(random), uniform(random)};
    std::complex<double> x(a.re, a.im), y(b.re, b.im);
    auto near = [](weft::complex128 got, std::complex<double> want) {
      return std::abs(std::complex<double>(got.re, got.im) - want) <= 1e-12 * (1 + std::abs(want));
    };
    EXPECT_TRUE(near(a + b, x + y));
    EXPECT_TRUE(near(a - b, x - y));
    EXPECT_TRUE(near(a * b, x * y));
    EXPECT_TRUE(near(a / b, x / y));
    EXPECT_TRUE(near(weft::neg(a), -x));
  }
  weft::complex64 huge{1e30f, 1e30f};
  weft::complex64 quotient = huge / huge;  // Smith's algorithm does not overflow here
  EXPECT_FLOAT_EQ(quotient.re, 1.0f);
  EXPECT_FLOAT_EQ(quotient.im, 0.0f);
}

// range() loops: the helpers' iteration sequence equals Python's for every sign of step,
// near the ends of the type (where a naive i += step would overflow).
template <class T>
void checkRange(T start, T stop, T step) {
  std::vector<int128> expected;
  if (step > 0) {
    for (int128 i = start; i < stop; i += step) expected.push_back(i);
  } else if (step < 0) {
    for (int128 i = start; i > stop; i += step) expected.push_back(i);
  }
  std::vector<int128> got;
  for (T i = start; weft::range_continues(i, stop, step); i = weft::range_next(i, stop, step)) {
    got.push_back(i);
    ASSERT_LE(got.size(), expected.size() + 1);
  }
  EXPECT_EQ(got, expected) << +start << " " << +stop << " " << +step;
}

TEST(DeviceNumeric, RangeLoopsNeverOverflow) {
  std::mt19937 random(8);
  std::uniform_int_distribution<int> byte(-128, 127);
  for (int k = 0; k < 20000; ++k) {
    checkRange<int8_t>(byte(random), byte(random), byte(random));
    checkRange<uint8_t>(static_cast<uint8_t>(byte(random)), static_cast<uint8_t>(byte(random)),
                        static_cast<uint8_t>(byte(random)));
  }
  checkRange<int32_t>(2147483600, 2147483647, 7);
  checkRange<int32_t>(-2147483600, -2147483647 - 1, -9);
  checkRange<int64_t>(0, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max() / 3);
  checkRange<uint64_t>(5, std::numeric_limits<uint64_t>::max(), std::numeric_limits<uint64_t>::max() / 2);
}

TEST(DeviceMath, FunctionsPerPrecision) {
  EXPECT_EQ(weft::math::sqrt(2.0f), std::sqrt(2.0f));
  EXPECT_EQ(weft::math::sqrt(2.0), std::sqrt(2.0));
  EXPECT_EQ(weft::math::atan2(1.0f, -2.0f), std::atan2(1.0f, -2.0f));
  EXPECT_EQ(weft::math::floor(-2.5), -3.0);
  EXPECT_EQ(weft::math::fmod(-7.0, 2.0), -1.0);  // C's fmod: the dividend's sign
  EXPECT_EQ(weft::math::copysign(3.0f, -0.0f), -3.0f);
  EXPECT_TRUE(weft::math::isnan(std::nanf("")));
  EXPECT_FALSE(weft::math::isnan(3));
  EXPECT_TRUE(weft::math::isinf(-weft::inf<double>()));
  EXPECT_FALSE(weft::math::isinf(weft::nan<float>()));
  EXPECT_FALSE(weft::math::isinf(1e308));
  static_assert(std::is_same_v<decltype(weft::math::exp(1.0f)), float>,
                "float32 math stays single precision");
}

TEST(DeviceArray, IndexingWithStridesAndNegativeIndices) {
  std::vector<int32_t> storage(24);
  for (size_t k = 0; k < storage.size(); ++k) storage[k] = static_cast<int32_t>(k * 10);
  weft::Array<int32_t, 2> matrix{storage.data(), {4, 6}, {6, 1}};
  EXPECT_EQ((weft::at<true, true>(0, matrix, 1, 2)), 80);
  EXPECT_EQ((weft::at<true, true>(0, matrix, -1, -1)), 230);
  EXPECT_EQ((weft::at<false, true>(0, matrix, 2u, -6)), 120);
  weft::at<true, true>(0, matrix, 3, int64_t(-2)) = -5;
  EXPECT_EQ(storage[22], -5);
  // A reversed view: data at the last element, stride -1 (two's complement in uint64).
  weft::Array<int32_t, 1> reversed{storage.data() + 23, {24}, {static_cast<uint64_t>(-1)}};
  EXPECT_EQ(weft::at<true>(0, reversed, 0), storage[23]);
  EXPECT_EQ(weft::at<true>(0, reversed, -1), storage[0]);
  EXPECT_EQ(weft::at<false>(0, reversed, uint8_t(5)), storage[18]);
  // A column view: every 6th element.
  weft::Array<int32_t, 1> column{storage.data() + 1, {4}, {6}};
  EXPECT_EQ(weft::at<true>(0, column, -1), storage[19]);
  EXPECT_EQ(weft::size(matrix), 24);
  EXPECT_EQ(weft::shape(matrix, 1), 6);
  EXPECT_EQ(weft::stride_bytes(matrix, 0), 24);
  EXPECT_EQ(weft::stride_bytes(reversed, 0), -4);
}

TEST(DeviceArray, DescriptorLayoutIsTheRuntimeAbi) {
  using Array3 = weft::Array<float, 3>;
  EXPECT_EQ(offsetof(Array3, data), 0u);
  EXPECT_EQ(offsetof(Array3, shape), 8u);
  EXPECT_EQ(offsetof(Array3, strides), 32u);
  EXPECT_EQ(sizeof(weft::Array<double, 2>), 40u);
  EXPECT_EQ(alignof(weft::complex128), 16u);
  EXPECT_EQ(offsetof(weft::complex64, im), 4u);
}

TEST(DeviceIntrinsics, HostReadsTheInstalledThreadContext) {
  struct Runner {
    int barriers = 0;
  } runner;
  unsigned char shared[64] = {};
  weft::host::ThreadContext other{};
  weft::host::ThreadContext context{};
  context.threadIdx = {5, 1, 0};
  context.blockIdx = {3, 2, 1};
  context.blockDim = {8, 4, 2};
  context.gridDim = {10, 20, 30};
  context.sharedMemory = shared;
  context.runner = &runner;
  // The barrier switches to another simulated thread, which installs itself meanwhile.
  static weft::host::ThreadContext* switchedTo = nullptr;
  switchedTo = &other;
  context.barrier = [](weft::host::ThreadContext* self) {
    ++static_cast<Runner*>(self->runner)->barriers;
    weft::host::current = switchedTo;
  };
  weft::host::current = &context;
  EXPECT_EQ(weft::thread_idx_x(), 5u);
  EXPECT_EQ(weft::block_idx_y(), 2u);
  EXPECT_EQ(weft::grid_dim_z(), 30u);
  EXPECT_EQ(weft::tid_x(), 3 * 8 + 5);
  EXPECT_EQ(weft::tid_y(), 2 * 4 + 1);
  EXPECT_EQ(weft::grid_size_x(), 80);
  EXPECT_EQ(weft::lane_id(), (5 + 8 * 1) % 32);
  EXPECT_EQ(weft::warp_size(), 32);
  weft::syncthreads();
  EXPECT_EQ(runner.barriers, 1);
  EXPECT_EQ(weft::host::current, &context);
  WEFT_SHARED_STORAGE(float, tile, 4, 16);
  EXPECT_EQ(reinterpret_cast<unsigned char*>(tile), shared + 16);
  weft::host::current = nullptr;
}

}  // namespace
