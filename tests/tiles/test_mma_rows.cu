// The rows of an mma accumulator (mma_row_layout) against a double-precision reference on seeded
// random data: row maximum and sum of s = a @ b (keepdims and not) reduced in registers and quad
// shuffles (with one or several warp columns, 16-row and 8-row atoms), s minus its row maximum
// (a row tile broadcast back without an exchange), another accumulator of other columns scaled by
// those rows (the rows travel to its row layout), a column mask broadcast into the accumulator's
// layout, p converted to the operand type and multiplied again (the softmax-times-V step of
// attention), and the layouts each result keeps.
#include "tile_test.h"

namespace ct = ::cuda::tiles;

// rmax = max(s, 1, keepdims), rsum = sum(s, 1), d = s - rmax, scaled = acc2 * rmax,
// masked = where(column < limit, s, -inf), pv = (s - rmax).astype(A) @ v, with s = a @ b (M x N)
// and acc2 = a @ b2 (M x N2).
template <class A, class C, uint32_t M, uint32_t N, uint32_t K, uint32_t N2>
__tile_global__ void rows_kernel(const A* a, const A* b, const A* b2, const A* v, C* rmax, C* rsum, C* d, C* scaled,
                                 C* masked, C* pv, int limit) {
  const auto x = ct::load(a + ct::iota<ct::tile<int32_t, ct::shape<M, K>>>());
  auto s = ct::matmul(x, ct::load(b + ct::iota<ct::tile<int32_t, ct::shape<K, N>>>()));
  auto acc2 = ct::matmul(x, ct::load(b2 + ct::iota<ct::tile<int32_t, ct::shape<K, N2>>>()));
  auto m = ct::max<1, true>(s);
  auto total = ct::sum<1>(s);
  auto diff = s - m;
  auto times = acc2 * m;
  auto column = ct::iota<ct::tile<int32_t, ct::shape<1, N>>>();
  auto kept = ct::where(column < limit, s, -ct::detail::scalar_convert<C>(1e30));
  ct::accumulator_layout_t<ct::tile<A, ct::shape<M, N>>, decltype(s)> p = ct::convert<A>(diff);
  auto product = ct::mma(p, ct::load(v + ct::iota<ct::tile<int32_t, ct::shape<N, N2>>>()), acc2);
#if !defined(WEFT_TILES_SERIAL)
  // Tensor-core shapes: the results stay in the accumulators' layouts.
  using SA = ct::tile<A, ct::shape<M, K>>;
  using SB = ct::tile<A, ct::shape<K, N>>;
  using SB2 = ct::tile<A, ct::shape<K, N2>>;
  using LS = typename ct::mma_accumulator_t<SA, SB>::layout_type;
  static_assert(std::is_same_v<typename decltype(s)::layout_type, LS>);
  static_assert(std::is_same_v<typename decltype(m)::layout_type, ct::mma_row_layout<LS>>);
  static_assert(std::is_same_v<typename decltype(total)::layout_type, ct::mma_row_layout<LS>>);
  static_assert(std::is_same_v<typename decltype(diff)::layout_type, LS>);
  static_assert(std::is_same_v<typename decltype(kept)::layout_type, LS>);
  static_assert(std::is_same_v<typename decltype(times)::layout_type, typename ct::mma_accumulator_t<SA, SB2>::layout_type>);
  static_assert(std::is_same_v<decltype(product), ct::mma_accumulator_t<SA, SB2>>);
  static_assert(std::is_same_v<ct::accumulator_rows_t<ct::tile<C, ct::shape<M, 1>>, decltype(s)>, decltype(m)>);
#endif
  ct::store(rmax + ct::iota<ct::tile<int32_t, ct::shape<M, 1>>>(), m);
  ct::store(rsum + ct::iota<ct::tile<int32_t, ct::shape<M>>>(), total);
  ct::store(d + ct::iota<ct::tile<int32_t, ct::shape<M, N>>>(), diff);
  ct::store(scaled + ct::iota<ct::tile<int32_t, ct::shape<M, N2>>>(), times);
  ct::store(masked + ct::iota<ct::tile<int32_t, ct::shape<M, N>>>(), kept);
  ct::store(pv + ct::iota<ct::tile<int32_t, ct::shape<M, N2>>>(), product);
}

