// Tiles and memory against scalar references on seeded random data: tensor spans (row-major,
// row-pitched, transposed, static and dynamic extents), partition views of rank 1, 2 and 3 with
// partial edge tiles, every padding mode, aligned (vector) and misaligned (element) paths,
// num_tiles, stores of partial tiles; pointer tiles: gathers, masked loads, scatters with and
// without masks, broadcasting pointer arithmetic, scalar pointers.
#include "tile_test.h"

namespace ct = ::cuda::tiles;

// Each block loads the tile at its block index from a view of `in` (extents e0..e2, strides
// s0..s2 in elements), writes it densely to tiles[block * size ...] (padding visible), and stores
// it through a view of `out` (same extents and strides).
template <class T, class TS, class Padding, int Rank>
__tile_global__ void view_kernel(const T* in, T* out, T* tiles, long e0, long e1, long e2, long s0, long s1, long s2,
                                 long* counts) {
  using Tile = ct::tile<T, TS>;
  auto b = ct::bid();
  long block = b.x + static_cast<long>(ct::num_blocks().x) * (b.y + static_cast<long>(ct::num_blocks().y) * b.z);
  using I = ct::tile<int32_t, TS>;
  auto dense = tiles + block * static_cast<long>(Tile::size()) + ct::iota<I>();
  if constexpr (Rank == 1) {
    auto span = ct::tensor_span(in, ct::extents<long, ct::dynamic_extent>{e0}, s0);
    auto view = ct::partition_view<decltype(span), TS>(span, Padding{});
    Tile t = ct::load(view, b.x);
    ct::store(dense, t);
    auto ospan = ct::tensor_span(out, ct::extents<long, ct::dynamic_extent>{e0}, s0);
    ct::store(ct::partition_view<decltype(ospan), TS>(ospan), t, b.x);
    if (block == 0) counts[0] = ct::num_tiles(view, 0);
  } else if constexpr (Rank == 2) {
    auto span = ct::tensor_span(in, ct::extents<long, ct::dynamic_extent, ct::dynamic_extent>{e0, e1}, s0, s1);
    auto view = ct::make_partition_view<TS>(span, Padding{});
    Tile t = ct::load(view, b.y, b.x);
    ct::store(dense, t);
    auto ospan = ct::tensor_span(out, ct::extents<long, ct::dynamic_extent, ct::dynamic_extent>{e0, e1}, s0, s1);
    ct::store(ct::make_partition_view<TS>(ospan), t, b.y, b.x);
    if (block == 0) {
      counts[0] = ct::num_tiles(view, 0);
      counts[1] = ct::num_tiles(view, 1);
    }
  } else {
    using E = ct::extents<long, ct::dynamic_extent, ct::dynamic_extent, ct::dynamic_extent>;
    auto span = ct::tensor_span(in, E{e0, e1, e2}, s0, s1, s2);
    auto view = ct::make_partition_view<TS>(span, Padding{});
    Tile t = ct::load(view, b.z, b.y, b.x);
    ct::store(dense, t);
    auto ospan = ct::tensor_span(out, E{e0, e1, e2}, s0, s1, s2);
    ct::store(ct::make_partition_view<TS>(ospan), t, b.z, b.y, b.x);
    if (block == 0) {
      counts[0] = ct::num_tiles(view, 0);
      counts[1] = ct::num_tiles(view, 1);
      counts[2] = ct::num_tiles(view, 2);
    }
  }
}

// A row-major span built from static extents (CTAD with 4_ic literals) and a mixed one.
__tile_global__ void static_extents_kernel(const float* in, float* out) {
  using namespace ct::literals;
  auto span = ct::tensor_span{in, ct::extents{4_ic, 8_ic}};
  static_assert(decltype(span)::extents_type::rank_dynamic() == 0, "4_ic gives static extents");
  auto view = ct::partition_view<decltype(span), ct::shape<4, 8>>(span);
  auto t = ct::load(view, 0, 0);
  auto mixed = ct::tensor_span{out, ct::extents{4_ic, 8}};
  static_assert(decltype(mixed)::extents_type::rank_dynamic() == 1, "a plain integer gives a dynamic extent");
  ct::store(ct::make_partition_view<ct::shape<4, 8>>(mixed), t * 2.0f, 0, 0);
}

