// Element-wise tile operations against scalar references on seeded random data: creation,
// arithmetic (every arithmetic element type), bitwise operations and shifts, comparisons,
// where, min/max with both NaN modes, abs/neg, the seed's arithmetic conversions with
// broadcasting (tile-tile, tile-scalar, scalar-tile, shapes (4,1) and (1,32), a rank-1 tile
// with a rank-2 one), the C++ operators and map.
#include "tile_test.h"

namespace ct = ::cuda::tiles;

// ---- Kernels -----------------------------------------------------------------------------------

// out[i] = element i (row-major) of Tile creation `Make`.
template <class Tile, int Make>
__tile_global__ void create_kernel(typename Tile::element_type* out, typename Tile::element_type value) {
  using E = typename Tile::element_type;
  Tile t;
  if constexpr (Make == 0) t = ct::full<Tile>(value);
  if constexpr (Make == 1) t = ct::zeros<Tile>();
  if constexpr (Make == 2) t = ct::ones<Tile>();
  if constexpr (Make == 3) t = ct::iota<Tile>();
  using I = ct::tile<int32_t, typename Tile::shape_type>;
  ct::store(static_cast<E*>(out) + ct::iota<I>(), t);
}

// The binary operations under test, by number.
enum Op {
  kAdd, kSub, kMul, kDiv, kRem, kMin, kMax, kMinNan, kMaxNan, kAnd, kOr, kXor, kShl, kShr,
  kEq, kNe, kLt, kLe, kGt, kGe, kOpCount
};

template <int O>
struct binary {
  template <class A, class B>
  WEFT_TILE_FN auto operator()(const A& a, const B& b) const {
    if constexpr (O == kAdd) return ct::add(a, b);
    else if constexpr (O == kSub) return ct::sub(a, b);
    else if constexpr (O == kMul) return ct::mul(a, b);
    else if constexpr (O == kDiv) return ct::div(a, b);
    else if constexpr (O == kRem) return ct::rem(a, b);
    else if constexpr (O == kMin) return ct::min(a, b);
    else if constexpr (O == kMax) return ct::max(a, b);
    else if constexpr (O == kMinNan) return ct::min(a, b, ct::propagate_nan_t{});
    else if constexpr (O == kMaxNan) return ct::max(a, b, ct::propagate_nan_t{});
    else if constexpr (O == kAnd) return ct::bit_and(a, b);
    else if constexpr (O == kOr) return ct::bit_or(a, b);
    else if constexpr (O == kXor) return ct::bit_xor(a, b);
    else if constexpr (O == kShl) return ct::shl(a, b);
    else if constexpr (O == kShr) return ct::shr(a, b);
    else if constexpr (O == kEq) return ct::eq(a, b);
    else if constexpr (O == kNe) return ct::ne(a, b);
    else if constexpr (O == kLt) return ct::lt(a, b);
    else if constexpr (O == kLe) return ct::le(a, b);
    else if constexpr (O == kGt) return ct::gt(a, b);
    else return ct::ge(a, b);
  }
};

// The same operations through the C++ operators (where one exists).
template <int O>
struct through_operator {
  template <class A, class B>
  WEFT_TILE_FN auto operator()(const A& a, const B& b) const {
    if constexpr (O == kAdd) return a + b;
    else if constexpr (O == kSub) return a - b;
    else if constexpr (O == kMul) return a * b;
    else if constexpr (O == kDiv) return a / b;
    else if constexpr (O == kRem) return a % b;
    else if constexpr (O == kAnd) return a & b;
    else if constexpr (O == kOr) return a | b;
    else if constexpr (O == kXor) return a ^ b;
    else if constexpr (O == kShl) return a << b;
    else if constexpr (O == kShr) return a >> b;
    else if constexpr (O == kEq) return a == b;
    else if constexpr (O == kNe) return a != b;
    else if constexpr (O == kLt) return a < b;
    else if constexpr (O == kLe) return a <= b;
    else if constexpr (O == kGt) return a > b;
    else return a >= b;
  }
};

