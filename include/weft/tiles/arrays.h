// weft's arrays (include/weft/device/array.h: a pointer, extents and strides in elements) as
// the tile library's spans: the loads and stores the code generator emits for ct.load and
// ct.store. A load's padding is a value of the element type (the Python faces also have -0.0).
#pragma once

#include "weft/device/array.h"
#include "weft/tiles/memory.h"

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
  using Tile = tile<T, S>;
  using L = typename Tile::layout_type;
  constexpr uint32_t kLast = static_cast<uint32_t>(S::static_extent(S::rank() - 1));
  constexpr uint32_t P = L::kVector < kLast ? L::kVector : kLast;
  const int64_t indices[] = {static_cast<int64_t>(index)...};
  Tile out;
  detail::visit_view_tile<Tile>(detail::array_span(array), indices,
                                [&](uint32_t k0, const T* p, int64_t countInRow, bool rowsIn, bool vectorOk, int64_t stride) {
                                  if (vectorOk) {
                                    detail::load_vector<P>(p, &out.frag_[k0]);
                                  } else {
                                    WEFT_UNROLL
                                    for (uint32_t v = 0; v < P; ++v)
                                      out.frag_[k0 + v] = rowsIn && v < countInRow ? p[v * stride] : pad;
                                  }
                                });
  return out;
}

// Stores the elements of `value` that lie inside `array` at block index (i0, i1, ...).
template <class T, int N, class S, class L, class... I>
WEFT_TILE_FN void store_array(const ::weft::Array<T, N>& array, const tile<T, S, L>& value, I... index) {
  auto span = detail::array_span(array);
  store(partition_view<decltype(span), S>(span), value, index...);
}

}  // namespace weft::tiles
