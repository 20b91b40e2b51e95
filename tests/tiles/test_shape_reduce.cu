// Shape operations, reductions and scans against scalar references on seeded random data:
// reshape, expand_dims, every permutation of a rank-3 tile, transpose, cat along every axis,
// extract, broadcast_to (tiles larger than the scratch buffer are exchanged in rounds); sum, max,
// min, prod, argmax, argmin and reduce with a custom op along every axis of shapes from 1
// element to (4, 2048), with and without keepdims, and over all elements; cumsum, cumprod and
// scan (and reverse_scan) along every axis.
#include "tile_test.h"

namespace ct = ::cuda::tiles;

template <class S>
using iota_t = ct::tile<int32_t, S>;

// Loads the tile of shape S from `in`, applies shape operation F, stores the result densely.
template <class T, class S, class F>
__tile_global__ void shape_kernel(const T* in, T* out, int32_t i0, int32_t i1, int32_t i2) {
  auto x = ct::load(in + ct::iota<iota_t<S>>());
  auto r = F{}(x, i0, i1, i2);
  ct::store(out + ct::iota<iota_t<typename decltype(r)::shape_type>>(), r);
}

template <class S2>
struct do_reshape {
  template <class S>
  using shape_out = S2;
  template <class X>
  WEFT_TILE_FN auto operator()(const X& x, int, int, int) const { return ct::reshape<S2>(x); }
};
template <size_t A>
struct do_expand {
  template <class S>
  using shape_out = typename decltype(ct::detail::expanded_shape<S, A>(ct::detail::make_index_sequence<S::rank() + 1>{}))::type;
  template <class X>
  WEFT_TILE_FN auto operator()(const X& x, int, int, int) const { return ct::expand_dims<A>(x); }
};
template <size_t... P>
struct do_permute {
  template <class S>
  using shape_out = ct::shape<static_cast<uint32_t>(S::static_extent(P))...>;
  template <class X>
  WEFT_TILE_FN auto operator()(const X& x, int, int, int) const { return ct::permute<P...>(x); }
};
struct do_transpose {
  template <class S>
  using shape_out = ct::shape<static_cast<uint32_t>(S::static_extent(1)), static_cast<uint32_t>(S::static_extent(0))>;
  template <class X>
  WEFT_TILE_FN auto operator()(const X& x, int, int, int) const { return ct::transpose(x); }
};
// cat of x with x + 1 along A.
template <size_t A>
struct do_cat {
  template <class S>
  using shape_out = typename decltype(ct::detail::concatenated_shape<S, S, A>(ct::detail::make_index_sequence<S::rank()>{}))::type;
  template <class X>
  WEFT_TILE_FN auto operator()(const X& x, int, int, int) const { return ct::cat<A>(x, ct::add(x, ct::convert<typename X::element_type>(1))); }
};
template <class S2>
struct do_extract {
  template <class S>
  using shape_out = S2;
  template <class X>
  WEFT_TILE_FN auto operator()(const X& x, int i0, int i1, int i2) const {
    if constexpr (S2::rank() == 1) return ct::extract<S2>(x, i0);
    else if constexpr (S2::rank() == 2) return ct::extract<S2>(x, i0, i1);
    else return ct::extract<S2>(x, i0, i1, i2);
  }
};
template <class S2>
struct do_broadcast {
  template <class S>
  using shape_out = S2;
  template <class X>
  WEFT_TILE_FN auto operator()(const X& x, int, int, int) const { return ct::broadcast_to<S2>(x); }
};

