// Shape operations: reshape and expand_dims (free: a layout maps fragment positions to
// row-major indices, which they keep), permute/transpose, cat and extract (an exchange through
// the shared scratch buffer on the GPU, a gather on the CPU target).
#pragma once

#include "weft/tiles/elementwise.h"

namespace weft::tiles {

// The tile with the same row-major sequence of elements and shape S (same size).
template <class S, class T, class S0, class L>
WEFT_TILE_FN tile<T, S, L> reshape(const tile<T, S0, L>& t) {
  static_assert(detail::check_tile_shape<S>());
  static_assert(detail::static_size<S>() == detail::static_size<S0>(), "ct::reshape keeps the number of elements");
  tile<T, S, L> out;
  WEFT_UNROLL
  for (uint32_t k = 0; k < L::kFragment; ++k) out.frag_[k] = t.frag_[k];
  return out;
}

namespace detail {
template <class S, size_t Axis, size_t... I>
WEFT_HD constexpr auto expanded_shape(index_sequence<I...>) {
  return type_identity<shape<static_cast<uint32_t>(I < Axis ? S::static_extent(I) : I == Axis ? 1 : S::static_extent(I - 1))...>>{};
}
template <class S, size_t... P>
WEFT_HD constexpr bool is_permutation() {
  constexpr size_t order[] = {P..., 0};
  bool seen[sizeof...(P) + 1] = {};
  for (size_t i = 0; i < sizeof...(P); ++i) {
    if (order[i] >= sizeof...(P) || seen[order[i]]) return false;
    seen[order[i]] = true;
  }
  return sizeof...(P) == S::rank();
}
}  // namespace detail

// The tile with a dimension of length 1 inserted before dimension `Axis` (0 <= Axis <= rank).
template <size_t Axis, class T, class S, class L>
WEFT_TILE_FN auto expand_dims(const tile<T, S, L>& t) {
  static_assert(Axis < S::rank() + 1, "ct::expand_dims<axis>: the axis must be at most the tile's rank");
  using S2 = typename decltype(detail::expanded_shape<S, Axis>(detail::make_index_sequence<S::rank() + 1>{}))::type;
  return ::weft::tiles::reshape<S2>(t);
}

// The tile whose dimension i is dimension P_i of t: out(c_0, ..., c_{n-1}) = t(c') with
// c'_{P_i} = c_i.
template <size_t... P, class T, class S, class L>
WEFT_TILE_FN auto permute(const tile<T, S, L>& t) {
  static_assert(detail::is_permutation<S, P...>(),
                "ct::permute<d0, d1, ...>: the axes must be a permutation of 0 .. rank-1");
  using S2 = shape<static_cast<uint32_t>(S::static_extent(P))...>;
  constexpr uint32_t kRank = static_cast<uint32_t>(S::rank());
  tile<T, S2> out;
  detail::exchange(out, t, [](uint32_t j) {
    constexpr size_t order[] = {P..., 0};
    uint32_t source = 0;
    for (uint32_t i = 0; i != kRank; ++i) {
      uint32_t c = (j / static_cast<uint32_t>(detail::shape_info<S2>::stride(i))) % static_cast<uint32_t>(S2::static_extent(i));
      source += c * static_cast<uint32_t>(detail::shape_info<S>::stride(static_cast<uint32_t>(order[i])));
    }
    return static_cast<int32_t>(source);
  });
  return out;
}

// The transpose of a 2-D tile.
template <class T, class S, class L>
WEFT_TILE_FN auto transpose(const tile<T, S, L>& t) {
  static_assert(S::rank() == 2, "ct::transpose takes a 2-D tile (use ct::permute for other ranks)");
  return ::weft::tiles::permute<1, 0>(t);
}

namespace detail {
template <class SA, class SB, size_t Axis, size_t... I>
WEFT_HD constexpr auto concatenated_shape(index_sequence<I...>) {
  return type_identity<shape<static_cast<uint32_t>(I == Axis ? SA::static_extent(I) + SB::static_extent(I) : SA::static_extent(I))...>>{};
}
template <class SA, class SB, size_t Axis>
WEFT_HD constexpr bool same_except() {
  if constexpr (SA::rank() != SB::rank()) {
    return false;
  } else {
    for (size_t d = 0; d != SA::rank(); ++d) {
      if (d != Axis && SA::static_extent(d) != SB::static_extent(d)) return false;
    }
    return true;
  }
}
}  // namespace detail

// a and b joined along `Axis` (their shapes equal elsewhere; the joined length must be a power
// of 2).
template <size_t Axis, class T, class SA, class LA, class SB, class LB>
WEFT_TILE_FN auto cat(const tile<T, SA, LA>& a, const tile<T, SB, LB>& b) {
  static_assert(Axis < SA::rank(), "ct::cat<axis>: the axis must be less than the tiles' rank");
  static_assert(detail::same_except<SA, SB, Axis>(), "ct::cat<axis>: the tiles' shapes must be equal except along the axis");
  static_assert(detail::is_pow2(SA::static_extent(Axis) + SB::static_extent(Axis)),
                "ct::cat<axis>: the joined length along the axis must be a power of 2 (a tile shape)");
  using S2 = typename decltype(detail::concatenated_shape<SA, SB, Axis>(detail::make_index_sequence<SA::rank()>{}))::type;
  constexpr uint32_t kInner = static_cast<uint32_t>(detail::shape_info<SA>::stride(Axis));  // same for b and out
  constexpr uint32_t kLenA = static_cast<uint32_t>(SA::static_extent(Axis));
  constexpr uint32_t kLenB = static_cast<uint32_t>(SB::static_extent(Axis));
  constexpr uint32_t kLen = kLenA + kLenB;
  tile<T, S2> out;
  detail::exchange(out, a, [](uint32_t j) {
    uint32_t outer = j / (kInner * kLen), c = (j / kInner) % kLen, inner = j % kInner;
    return c < kLenA ? static_cast<int32_t>((outer * kLenA + c) * kInner + inner) : -1;
  });
  detail::exchange(out, b, [](uint32_t j) {
    uint32_t outer = j / (kInner * kLen), c = (j / kInner) % kLen, inner = j % kInner;
    return c >= kLenA ? static_cast<int32_t>((outer * kLenB + (c - kLenA)) * kInner + inner) : -1;
  });
  return out;
}

// The sub-tile of shape S at block index (i0, i1, ...): elements [i_k * S_k, (i_k + 1) * S_k)
// along each dimension k (S_k divides the tile's length; indices must be in range).
template <class S, class T, class S0, class L, class... I>
WEFT_TILE_FN auto extract(const tile<T, S0, L>& t, I... index) {
  static_assert(detail::check_tile_shape<S>());
  static_assert(S::rank() == S0::rank() && sizeof...(I) == S0::rank(),
                "ct::extract<S>(tile, i...): S has the tile's rank and there is one index per dimension");
  static_assert((detail::is_integral<I> && ...), "ct::extract's block indices are integers");
  constexpr uint32_t kRank = static_cast<uint32_t>(S::rank());
  const uint32_t origin[] = {static_cast<uint32_t>(index)...};
  uint32_t base = 0;
  for (uint32_t d = 0; d != kRank; ++d) {
    base += origin[d] * static_cast<uint32_t>(S::static_extent(d)) * static_cast<uint32_t>(detail::shape_info<S0>::stride(d));
  }
  tile<T, S> out;
  detail::exchange(out, t, [base](uint32_t j) {
    uint32_t source = base;
    for (uint32_t d = 0; d != kRank; ++d) {
      uint32_t c = (j / static_cast<uint32_t>(detail::shape_info<S>::stride(d))) % static_cast<uint32_t>(S::static_extent(d));
      source += c * static_cast<uint32_t>(detail::shape_info<S0>::stride(d));
    }
    return static_cast<int32_t>(source);
  });
  return out;
}

}  // namespace weft::tiles