// Gathers, masked gathers and scatters through pointer tiles.
template <class T>
__tile_global__ void pointer_kernel(const T* in, const int32_t* index, const int32_t* permutation, T* gathered,
                                    T* masked, T* scattered, T* scatteredMasked, T* scalars) {
  using I = ct::tile<int32_t, ct::shape<8, 32>>;
  auto offsets = ct::iota<I>();
  auto idx = ct::load(index + offsets);
  auto values = ct::load(in + idx);  // gather
  ct::store(gathered + offsets, values);
  auto mask = ct::lt(idx, 100);
  ct::store(masked + offsets, ct::load(in + idx, mask, ct::convert<T>(3)));  // masked gather, other = 3
  auto perm = ct::load(permutation + offsets);
  ct::store(scattered + perm, values);  // scatter to distinct places
  ct::store(scatteredMasked + perm, values, ct::ge(idx, 50));
  // Broadcasting pointer arithmetic: a (8, 1) column of row starts plus a (1, 32) row.
  auto rows = ct::reshape<ct::shape<8, 1>>(ct::iota<ct::tile<int32_t, ct::shape<8>>>()) * 32;
  auto cols = ct::reshape<ct::shape<1, 32>>(ct::iota<ct::tile<int32_t, ct::shape<32>>>());
  auto grid = (in + rows) + cols;
  static_assert(decltype(grid)::rank() == 2 && decltype(grid)::size() == 256, "a (8, 32) pointer tile");
  ct::store(gathered + 256 + offsets, ct::load(grid));
  // Scalar pointers: a load, and a store done once per block.
  T first = ct::load(in + 5);
  ct::store(scalars + 1, first);
  ct::store(scalars + 2, first, false);
  ct::store(scalars + 3 + ct::zeros<I>(), values, ct::full<ct::tile<bool, ct::shape<8, 32>>>(false));
}

#if !defined(__CUDACC_RTC__)
using namespace tile_test;

template <class T>
T pad_value(int padding) {
  if (padding == 0) return from_double<T>(0.0);
  if (padding == 1) return from_double<T>(std::numeric_limits<double>::infinity());
  if (padding == 2) return from_double<T>(-std::numeric_limits<double>::infinity());
  return from_double<T>(std::nan(""));
}

template <class T>
T random_element(Random& random) {
  if constexpr (std::is_integral_v<T>) {
    return random.bits<T>();
  } else {
    return from_double<T>(random.uniform(-1000.0, 1000.0));
  }
}