// Reductions: Op 0 sum, 1 max, 2 min, 3 prod, 4 argmax, 5 argmin, 6 reduce(bitwise or / max),
// 7 max propagating NaN; Axis -1: over all elements.
template <int Op, int Axis, bool Keep>
struct do_reduce {
  template <class X>
  WEFT_TILE_FN auto operator()(const X& x) const {
    using T = typename X::element_type;
    if constexpr (Axis < 0) {
      if constexpr (Op == 0) return ct::sum(x);
      else if constexpr (Op == 1) return ct::max(x);
      else if constexpr (Op == 2) return ct::min(x);
      else if constexpr (Op == 3) return ct::prod(x);
      else if constexpr (Op == 4) return ct::argmax(x);
      else if constexpr (Op == 5) return ct::argmin(x);
      else if constexpr (Op == 6) return do_reduce<6, 0, false>{}(ct::reshape<ct::shape<X::size()>>(x));
      else return ct::max(x, ct::propagate_nan_t{});
    } else {
      if constexpr (Op == 0) return ct::sum<Axis, Keep>(x);
      else if constexpr (Op == 1) return ct::max<Axis, Keep>(x);
      else if constexpr (Op == 2) return ct::min<Axis, Keep>(x);
      else if constexpr (Op == 3) return ct::prod<Axis, Keep>(x);
      else if constexpr (Op == 4) return ct::argmax<Axis, Keep>(x);
      else if constexpr (Op == 5) return ct::argmin<Axis, Keep>(x);
      else if constexpr (Op == 6) {
        if constexpr (std::is_integral_v<T>) {
          return ct::reduce<Axis, Keep>(x, [](T a, T b) { return static_cast<T>(a | b); }, T(0));
        } else {
          return ct::reduce<Axis, Keep>(
              x, [](T a, T b) { return ct::convert<float>(a) < ct::convert<float>(b) ? b : a; },
              ct::convert<T>(-1e30));
        }
      } else return ct::max<Axis, Keep>(x, ct::propagate_nan_t{});
    }
  }
};

template <class T, class S, class F, class R>
__tile_global__ void reduce_kernel(const T* in, R* out) {
  auto x = ct::load(in + ct::iota<iota_t<S>>());
  auto r = F{}(x);
  if constexpr (decltype(r)::rank() == 0) {
    R value = r;  // a rank-0 tile converts to its element
    ct::store(out, value);
  } else {
    ct::store(out + ct::iota<iota_t<typename decltype(r)::shape_type>>(), r);
  }
}

// Scans: Op 0 cumsum, 1 cumprod, 2 scan(max), 3 reverse_scan(max).
template <class T, class S, int Op, int Axis>
__tile_global__ void scan_kernel(const T* in, T* out) {
  auto x = ct::load(in + ct::iota<iota_t<S>>());
  ct::tile<T, S> r;
  if constexpr (Op == 0) r = ct::cumsum<Axis>(x);
  if constexpr (Op == 1) r = ct::cumprod<Axis>(x);
  if constexpr (Op == 2) r = ct::scan<Axis>(x, [](T a, T b) { return b < a ? a : b; });
  if constexpr (Op == 3) r = ct::reverse_scan<Axis>(x, [](T a, T b) { return b < a ? a : b; });
  ct::store(out + ct::iota<iota_t<S>>(), r);
}

#if !defined(__CUDACC_RTC__)
using namespace tile_test;

template <class S>
std::vector<size_t> dims_of() {
  std::vector<size_t> d;
  for (size_t i = 0; i < S::rank(); ++i) d.push_back(S::static_extent(i));
  return d;
}
std::vector<size_t> coords_of(size_t j, const std::vector<size_t>& dims) {
  std::vector<size_t> c(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    c[d] = j % dims[d];
    j /= dims[d];
  }
  return c;
}
size_t index_of(const std::vector<size_t>& c, const std::vector<size_t>& dims) {
  size_t j = 0;
  for (size_t d = 0; d < dims.size(); ++d) j = j * dims[d] + c[d];
  return j;
}

template <class T>
T shape_value(Random& random) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(random.next() % 1000);
  } else {
    return from_double<T>(std::round(random.uniform(-1000, 1000)));
  }
}