// Forms of the operands: 0 tile (SA) op tile (SB); 1 tile op scalar b[0]; 2 scalar a[0] op tile.
template <class T, class SA, class SB, int Form, class F>
__tile_global__ void binary_kernel(const T* a, const T* b, void* out) {
  using IA = ct::tile<int32_t, SA>;
  using IB = ct::tile<int32_t, SB>;
  auto x = ct::load(a + ct::iota<IA>());
  auto y = ct::load(b + ct::iota<IB>());
  if constexpr (Form == 0) {
    auto r = F{}(x, y);
    using R = typename decltype(r)::element_type;
    ct::store(static_cast<R*>(out) + ct::iota<ct::tile<int32_t, typename decltype(r)::shape_type>>(), r);
  } else if constexpr (Form == 1) {
    auto r = F{}(x, b[0]);
    using R = typename decltype(r)::element_type;
    ct::store(static_cast<R*>(out) + ct::iota<IA>(), r);
  } else {
    auto r = F{}(a[0], y);
    using R = typename decltype(r)::element_type;
    ct::store(static_cast<R*>(out) + ct::iota<IB>(), r);
  }
}

// Unary operations: 0 neg, 1 abs, 2 bit_not, 3 unary -, 4 ~, 5 map(x * 2 + 1 through weft's wrap).
template <class T, class S, int O>
__tile_global__ void unary_kernel(const T* a, T* out) {
  using I = ct::tile<int32_t, S>;
  auto x = ct::load(a + ct::iota<I>());
  ct::tile<T, S> r;
  if constexpr (O == 0) r = ct::neg(x);
  if constexpr (O == 1) r = ct::abs(x);
  if constexpr (O == 2) r = ct::bit_not(x);
  if constexpr (O == 3) r = -x;
  if constexpr (O == 4) r = ~x;
  ct::store(out + ct::iota<I>(), r);
}

// where(a > b, a, 7) on broadcast shapes, and map of a three-operand lambda.
template <class T, class SA, class SB>
__tile_global__ void where_kernel(const T* a, const T* b, T* out, T* mapped) {
  auto x = ct::load(a + ct::iota<ct::tile<int32_t, SA>>());
  auto y = ct::load(b + ct::iota<ct::tile<int32_t, SB>>());
  auto r = ct::where(ct::gt(x, y), x, ct::convert<T>(7));
  using S = typename decltype(r)::shape_type;
  ct::store(out + ct::iota<ct::tile<int32_t, S>>(), r);
  auto yb = ct::broadcast_to<S>(y);
  auto xb = ct::broadcast_to<S>(x);
  auto m = ct::map([](T p, T q, bool c) { return c ? q : p; }, xb, yb, true);
  ct::store(mapped + ct::iota<ct::tile<int32_t, S>>(), m);
}

#if !defined(__CUDACC_RTC__)
// ---- References -----------------------------------------------------------------------------

using namespace tile_test;

template <class T>
constexpr bool is_float_like = std::is_floating_point_v<T> || is_narrow<T>;

template <class T>
T wrap_from(uint64_t bits) {
  if constexpr (std::is_same_v<T, bool>) {
    return (bits & 1u) != 0;
  } else {
    return static_cast<T>(bits);
  }
}