// Runs view_kernel over extents e, strides s (-1: row-major), base offset `misalign` elements.
template <class T, class TS, class Padding, int PaddingCode>
void run_view(Random& random, std::vector<long> e, std::vector<long> s, size_t misalign) {
  constexpr int R = TS::rank();
  if (s.empty()) {
    s.assign(R, 1);
    for (int d = R - 2; d >= 0; --d) s[d] = s[d + 1] * e[d + 1];
  }
  size_t footprint = 1;
  for (int d = 0; d < R; ++d) footprint += static_cast<size_t>((e[d] - 1) * s[d]);
  Buffer<T> in(footprint, misalign), out(footprint, misalign);
  T sentinel = from_double<T>(77.0);
  for (size_t i = 0; i < footprint; ++i) {
    in[i] = random_element<T>(random);
    out[i] = sentinel;
  }
  long tiles[3] = {1, 1, 1};
  for (int d = 0; d < R; ++d) tiles[d] = (e[d] + static_cast<long>(TS::static_extent(d)) - 1) / static_cast<long>(TS::static_extent(d));
  long blocks = tiles[0] * tiles[1] * tiles[2];
  constexpr size_t tileSize = ct::detail::static_size<TS>();
  Buffer<T> dense(static_cast<size_t>(blocks) * tileSize);
  Buffer<long> counts(3);
  ct::dim3_t grid{1, 1, 1};
  if (R == 1) grid = {static_cast<uint32_t>(tiles[0]), 1, 1};
  if (R == 2) grid = {static_cast<uint32_t>(tiles[1]), static_cast<uint32_t>(tiles[0]), 1};
  if (R == 3) grid = {static_cast<uint32_t>(tiles[2]), static_cast<uint32_t>(tiles[1]), static_cast<uint32_t>(tiles[0])};
  long e0 = e[0], e1 = R > 1 ? e[1] : 1, e2 = R > 2 ? e[2] : 1, s0 = s[0], s1 = R > 1 ? s[1] : 1, s2 = R > 2 ? s[2] : 1;
  launch(grid, view_kernel<T, TS, Padding, R>, static_cast<const T*>(in.get()), out.get(), dense.get(), e0, e1, e2, s0,
         s1, s2, counts.get());
  std::string what = std::string("view ") + type_name<T>() + " rank " + std::to_string(R) + " padding " +
                     std::to_string(PaddingCode) + " misalign " + std::to_string(misalign);
  for (int d = 0; d < R; ++d) check(counts[d] == tiles[d], what + " num_tiles axis " + std::to_string(d));
  // The loaded tiles: in-bounds elements from `in`, others the padding.
  T pad = pad_value<T>(PaddingCode);
  for (long block = 0; block < blocks; ++block) {
    long ti[3] = {0, 0, 0};
    long rest = block;
    // block = x + nx * (y + ny * z); x is the last dimension's tile index.
    for (int d = R - 1; d >= 0; --d) {
      ti[d] = rest % tiles[d];
      rest /= tiles[d];
    }
    for (size_t j = 0; j < tileSize; ++j) {
      long c[3] = {0, 0, 0};
      size_t r = j;
      for (int d = R - 1; d >= 0; --d) {
        c[d] = static_cast<long>(r % TS::static_extent(d));
        r /= TS::static_extent(d);
      }
      bool inside = true;
      long offset = 0;
      for (int d = 0; d < R; ++d) {
        long g = ti[d] * static_cast<long>(TS::static_extent(d)) + c[d];
        inside = inside && g < e[d];
        offset += g * s[d];
      }
      T expected = inside ? in[static_cast<size_t>(offset)] : pad;
      T got = dense[static_cast<size_t>(block) * tileSize + j];
      check(same_value(got, expected), what + " block " + std::to_string(block) + " element " + std::to_string(j) + ": " +
                                           show(got) + ", expected " + show(expected));
    }
  }
  // The stores: every element of the span written once, nothing else touched.
  std::vector<char> covered(footprint, 0);
  for (long i0 = 0; i0 < e[0]; ++i0) {
    for (long i1 = 0; i1 < (R > 1 ? e[1] : 1); ++i1) {
      for (long i2 = 0; i2 < (R > 2 ? e[2] : 1); ++i2) covered[static_cast<size_t>(i0 * s[0] + i1 * s1 + i2 * s2)] = 1;
    }
  }
  for (size_t i = 0; i < footprint; ++i) {
    T expected = covered[i] ? in[i] : sentinel;
    check(same_value(out[i], expected), what + " store at " + std::to_string(i));
  }
}

template <class T>
void run_pointers(Random& random) {
  constexpr int n = 256;
  Buffer<T> in(2 * n), gathered(2 * n), masked(n), scattered(n), scatteredMasked(n), scalars(4);
  Buffer<int32_t> index(n), permutation(n);
  for (int i = 0; i < 2 * n; ++i) in[i] = random_element<T>(random);
  std::vector<int32_t> perm(n);
  for (int i = 0; i < n; ++i) {
    index[i] = static_cast<int32_t>(random.next() % (2 * n));
    perm[i] = i;
  }
  for (int i = n - 1; i > 0; --i) std::swap(perm[i], perm[random.next() % (i + 1)]);
  T sentinel = from_double<T>(55.0);
  for (int i = 0; i < n; ++i) {
    permutation[i] = perm[i];
    scattered[i] = sentinel;
    scatteredMasked[i] = sentinel;
  }
  for (int i = 0; i < 4; ++i) scalars[i] = sentinel;
  launch({1, 1, 1}, pointer_kernel<T>, static_cast<const T*>(in.get()), static_cast<const int32_t*>(index.get()),
         static_cast<const int32_t*>(permutation.get()), gathered.get(), masked.get(), scattered.get(),
         scatteredMasked.get(), scalars.get());
  std::string what = std::string("pointers ") + type_name<T>();
  for (int i = 0; i < n; ++i) {
    T value = in[index[i]];
    check(same_value(gathered[i], value), what + " gather " + std::to_string(i));
    check(same_value(masked[i], index[i] < 100 ? value : from_double<T>(3.0)), what + " masked gather " + std::to_string(i));
    check(same_value(scattered[perm[i]], value), what + " scatter " + std::to_string(i));
    check(same_value(scatteredMasked[perm[i]], index[i] >= 50 ? value : sentinel), what + " masked scatter " + std::to_string(i));
    check(same_value(gathered[n + i], in[i]), what + " broadcast pointer arithmetic " + std::to_string(i));
  }
  check(same_value(scalars[1], in[5]), what + " scalar pointer load and store");
  check(same_value(scalars[2], sentinel) && same_value(scalars[3], sentinel), what + " masked-off stores write nothing");
}