// Runs shape operation F on an S tile; `source(c_out)` gives the source coordinates of an
// output element (or the value it must have, via `expect`).
template <class T, class S, class F, class Expect>
void run_shape(Random& random, const char* name, int i0, int i1, int i2, Expect expect) {
  constexpr size_t n = ct::detail::static_size<S>();
  using SO = typename F::template shape_out<S>;
  constexpr size_t m = ct::detail::static_size<SO>();
  Buffer<T> in(n), out(m);
  for (size_t i = 0; i < n; ++i) in[i] = shape_value<T>(random);
  launch({1, 1, 1}, shape_kernel<T, S, F>, static_cast<const T*>(in.get()), out.get(), i0, i1, i2);
  auto dims = dims_of<S>(), odims = dims_of<SO>();
  for (size_t j = 0; j < m; ++j) {
    T expected = expect(coords_of(j, odims), dims, in);
    check(same_value(out[j], expected), std::string(name) + " " + type_name<T>() + " element " + std::to_string(j) + ": " +
                                            show(out[j]) + ", expected " + show(expected));
  }
}

template <class T>
void run_shapes(Random& random) {
  using S3 = ct::shape<2, 4, 8>;
  auto same_index = [](std::vector<size_t> c, const std::vector<size_t>&, const Buffer<T>& in) {
    (void)c;
    return in[0];
  };
  (void)same_index;
  // reshape and expand_dims keep the row-major order.
  auto linear = [](const std::vector<size_t>& odims) {
    return [odims](std::vector<size_t> c, const std::vector<size_t>&, const Buffer<T>& in) { return in[index_of(c, odims)]; };
  };
  run_shape<T, S3, do_reshape<ct::shape<8, 8>>>(random, "reshape", 0, 0, 0, linear({8, 8}));
  run_shape<T, S3, do_reshape<ct::shape<64>>>(random, "reshape", 0, 0, 0, linear({64}));
  run_shape<T, ct::shape<64, 128>, do_reshape<ct::shape<128, 2, 32>>>(random, "reshape", 0, 0, 0, linear({128, 2, 32}));
  run_shape<T, S3, do_expand<0>>(random, "expand_dims 0", 0, 0, 0, linear({1, 2, 4, 8}));
  run_shape<T, S3, do_expand<3>>(random, "expand_dims 3", 0, 0, 0, linear({2, 4, 8, 1}));
  // permutations: out(c) = in(c') with c'[P[i]] = c[i].
  auto permuted = [](std::vector<size_t> order) {
    return [order](std::vector<size_t> c, const std::vector<size_t>& dims, const Buffer<T>& in) {
      std::vector<size_t> source(c.size());
      for (size_t i = 0; i < c.size(); ++i) source[order[i]] = c[i];
      return in[index_of(source, dims)];
    };
  };
  run_shape<T, S3, do_permute<0, 1, 2>>(random, "permute 012", 0, 0, 0, permuted({0, 1, 2}));
  run_shape<T, S3, do_permute<0, 2, 1>>(random, "permute 021", 0, 0, 0, permuted({0, 2, 1}));
  run_shape<T, S3, do_permute<1, 0, 2>>(random, "permute 102", 0, 0, 0, permuted({1, 0, 2}));
  run_shape<T, S3, do_permute<1, 2, 0>>(random, "permute 120", 0, 0, 0, permuted({1, 2, 0}));
  run_shape<T, S3, do_permute<2, 0, 1>>(random, "permute 201", 0, 0, 0, permuted({2, 0, 1}));
  run_shape<T, S3, do_permute<2, 1, 0>>(random, "permute 210", 0, 0, 0, permuted({2, 1, 0}));
  run_shape<T, ct::shape<4, 16>, do_transpose>(random, "transpose", 0, 0, 0, permuted({1, 0}));
  run_shape<T, ct::shape<128, 64>, do_transpose>(random, "transpose (rounds)", 0, 0, 0, permuted({1, 0}));
  run_shape<T, ct::shape<1, 8>, do_transpose>(random, "transpose 1x8", 0, 0, 0, permuted({1, 0}));
  // cat(x, x + 1) along each axis.
  auto catted = [](size_t axis) {
    return [axis](std::vector<size_t> c, const std::vector<size_t>& dims, const Buffer<T>& in) {
      bool second = c[axis] >= dims[axis];
      if (second) c[axis] -= dims[axis];
      T v = in[index_of(c, dims)];
      return second ? from_double<T>(as_double(v) + 1) : v;
    };
  };
  run_shape<T, S3, do_cat<0>>(random, "cat 0", 0, 0, 0, catted(0));
  run_shape<T, S3, do_cat<1>>(random, "cat 1", 0, 0, 0, catted(1));
  run_shape<T, S3, do_cat<2>>(random, "cat 2", 0, 0, 0, catted(2));
  run_shape<T, ct::shape<64, 64>, do_cat<1>>(random, "cat (rounds)", 0, 0, 0, catted(1));
  run_shape<T, ct::shape<1>, do_cat<0>>(random, "cat 1+1", 0, 0, 0, catted(0));
  // extract<S>(x, i...): element c of the result is x(i*S + c).
  auto extracted = [](std::vector<size_t> block, std::vector<size_t> sub) {
    return [block, sub](std::vector<size_t> c, const std::vector<size_t>& dims, const Buffer<T>& in) {
      for (size_t d = 0; d < c.size(); ++d) c[d] += block[d] * sub[d];
      return in[index_of(c, dims)];
    };
  };
  int a = static_cast<int>(random.next() % 2), b = static_cast<int>(random.next() % 4), e = static_cast<int>(random.next() % 2);
  run_shape<T, S3, do_extract<ct::shape<1, 1, 4>>>(random, "extract", a, b, e, extracted({size_t(a), size_t(b), size_t(e)}, {1, 1, 4}));
  run_shape<T, ct::shape<64, 128>, do_extract<ct::shape<16, 32>>>(random, "extract (rounds)", b, 3 - b, 0,
                                                                   extracted({size_t(b), size_t(3 - b)}, {16, 32}));
  run_shape<T, ct::shape<32>, do_extract<ct::shape<32>>>(random, "extract whole", 0, 0, 0, extracted({0}, {32}));
  // broadcast_to.
  auto broadcast = [](std::vector<size_t> c, const std::vector<size_t>& dims, const Buffer<T>& in) {
    size_t offset = c.size() - dims.size();
    std::vector<size_t> source(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) source[d] = dims[d] == 1 ? 0 : c[d + offset];
    return in[index_of(source, dims)];
  };
  run_shape<T, ct::shape<4, 1>, do_broadcast<ct::shape<4, 8>>>(random, "broadcast (4,1)", 0, 0, 0, broadcast);
  run_shape<T, ct::shape<8>, do_broadcast<ct::shape<4, 8>>>(random, "broadcast (8)", 0, 0, 0, broadcast);
  run_shape<T, ct::shape<1, 1>, do_broadcast<ct::shape<16, 16>>>(random, "broadcast (1,1)", 0, 0, 0, broadcast);
  run_shape<T, ct::shape<2, 1, 8>, do_broadcast<ct::shape<2, 16, 8>>>(random, "broadcast (2,1,8)", 0, 0, 0, broadcast);
  run_shape<T, ct::shape<128, 1>, do_broadcast<ct::shape<128, 64>>>(random, "broadcast (rounds)", 0, 0, 0, broadcast);
  run_shape<T, ct::shape<1, 256>, do_broadcast<ct::shape<32, 256>>>(random, "broadcast rows", 0, 0, 0, broadcast);
}

