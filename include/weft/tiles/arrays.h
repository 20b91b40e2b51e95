// weft's arrays (include/weft/device/array.h: a pointer, extents and strides in elements) as
// the tile library's spans: the loads and stores the code generator emits for ct.load and
// ct.store, gather, scatter and the atomics. A load's padding is a value of the element type (the
// Python faces also have -0.0).
#pragma once

#include "weft/device/array.h"
#include "weft/tiles/memory.h"
#include "weft/tiles/mma_pipeline.h"

namespace weft::tiles {
namespace detail {

template <class T, int N, size_t... D>
WEFT_HD auto array_span(const ::weft::Array<T, N>& array, index_sequence<D...>) {
  using E = extents<uint64_t, (static_cast<void>(D), dynamic_extent)...>;
  return tensor_span<T, E>(array.data, E(array.shape[D]...), array.strides[D]...);
}

template <class T, int N>
WEFT_HD auto array_span(const ::weft::Array<T, N>& array) {
  return array_span(array, make_index_sequence<static_cast<size_t>(N)>{});
}

}  // namespace detail

// The tile of shape S at block index (i0, i1, ...) of `array`: its elements
// array[i_k * S_k + j_k, ...]; those outside the array are `pad`.
template <class S, class T, int N, class... I>
WEFT_TILE_FN tile<T, S> load_array(const ::weft::Array<T, N>& array, T pad, I... index) {
  static_assert(sizeof...(I) == static_cast<size_t>(N), "load_array takes one block index per dimension");
  const int64_t indices[] = {static_cast<int64_t>(index)...};
  return detail::load_padded<S>(detail::array_span(array), pad, indices);
}

// Stores the elements of `value` that lie inside `array` at block index (i0, i1, ...).
template <class T, int N, class S, class L, class... I>
WEFT_TILE_FN void store_array(const ::weft::Array<T, N>& array, const tile<T, S, L>& value, I... index) {
  auto span = detail::array_span(array);
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

// mma_pipeline over two 2-D arrays: the code generator's pipelined K loop (sema::MmaPipeline).
template <class SA, class SB, uint32_t Stages, class Acc, class T, class K, class IndexA, class IndexB>
WEFT_TILE_FN auto mma_pipeline_arrays(const Acc& acc, const ::weft::Array<T, 2>& a, const ::weft::Array<T, 2>& b, K begin,
                                      K end, IndexA index_a, IndexB index_b) {
  return mma_pipeline<SA, SB, Stages>(acc, detail::array_span(a), detail::array_span(b), begin, end, index_a, index_b);
}

}  // namespace weft::tiles
