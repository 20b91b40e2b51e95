// weft's arrays (include/weft/device/array.h: a pointer, extents and strides in elements) as
// the tile library's spans: the loads and stores the code generator emits for ct.load and
// ct.store, gather, scatter and the atomics. A load's padding is a value of the element type (the
// Python faces also have -0.0). Also the debug=True forms of these and of extract(), which check
// what the seed and cuTile leave undefined (docs/tiles.md "Debugging tile kernels").
#pragma once

#include "weft/device/array.h"
#include "weft/tiles/memory.h"
#include "weft/tiles/mma_pipeline_tma.h"
#include "weft/tiles/shape_ops.h"

namespace weft::tiles {
namespace detail {

template <unsigned Facts, class T, int N, size_t... D>
WEFT_HD auto array_span(const ::weft::Array<T, N>& array, index_sequence<D...>) {
  using E = extents<uint64_t, (static_cast<void>(D), dynamic_extent)...>;
  return tensor_span<T, E, Facts>(array.data, E(array.shape[D]...), array.strides[D]...);
}

// The span of `array`, whose launch facts (span_facts.h) are Facts: the code generator passes
// those its type carries, which the runtime checked at launch.
template <unsigned Facts = 0, class T, int N>
WEFT_HD auto array_span(const ::weft::Array<T, N>& array) {
  return array_span<Facts>(array, make_index_sequence<static_cast<size_t>(N)>{});
}

}  // namespace detail

// The tile of shape S at block index (i0, i1, ...) of `array`: its elements
// array[i_k * S_k + j_k, ...]; those outside the array are `pad`. Facts: the array's launch
// facts (span_facts.h).
template <class S, unsigned Facts = 0, class T, int N, class... I>
WEFT_TILE_FN tile<T, S> load_array(const ::weft::Array<T, N>& array, T pad, I... index) {
  static_assert(sizeof...(I) == static_cast<size_t>(N), "load_array takes one block index per dimension");
  const int64_t indices[] = {static_cast<int64_t>(index)...};
  return detail::load_padded<S>(detail::array_span<Facts>(array), pad, indices);
}

// Stores the elements of `value` that lie inside `array` at block index (i0, i1, ...); a 2-D
// tile in an mma layout goes through the ring where it can (store_through_ring). Facts: the
// array's launch facts (span_facts.h).
template <unsigned Facts = 0, class T, int N, class S, class L, class... I>
WEFT_TILE_FN void store_array(const ::weft::Array<T, N>& array, const tile<T, S, L>& value, I... index) {
  auto span = detail::array_span<Facts>(array);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
  if constexpr (N == 2 && (detail::is_mma_layout_of<L, 16> || detail::is_mma_layout_of<L, 8>)) {
    // A whole tile the ring cannot take stores with checks too: one unrolled store fewer to
    // compile (the 128 x 256 accumulator's took about 0.2 s of NVVM).
    const int64_t indices[] = {static_cast<int64_t>(index)...};
    if (!detail::store_through_ring(span, value, indices)) detail::store_tile<true, S>(span, value, indices);
    return;
  }
#endif
  store(partition_view<decltype(span), S>(span), value, index...);
}

// The pointers to array[i0, i1, ...] for the index tiles `index` (one per dimension, one shape).
template <class T, int N, class... X>
WEFT_TILE_FN auto array_pointers(const ::weft::Array<T, N>& array, const X&... index) {
  return map(
      [&](auto... i) {
        const int64_t at[] = {static_cast<int64_t>(i)...};
        int64_t offset = 0;
        for (int d = 0; d < N; ++d) offset += at[d] * static_cast<int64_t>(array.strides[d]);
        return array.data + offset;
      },
      index...);
}

// Where `mask` holds and, when Checked, every index lies inside the array.
template <bool Checked, class T, int N, class M, class... X>
WEFT_TILE_FN auto array_access_mask(const ::weft::Array<T, N>& array, const M& mask, const X&... index) {
  return map(
      [&](bool m, auto... i) {
        if constexpr (Checked) {
          const int64_t at[] = {static_cast<int64_t>(i)...};
          for (int d = 0; d < N; ++d) m = m && at[d] >= 0 && static_cast<uint64_t>(at[d]) < array.shape[d];
        }
        return m;
      },
      mask, index...);
}

// array[i0, i1, ...] element-wise for the integer tiles `index` (one per dimension, all of the
// mask's shape); `pad` where the mask is false or (Checked) an index lies outside the array.
template <bool Checked, class T, int N, class M, class... X>
WEFT_TILE_FN auto gather_array(const ::weft::Array<T, N>& array, T pad, const M& mask, const X&... index) {
  static_assert(sizeof...(X) == static_cast<size_t>(N), "gather_array takes one index tile per dimension");
  return load(array_pointers(array, index...), array_access_mask<Checked>(array, mask, index...), pad);
}

// Stores `values` at array[i0, i1, ...] element-wise where the mask holds and (Checked) the
// indices lie inside the array.
template <bool Checked, class T, int N, class V, class M, class... X>
WEFT_TILE_FN void scatter_array(const ::weft::Array<T, N>& array, const V& values, const M& mask, const X&... index) {
  static_assert(sizeof...(X) == static_cast<size_t>(N), "scatter_array takes one index tile per dimension");
  store(array_pointers(array, index...), values, array_access_mask<Checked>(array, mask, index...));
}

namespace detail {
// A K loop's b array as mma_pipeline takes it: K x N as stored, or with KMajorB the K x N view of
// the N x K array `b` (the loop loads it with order=(1, 0)).
template <bool KMajorB, class T>
WEFT_TILE_FN auto pipeline_b_span(const ::weft::Array<T, 2>& b) {
  if constexpr (KMajorB) {
    return transposed_span(array_span(b));
  } else {
    return array_span(b);
  }
}
}  // namespace detail

// mma_pipeline over two 2-D arrays: the code generator's pipelined K loop (sema::MmaPipeline),
// with KMajorB over an N x K array b (detail::pipeline_b_span).
template <class SA, class SB, uint32_t Stages, class Operand = void, bool KMajorB = false, class Acc, class T, class K,
          class IndexA, class IndexB>
WEFT_TILE_FN auto mma_pipeline_arrays(const Acc& acc, const ::weft::Array<T, 2>& a, const ::weft::Array<T, 2>& b, K begin,
                                      K end, IndexA index_a, IndexB index_b) {
  return mma_pipeline<SA, SB, Stages, Operand, KMajorB>(acc, detail::array_span(a), detail::pipeline_b_span<KMajorB>(b),
                                                        begin, end, index_a, index_b);
}

// mma_pipeline_tma over two 2-D arrays: the code generator's pipelined K loop of 16-bit float
// operands (fp8 ones with KMajorB) in a kernel whose parameters a and b are
// (sema::MmaPipeline::parameterA).
template <class SA, class SB, uint32_t Stages, uint32_t TmaStages, bool KMajorB = false, class Acc, class T, class K,
          class IndexA, class IndexB>
WEFT_TILE_FN auto mma_pipeline_tma_arrays(const Acc& acc, const ::weft::Array<T, 2>& a, const ::weft::Array<T, 2>& b,
                                          K begin, K end, IndexA index_a, IndexB index_b, const tma_operands& tma) {
  return mma_pipeline_tma<SA, SB, Stages, TmaStages, KMajorB>(
      acc, detail::array_span(a), detail::pipeline_b_span<KMajorB>(b), begin, end, index_a, index_b, tma);
}

// ---- debug=True (docs/tiles.md "Debugging tile kernels") ----
//
// The checked overloads below take the operation's check site first. They test what the seed
// and cuTile leave undefined and raise IndexError with the SIMT debug mode's report
// (weft/device/intrinsics.h) before anything is read or written. A tile block is one logical
// thread: every thread of the block fails together with the same record, so the report (block,
// thread 0, indices, shape) is the same on both targets. Only debug=True units (WEFT_CHECKS)
// instantiate them; release code calls the unchecked forms and pays nothing.

// The check site of a tile operation of a debug=True kernel.
struct checked_at {
  uint32_t site;
};

namespace detail {

// Raises IndexError at `site` for the indices `given` into `shape`, out of bounds along `axis`.
template <int N>
[[noreturn]] WEFT_TILE_FN void fail_tile_index(uint32_t site, const int64_t (&given)[N],
                                               const uint64_t (&shape)[N], int axis) {
  ::weft::detail::fail(::weft::detail::Failure{CheckKind::Bounds, site, static_cast<uint32_t>(axis),
                                               static_cast<uint32_t>(N), shape, static_cast<uint32_t>(N),
                                               given, given[axis], shape[axis]});
}

// The first of `shape`'s axes along which index[d] lies outside [0, shape[d]), or -1.
template <int N>
WEFT_HD int axis_outside(const int64_t (&index)[N], const uint64_t (&shape)[N]) {
  for (int d = 0; d < N; ++d)
    if (index[d] < 0 || static_cast<uint64_t>(index[d]) >= shape[d]) return d;
  return -1;
}

// The tile of shape S at block index `index` must overlap the array (cuTile: a tile wholly
// outside is undefined). The report names the tile's first element.
template <class S, class T, int N, class... I>
WEFT_TILE_FN void check_tile_position(uint32_t site, const ::weft::Array<T, N>& array, I... index) {
  const int64_t given[] = {static_cast<int64_t>(index)...};
  int64_t first[N];
  uint64_t shape[N], tiles[N];
  for (int d = 0; d < N; ++d) {
    const uint64_t extent = S::static_extent(static_cast<size_t>(d));
    shape[d] = array.shape[d];
    tiles[d] = (shape[d] + extent - 1) / extent;
    first[d] = static_cast<int64_t>(static_cast<uint64_t>(given[d]) * extent);  // wraps, never overflows
  }
  int axis = axis_outside(given, tiles);
  if (axis >= 0) fail_tile_index(site, first, shape, axis);
}

// The smallest of the block's threads' `value`s and the lowest thread that holds it, through
// the scratch buffer (one slot per thread, no races); every thread calls it. On the CPU target
// the block's one thread has it.
struct block_minimum {
  uint32_t value, thread;
};
WEFT_TILE_FN block_minimum block_min(uint32_t value) {
#if defined(WEFT_TILES_SERIAL)
  return {value, 0};
#else
  uint32_t* slots = scratch_as<uint32_t>();
  block_sync();
  slots[thread_rank()] = value;
  block_sync();
  uint32_t who = 0;
  for (uint32_t t = 0; t < kBlockThreads; ++t)
    if (slots[t] < slots[who]) who = t;
  return {slots[who], who};  // the next use of the scratch starts with a barrier
#endif
}

// The first element, in row-major order, of index tiles `index` (one per dimension of `array`,
// all of the mask's shape) that the mask selects and that lies outside the array: its row-major
// position (kNoElement when none does) and its indices, the same in every thread of the block.
// On the GPU each thread finds its own first, and the block agrees on the smallest through the
// scratch buffer (two barriers, then one more to share the winner's indices).
inline constexpr uint32_t kNoElement = ~0u;
template <int N>
struct element_outside {
  uint32_t position;
  int64_t index[N];
};
template <class T, int N, class M, class... X>
WEFT_TILE_FN element_outside<N> first_outside(const ::weft::Array<T, N>& array, const M& mask,
                                              const X&... index) {
  using L = typename M::layout_type;
  uint64_t shape[N];
  for (int d = 0; d < N; ++d) shape[d] = array.shape[d];
  element_outside<N> first{kNoElement, {}};
  auto scan = [&](const auto&... x) {
    WEFT_UNROLL
    for (uint32_t k = 0; k < L::kFragment; ++k) {
      const int64_t i[] = {static_cast<int64_t>(element(x, k))...};
      const uint32_t position = L::index(thread_rank(), k);
      if (element(mask, k) && position < first.position && axis_outside(i, shape) >= 0) {
        first.position = position;
        for (int d = 0; d < N; ++d) first.index[d] = i[d];
      }
    }
  };
  scan(in_layout<L>(index)...);
  const block_minimum smallest = block_min(first.position);
  if (smallest.value == kNoElement) return first;  // the same answer in every thread
#if !defined(WEFT_TILES_SERIAL)
  // The winner's indices, after the slots block_min used.
  int64_t* winner = reinterpret_cast<int64_t*>(scratch_as<uint32_t>() + kBlockThreads);
  static_assert(kBlockThreads * sizeof(uint32_t) + N * sizeof(int64_t) <= kScratchBytes);
  if (thread_rank() == smallest.thread)
    for (int d = 0; d < N; ++d) winner[d] = first.index[d];
  block_sync();
  first.position = smallest.value;
  for (int d = 0; d < N; ++d) first.index[d] = winner[d];
#endif
  return first;
}

// Where `mask` holds, every index must lie inside the array (check_bounds=False leaves an index
// outside undefined); the report names the first one outside in row-major order.
template <class T, int N, class M, class... X>
WEFT_TILE_FN void check_element_indices(uint32_t site, const ::weft::Array<T, N>& array, const M& mask,
                                        const X&... index) {
  element_outside<N> first = first_outside(array, mask, index...);
  if (first.position == kNoElement) return;
  uint64_t shape[N];
  for (int d = 0; d < N; ++d) shape[d] = array.shape[d];
  fail_tile_index(site, first.index, shape, axis_outside(first.index, shape));
}

// The block index of extract()'s sub-tile of shape S in a tile of shape S0: each index must lie
// in [-count, count) for the count of sub-tiles along its axis (a negative one counts from the
// end, as Python's); the report names the indices and the counts.
template <class S, class S0, class... I>
WEFT_TILE_FN void check_extract_index(uint32_t site, I... index) {
  constexpr int N = static_cast<int>(sizeof...(I));
  const int64_t given[] = {static_cast<int64_t>(index)...};
  uint64_t counts[N];
  int64_t shifted[N];
  for (int d = 0; d < N; ++d) {
    counts[d] = S0::static_extent(static_cast<size_t>(d)) / S::static_extent(static_cast<size_t>(d));
    shifted[d] = static_cast<int64_t>(static_cast<uint64_t>(given[d]) + counts[d]);  // wraps, never overflows
  }
  uint64_t doubled[N];
  for (int d = 0; d < N; ++d) doubled[d] = 2 * counts[d];
  int axis = axis_outside(shifted, doubled);
  if (axis >= 0) fail_tile_index(site, given, counts, axis);
}

template <class S, class T, class S0, class L, size_t... D, class... I>
WEFT_TILE_FN auto extract_wrapped(const tile<T, S0, L>& t, index_sequence<D...>, I... index) {
  return extract<S>(t, static_cast<uint32_t>(index) &
                           static_cast<uint32_t>(S0::static_extent(D) / S::static_extent(D) - 1)...);
}

}  // namespace detail

// The divisors of an integer // or % in a tile expression must be nonzero: checked over the
// whole tile by every thread of the block together, before the element-wise expression runs
// (whose own per-element check then never fails), so that the block stops at once with the
// same report on both targets.
template <class D>
WEFT_TILE_FN void check_divisors(uint32_t site, const D& divisors) {
  uint32_t nonzero = 1;  // 0 in a thread that holds a zero divisor
  if constexpr (detail::is_tile<D>) {
    WEFT_UNROLL
    for (uint32_t k = 0; k < D::layout_type::kFragment; ++k)
      nonzero = nonzero && detail::element(divisors, k) != 0;
  } else {
    nonzero = divisors != 0;
  }
  if (detail::block_min(nonzero).value == 0)
    ::weft::detail::fail(
        ::weft::detail::Failure{CheckKind::ZeroDivision, site, 0, 0, nullptr, 0, nullptr, 0, 0});
}

// load_array, checked: the tile must overlap the array.
template <class S, unsigned Facts = 0, class T, int N, class... I>
WEFT_TILE_FN tile<T, S> load_array(checked_at at, const ::weft::Array<T, N>& array, T pad, I... index) {
  detail::check_tile_position<S>(at.site, array, index...);
  return load_array<S, Facts>(array, pad, index...);
}

// store_array, checked: the tile must overlap the array.
template <unsigned Facts = 0, class T, int N, class S, class L, class... I>
WEFT_TILE_FN void store_array(checked_at at, const ::weft::Array<T, N>& array, const tile<T, S, L>& value,
                              I... index) {
  detail::check_tile_position<S>(at.site, array, index...);
  store_array<Facts>(array, value, index...);
}

// array_access_mask of check_bounds=False, checked: every index the mask selects must lie inside.
template <class T, int N, class M, class... X>
WEFT_TILE_FN auto array_access_mask(checked_at at, const ::weft::Array<T, N>& array, const M& mask,
                                    const X&... index) {
  detail::check_element_indices(at.site, array, mask, index...);
  return array_access_mask<false>(array, mask, index...);
}

// gather_array of check_bounds=False, checked.
template <class T, int N, class M, class... X>
WEFT_TILE_FN auto gather_array(checked_at at, const ::weft::Array<T, N>& array, T pad, const M& mask,
                               const X&... index) {
  detail::check_element_indices(at.site, array, mask, index...);
  return gather_array<false>(array, pad, mask, index...);
}

// scatter_array of check_bounds=False, checked.
template <class T, int N, class V, class M, class... X>
WEFT_TILE_FN void scatter_array(checked_at at, const ::weft::Array<T, N>& array, const V& values,
                                const M& mask, const X&... index) {
  detail::check_element_indices(at.site, array, mask, index...);
  scatter_array<false>(array, values, mask, index...);
}

// extract() of the Python faces: block index i along an axis of n sub-tiles is taken modulo n
// (n is a power of 2: one `and`), so that an index outside [0, n) never reads outside the tile
// and -1 is the last sub-tile.
template <class S, class T, class S0, class L, class... I>
WEFT_TILE_FN auto extract_wrapped(const tile<T, S0, L>& t, I... index) {
  static_assert(sizeof...(I) == S0::rank(), "extract_wrapped takes one block index per dimension");
  return detail::extract_wrapped<S>(t, detail::make_index_sequence<sizeof...(I)>{}, index...);
}

// extract_wrapped, checked: each index must lie in [-n, n).
template <class S, class T, class S0, class L, class... I>
WEFT_TILE_FN auto extract_wrapped(checked_at at, const tile<T, S0, L>& t, I... index) {
  detail::check_extract_index<S, S0>(at.site, index...);
  return extract_wrapped<S>(t, index...);
}

}  // namespace weft::tiles