// ---- Reductions ---------------------------------------------------------------------------

template <class T>
T reduce_value(Random& random, int op) {
  if constexpr (std::is_integral_v<T>) {
    if (op == 3) return static_cast<T>(random.next() % 3 + (random.next() % 4 == 0 ? 0 : 1));
    return random.bits<T>();
  } else {
    if (random.next() % 64 == 0 && op != 0 && op != 3 && op != 6) return from_double<T>(std::nan(""));
    if (op == 3) return from_double<T>(random.uniform(0.9, 1.1));
    return from_double<T>(random.uniform(-1000, 1000));
  }
}

template <class T, class S, int Op, int Axis, bool Keep>
void run_reduce(Random& random) {
  constexpr size_t n = ct::detail::static_size<S>();
  using F = do_reduce<Op, Axis, Keep>;
  // The result's element type and size (argmax/argmin give int32 indices).
  using R = std::conditional_t<Op == 4 || Op == 5, int32_t, T>;
  using SO = std::conditional_t<(Axis < 0), ct::shape<>, ct::detail::reduced_shape_t<S, (Axis < 0 ? 0 : Axis), Keep>>;
  constexpr size_t m = ct::detail::static_size<SO>();
  Buffer<T> in(n);
  Buffer<R> out(m);
  for (size_t i = 0; i < n; ++i) in[i] = reduce_value<T>(random, Op);
  launch({1, 1, 1}, reduce_kernel<T, S, F, R>, static_cast<const T*>(in.get()), out.get());
  auto dims = dims_of<S>();
  // Groups: for each output element, the input indices along the axis (all of them for Axis -1).
  size_t axisLength = Axis < 0 ? n : dims[Axis];
  size_t inner = 1;
  if (Axis >= 0) {
    for (size_t d = Axis + 1; d < dims.size(); ++d) inner *= dims[d];
  }
  std::string what = std::string("reduce op ") + std::to_string(Op) + " axis " + std::to_string(Axis) + (Keep ? " keepdims " : " ") +
                     type_name<T>() + " rank " + std::to_string(S::rank()) + " size " + std::to_string(n);
  for (size_t j = 0; j < m; ++j) {
    size_t base = Axis < 0 ? 0 : (j / inner) * inner * axisLength + j % inner;
    size_t stride = Axis < 0 ? 1 : inner;
    double sum = 0, magnitude = 0;
    uint64_t wrapped = 0;
    T best = in[base];
    size_t bestIndex = 0;
    bool anyNan = false;
    T extreme = in[base];
    for (size_t a = 0; a < axisLength; ++a) {
      T v = in[base + a * stride];
      double x = as_double(v);
      anyNan = anyNan || std::isnan(x);
      if constexpr (std::is_integral_v<T>) {
        if (Op == 0) wrapped += static_cast<uint64_t>(v);
        if (Op == 3) wrapped = a == 0 ? static_cast<uint64_t>(v) : wrapped * static_cast<uint64_t>(v);
        if (Op == 6) wrapped |= static_cast<uint64_t>(v);
      }
      sum += x;
      magnitude += std::fabs(x);
      if (Op == 3 && !std::is_integral_v<T>) sum = a == 0 ? x : 0;
      // max/min suppressing NaN; argmax/argmin: NaN wins, first index on ties.
      double e = as_double(extreme);
      if (Op == 1 || Op == 6 || Op == 7) {
        if (std::isnan(e) || (!std::isnan(x) && x > e)) extreme = v;
      }
      if (Op == 2) {
        if (std::isnan(e) || (!std::isnan(x) && x < e)) extreme = v;
      }
      double bx = as_double(best);
      if (a > 0 && !std::isnan(bx) && (std::isnan(x) || (Op == 4 ? x > bx : x < bx))) {
        best = v;
        bestIndex = a;
      }
    }
    R got = out[j];
    if constexpr (Op == 0 || Op == 3 || (Op == 6 && std::is_integral_v<T>)) {
      if constexpr (std::is_integral_v<T>) {
        check(got == static_cast<T>(wrapped), what + " element " + std::to_string(j) + ": " + show(got) + ", expected " +
                                                  show(static_cast<T>(wrapped)));
      } else if constexpr (Op == 0) {
        double tolerance = (std::is_same_v<T, double> ? 1e-13 : std::is_same_v<T, float> ? 1e-5 : 2e-2) * magnitude + 1e-30;
        check(std::fabs(as_double(got) - sum) <= tolerance, what + " element " + std::to_string(j) + ": " + show(got) +
                                                               ", expected " + std::to_string(sum));
      } else {
        double product = 1;
        for (size_t a = 0; a < axisLength; ++a) product *= as_double(in[base + a * stride]);
        check(close(as_double(got), product, std::is_same_v<T, double> ? 1e-12 : std::is_same_v<T, float> ? 1e-4 : 5e-2),
              what + " element " + std::to_string(j) + ": " + show(got) + ", expected " + std::to_string(product));
      }
    } else if constexpr (Op == 4 || Op == 5) {
      check(static_cast<size_t>(got) == bestIndex, what + " element " + std::to_string(j) + ": " + show(got) +
                                                       ", expected " + std::to_string(bestIndex));
    } else if constexpr (Op == 7) {
      T expected = anyNan ? from_double<T>(std::nan("")) : extreme;
      check(same_value(got, expected), what + " element " + std::to_string(j));
    } else {
      if constexpr (Op == 6) extreme = from_double<T>(std::fmax(as_double(extreme), -1e30));
      check(same_value(got, extreme), what + " element " + std::to_string(j) + ": " + show(got) + ", expected " + show(extreme));
    }
  }
}