// The reference of operation O on two values of T (result: T, or bool for comparisons).
template <int O, class T>
auto reference(T a, T b) {
  constexpr int bits = std::is_same_v<T, bool> ? 1 : int(sizeof(T)) * 8;
  if constexpr (O >= kEq) {
    double x = as_double(a), y = as_double(b);
    if constexpr (std::is_integral_v<T>) {
      if constexpr (O == kEq) return a == b;
      else if constexpr (O == kNe) return a != b;
      else if constexpr (O == kLt) return a < b;
      else if constexpr (O == kLe) return a <= b;
      else if constexpr (O == kGt) return a > b;
      else return a >= b;
    } else {
      if constexpr (O == kEq) return x == y;
      else if constexpr (O == kNe) return x != y;
      else if constexpr (O == kLt) return x < y;
      else if constexpr (O == kLe) return x <= y;
      else if constexpr (O == kGt) return x > y;
      else return x >= y;
    }
  } else if constexpr (is_float_like<T>) {
    double x = as_double(a), y = as_double(b);
    double r = 0;
    if constexpr (O == kAdd) r = x + y;
    else if constexpr (O == kSub) r = x - y;
    else if constexpr (O == kMul) r = x * y;
    else if constexpr (O == kDiv) r = x / y;
    else if constexpr (O == kRem) r = std::fmod(x, y);
    else if constexpr (O == kMin || O == kMax) {
      if (std::isnan(x)) return b;
      if (std::isnan(y)) return a;
      return O == kMin ? (y < x ? b : a) : (x < y ? b : a);
    } else if constexpr (O == kMinNan || O == kMaxNan) {
      if (std::isnan(x)) return a;
      if (std::isnan(y)) return b;
      return O == kMinNan ? (y < x ? b : a) : (x < y ? b : a);
    }
    if constexpr (std::is_same_v<T, float>) {
      // float arithmetic directly (double rounding of + - * / to float through double is exact,
      // but fmod must not be rounded twice either: it is exact).
      if constexpr (O == kAdd) return a + b;
      else if constexpr (O == kSub) return a - b;
      else if constexpr (O == kMul) return a * b;
      else if constexpr (O == kDiv) return a / b;
      else return std::fmod(a, b);
    } else if constexpr (std::is_same_v<T, double>) {
      return r;
    } else {
      return from_double<T>(r);
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    if constexpr (O == kAdd || O == kSub || O == kXor) return bool(a != b);
    else if constexpr (O == kMul || O == kAnd) return bool(a && b);
    else if constexpr (O == kOr) return bool(a || b);
    else if constexpr (O == kDiv) return bool(b ? a : false);
    else if constexpr (O == kRem) return false;
    else if constexpr (O == kMin || O == kMinNan) return bool(a && b);
    else if constexpr (O == kMax || O == kMaxNan) return bool(a || b);
    else if constexpr (O == kShl) return bool(b ? false : a);
    else return bool(b ? false : a);
  } else {
    uint64_t x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
    if constexpr (O == kAdd) return wrap_from<T>(x + y);
    else if constexpr (O == kSub) return wrap_from<T>(x - y);
    else if constexpr (O == kMul) return wrap_from<T>(x * y);
    else if constexpr (O == kDiv || O == kRem) {
      if (b == 0) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return O == kDiv ? wrap_from<T>(0 - x) : T(0);
      }
      return O == kDiv ? T(a / b) : T(a % b);
    } else if constexpr (O == kMin || O == kMinNan) return b < a ? b : a;
    else if constexpr (O == kMax || O == kMaxNan) return a < b ? b : a;
    else if constexpr (O == kAnd) return T(a & b);
    else if constexpr (O == kOr) return T(a | b);
    else if constexpr (O == kXor) return T(a ^ b);
    else if constexpr (O == kShl) {
      if (static_cast<long double>(b) < 0 || y >= uint64_t(bits)) return T(0);
      return wrap_from<T>(x << y);
    } else {
      bool outside = static_cast<long double>(b) < 0 || y >= uint64_t(bits);
      if (outside) return (std::is_signed_v<T> && a < 0) ? T(-1) : T(0);
      return T(a >> y);
    }
  }
}

// Random test values of T: integers over their whole range (some small, so division and shifts
// see interesting divisors and counts), floating point in [-100, 100] with a few zeros, infinities
// and NaNs when `specials`.
template <class T>
T random_value(Random& random, bool specials, bool shiftCounts = false) {
  if constexpr (std::is_same_v<T, bool>) {
    return (random.next() & 1u) != 0;
  } else if constexpr (std::is_integral_v<T>) {
    uint64_t pick = random.next() % 8;
    if (shiftCounts) return static_cast<T>(static_cast<int64_t>(random.next() % (sizeof(T) * 8 + 4)) - 2 + (std::is_signed_v<T> ? 0 : 2));
    if (pick == 0) return T(0);
    if (pick == 1) return static_cast<T>(-1);
    if (pick < 4) return static_cast<T>(static_cast<int64_t>(random.next() % 19) - 9);
    return random.bits<T>();
  } else {
    uint64_t pick = random.next() % 16;
    if (specials) {
      if (pick == 0) return from_double<T>(std::numeric_limits<double>::quiet_NaN());
      if (pick == 1) return from_double<T>(std::numeric_limits<double>::infinity());
      if (pick == 2) return from_double<T>(0.0);
    }
    double v = random.uniform(-100.0, 100.0);
    return from_double<T>(pick < 6 ? std::round(v) : v);
  }
}