int main() {
  Random random(seed());
  // Rank 1: partial edge tile, every padding, aligned and misaligned bases, a strided span.
  run_view<float, ct::shape<128>, ct::padding_zero_t, 0>(random, {1000}, {}, 0);
  run_view<float, ct::shape<128>, ct::padding_pos_inf_t, 1>(random, {1000}, {}, 0);
  run_view<float, ct::shape<128>, ct::padding_neg_inf_t, 2>(random, {1000}, {}, 1);
  run_view<float, ct::shape<128>, ct::padding_nan_t, 3>(random, {1000}, {}, 3);
  run_view<float, ct::shape<512>, ct::padding_zero_t, 0>(random, {1537}, {}, 0);
  run_view<double, ct::shape<64>, ct::padding_nan_t, 3>(random, {100}, {3}, 0);
  run_view<int8_t, ct::shape<256>, ct::padding_zero_t, 0>(random, {1000}, {}, 0);
  run_view<int64_t, ct::shape<1>, ct::padding_zero_t, 0>(random, {5}, {}, 0);
  run_view<weft::float16, ct::shape<32>, ct::padding_neg_inf_t, 2>(random, {70}, {}, 1);
  // Rank 2: row-major, a padded row pitch, transposed strides, narrow and wide tiles.
  run_view<int32_t, ct::shape<8, 16>, ct::padding_zero_t, 0>(random, {37, 45}, {}, 0);
  run_view<int32_t, ct::shape<8, 16>, ct::padding_zero_t, 0>(random, {37, 45}, {48, 1}, 0);
  run_view<float, ct::shape<16, 64>, ct::padding_pos_inf_t, 1>(random, {40, 130}, {132, 1}, 0);
  run_view<double, ct::shape<4, 4>, ct::padding_neg_inf_t, 2>(random, {9, 7}, {1, 9}, 0);
  run_view<uint8_t, ct::shape<4, 32>, ct::padding_zero_t, 0>(random, {13, 70}, {}, 1);
  run_view<weft::bfloat16, ct::shape<2, 128>, ct::padding_nan_t, 3>(random, {5, 300}, {}, 0);
  run_view<float, ct::shape<128, 2>, ct::padding_zero_t, 0>(random, {200, 3}, {}, 0);
  run_view<uint16_t, ct::shape<1, 1>, ct::padding_zero_t, 0>(random, {3, 2}, {}, 0);
  // Rank 3.
  run_view<weft::float16, ct::shape<2, 4, 8>, ct::padding_nan_t, 3>(random, {5, 6, 7}, {}, 0);
  run_view<int16_t, ct::shape<4, 2, 16>, ct::padding_zero_t, 0>(random, {4, 9, 33}, {400, 40, 1}, 0);

  {
    Buffer<float> in(32), out(32);
    for (int i = 0; i < 32; ++i) in[i] = static_cast<float>(random.uniform(-10, 10));
    launch({1, 1, 1}, static_extents_kernel, static_cast<const float*>(in.get()), out.get());
    for (int i = 0; i < 32; ++i) check(out[i] == in[i] * 2.0f, "static extents element " + std::to_string(i));
  }

  run_pointers<float>(random);
  run_pointers<int64_t>(random);
  run_pointers<weft::float16>(random);
  run_pointers<uint8_t>(random);
  return finish("test_memory");
}
#endif