// Every axis of S, with and without keepdims, for the reductions a shape sweep checks.
template <class S, int Axis = 0>
void run_reduce_axes(Random& random) {
  if constexpr (Axis < static_cast<int>(S::rank())) {
    run_reduce<int32_t, S, 0, Axis, (Axis % 2 == 0)>(random);
    run_reduce<float, S, 0, Axis, (Axis % 2 == 1)>(random);
    run_reduce<float, S, 1, Axis, false>(random);
    run_reduce<int16_t, S, 5, Axis, true>(random);
    run_reduce<double, S, 4, Axis, false>(random);
    run_reduce_axes<S, Axis + 1>(random);
  }
}

// Every reduction on T over shape S along Axis.
template <class T, class S, int Axis>
void run_reduce_ops(Random& random) {
  run_reduce<T, S, 0, Axis, false>(random);
  run_reduce<T, S, 1, Axis, true>(random);
  run_reduce<T, S, 2, Axis, false>(random);
  run_reduce<T, S, 3, Axis, false>(random);
  run_reduce<T, S, 4, Axis, true>(random);
  run_reduce<T, S, 5, Axis, false>(random);
  run_reduce<T, S, 6, Axis, false>(random);
  if constexpr (!std::is_integral_v<T>) run_reduce<T, S, 7, Axis, false>(random);
}