// Runs operation O on T over shapes SA, SB in Form and checks every element.
template <class T, class SA, class SB, int O, int Form, bool Operator = false>
void run_binary(Random& random) {
  constexpr size_t na = ct::detail::static_size<SA>(), nb = ct::detail::static_size<SB>();
  using BS = ct::detail::broadcast_shape_t<SA, SB>;
  constexpr size_t n = Form == 0 ? ct::detail::static_size<BS>() : Form == 1 ? na : nb;
  Buffer<T> a(na), b(nb);
  bool shifts = O == kShl || O == kShr;
  for (size_t i = 0; i < na; ++i) a[i] = random_value<T>(random, true);
  for (size_t i = 0; i < nb; ++i) b[i] = random_value<T>(random, true, shifts);
  using R = decltype(reference<O>(T{}, T{}));
  Buffer<R> out(n);
  using F = std::conditional_t<Operator, through_operator<O>, binary<O>>;
  launch({1, 1, 1}, binary_kernel<T, SA, SB, Form, F>, static_cast<const T*>(a.get()), static_cast<const T*>(b.get()),
         static_cast<void*>(out.get()));
  constexpr size_t ra = SA::rank(), rb = SB::rank(), r = BS::rank();
  for (size_t j = 0; j < n; ++j) {
    size_t ia = j, ib = 0;
    if constexpr (Form == 0) {
      // Broadcast: decompose j by BS, recompose into SA and SB.
      ia = 0;
      size_t rest = j;
      size_t coord[8] = {};
      for (size_t d = r; d-- > 0;) {
        coord[d] = rest % BS::static_extent(d);
        rest /= BS::static_extent(d);
      }
      for (size_t d = 0; d < ra; ++d) ia = ia * SA::static_extent(d) + (SA::static_extent(d) == 1 ? 0 : coord[d + r - ra]);
      for (size_t d = 0; d < rb; ++d) ib = ib * SB::static_extent(d) + (SB::static_extent(d) == 1 ? 0 : coord[d + r - rb]);
    } else if constexpr (Form == 1) {
      ib = 0;
    } else {
      ia = 0;
      ib = j;
    }
    R expected = reference<O>(a[ia], b[ib]);
    R got = out[j];
    check(same_value(got, expected), std::string("op ") + std::to_string(O) + (Operator ? " (operator)" : "") + " form " +
                                         std::to_string(Form) + " " + type_name<T>() + " element " + std::to_string(j) + ": " +
                                         show(a[ia]) + ", " + show(b[ib]) + " gave " + show(got) + ", expected " +
                                         show(expected));
  }
}

template <class T, int O>
void run_binary_forms(Random& random) {
  using S = ct::shape<4, 32>;
  run_binary<T, S, S, O, 0>(random);
  run_binary<T, S, S, O, 1>(random);
  run_binary<T, S, S, O, 2>(random);
  run_binary<T, ct::shape<4, 1>, ct::shape<1, 32>, O, 0>(random);
  run_binary<T, ct::shape<32>, ct::shape<8, 32>, O, 0>(random);
  run_binary<T, ct::shape<1>, ct::shape<1>, O, 0>(random);
  if constexpr (O != kMin && O != kMax && O != kMinNan && O != kMaxNan) run_binary<T, S, S, O, 0, true>(random);
}