#if !defined(__CUDACC_RTC__)
using namespace tile_test;

template <class A, class C, uint32_t M, uint32_t N, uint32_t K, uint32_t N2>
void run_rows(Random& random) {
  Buffer<A> a(M * K), b(K * N), b2(K * N2), v(N * N2);
  Buffer<C> rmax(M), rsum(M), d(M * N), scaled(M * N2), masked(M * N), pv(M * N2);
  for (auto* buffer : {&a, &b, &b2, &v}) {
    for (size_t i = 0; i < buffer->size(); ++i) (*buffer)[i] = from_double<A>(random.uniform(-2.0, 2.0));
  }
  const int limit = static_cast<int>(random.next() % N);
  launch({1, 1, 1}, rows_kernel<A, C, M, N, K, N2>, static_cast<const A*>(a.get()), static_cast<const A*>(b.get()),
         static_cast<const A*>(b2.get()), static_cast<const A*>(v.get()), rmax.get(), rsum.get(), d.get(), scaled.get(),
         masked.get(), pv.get(), limit);
  const std::string what = std::string("rows ") + type_name<A>() + " " + std::to_string(M) + "x" + std::to_string(N) +
                           "x" + std::to_string(K) + " with " + std::to_string(N2);
  const double tolerance = std::is_same_v<C, double> ? 1e-12 : 1e-4;
  // s as the kernel rounds it (p @ v is checked from the kernel's own s - max, checked above).
  auto product = [&](const Buffer<A>& right, uint32_t columns, uint32_t i, uint32_t j) {
    double sum = 0;
    for (uint32_t k = 0; k < K; ++k) sum += as_double(a[i * K + k]) * as_double(right[k * columns + j]);
    return sum;
  };
  for (uint32_t i = 0; i < M; ++i) {
    const std::string row = what + " row " + std::to_string(i);
    std::vector<double> s(N);
    double high = -1e300, sum = 0;
    for (uint32_t j = 0; j < N; ++j) {
      s[j] = as_double(from_double<C>(product(b, N, i, j)));
      high = std::fmax(high, s[j]);
      sum += s[j];
    }
    check(close(as_double(rmax[i]), high, tolerance), row + " max: " + show(rmax[i]) + ", expected " + std::to_string(high));
    check(close(as_double(rsum[i]), sum, tolerance * N), row + " sum: " + show(rsum[i]) + ", expected " + std::to_string(sum));
    for (uint32_t j = 0; j < N; ++j) {
      const std::string at = row + " column " + std::to_string(j);
      check(close(as_double(d[i * N + j]), s[j] - high, tolerance), at + " s - max: " + show(d[i * N + j]));
      const double want = static_cast<int>(j) < limit ? s[j] : -1e30;
      check(close(as_double(masked[i * N + j]), want, tolerance), at + " masked: " + show(masked[i * N + j]));
    }
    for (uint32_t j = 0; j < N2; ++j) {
      const std::string at = row + " column " + std::to_string(j);
      const double acc2 = product(b2, N2, i, j);
      check(close(as_double(scaled[i * N2 + j]), acc2 * high, tolerance * (1 + std::fabs(high))),
            at + " acc2 * max: " + show(scaled[i * N2 + j]));
      double want = acc2, magnitude = std::fabs(acc2);
      for (uint32_t k = 0; k < N; ++k) {
        const double p = as_double(from_double<A>(as_double(d[i * N + k]))) * as_double(v[k * N2 + j]);
        want += p;
        magnitude += std::fabs(p);
      }
      check(std::fabs(as_double(pv[i * N2 + j]) - want) <= tolerance * magnitude,
            at + " p @ v: " + show(pv[i * N2 + j]) + ", expected " + std::to_string(want));
    }
  }
}

int main() {
  Random random(seed());
  // Two warp columns (row partials through shared memory) and one (in registers only), other
  // columns for acc2 (a different warp grid), 8-row atoms of double.
  run_rows<weft::bfloat16, float, 64, 64, 32, 128>(random);
  run_rows<weft::float16, float, 128, 16, 16, 64>(random);
  run_rows<weft::float16, float, 16, 64, 32, 32>(random);
  run_rows<double, double, 32, 32, 8, 16>(random);
  return finish("test_mma_rows");
}
#endif