// ---- Scans ------------------------------------------------------------------------------------

template <class T, class S, int Op, int Axis>
void run_scan(Random& random) {
  constexpr size_t n = ct::detail::static_size<S>();
  Buffer<T> in(n), out(n);
  for (size_t i = 0; i < n; ++i) in[i] = reduce_value<T>(random, Op == 1 ? 3 : 0);
  launch({1, 1, 1}, scan_kernel<T, S, Op, Axis>, static_cast<const T*>(in.get()), out.get());
  auto dims = dims_of<S>();
  size_t inner = 1;
  for (size_t d = Axis + 1; d < dims.size(); ++d) inner *= dims[d];
  size_t length = dims[Axis];
  std::string what = std::string("scan op ") + std::to_string(Op) + " axis " + std::to_string(Axis) + " " + type_name<T>() +
                     " size " + std::to_string(n);
  for (size_t j = 0; j < n / length; ++j) {
    size_t base = (j / inner) * inner * length + j % inner;
    if constexpr (Op == 3) {
      T best = in[base + (length - 1) * inner];
      for (size_t a = length; a-- > 0;) {
        size_t i = base + a * inner;
        if (as_double(in[i]) > as_double(best)) best = in[i];
        check(same_value(out[i], best), what + " element " + std::to_string(i));
      }
      continue;
    }
    uint64_t wrapped = 0;
    double running = 0, magnitude = 0;
    T best = in[base];
    for (size_t a = 0; a < length; ++a) {
      size_t i = base + a * inner;
      T v = in[i];
      if constexpr (std::is_integral_v<T>) {
        wrapped = a == 0 ? static_cast<uint64_t>(v) : (Op == 0 ? wrapped + static_cast<uint64_t>(v) : wrapped * static_cast<uint64_t>(v));
      }
      running = a == 0 ? as_double(v) : (Op == 0 ? running + as_double(v) : running * as_double(v));
      magnitude += std::fabs(as_double(v));
      if (as_double(v) > as_double(best)) best = v;
      if (Op == 2) {
        check(same_value(out[i], best), what + " element " + std::to_string(i));
      } else if constexpr (std::is_integral_v<T>) {
        check(out[i] == static_cast<T>(wrapped), what + " element " + std::to_string(i) + ": " + show(out[i]) +
                                                     ", expected " + show(static_cast<T>(wrapped)));
      } else {
        double tolerance = Op == 0 ? (std::is_same_v<T, float> ? 1e-5 : 1e-13) * magnitude + 1e-30
                                   : (std::is_same_v<T, float> ? 1e-4 : 1e-12) * std::fabs(running);
        check(std::fabs(as_double(out[i]) - running) <= tolerance, what + " element " + std::to_string(i) + ": " +
                                                                      show(out[i]) + ", expected " + std::to_string(running));
      }
    }
  }
}