template <class T>
void run_type(Random& random) {
  run_binary_forms<T, kAdd>(random);
  run_binary_forms<T, kSub>(random);
  run_binary_forms<T, kMul>(random);
  run_binary_forms<T, kDiv>(random);
  run_binary_forms<T, kRem>(random);
  run_binary_forms<T, kMin>(random);
  run_binary_forms<T, kMax>(random);
  if constexpr (is_float_like<T>) {
    run_binary_forms<T, kMinNan>(random);
    run_binary_forms<T, kMaxNan>(random);
  }
  if constexpr (std::is_integral_v<T>) {
    run_binary_forms<T, kAnd>(random);
    run_binary_forms<T, kOr>(random);
    run_binary_forms<T, kXor>(random);
    run_binary_forms<T, kShl>(random);
    run_binary_forms<T, kShr>(random);
  }
  run_binary_forms<T, kEq>(random);
  run_binary_forms<T, kNe>(random);
  run_binary_forms<T, kLt>(random);
  run_binary_forms<T, kLe>(random);
  run_binary_forms<T, kGt>(random);
  run_binary_forms<T, kGe>(random);
}

template <class T, class S, int O>
void run_unary(Random& random) {
  constexpr size_t n = ct::detail::static_size<S>();
  Buffer<T> a(n), out(n);
  for (size_t i = 0; i < n; ++i) a[i] = random_value<T>(random, true);
  if constexpr (std::is_signed_v<T> && std::is_integral_v<T>) a[0] = std::numeric_limits<T>::min();
  launch({1, 1, 1}, unary_kernel<T, S, O>, static_cast<const T*>(a.get()), out.get());
  for (size_t i = 0; i < n; ++i) {
    T x = a[i], expected;
    if constexpr (O == 0 || O == 3) {
      if constexpr (is_float_like<T>) expected = from_double<T>(-as_double(x));
      else if constexpr (std::is_same_v<T, bool>) expected = x;
      else expected = wrap_from<T>(0 - static_cast<uint64_t>(x));
    } else if constexpr (O == 1) {
      if constexpr (is_float_like<T>) expected = from_double<T>(std::fabs(as_double(x)));
      else if constexpr (std::is_signed_v<T>) expected = x < 0 ? wrap_from<T>(0 - static_cast<uint64_t>(x)) : x;
      else expected = x;
    } else {
      if constexpr (std::is_same_v<T, bool>) expected = !x;
      else if constexpr (std::is_integral_v<T>) expected = static_cast<T>(~x);
    }
    check(same_value(out[i], expected), std::string("unary ") + std::to_string(O) + " " + type_name<T>() + " " + show(x) +
                                            " gave " + show(out[i]) + ", expected " + show(expected));
  }
}

template <class T>
void run_unaries(Random& random) {
  run_unary<T, ct::shape<8, 16>, 0>(random);
  run_unary<T, ct::shape<8, 16>, 1>(random);
  run_unary<T, ct::shape<1>, 3>(random);
  run_unary<T, ct::shape<512>, 3>(random);
  if constexpr (std::is_integral_v<T>) {
    run_unary<T, ct::shape<2, 64>, 2>(random);
    run_unary<T, ct::shape<2, 64>, 4>(random);
  }
}

template <class T, class Tile>
void run_create(Random& random) {
  constexpr size_t n = Tile::size();
  using E = typename Tile::element_type;
  E value = random_value<E>(random, false);
  for (int make = 0; make < 4; ++make) {
    Buffer<E> out(n);
    if (make == 0) launch({1, 1, 1}, create_kernel<Tile, 0>, out.get(), value);
    if (make == 1) launch({1, 1, 1}, create_kernel<Tile, 1>, out.get(), value);
    if (make == 2) launch({1, 1, 1}, create_kernel<Tile, 2>, out.get(), value);
    if (make == 3) launch({1, 1, 1}, create_kernel<Tile, 3>, out.get(), value);
    for (size_t i = 0; i < n; ++i) {
      E expected = make == 0 ? value : make == 1 ? from_double<E>(0) : make == 2 ? from_double<E>(1) : from_double<E>(double(i));
      if constexpr (std::is_integral_v<E> && !std::is_same_v<E, bool>) {
        if (make == 3) expected = static_cast<E>(i);
      }
      check(same_value(out[i], expected), std::string("creation ") + std::to_string(make) + " " + type_name<E>() +
                                               " rank " + std::to_string(Tile::rank()) + " element " + std::to_string(i) +
                                               ": " + show(out[i]) + ", expected " + show(expected));
    }
  }
}

