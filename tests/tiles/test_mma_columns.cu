// The columns of an mma accumulator (mma_column_layout) against a double-precision reference on
// seeded random data: the attention loop's masks of s = a @ b, where(cols < limit, s, -big) and
// where(cols <= rows, s, -big) with cols and rows iotas held in the accumulator's column and row
// layouts (each thread computes its own indices; the broadcasts and the comparison of the two
// compute in the accumulator's layout, in registers), the same masks from blocked iotas (they
// travel to the column layout first), a column tile of another accumulator of the same columns
// (other rows: the same fragments), and the layouts each result keeps. One or two warp columns,
// 16-row and 8-row atoms.
#include "tile_test.h"

namespace ct = ::cuda::tiles;

// below = where(cols < limit, s, -big), causal = where(cols <= rows + shift, s, -big), both from
// column and row iotas held in s's column and row layouts; blocked = the same `below` from a
// blocked column iota; other = where(cols < limit, s2, -big) with s2 = a2 @ b (2M x N) and cols
// in s's column layout; with s = a @ b (M x N).
template <class A, class C, uint32_t M, uint32_t N, uint32_t K>
__tile_global__ void columns_kernel(const A* a, const A* a2, const A* b, C* below, C* causal, C* blocked, C* other,
                                    int limit, int shift) {
  const auto b_tile = ct::load(b + ct::iota<ct::tile<int32_t, ct::shape<K, N>>>());
  const auto s = ct::matmul(ct::load(a + ct::iota<ct::tile<int32_t, ct::shape<M, K>>>()), b_tile);
  const auto s2 = ct::matmul(ct::load(a2 + ct::iota<ct::tile<int32_t, ct::shape<2 * M, K>>>()), b_tile);
  using S = decltype(s);
  const C big = ct::detail::scalar_convert<C>(1e30);
  // As weft's code generator declares them: the iotas in the layouts their uses need.
  const ct::accumulator_columns_t<ct::tile<int32_t, ct::shape<1, N>>, S> cols =
      ct::reshape<ct::shape<1, N>>(ct::iota<ct::accumulator_columns_t<ct::tile<int32_t, ct::shape<N>>, S>>());
  const ct::accumulator_rows_t<ct::tile<int32_t, ct::shape<M, 1>>, S> rows =
      ct::iota<ct::accumulator_rows_t<ct::tile<int32_t, ct::shape<M, 1>>, S>>() + shift;
  const auto kept = ct::where(cols < limit, s, -big);
  const auto mask = cols <= rows;
  const auto diagonal = ct::where(mask, s, -big);
  const auto blocked_kept = ct::where(ct::iota<ct::tile<int32_t, ct::shape<1, N>>>() < limit, s, -big);
  const auto other_kept = ct::where(cols < limit, s2, -big);
#if !defined(WEFT_TILES_SERIAL)
  using LS = typename S::layout_type;
  static_assert(std::is_same_v<typename decltype(cols)::layout_type, ct::mma_column_layout<LS>>);
  static_assert(std::is_same_v<typename decltype(rows)::layout_type, ct::mma_row_layout<LS>>);
  static_assert(std::is_same_v<typename decltype(kept)::layout_type, LS>);
  static_assert(std::is_same_v<typename decltype(mask)::layout_type, LS>);
  static_assert(std::is_same_v<typename decltype(diagonal)::layout_type, LS>);
  static_assert(std::is_same_v<typename decltype(blocked_kept)::layout_type, LS>);
  static_assert(std::is_same_v<typename decltype(other_kept)::layout_type, typename decltype(s2)::layout_type>);
#endif
  ct::store(below + ct::iota<ct::tile<int32_t, ct::shape<M, N>>>(), kept);
  ct::store(causal + ct::iota<ct::tile<int32_t, ct::shape<M, N>>>(), diagonal);
  ct::store(blocked + ct::iota<ct::tile<int32_t, ct::shape<M, N>>>(), blocked_kept);
  ct::store(other + ct::iota<ct::tile<int32_t, ct::shape<2 * M, N>>>(), other_kept);
}

#if !defined(__CUDACC_RTC__)
using namespace tile_test;

template <class A, class C, uint32_t M, uint32_t N, uint32_t K>
void run_columns(Random& random) {
  Buffer<A> a(M * K), a2(2 * M * K), b(K * N);
  Buffer<C> below(M * N), causal(M * N), blocked(M * N), other(2 * M * N);
  for (auto* buffer : {&a, &a2, &b}) {
    for (size_t i = 0; i < buffer->size(); ++i) (*buffer)[i] = from_double<A>(random.uniform(-2.0, 2.0));
  }
  const int limit = static_cast<int>(random.next() % N);
  const int shift = static_cast<int>(random.next() % N) - static_cast<int>(M / 2);
  launch({1, 1, 1}, columns_kernel<A, C, M, N, K>, static_cast<const A*>(a.get()), static_cast<const A*>(a2.get()),
         static_cast<const A*>(b.get()), below.get(), causal.get(), blocked.get(), other.get(), limit, shift);
  const std::string what = std::string("columns ") + type_name<A>() + " " + std::to_string(M) + "x" +
                           std::to_string(N) + "x" + std::to_string(K);
  const double tolerance = std::is_same_v<C, double> ? 1e-12 : 1e-4;
  auto product = [&](const Buffer<A>& left, uint32_t i, uint32_t j) {
    double sum = 0;
    for (uint32_t k = 0; k < K; ++k) sum += as_double(left[i * K + k]) * as_double(b[k * N + j]);
    return sum;
  };
  for (uint32_t i = 0; i < 2 * M; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      const std::string at = what + " row " + std::to_string(i) + " column " + std::to_string(j);
      const bool kept = static_cast<int>(j) < limit;
      const double s2 = product(a2, i, j);
      check(close(as_double(other[i * N + j]), kept ? s2 : -1e30, tolerance), at + " other: " + show(other[i * N + j]));
      if (i >= M) continue;
      const double s = product(a, i, j);
      check(close(as_double(below[i * N + j]), kept ? s : -1e30, tolerance), at + " below: " + show(below[i * N + j]));
      check(close(as_double(blocked[i * N + j]), kept ? s : -1e30, tolerance), at + " blocked: " + show(blocked[i * N + j]));
      const bool diagonal = static_cast<int>(j) <= static_cast<int>(i) + shift;
      check(close(as_double(causal[i * N + j]), diagonal ? s : -1e30, tolerance), at + " causal: " + show(causal[i * N + j]));
    }
  }
}

int main() {
  Random random(seed());
  // One warp column and two (64 x 64 over four warps: 2 x 2), narrow tiles, 8-row atoms of double.
  run_columns<weft::bfloat16, float, 64, 64, 32>(random);
  run_columns<weft::float16, float, 64, 16, 16>(random);
  run_columns<weft::float16, float, 16, 64, 32>(random);
  run_columns<double, double, 32, 32, 8>(random);
  return finish("test_mma_columns");
}
#endif