template <class S, int Axis = 0>
void run_scan_axes(Random& random) {
  if constexpr (Axis < static_cast<int>(S::rank())) {
    run_scan<int32_t, S, 0, Axis>(random);
    run_scan<float, S, 0, Axis>(random);
    run_scan<int64_t, S, 1, Axis>(random);
    run_scan<double, S, 2, Axis>(random);
    run_scan<float, S, 3, Axis>(random);
    run_scan_axes<S, Axis + 1>(random);
  }
}

int main() {
  Random random(seed());
  run_shapes<float>(random);
  run_shapes<int16_t>(random);
  run_shapes<double>(random);

  run_reduce_axes<ct::shape<1>>(random);
  run_reduce_axes<ct::shape<8>>(random);
  run_reduce_axes<ct::shape<128>>(random);
  run_reduce_axes<ct::shape<4096>>(random);
  run_reduce_axes<ct::shape<4, 8>>(random);
  run_reduce_axes<ct::shape<8, 4>>(random);
  run_reduce_axes<ct::shape<2, 4, 8>>(random);
  run_reduce_axes<ct::shape<2, 1, 4>>(random);
  run_reduce_axes<ct::shape<16, 256>>(random);
  run_reduce_axes<ct::shape<4, 2048>>(random);
  run_reduce_axes<ct::shape<1, 8192>>(random);
  run_reduce_axes<ct::shape<64, 64>>(random);
  run_reduce_axes<ct::shape<256, 2>>(random);
  run_reduce_axes<ct::shape<2, 512, 4>>(random);
  run_reduce_ops<int32_t, ct::shape<16, 64>, 1>(random);
  run_reduce_ops<uint8_t, ct::shape<8, 16>, 0>(random);
  run_reduce_ops<float, ct::shape<32, 32>, 0>(random);
  run_reduce_ops<weft::float16, ct::shape<4, 64>, 1>(random);
  run_reduce_ops<double, ct::shape<512>, -1>(random);
  run_reduce_ops<int64_t, ct::shape<4, 4, 4>, -1>(random);
  run_reduce_ops<weft::bfloat16, ct::shape<2, 128>, -1>(random);

  run_scan_axes<ct::shape<1>>(random);
  run_scan_axes<ct::shape<16>>(random);
  run_scan_axes<ct::shape<1024>>(random);
  run_scan_axes<ct::shape<4, 8>>(random);
  run_scan_axes<ct::shape<2, 4, 32>>(random);
  run_scan_axes<ct::shape<8, 512>>(random);
  run_scan_axes<ct::shape<128, 4>>(random);
  run_scan_axes<ct::shape<64, 64>>(random);
  return finish("test_shape_reduce");
}
#endif