template <class T>
void run_creates(Random& random) {
  run_create<T, ct::tile<T, ct::shape<>>>(random);
  run_create<T, ct::tile<T, ct::shape<1>>>(random);
  run_create<T, ct::tile<T, ct::shape<8>>>(random);
  run_create<T, ct::tile<T, ct::shape<4, 8>>>(random);
  run_create<T, ct::tile<T, ct::shape<2, 1, 4>>>(random);
  run_create<T, ct::tile<T, ct::shape<64, 64>>>(random);
  run_create<T, ct::tile<T, ct::shape<2, 256>>>(random);
}

template <class T, class SA, class SB>
void run_where(Random& random) {
  using S = ct::detail::broadcast_shape_t<SA, SB>;
  constexpr size_t na = ct::detail::static_size<SA>(), nb = ct::detail::static_size<SB>(), n = ct::detail::static_size<S>();
  Buffer<T> a(na), b(nb), out(n), mapped(n);
  for (size_t i = 0; i < na; ++i) a[i] = random_value<T>(random, false);
  for (size_t i = 0; i < nb; ++i) b[i] = random_value<T>(random, false);
  launch({1, 1, 1}, where_kernel<T, SA, SB>, static_cast<const T*>(a.get()), static_cast<const T*>(b.get()), out.get(),
         mapped.get());
  constexpr size_t cols = S::static_extent(S::rank() - 1);
  for (size_t j = 0; j < n; ++j) {
    size_t row = j / cols, col = j % cols;
    size_t ia = SA::rank() == 2 && SA::static_extent(1) == 1 ? row : (SA::rank() == 2 && SA::static_extent(0) == 1 ? col : j);
    size_t ib = SB::rank() == 2 && SB::static_extent(1) == 1 ? row : (SB::rank() == 2 && SB::static_extent(0) == 1 ? col : (SB::rank() == 1 ? col : j));
    if constexpr (SA::rank() == 1) ia = col;
    T x = a[ia], y = b[ib];
    T expected = as_double(x) > as_double(y) ? x : from_double<T>(7);
    check(same_value(out[j], expected), std::string("where ") + type_name<T>() + " element " + std::to_string(j));
    check(same_value(mapped[j], y), std::string("map ") + type_name<T>() + " element " + std::to_string(j));
  }
}

int main() {
  Random random(seed());
  run_creates<int8_t>(random);
  run_creates<uint16_t>(random);
  run_creates<int32_t>(random);
  run_creates<uint64_t>(random);
  run_creates<weft::float16>(random);
  run_creates<weft::bfloat16>(random);
  run_creates<float>(random);
  run_creates<double>(random);

  run_type<bool>(random);
  run_type<int8_t>(random);
  run_type<uint8_t>(random);
  run_type<int16_t>(random);
  run_type<uint16_t>(random);
  run_type<int32_t>(random);
  run_type<uint32_t>(random);
  run_type<int64_t>(random);
  run_type<uint64_t>(random);
  run_type<weft::float16>(random);
  run_type<weft::bfloat16>(random);
  run_type<float>(random);
  run_type<double>(random);

  run_unaries<int8_t>(random);
  run_unaries<uint32_t>(random);
  run_unaries<int64_t>(random);
  run_unaries<bool>(random);
  run_unaries<weft::float16>(random);
  run_unaries<weft::bfloat16>(random);
  run_unaries<float>(random);
  run_unaries<double>(random);

  run_where<float, ct::shape<4, 1>, ct::shape<1, 32>>(random);
  run_where<int16_t, ct::shape<8, 32>, ct::shape<32>>(random);
  run_where<weft::bfloat16, ct::shape<64>, ct::shape<64>>(random);
  return finish("test_elementwise");
}
#endif
